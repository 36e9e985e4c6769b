"""The four allowlisted acceptance predicates, evaluated against one tool result.

Only the boolean outcome of each predicate and a digest of the output leave
this module; the output text itself is never stored.  ``json_field_equals``
walks a bounded dot path through parsed JSON and compares with ``==`` on JSON
values (``1 == 1.0`` holds, ``true == 1`` does not).
"""

from __future__ import annotations

import json

from agentreflex.core.util.record import record
from agentreflex.guard.bounds import MAX_OUTPUT_CHARS
from agentreflex.guard.sanitize import digest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.guard.directive import Predicate, Requirement

_MISSING = object()


@record(frozen=True)
class Outcome:
    """Per-predicate results for one requirement, plus the evidence digest."""

    results: tuple[bool, ...]
    evidence_digest: str

    @property
    def satisfied(self) -> bool:
        return bool(self.results) and all(self.results)


def evaluate(requirement: Requirement, ok: bool | None, output: str) -> Outcome:
    """Apply every acceptance predicate of ``requirement`` to a tool result."""
    text = output[:MAX_OUTPUT_CHARS]
    parsed: Any = _MISSING
    results: list[bool] = []
    for pred in requirement.acceptance:
        if pred.name == "json_field_equals" and parsed is _MISSING:
            parsed = _parse_json(text)
        results.append(_check(pred, ok, text, parsed))
    return Outcome(tuple(results), digest(text))


def _check(pred: Predicate, ok: bool | None, text: str, parsed: Any) -> bool:
    if pred.name == "outcome_is":
        if ok is None:
            return False
        return bool((pred.value == "success") == ok)
    if pred.name == "json_field_equals":
        found = _walk(parsed, pred.path)
        return found is not _MISSING and _same(found, pred.value)
    if pred.name == "output_contains_all":
        return all(v in text for v in pred.values)
    if pred.name == "output_contains_none":
        return not any(v in text for v in pred.values)
    return False


def _parse_json(text: str) -> Any:
    """The output as JSON; failing that, its last line that is a JSON object."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    for line in reversed(text.strip().splitlines()[-50:]):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except (ValueError, RecursionError):
                continue
    return _MISSING


def _walk(value: Any, path: tuple[str, ...]) -> Any:
    for seg in path:
        if isinstance(value, dict) and seg in value:
            value = value[seg]
        elif isinstance(value, list) and seg.isdigit() and int(seg) < len(value):
            value = value[int(seg)]
        else:
            return _MISSING
    return value


def _same(a: Any, b: Any) -> bool:
    """JSON equality that keeps booleans distinct from numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    return type(a) is type(b) and a == b
