"""Claims against evidence: extraction, fabricated quotes, the choice question."""

from __future__ import annotations

import pytest
from agentreflex.core.systemone.wire import parse_questions
from agentreflex.judge2.done.claims import (
    CONTRADICTED,
    FABRICATED,
    INSUFFICIENT,
    SUPPORTED,
    UNDECIDED,
    Claim,
    check_claim,
    claim_question,
    extract_claims,
    resolve,
)


def test_extracts_success_claims_one_per_sentence() -> None:
    claims = extract_claims(
        "I refactored src/app.py. All tests pass now! The build succeeds cleanly.\n"
        "Also fixed the typo in the README. It now works."
    )
    assert [c.kind for c in claims] == ["tests_pass", "builds", "fixed"]
    assert claims[0].text == "All tests pass now!"


def test_negated_sentences_are_not_claims() -> None:
    assert extract_claims("The tests do not pass yet. I couldn't verify the fix.") == []
    assert [c.kind for c in extract_claims("Fixed the failing test.")] == ["fixed"]


def test_quotes_are_captured() -> None:
    [claim] = extract_claims('Verified: the run printed "5 passed in 0.1s".')
    assert claim.quote == "5 passed in 0.1s"
    [curly] = extract_claims("Tests pass: “All checks green”.")
    assert curly.quote == "All checks green"


def test_quoted_claim_absent_from_evidence_is_fabricated() -> None:
    claim = Claim("tests_pass", 'pytest says "12 passed"', quote="12 passed")
    check = check_claim(claim, ["===== 5 passed in 0.12s ====="])
    assert check.status == FABRICATED
    assert "12 passed" in check.reason


def test_quote_matching_ignores_case_and_spacing() -> None:
    claim = Claim("tests_pass", "x", quote="5  PASSED in 0.12s")
    assert check_claim(claim, ["===== 5 passed in 0.12s ====="]).status == UNDECIDED


def test_unquoted_claims_go_to_the_judge_as_a_choice() -> None:
    claim = Claim("fixed", "Fixed the race.")
    assert check_claim(claim, []).status == UNDECIDED
    question = claim_question(claim)
    assert parse_questions({"c": question})["c"]["type"] == "choice"
    assert set(question["criteria"]) == {SUPPORTED, CONTRADICTED, INSUFFICIENT}
    assert "Fixed the race." in question["instructions"]


def test_resolve_takes_the_most_probable_label() -> None:
    claim = Claim("fixed", "Fixed it.")
    assert (
        resolve(claim, {SUPPORTED: 0.7, CONTRADICTED: 0.1, INSUFFICIENT: 0.2}).status == SUPPORTED
    )
    assert (
        resolve(claim, {SUPPORTED: 0.2, CONTRADICTED: 0.7, INSUFFICIENT: 0.1}).status
        == CONTRADICTED
    )
    assert (
        resolve(claim, {SUPPORTED: 0.4, CONTRADICTED: 0.2, INSUFFICIENT: 0.4}).status
        == INSUFFICIENT
    )


@pytest.mark.parametrize(
    ("message", "kinds"),
    [
        ("All tests pass, and nothing isn't working.", ["tests_pass"]),
        ("The tests don't pass yet, but the build succeeds.", ["builds"]),
        ("The tests have yet to pass.", []),
        ("I could not fix it; the tests still fail.", []),
        ("Nothing is broken: all tests pass.", ["tests_pass"]),
    ],
)
def test_negation_is_per_clause(message: str, kinds: list[str]) -> None:
    assert [c.kind for c in extract_claims(message)] == kinds


# GitHub's token shape (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats)
_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


@pytest.mark.parametrize("pad", [0, 250, 270])
def test_a_claims_text_never_keeps_the_head_of_a_cut_secret(pad: int) -> None:
    """A claim kept its sentence cut to 300 characters, unredacted: the judge's question
    and the stop's reason carry it, and a token the cut divided kept its head there."""
    message = "All tests pass now with the token " + "w" * pad + " " + _TOKEN + " set."
    claims = extract_claims(message)
    assert claims
    shown = claims[0].text + str(claim_question(claims[0]))
    assert "ghp_" not in shown and _TOKEN[6:14] not in shown, shown
