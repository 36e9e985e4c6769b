"""JSON with comments and trailing commas, as OpenCode (``opencode.jsonc``) and VS Code read it.

Why here: the guard reads OpenCode's settings for two reasons (its permission
rules, the plugin files it runs), and both must read them as OpenCode does.
Stdlib only: it is on the hook's path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["loads"]


def loads(text: str) -> Any:
    """``text``'s value; ``ValueError`` (``json.JSONDecodeError``) when it is not JSONC."""
    import json  # only where a .jsonc file is read: the hook's path imports no json

    return json.loads(_plain(text))


def _plain(text: str) -> str:
    """``text`` without its comments and trailing commas; strings as they are."""
    out: list[str] = []
    comma = -1  # where in ``out`` the last comma is, until something but a comment follows
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == '"':
            end = _string_end(text, i)
            out.append(text[i:end])
            comma, i = -1, end
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if char in "}]" and comma >= 0:
            out[comma] = ""  # a trailing comma: JSON has none
        if char == ",":
            comma = len(out)
        elif not char.isspace():
            comma = -1
        out.append(char)
        i += 1
    return "".join(out)


def _string_end(text: str, start: int) -> int:
    """Where the string opening at ``start`` ends (after its closing quote)."""
    i = start + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    return len(text)
