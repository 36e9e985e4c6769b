"""The strict v1 Evidence-Check directive: accepted forms and every rejection reason."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from agentreflex.guard.directive import Directive, DirectiveError, find_markers, parse
from guard_testkit import DIRECTIVE, marker


def variant(**changes: Any) -> dict[str, Any]:
    d = copy.deepcopy(DIRECTIVE)
    d.update(changes)
    return d


def with_acceptance(*preds: dict[str, Any]) -> dict[str, Any]:
    d = copy.deepcopy(DIRECTIVE)
    d["required_evidence"][0]["acceptance"] = list(preds)
    return d


def test_object_json_string_and_marker_forms_give_the_same_obligation() -> None:
    as_object = parse(DIRECTIVE)
    as_text = parse(json.dumps(DIRECTIVE))
    as_string = parse(json.dumps(json.dumps(DIRECTIVE)))
    as_marker = parse(marker())
    assert as_object.obligation_id == as_text.obligation_id == as_string.obligation_id
    assert as_marker.obligation_id == as_object.obligation_id
    assert as_object.claim == "The selected adapter is active."
    assert as_object.blocking is True
    assert as_object.requirements[0].tool == "adapter-status"
    assert as_object.predicate_count == 2


def test_all_four_predicates_parse() -> None:
    d = with_acceptance(
        {"predicate": "outcome_is", "value": "error"},
        {"predicate": "json_field_equals", "path": "adapter.status", "value": "ok"},
        {"predicate": "output_contains_all", "values": ["ready", "active"]},
        {"predicate": "output_contains_none", "values": ["Traceback"]},
    )
    preds = parse(d).requirements[0].acceptance
    assert [p.name for p in preds] == [
        "outcome_is",
        "json_field_equals",
        "output_contains_all",
        "output_contains_none",
    ]
    assert preds[1].path == ("adapter", "status")
    assert preds[2].values == ("ready", "active")


def test_json_path_may_use_ordinary_words_like_passed() -> None:
    d = with_acceptance({"predicate": "json_field_equals", "path": "summary.passed", "value": 3})
    assert parse(d).requirements[0].acceptance[0].path == ("summary", "passed")


LONG = "x" * 300


@pytest.mark.parametrize(
    ("directive", "reason"),
    [
        ({k: v for k, v in DIRECTIVE.items() if k != "claim"}, "missing key 'claim'"),
        (variant(extra=1), "unexpected key 'extra'"),
        (variant(api_token="x"), "secret-shaped key 'api_token'"),
        (variant(version=2), "version must be the integer 1"),
        (variant(version=True), "version must be the integer 1"),
        (variant(version="1"), "version must be the integer 1"),
        (variant(kind="check"), 'kind must be "evidence-check"'),
        (variant(claim=""), "claim must not be empty"),
        (variant(claim=7), "claim must be a string, got number"),
        (variant(claim=LONG), "claim is 300 characters; the limit is 256"),
        (variant(claim="bad\x00claim"), "claim contains control characters"),
        (variant(blocking="yes"), "blocking must be true or false, got string"),
        (variant(required_evidence=[]), "required_evidence has 0 entries; allowed 1 to 4"),
        (variant(required_evidence={}), "required_evidence must be an array, got object"),
        (
            variant(required_evidence=[DIRECTIVE["required_evidence"][0]] * 5),
            "required_evidence has 5 entries; allowed 1 to 4",
        ),
        (
            variant(required_evidence=[DIRECTIVE["required_evidence"][0]] * 4 + []),
            None,
        ),
        (
            variant(required_evidence=[{"type": "file", "tool": "x", "acceptance": []}]),
            'required_evidence[0].type must be "tool-result"',
        ),
        (
            variant(
                required_evidence=[{"type": "tool-result", "tool": "rm -rf /", "acceptance": []}]
            ),
            "required_evidence[0].tool 'rm -rf /' is not a tool name",
        ),
        (
            variant(required_evidence=[{"type": "tool-result", "tool": "t", "acceptance": []}]),
            "required_evidence[0].acceptance must be a non-empty array",
        ),
        (
            variant(required_evidence=[{"type": "tool-result", "tool": "t"}]),
            "required_evidence[0]: missing key 'acceptance'",
        ),
        (with_acceptance({"predicate": "regex", "value": ".*"}), 'unknown predicate "regex"'),
        (with_acceptance({"predicate": ["x"]}), "unknown predicate"),
        (
            with_acceptance({"predicate": "outcome_is", "value": "ok"}),
            'must be "success" or "error"',
        ),
        (
            with_acceptance({"predicate": "outcome_is", "value": "success", "x": 1}),
            "unexpected key 'x'",
        ),
        (
            with_acceptance({"predicate": "json_field_equals", "path": "a..b", "value": 1}),
            "segment '' is not a plain name or index",
        ),
        (
            with_acceptance({"predicate": "json_field_equals", "path": "a[0]", "value": 1}),
            "segment 'a[0]' is not a plain name or index",
        ),
        (
            with_acceptance(
                {"predicate": "json_field_equals", "path": ".".join("abcdefghi"), "value": 1}
            ),
            "has 9 segments; the limit is 8",
        ),
        (
            with_acceptance(
                {"predicate": "json_field_equals", "path": "auth.password", "value": 1}
            ),
            "segment 'password' is secret-shaped",
        ),
        (
            with_acceptance(
                {"predicate": "json_field_equals", "path": "a", "value": [[[[["deep"]]]]]}
            ),
            "nests deeper than 4 levels",
        ),
        (
            with_acceptance(
                {"predicate": "json_field_equals", "path": "a", "value": {"apiKey": 1}}
            ),
            "secret-shaped key 'apiKey'",
        ),
        (
            with_acceptance(
                {"predicate": "json_field_equals", "path": "a", "value": list(range(17))}
            ),
            "has more than 16 items",
        ),
        (
            with_acceptance({"predicate": "json_field_equals", "path": "a", "value": 2**60}),
            "outside ±2^53",
        ),
        (
            with_acceptance({"predicate": "output_contains_all", "values": []}),
            "values must be an array of 1 to 8 strings",
        ),
        (
            with_acceptance({"predicate": "output_contains_none", "values": ["ok", 3]}),
            "values[1] must be a string, got number",
        ),
        (
            with_acceptance(*[{"predicate": "outcome_is", "value": "success"}] * 9),
            "more than 8 predicates in total",
        ),
        (variant(expected_result={"token": "abc"}), "secret-shaped key 'token'"),
        (variant(expected_result="y" * 300), "expected_result is 300 characters"),
    ],
)
def test_rejections_name_the_field(directive: dict[str, Any], reason: str | None) -> None:
    if reason is None:
        assert isinstance(parse(directive), Directive)
        return
    with pytest.raises(DirectiveError) as err:
        parse(directive)
    assert reason in str(err.value)


def test_predicate_total_is_counted_across_requirements() -> None:
    req = {
        "type": "tool-result",
        "tool": "t",
        "acceptance": [{"predicate": "outcome_is", "value": "success"}] * 3,
    }
    with pytest.raises(DirectiveError, match="more than 8 predicates in total"):
        parse(variant(required_evidence=[req, req, req]))


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "directive is not valid JSON"),
        ("[1, 2]", "directive must be a JSON object, got array"),
        ('"[1]"', "directive must be a JSON object, got array"),
        ('"unterminated', "directive JSON string is not valid JSON"),
        ("42", "directive must be a JSON object, got number"),
        ('{"a": NaN}', "NaN is not allowed"),
        ('{"a": 1, "a": 2}', "duplicate key 'a'"),
        ("[" * 3000 + "]" * 3000, "exceeds 4096 bytes"),
        ("[" * 2000 + "]" * 2000, "nesting too deep"),
        (
            json.dumps(variant(claim="z" * 250, expected_result=["w" * 250] * 16)),
            "exceeds 4096 bytes",
        ),
    ],
)
def test_text_forms_reject_precisely(text: str, reason: str) -> None:
    with pytest.raises(DirectiveError) as err:
        parse(text)
    assert reason in str(err.value)


def test_non_string_non_object_input_is_rejected() -> None:
    with pytest.raises(DirectiveError, match="must be a JSON object or string, got array"):
        parse([1])


def test_deep_object_input_is_rejected_without_recursion() -> None:
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(DirectiveError, match="nesting depth"):
        parse(deep)


def test_markers_in_visible_text() -> None:
    text = f"Plan: check the adapter.\n{marker()}\nThen decide."
    found = find_markers(text)
    assert len(found) == 1 and isinstance(found[0], Directive)


def test_marker_without_json_and_with_bad_json_are_errors() -> None:
    found = find_markers("Evidence-Check: later\nEvidence-Check: {oops}")
    assert [str(f) for f in found] == [
        "Evidence-Check marker is not followed by a JSON object",
        "Evidence-Check marker JSON is invalid: Expecting property name enclosed in double quotes",
    ]


def test_marker_count_is_bounded() -> None:
    text = " ".join([marker()] * 10)
    assert len(find_markers(text)) == 4


def test_text_without_marker_has_no_directives() -> None:
    assert find_markers("nothing to see") == []


def test_the_readme_shows_the_shipped_example_directive() -> None:
    import json
    from pathlib import Path

    from agentreflex.guard.examples import EXAMPLE_DIRECTIVE

    readme = Path(__file__).resolve().parents[1] / "README.md"
    lines = [ln for ln in readme.read_text().splitlines() if ln.startswith("Evidence-Check: {")]
    assert [json.loads(ln.removeprefix("Evidence-Check: ")) for ln in lines] == [EXAMPLE_DIRECTIVE]
