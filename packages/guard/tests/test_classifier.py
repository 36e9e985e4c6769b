"""The narrow heuristic classifier, claims, closing forms and the mitigation rule."""

from __future__ import annotations

import json
import os

import pytest
from agentreflex.guard.claims import claims_cause, claims_completion
from agentreflex.guard.classifier import CANDIDATE, CLEAR, UNCERTAIN, clauses, summary_label
from agentreflex.guard.closing import find_closings, has_incomplete_closing, is_mitigation

SAMPLES = os.path.join(os.path.dirname(__file__), "data", "classifier_samples.jsonl")


def samples() -> list[dict[str, str]]:
    with open(SAMPLES, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_labelled_samples_meet_the_release_rules() -> None:
    rows = [r for r in samples() if r["label"] != "ambiguous"]
    predicted = {r["id"]: summary_label(r["text"]) for r in rows}
    consequential = [r for r in rows if r["label"] == "consequential"]
    neutral = [r for r in rows if r["label"] == "neutral"]
    misses = [r["id"] for r in consequential if predicted[r["id"]] == CLEAR]
    false_candidates = [r["id"] for r in neutral if predicted[r["id"]] == CANDIDATE]
    clear = [r for r in neutral if predicted[r["id"]] == CLEAR]
    assert misses == [] and false_candidates == []
    assert len(clear) / len(neutral) >= 0.5


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("Investigating why the proxy fails after the route change.", CANDIDATE),
        ("**Investigating the cache**", UNCERTAIN),
        ("Investigating the docs layout for the failure page.", CLEAR),
        ("I'll report back on the failure.", CLEAR),
        ("The failure was caused by the cache. I will check the logs.", UNCERTAIN),
        ("I fixed the routing config.", CLEAR),
    ],
)
def test_clause_local_rules(text: str, label: str) -> None:
    assert summary_label(text) == label


def test_markdown_emphasis_is_a_heading_boundary() -> None:
    assert clauses("**Investigating the cache**The lock fails.") == [
        "Investigating the cache",
        "The lock fails.",
    ]


@pytest.mark.parametrize(
    ("text", "done", "cause"),
    [
        ("All done.", True, False),
        ("Fixed the bug; tests pass.", True, False),
        ("It is not fixed yet.", False, False),
        ("Once it's fixed I will stop.", False, False),
        ("The root cause is the stale lock.", False, True),
        ("This was caused by the proxy.", False, True),
        ("That rules out the cache.", False, True),
        ("The root cause might be the cache.", False, False),
        ("Resolved: x; evidence: y; conclusion: done.", False, False),
    ],
)
def test_claims(text: str, done: bool, cause: bool) -> None:
    assert (claims_completion(text), claims_cause(text)) == (done, cause)


def test_closing_forms() -> None:
    text = (
        "Resolved: cache check; evidence: hits=0; conclusion: cache is cold.\n"
        "Deferred: lock check; reason: no access; decision impact: none; reopen when: access.\n"
        "Resolved: half; evidence: ; conclusion: x"
    )
    found = find_closings(text)
    assert [(c.kind, c.ref) for c in found] == [
        ("resolved", "cache check"),
        ("deferred", "lock check"),
    ]
    assert found[0].fields == {"evidence": "hits=0", "conclusion": "cache is cold"}
    assert has_incomplete_closing(text)


def test_mitigation_needs_label_and_open_root_cause() -> None:
    assert is_mitigation("Temporary mitigation: fail closed; the root cause remains unresolved.")
    assert is_mitigation("Workaround only, the root cause is still unknown.")
    assert not is_mitigation("Temporary change to the config.")
    assert not is_mitigation("The root cause remains unresolved.")


def test_a_codex_heading_does_not_open_the_same_check_twice() -> None:
    from agentreflex.guard.classifier import obligation_candidates

    text = (
        "**Investigating the retry failure**\n\n"
        "I'll run the retry test to check whether the timeout change causes the failure."
    )
    [only] = obligation_candidates(text)
    assert only.clause.startswith("I'll run the retry test")
    heading_only = "**Investigating the retry failure**\n\nReading the test file."
    [kept] = obligation_candidates(heading_only)
    assert kept.clause == "Investigating the retry failure"
    plain = "Tracing the crash in the loader to its cause. I'll diff the configs to find the difference."
    assert len(obligation_candidates(plain)) == 2  # no heading: both checks stay
