"""``json.loads`` and ``json.dumps`` without importing the ``json`` package.

Why: a hook is a new process per tool call, and ``import json`` costs one
about 1.6 ms on this project's machines (four modules, six regexes compiled
at import), most of a millisecond more than the work it does for a hook. The
parsing and the encoding are CPython's own C accelerator, ``_json``, driven
exactly as ``json`` drives it, so the results are the same byte for byte
(``packages/core/tests/test_fastjson.py`` compares them on generated data).
Whatever the fast path does not handle (a byte order mark, UTF-16 bytes,
``indent``, any invalid input) goes to ``json`` itself, so the errors are
``json``'s own ``JSONDecodeError`` (a ``ValueError``) with its messages.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dump_line", "dump_state", "dumps", "loads", "scan"]

_WHITESPACE = " \t\n\r"  # what json skips around a document
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """The attributes ``_json.make_scanner`` reads, set as ``json.JSONDecoder()`` sets them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan_once = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed context


def loads(text: str | bytes | bytearray) -> Any:
    """``json.loads(text)``."""
    if not isinstance(text, str):
        data = bytes(text)
        if len(data) < 2 or not data[0] or not data[1] or data[:1] in (b"\xef", b"\xfe", b"\xff"):
            return _slow_loads(text)  # a BOM or UTF-16/32: json detects the encoding
        try:
            text = data.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            return _slow_loads(data)
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = _scan_once(text, start)
    except RecursionError:
        raise  # as json raises it
    except Exception:
        # Invalid JSON. The scanner raises StopIteration, or json.decoder's
        # JSONDecodeError, or, while json.decoder is not imported yet,
        # SystemError: json parses it again and raises its own error.
        return _slow_loads(text)
    if len(text.rstrip(_WHITESPACE)) > end:
        return _slow_loads(text)  # extra data after the document
    return value


def scan(text: str, index: int) -> tuple[Any, int]:
    """The JSON value that starts at ``index`` of ``text``, and the index after it.

    json's own scanner (``JSONDecoder().scan_once``), for walking a document
    piece by piece; ValueError where no valid value starts at ``index``.
    """
    try:
        value, end = _scan_once(text, index)
    except RecursionError:
        raise
    except Exception:  # StopIteration, JSONDecodeError or SystemError, as in loads
        raise ValueError(f"no valid JSON value at index {index}") from None
    return value, end


def _slow_loads(text: str | bytes | bytearray) -> Any:
    import json

    return json.loads(text)


def _no_default(value: object) -> object:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: object,
    *,
    sort_keys: bool = False,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    default: Callable[[Any], object] | None = None,
) -> str:
    """``json.dumps(value, ...)`` for the arguments listed (no ``indent``)."""
    encode_str = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return str(encode_str(value))
    item_separator, key_separator = separators or (", ", ": ")
    encoder = _json.make_encoder(
        {},  # markers: refuse circular references, as json does
        default or _no_default,
        encode_str,
        None,  # indent
        key_separator,
        item_separator,
        sort_keys,
        False,  # skipkeys
        True,  # allow_nan
    )
    return "".join(encoder(value, 0))


def dump_line(value: object) -> str:
    """One line of a session log: compact, UTF-8 kept as is, anything odd as ``str``."""
    return dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def dump_state(value: object) -> str:
    """A state file's JSON: compact, ASCII, keys sorted, so equal states give equal bytes."""
    return dumps(value, separators=(",", ":"), sort_keys=True)
