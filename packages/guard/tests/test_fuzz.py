"""Hypothesis: no input makes the directive parser or the report loader raise."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from typing import Any

from agentreflex.guard.directive import Directive, DirectiveError, find_markers, parse
from agentreflex.guard.ledger import load_ledger, parse_ledger
from agentreflex.guard.report import new_report
from agentreflex.guard.schema import check_report, migrate
from guard_testkit import DIRECTIVE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)
KEYS = [
    "version",
    "kind",
    "claim",
    "required_evidence",
    "expected_result",
    "blocking",
    "type",
    "tool",
    "acceptance",
    "predicate",
    "value",
    "values",
    "path",
]


def mutate(base: Any, data: st.DataObject) -> Any:
    """Replace one random node of a valid directive with a random JSON value."""
    if isinstance(base, dict) and base and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(base)))
        return {**base, key: mutate(base[key], data)}
    if isinstance(base, list) and base and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(base) - 1))
        return [*base[:i], mutate(base[i], data), *base[i + 1 :]]
    return data.draw(json_values | st.sampled_from(KEYS))


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_directives_parse_or_reject_precisely(data: st.DataObject) -> None:
    candidate = mutate(DIRECTIVE, data)
    try:
        result = parse(candidate)
    except DirectiveError as err:
        assert str(err)
    else:
        assert isinstance(result, Directive)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300) | json_values.map(json.dumps))
def test_arbitrary_text_never_raises(text: str) -> None:
    for item in find_markers("Evidence-Check: " + text):
        assert isinstance(item, Directive | DirectiveError)
    with contextlib.suppress(DirectiveError):
        parse(text)


def mutate_report(data: st.DataObject) -> Any:
    return mutate(new_report("s", "claude", 1.0), data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_report_checks_and_ledger_parsing_never_raise_unexpectedly(data: st.DataObject) -> None:
    report = mutate_report(data)
    check_report(report)
    envelope = {"schema": 1, "host": "claude", "sessions": [report]}
    with contextlib.suppress(ValueError):
        parse_ledger(envelope, "claude", 0.0)


@settings(max_examples=150, deadline=None)
@given(json_values, st.sampled_from(["1.0", "2.0"]))
def test_legacy_migration_rejects_or_produces_a_valid_report(value: Any, version: str) -> None:
    doc = value if isinstance(value, dict) else {"obligations": value}
    doc = {**doc, "schema_version": version, "session_id": "x"}
    try:
        report = migrate(doc, "claude", 0.0)
    except ValueError:
        return
    assert check_report(report) is None


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_load_ledger_recovers_from_any_bytes(content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "claude_reasoning_guard.json")
        with open(path, "wb") as fh:
            fh.write(content)
        led = load_ledger(path, "claude", 0.0)
        for report in led.sessions:
            assert check_report(report) is None


@settings(max_examples=400, deadline=None, database=None)
@given(
    st.text(
        alphabet=st.one_of(
            st.characters(codec="utf-8"),
            st.sampled_from(["\x00", "\x0b", "\x1c", "\x7f", "\u202e", "\u2068", "\u00a0", "\t"]),
        ),
        max_size=300,
    )
)
def test_excerpt_collapses_exactly_what_the_control_and_space_patterns_did(text: str) -> None:
    """excerpt() uses str.translate and split(); the reference is the regex it replaced."""
    import re

    from agentreflex.guard.sanitize import MAX_EXCERPT, excerpt, redact

    control = r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]"
    reference = re.sub(r"\s+", " ", re.sub(control, " ", redact(text))).strip()
    if len(reference) > MAX_EXCERPT:
        reference = reference[: MAX_EXCERPT - 1].rstrip() + "…"
    assert excerpt(text) == reference
