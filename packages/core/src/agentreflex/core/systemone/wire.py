"""System One wire types: the request a judge sends and the answers it trusts.

``POST /v1/systemone`` takes ``{model, state, questions}`` where ``questions``
maps an id to one typed question, and answers ``{model, answers, usage}``.
Three question types exist:

- ``noul``: is a statement true?  Answer ``{"type": "noul", "noul": p}``.
- ``choice``: which of the named options?  Answer ``{"type": "choice",
  "choice": label, "probabilities": {label: p}, "confidence": c}``.
- ``score``: which of 2-10 ordered levels?  Answer ``{"type": "score",
  "score": expected_level, "probabilities": {"0": p, ...}, "confidence": c}``.

Both sides of the wire live here (the judge client and the local laya server)
so that one strict reading of it exists.  A probability that is missing, of
the wrong type, not finite or outside [0, 1] is never guessed at: the whole
response is rejected with a :class:`WireError` naming the question and the
reason, and the caller fails open.

Stdlib only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypedDict

from agentreflex.core.util.record import field, record

MAX_CHOICE_OPTIONS = 255
MIN_SCORE_LEVELS = 2
MAX_SCORE_LEVELS = 10
# Rounding slack when checking that a distribution does not exceed 1.
_SUM_TOLERANCE = 1e-3


class WireError(ValueError):
    """A request or response does not follow the wire format.  The message says where and why."""


class NoulCriteria(TypedDict):
    true: str
    false: str


class NoulQuestion(TypedDict):
    type: Literal["noul"]
    instructions: str
    criteria: NoulCriteria


class ChoiceQuestion(TypedDict):
    type: Literal["choice"]
    instructions: str
    criteria: dict[str, str]


class ScoreQuestion(TypedDict):
    type: Literal["score"]
    instructions: str
    criteria: list[str]


Question = NoulQuestion | ChoiceQuestion | ScoreQuestion


class SystemOneRequest(TypedDict):
    model: str
    state: str
    questions: dict[str, Question]


def noul(instructions: str, true: str, false: str) -> NoulQuestion:
    """A yes/no question with what makes it true and what makes it false."""
    return {
        "type": "noul",
        "instructions": instructions,
        "criteria": {"true": true, "false": false},
    }


def choice(instructions: str, options: Mapping[str, str]) -> ChoiceQuestion:
    """A question picking one of ``options`` (label -> what the label means)."""
    return {"type": "choice", "instructions": instructions, "criteria": dict(options)}


def score(instructions: str, levels: Sequence[str]) -> ScoreQuestion:
    """A question rating the state on ordered ``levels`` (lowest first)."""
    return {"type": "score", "instructions": instructions, "criteria": list(levels)}


def build_request(model: str, state: str, questions: Mapping[str, Question]) -> SystemOneRequest:
    """A validated request body."""
    checked = parse_questions(questions)
    return {"model": model, "state": state, "questions": checked}


# --- answers ------------------------------------------------------------


@record(frozen=True)
class NoulAnswer:
    noul: float
    type: Literal["noul"] = "noul"


@record(frozen=True)
class ChoiceAnswer:
    choice: str
    probabilities: dict[str, float]
    confidence: float
    type: Literal["choice"] = "choice"


@record(frozen=True)
class ScoreAnswer:
    score: float
    probabilities: dict[str, float]
    confidence: float | None = None
    type: Literal["score"] = "score"


Answer = NoulAnswer | ChoiceAnswer | ScoreAnswer


@record(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@record(frozen=True)
class SystemOneResponse:
    model: str
    answers: dict[str, Answer]
    usage: Usage = field(default_factory=Usage)


def answer_to_json(answer: Answer) -> dict[str, Any]:
    """The wire form of one answer (what a server sends)."""
    if isinstance(answer, NoulAnswer):
        return {"type": "noul", "noul": answer.noul}
    if isinstance(answer, ChoiceAnswer):
        return {
            "type": "choice",
            "choice": answer.choice,
            "probabilities": dict(answer.probabilities),
            "confidence": answer.confidence,
        }
    out: dict[str, Any] = {
        "type": "score",
        "score": answer.score,
        "probabilities": dict(answer.probabilities),
    }
    if answer.confidence is not None:
        out["confidence"] = answer.confidence
    return out


def response_to_json(response: SystemOneResponse) -> dict[str, Any]:
    """The wire form of a whole response."""
    return {
        "model": response.model,
        "answers": {qid: answer_to_json(a) for qid, a in response.answers.items()},
        "usage": {
            "input_tokens": response.usage.input_tokens,
            "output_tokens": response.usage.output_tokens,
        },
    }


# --- validation: requests -------------------------------------------------


def parse_request(data: Any) -> SystemOneRequest:
    """Validate a request body received by a server."""
    if not isinstance(data, dict):
        raise WireError("request: expected a JSON object")
    model = data.get("model", "")
    if not isinstance(model, str):
        raise WireError("request.model: expected a string")
    state = data.get("state")
    if not isinstance(state, str):
        raise WireError("request.state: expected a string")
    return {"model": model, "state": state, "questions": parse_questions(data.get("questions"))}


def parse_questions(data: Any) -> dict[str, Question]:
    """Validate a ``questions`` mapping: ids to well-formed typed questions."""
    if not isinstance(data, Mapping) or not data:
        raise WireError("questions: expected a non-empty object of id -> question")
    return {_question_id(qid): _parse_question(qid, q) for qid, q in data.items()}


def _question_id(qid: Any) -> str:
    if not isinstance(qid, str) or not qid:
        raise WireError(f"questions: id {qid!r} is not a non-empty string")
    return qid


def _parse_question(qid: str, q: Any) -> Question:
    where = f"questions.{qid}"
    if not isinstance(q, Mapping):
        raise WireError(f"{where}: expected an object")
    instructions = q.get("instructions")
    if not isinstance(instructions, str) or not instructions.strip():
        raise WireError(f"{where}.instructions: expected non-empty text")
    kind = q.get("type")
    criteria = q.get("criteria")
    if kind == "noul":
        return _parse_noul_question(where, instructions, criteria)
    if kind == "choice":
        return _parse_choice_question(where, instructions, criteria)
    if kind == "score":
        return _parse_score_question(where, instructions, criteria)
    raise WireError(f"{where}.type: {kind!r} is not one of noul, choice, score")


def _parse_noul_question(where: str, instructions: str, criteria: Any) -> NoulQuestion:
    if criteria is None:
        criteria = {"true": "", "false": ""}
    if not isinstance(criteria, Mapping) or set(criteria) - {"true", "false"}:
        raise WireError(f"{where}.criteria: expected an object with 'true' and 'false' texts")
    true, false = criteria.get("true", ""), criteria.get("false", "")
    if not isinstance(true, str) or not isinstance(false, str):
        raise WireError(f"{where}.criteria: 'true' and 'false' must be text")
    return noul(instructions, true, false)


def _parse_choice_question(where: str, instructions: str, criteria: Any) -> ChoiceQuestion:
    if not isinstance(criteria, Mapping):
        raise WireError(f"{where}.criteria: expected an object of option label -> description")
    if not 2 <= len(criteria) <= MAX_CHOICE_OPTIONS:
        raise WireError(f"{where}.criteria: needs 2 to {MAX_CHOICE_OPTIONS} options")
    for label, text in criteria.items():
        if not isinstance(label, str) or not label or not isinstance(text, str):
            raise WireError(f"{where}.criteria: option {label!r} needs a label and a text")
    return choice(instructions, criteria)


def _parse_score_question(where: str, instructions: str, criteria: Any) -> ScoreQuestion:
    if not isinstance(criteria, list) or not all(isinstance(c, str) for c in criteria):
        raise WireError(f"{where}.criteria: expected a list of level texts")
    if not MIN_SCORE_LEVELS <= len(criteria) <= MAX_SCORE_LEVELS:
        raise WireError(f"{where}.criteria: needs {MIN_SCORE_LEVELS} to {MAX_SCORE_LEVELS} levels")
    return score(instructions, criteria)


# --- validation: responses ----------------------------------------------


def parse_response(data: Any, questions: Mapping[str, Question]) -> SystemOneResponse:
    """Validate a response against the questions that were asked.

    Every asked id must be answered with the asked type; no answer may name
    an id that was not asked; every probability is a finite number in
    [0, 1].  Raises :class:`WireError` on the first problem.
    """
    if not isinstance(data, Mapping):
        raise WireError("response: expected a JSON object")
    model = data.get("model", "")
    if not isinstance(model, str):
        raise WireError("response.model: expected a string")
    answers = data.get("answers")
    if not isinstance(answers, Mapping):
        raise WireError("response.answers: expected an object of id -> answer")
    extra = sorted(str(k) for k in answers if k not in questions)
    if extra:
        raise WireError(f"response.answers: answers for questions not asked: {', '.join(extra)}")
    parsed: dict[str, Answer] = {}
    for qid, question in questions.items():
        if qid not in answers:
            raise WireError(f"response.answers.{qid}: question not answered")
        parsed[qid] = _parse_answer(f"response.answers.{qid}", answers[qid], question)
    return SystemOneResponse(model=model, answers=parsed, usage=_parse_usage(data.get("usage")))


def _parse_answer(where: str, data: Any, question: Question) -> Answer:
    if not isinstance(data, Mapping):
        raise WireError(f"{where}: expected an object")
    kind = data.get("type")
    if kind != question["type"]:
        raise WireError(f"{where}.type: got {kind!r}, the question is {question['type']!r}")
    if question["type"] == "noul":
        return NoulAnswer(noul=_probability(f"{where}.noul", data.get("noul")))
    if question["type"] == "choice":
        return _parse_choice_answer(where, data, list(question["criteria"]))
    levels = [str(i) for i in range(len(question["criteria"]))]
    return _parse_score_answer(where, data, levels)


def _parse_choice_answer(where: str, data: Mapping[str, Any], options: list[str]) -> ChoiceAnswer:
    probs = _distribution(f"{where}.probabilities", data.get("probabilities"), options)
    picked = data.get("choice")
    if picked is None:
        picked = max(options, key=lambda o: probs[o])
    if picked not in options:
        raise WireError(f"{where}.choice: {picked!r} is not one of the options")
    confidence = _probability(f"{where}.confidence", data.get("confidence"))
    return ChoiceAnswer(choice=str(picked), probabilities=probs, confidence=confidence)


def _parse_score_answer(where: str, data: Mapping[str, Any], levels: list[str]) -> ScoreAnswer:
    probs = _distribution(f"{where}.probabilities", data.get("probabilities"), levels)
    raw_score = data.get("score")
    if raw_score is None:
        value = sum(int(k) * p for k, p in probs.items())
    else:
        value = _number(f"{where}.score", raw_score)
        if not 0.0 <= value <= len(levels) - 1:
            raise WireError(f"{where}.score: {value} is outside 0..{len(levels) - 1}")
    confidence = data.get("confidence")
    conf = None if confidence is None else _probability(f"{where}.confidence", confidence)
    return ScoreAnswer(score=value, probabilities=probs, confidence=conf)


def _distribution(where: str, data: Any, keys: list[str]) -> dict[str, float]:
    if not isinstance(data, Mapping):
        raise WireError(f"{where}: expected an object of option -> probability")
    unknown = sorted(str(k) for k in data if k not in keys)
    if unknown:
        raise WireError(f"{where}: unknown options {', '.join(unknown)}")
    missing = [k for k in keys if k not in data]
    if missing:
        raise WireError(f"{where}: missing options {', '.join(missing)}")
    probs = {k: _probability(f"{where}.{k}", data[k]) for k in keys}
    total = sum(probs.values())
    if total > 1.0 + _SUM_TOLERANCE:
        raise WireError(f"{where}: probabilities sum to {total:.4f}, more than 1")
    return probs


def _number(where: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise WireError(f"{where}: expected a number, got {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise WireError(f"{where}: {value!r} is not finite")
    return number


def _probability(where: str, value: Any) -> float:
    if value is None:
        raise WireError(f"{where}: missing")
    number = _number(where, value)
    if not 0.0 <= number <= 1.0:
        raise WireError(f"{where}: {number} is outside [0, 1]")
    return number


def _parse_usage(data: Any) -> Usage:
    if data is None:
        return Usage()
    if not isinstance(data, Mapping):
        raise WireError("response.usage: expected an object")
    counts: dict[str, int] = {}
    for key in ("input_tokens", "output_tokens"):
        value = data.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise WireError(f"response.usage.{key}: expected a non-negative integer")
        counts[key] = value
    return Usage(**counts)
