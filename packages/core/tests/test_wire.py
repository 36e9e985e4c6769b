"""The System One wire format: requests built and checked, responses read strictly."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from agentreflex.core.systemone.wire import (
    ChoiceAnswer,
    NoulAnswer,
    Question,
    ScoreAnswer,
    SystemOneResponse,
    Usage,
    WireError,
    build_request,
    choice,
    noul,
    parse_request,
    parse_response,
    response_to_json,
    score,
)
from hypothesis import given
from hypothesis import strategies as st

QUESTIONS: dict[str, Question] = {
    "risky": noul("Is the action risky?", "it deletes data", "it only reads"),
    "claim": choice(
        "Does the evidence support the claim?",
        {
            "supported": "evidence shows it",
            "contradicted": "evidence refutes it",
            "insufficient": "neither",
        },
    ),
    "quality": score("How complete is the work?", ["nothing", "some", "all"]),
}


def good_response() -> dict[str, Any]:
    return {
        "model": "jev-latest",
        "answers": {
            "risky": {"type": "noul", "noul": 0.25},
            "claim": {
                "type": "choice",
                "choice": "supported",
                "probabilities": {"supported": 0.7, "contradicted": 0.1, "insufficient": 0.2},
                "confidence": 0.6,
            },
            "quality": {
                "type": "score",
                "score": 1.5,
                "probabilities": {"0": 0.1, "1": 0.3, "2": 0.6},
                "confidence": 0.5,
            },
        },
        "usage": {"input_tokens": 120, "output_tokens": 0},
    }


def test_request_round_trips_through_json() -> None:
    req = build_request("jev-latest", "STATE", QUESTIONS)
    again = parse_request(json.loads(json.dumps(req)))
    assert again == req
    assert again["questions"]["risky"]["criteria"] == {
        "true": "it deletes data",
        "false": "it only reads",
    }


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ([], "expected a JSON object"),
        ({"state": 3, "questions": {"a": noul("x", "t", "f")}}, "request.state"),
        ({"state": "s", "questions": {}}, "non-empty"),
        ({"state": "s", "questions": {"a": {"type": "poll", "instructions": "x"}}}, "not one of"),
        ({"state": "s", "questions": {"a": {"type": "noul", "instructions": ""}}}, "instructions"),
        ({"state": "s", "questions": {"a": choice("x", {"only": "one"})}}, "2 to 255"),
        ({"state": "s", "questions": {"a": score("x", ["one"])}}, "2 to 10 levels"),
    ],
)
def test_bad_requests_are_rejected_with_reason(body: Any, reason: str) -> None:
    with pytest.raises(WireError, match=reason):
        parse_request(body)


def test_good_response_is_parsed_into_typed_answers() -> None:
    resp = parse_response(good_response(), QUESTIONS)
    assert resp.model == "jev-latest"
    assert resp.answers["risky"] == NoulAnswer(0.25)
    claim = resp.answers["claim"]
    assert isinstance(claim, ChoiceAnswer)
    assert claim.choice == "supported"
    assert claim.probabilities["insufficient"] == 0.2
    quality = resp.answers["quality"]
    assert isinstance(quality, ScoreAnswer)
    assert quality.score == 1.5
    assert resp.usage == Usage(120, 0)


def test_response_json_round_trip() -> None:
    resp = parse_response(good_response(), QUESTIONS)
    assert parse_response(json.loads(json.dumps(response_to_json(resp))), QUESTIONS) == resp


def _mutated(path: list[str], value: Any) -> dict[str, Any]:
    data = good_response()
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return data


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "reason"),
    [
        (["answers", "risky"], _DELETE, r"answers\.risky: question not answered"),
        (["answers", "extra"], {"type": "noul", "noul": 0.1}, "not asked: extra"),
        (["answers", "risky", "type"], "choice", r"risky\.type: got 'choice'"),
        (["answers", "risky", "type"], _DELETE, r"risky\.type: got None"),
        (["answers", "risky", "noul"], 1.5, "outside"),
        (["answers", "risky", "noul"], -0.01, "outside"),
        (["answers", "risky", "noul"], math.nan, "not finite"),
        (["answers", "risky", "noul"], math.inf, "not finite"),
        (["answers", "risky", "noul"], "0.5", "expected a number"),
        (["answers", "risky", "noul"], True, "expected a number"),
        (["answers", "risky", "noul"], _DELETE, r"noul: missing"),
        (["answers", "claim", "probabilities", "maybe"], 0.0, "unknown options maybe"),
        (["answers", "claim", "probabilities", "insufficient"], _DELETE, "missing options"),
        (["answers", "claim", "probabilities", "supported"], 0.9, "sum to"),
        (["answers", "claim", "choice"], "maybe", "not one of the options"),
        (["answers", "claim", "confidence"], _DELETE, r"confidence: missing"),
        (["answers", "quality", "score"], 7, "outside 0..2"),
        (["answers", "quality", "probabilities", "2"], _DELETE, "missing options 2"),
        (["answers"], [], "expected an object"),
        (["model"], 5, "model"),
        (["usage", "input_tokens"], -1, "non-negative"),
    ],
)
def test_malformed_responses_are_rejected_precisely(
    path: list[str], value: Any, reason: str
) -> None:
    with pytest.raises(WireError, match=reason):
        parse_response(_mutated(path, value), QUESTIONS)


def test_score_without_expected_value_is_computed() -> None:
    data = _mutated(["answers", "quality", "score"], _DELETE)
    quality = parse_response(data, QUESTIONS).answers["quality"]
    assert isinstance(quality, ScoreAnswer)
    assert quality.score == pytest.approx(0 * 0.1 + 1 * 0.3 + 2 * 0.6)


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_a_noul_answer_is_accepted_exactly_when_it_is_a_probability(p: float) -> None:
    questions: dict[str, Question] = {"q": noul("x?", "yes", "no")}
    data = {"model": "m", "answers": {"q": {"type": "noul", "noul": p}}}
    if math.isfinite(p) and 0.0 <= p <= 1.0:
        resp = parse_response(data, questions)
        assert isinstance(resp, SystemOneResponse)
        assert resp.answers["q"] == NoulAnswer(p)
    else:
        with pytest.raises(WireError):
            parse_response(data, questions)
