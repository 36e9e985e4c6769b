"""The strict version-1 ``Evidence-Check`` directive.

An explicit directive is the only source of blocking authority, so it is
parsed strictly: exactly six keys, typed ``tool-result`` requirements, four
allowlisted predicates, hard size and nesting bounds, and no secret-shaped
keys.  Nothing in a directive is ever evaluated as an expression, a regular
expression or a command.  Every rejection is a :class:`DirectiveError` whose
message names the offending field, so an agent can fix its own directive.
"""

from __future__ import annotations

import json

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record
from agentreflex.guard import MARKER
from agentreflex.guard import bounds as B
from agentreflex.guard.sanitize import digest, has_control, secret_shaped_key

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TOP_KEYS = ("version", "kind", "claim", "required_evidence", "expected_result", "blocking")
REQUIREMENT_KEYS = ("type", "tool", "acceptance")
PREDICATE_KEYS: dict[str, tuple[str, ...]] = {
    "outcome_is": ("predicate", "value"),
    "json_field_equals": ("predicate", "path", "value"),
    "output_contains_all": ("predicate", "values"),
    "output_contains_none": ("predicate", "values"),
}
OUTCOMES = ("success", "error")
_TOOL = LazyPattern(r"^[A-Za-z0-9][A-Za-z0-9_.:/@+-]*$")
_SEGMENT = LazyPattern(r"^(?:[A-Za-z_][A-Za-z0-9_-]{0,63}|[0-9]{1,4})$")
_MAX_INT = 2**53


class DirectiveError(ValueError):
    """A directive was rejected; ``str(err)`` is the precise reason."""


@record(frozen=True)
class Predicate:
    name: str
    value: Any = None
    path: tuple[str, ...] = ()
    values: tuple[str, ...] = ()


@record(frozen=True)
class Requirement:
    tool: str
    acceptance: tuple[Predicate, ...]


@record(frozen=True)
class Directive:
    """A validated directive.  ``canonical`` is its normalised JSON text."""

    claim: str
    requirements: tuple[Requirement, ...]
    expected_result: Any
    blocking: bool
    canonical: str

    @property
    def obligation_id(self) -> str:
        """Stable id: the same directive seen twice is the same obligation."""
        return "ob-" + digest(self.canonical)[7:19]

    @property
    def predicate_count(self) -> int:
        return sum(len(r.acceptance) for r in self.requirements)


def parse(value: Any) -> Directive:
    """Validate a directive given as an object, a JSON string or a marker line."""
    if isinstance(value, dict):
        return _validate(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith(MARKER):
            text = text[len(MARKER) :].strip()
        if text.startswith('"'):
            inner = _loads(text, "directive JSON string")
            if not isinstance(inner, str):
                raise DirectiveError("directive JSON string does not contain a string")
            return parse(inner)
        obj = _loads(text, "directive")
        if not isinstance(obj, dict):
            raise DirectiveError(f"directive must be a JSON object, got {_type(obj)}")
        return _validate(obj)
    raise DirectiveError(f"directive must be a JSON object or string, got {_type(value)}")


def find_markers(text: str) -> list[Directive | DirectiveError]:
    """Every ``Evidence-Check: {JSON}`` marker in visible text, parsed or rejected."""
    out: list[Directive | DirectiveError] = []
    if MARKER not in text:
        return out
    scan = text[: B.MAX_SCANNED_TEXT]
    decoder = json.JSONDecoder(parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    start = 0
    while len(out) < B.MAX_MARKERS_PER_TEXT:
        at = scan.find(MARKER, start)
        if at < 0:
            break
        start = at + len(MARKER)
        brace = start
        while brace < len(scan) and scan[brace] in " \t":
            brace += 1
        if brace >= len(scan) or scan[brace] != "{":
            out.append(DirectiveError("Evidence-Check marker is not followed by a JSON object"))
            continue
        try:
            obj, end = decoder.raw_decode(scan, brace)
        except (ValueError, RecursionError) as exc:
            out.append(DirectiveError(f"Evidence-Check marker JSON is invalid: {_why(exc)}"))
            continue
        if len(scan[brace:end].encode("utf-8", "surrogatepass")) > B.DIRECTIVE_MAX_BYTES:
            out.append(DirectiveError(f"directive exceeds {B.DIRECTIVE_MAX_BYTES} bytes"))
        else:
            out.append(_guarded(obj))
        start = end
    return out


def _guarded(obj: Any) -> Directive | DirectiveError:
    try:
        return _validate(obj) if isinstance(obj, dict) else parse(obj)
    except DirectiveError as err:
        return err


def _loads(text: str, what: str) -> Any:
    if len(text.encode("utf-8", "surrogatepass")) > B.DIRECTIVE_MAX_BYTES:
        raise DirectiveError(f"directive exceeds {B.DIRECTIVE_MAX_BYTES} bytes")
    try:
        return json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except DirectiveError:
        raise
    except (ValueError, RecursionError) as exc:
        raise DirectiveError(f"{what} is not valid JSON: {_why(exc)}") from None


def _why(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "nesting too deep"
    if isinstance(exc, DirectiveError):
        return str(exc)
    return str(exc).split(":")[0]


def _no_constant(name: str) -> Any:
    raise DirectiveError(f"{name} is not allowed in a directive")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DirectiveError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _type(value: Any) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number" if isinstance(value, int | float) else "value")


def _validate(obj: dict[str, Any]) -> Directive:
    depth = _depth(obj)
    if depth > B.MAX_DOC_DEPTH:
        raise DirectiveError(f"directive nesting depth {depth} exceeds {B.MAX_DOC_DEPTH}")
    try:
        canonical = json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise DirectiveError(f"directive is not plain JSON: {exc}") from None
    if len(canonical.encode("utf-8", "surrogatepass")) > B.DIRECTIVE_MAX_BYTES:
        raise DirectiveError(f"directive exceeds {B.DIRECTIVE_MAX_BYTES} bytes")
    _exact_keys(obj, TOP_KEYS, "directive")
    version = obj["version"]
    if isinstance(version, bool) or version != 1 or not isinstance(version, int):
        raise DirectiveError(f"version must be the integer 1, got {json.dumps(version)}")
    if obj["kind"] != "evidence-check":
        raise DirectiveError(f'kind must be "evidence-check", got {json.dumps(obj["kind"])}')
    claim = _string(obj["claim"], "claim", B.MAX_CLAIM_CHARS)
    if not isinstance(obj["blocking"], bool):
        raise DirectiveError(f"blocking must be true or false, got {_type(obj['blocking'])}")
    requirements = _requirements(obj["required_evidence"])
    _json_value(obj["expected_result"], "expected_result", 1)
    return Directive(claim, requirements, obj["expected_result"], obj["blocking"], canonical)


def _depth(value: Any) -> int:
    """Nesting depth, computed iteratively so hostile input cannot recurse."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > B.MAX_DOC_DEPTH:
                return level
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _exact_keys(obj: dict[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in obj:
        if not isinstance(key, str) or secret_shaped_key(key):
            raise DirectiveError(f"{where}: secret-shaped key {key!r} is not allowed")
    extra = [k for k in obj if k not in allowed]
    if extra:
        raise DirectiveError(f"{where}: unexpected key {extra[0]!r}; allowed: {', '.join(allowed)}")
    missing = [k for k in allowed if k not in obj]
    if missing:
        raise DirectiveError(f"{where}: missing key {missing[0]!r}")


def _string(value: Any, where: str, limit: int) -> str:
    if not isinstance(value, str):
        raise DirectiveError(f"{where} must be a string, got {_type(value)}")
    if not value.strip():
        raise DirectiveError(f"{where} must not be empty")
    if len(value) > limit:
        raise DirectiveError(f"{where} is {len(value)} characters; the limit is {limit}")
    if has_control(value):
        raise DirectiveError(f"{where} contains control characters")
    return value


def _requirements(value: Any) -> tuple[Requirement, ...]:
    if not isinstance(value, list):
        raise DirectiveError(f"required_evidence must be an array, got {_type(value)}")
    if not 1 <= len(value) <= B.MAX_REQUIREMENTS:
        raise DirectiveError(
            f"required_evidence has {len(value)} entries; allowed 1 to {B.MAX_REQUIREMENTS}"
        )
    out: list[Requirement] = []
    total = 0
    for i, entry in enumerate(value):
        where = f"required_evidence[{i}]"
        if not isinstance(entry, dict):
            raise DirectiveError(f"{where} must be an object, got {_type(entry)}")
        _exact_keys(entry, REQUIREMENT_KEYS, where)
        if entry["type"] != "tool-result":
            raise DirectiveError(
                f'{where}.type must be "tool-result", got {json.dumps(entry["type"])}'
            )
        tool = _string(entry["tool"], f"{where}.tool", B.MAX_TOOL_CHARS)
        if not _TOOL.match(tool):
            raise DirectiveError(f"{where}.tool {tool!r} is not a tool name")
        acceptance = entry["acceptance"]
        if not isinstance(acceptance, list) or not acceptance:
            raise DirectiveError(f"{where}.acceptance must be a non-empty array")
        total += len(acceptance)
        if total > B.MAX_PREDICATES:
            raise DirectiveError(f"directive has more than {B.MAX_PREDICATES} predicates in total")
        preds = tuple(_predicate(p, f"{where}.acceptance[{j}]") for j, p in enumerate(acceptance))
        out.append(Requirement(tool, preds))
    return tuple(out)


def _predicate(value: Any, where: str) -> Predicate:
    if not isinstance(value, dict):
        raise DirectiveError(f"{where} must be an object, got {_type(value)}")
    name = value.get("predicate")
    if not isinstance(name, str) or name not in PREDICATE_KEYS:
        allowed = ", ".join(PREDICATE_KEYS)
        raise DirectiveError(f"{where}: unknown predicate {json.dumps(name)}; allowed: {allowed}")
    _exact_keys(value, PREDICATE_KEYS[name], f"{where} ({name})")
    if name == "outcome_is":
        if value["value"] not in OUTCOMES or not isinstance(value["value"], str):
            raise DirectiveError(f'{where}.value must be "success" or "error"')
        return Predicate(name, value=value["value"])
    if name == "json_field_equals":
        path = _dot_path(value["path"], f"{where}.path")
        _json_value(value["value"], f"{where}.value", 1)
        return Predicate(name, value=value["value"], path=path)
    values = value["values"]
    if not isinstance(values, list) or not 1 <= len(values) <= B.MAX_VALUES:
        raise DirectiveError(f"{where}.values must be an array of 1 to {B.MAX_VALUES} strings")
    strings = tuple(
        _string(v, f"{where}.values[{k}]", B.MAX_STRING_CHARS) for k, v in enumerate(values)
    )
    return Predicate(name, values=strings)


def _dot_path(value: Any, where: str) -> tuple[str, ...]:
    text = _string(value, where, B.MAX_PATH_CHARS)
    segments = text.split(".")
    if len(segments) > B.MAX_PATH_SEGMENTS:
        raise DirectiveError(
            f"{where} has {len(segments)} segments; the limit is {B.MAX_PATH_SEGMENTS}"
        )
    for seg in segments:
        if not _SEGMENT.match(seg):
            raise DirectiveError(f"{where} segment {seg!r} is not a plain name or index")
        if secret_shaped_key(seg):
            raise DirectiveError(f"{where} segment {seg!r} is secret-shaped")
    return tuple(segments)


def _json_value(value: Any, where: str, level: int) -> None:
    if level > B.MAX_JSON_DEPTH:
        raise DirectiveError(f"{where} nests deeper than {B.MAX_JSON_DEPTH} levels")
    if isinstance(value, dict):
        if len(value) > B.MAX_JSON_ITEMS:
            raise DirectiveError(f"{where} has more than {B.MAX_JSON_ITEMS} keys")
        for key, item in value.items():
            if secret_shaped_key(key):
                raise DirectiveError(f"{where}: secret-shaped key {key!r} is not allowed")
            if len(key) > B.MAX_STRING_CHARS or has_control(key):
                raise DirectiveError(
                    f"{where}: key {key[:32]!r} is too long or has control characters"
                )
            _json_value(item, f"{where}.{key}", level + 1)
    elif isinstance(value, list):
        if len(value) > B.MAX_JSON_ITEMS:
            raise DirectiveError(f"{where} has more than {B.MAX_JSON_ITEMS} items")
        for i, item in enumerate(value):
            _json_value(item, f"{where}[{i}]", level + 1)
    elif isinstance(value, str):
        if len(value) > B.MAX_STRING_CHARS:
            raise DirectiveError(
                f"{where} is {len(value)} characters; the limit is {B.MAX_STRING_CHARS}"
            )
        if has_control(value):
            raise DirectiveError(f"{where} contains control characters")
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if abs(value) > _MAX_INT:
            raise DirectiveError(f"{where} is outside ±2^53")
    elif isinstance(value, float):
        import math  # lazy: only a directive with a float value needs it

        if not math.isfinite(value):
            raise DirectiveError(f"{where} is not a finite number")
    else:
        raise DirectiveError(f"{where} is not a JSON value")
