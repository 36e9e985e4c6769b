"""The wire contract as pydantic models, built once when the server module loads.

These are the request bodies judge2 sends (``agentreflex.core.systemone.wire`` is the
client's reading of the same format): ``{model, state, questions}`` for
``POST /v1/systemone`` and ``{model, states, questions}`` for the batch route.
Validation is strict (no type coercion, no unknown fields), so a typo in a
field name is a 422 naming it instead of a silently ignored option.

The classes and their ``TypeAdapter``-free ``model_validate_json`` validators
are compiled by pydantic at import time; the server imports this module once
at start, so no request pays for building a schema.  The hook never imports
this module (the laya package is not on the hook path at all).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

MAX_CHOICE_OPTIONS = 255
MIN_SCORE_LEVELS = 2
MAX_SCORE_LEVELS = 10
MAX_QUESTIONS = 64
MAX_STATES = 64
MAX_STATE_CHARS = 65_536
MAX_TEXT_CHARS = 4_096
MAX_ID_CHARS = 128

_STRICT = ConfigDict(extra="forbid", strict=True, frozen=True)

Text = Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
Instructions = Annotated[
    str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS, pattern=r"\S")
]
Label = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)]
QuestionId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS)]
ModelName = Annotated[str, StringConstraints(max_length=MAX_ID_CHARS)]
State = Annotated[str, StringConstraints(max_length=MAX_STATE_CHARS)]


class NoulCriteria(BaseModel):
    model_config = _STRICT
    true: Text = ""
    false: Text = ""


class NoulQuestion(BaseModel):
    model_config = _STRICT
    type: Literal["noul"]
    instructions: Instructions
    criteria: NoulCriteria = NoulCriteria()


class ChoiceQuestion(BaseModel):
    model_config = _STRICT
    type: Literal["choice"]
    instructions: Instructions
    criteria: Annotated[dict[Label, Text], Field(min_length=2, max_length=MAX_CHOICE_OPTIONS)]


class ScoreQuestion(BaseModel):
    model_config = _STRICT
    type: Literal["score"]
    instructions: Instructions
    criteria: Annotated[list[Text], Field(min_length=MIN_SCORE_LEVELS, max_length=MAX_SCORE_LEVELS)]


Question = Annotated[NoulQuestion | ChoiceQuestion | ScoreQuestion, Field(discriminator="type")]
Questions = Annotated[dict[QuestionId, Question], Field(min_length=1, max_length=MAX_QUESTIONS)]


class SystemOneRequest(BaseModel):
    """``POST /v1/systemone``: one state, the questions about it."""

    model_config = _STRICT
    model: ModelName = ""
    state: State
    questions: Questions


class BatchRequest(BaseModel):
    """``POST /v1/systemone/batch``: the same questions about several states."""

    model_config = _STRICT
    model: ModelName = ""
    states: Annotated[list[State], Field(min_length=1, max_length=MAX_STATES)]
    questions: Questions
