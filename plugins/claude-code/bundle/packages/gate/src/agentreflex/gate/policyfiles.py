"""The gate's policy files as pydantic models: project rules and the allow-list (cold path only).

``agentreflex config check`` validates ``.agentreflex/gate-rules.toml``,
``policies/gate/rules.toml`` and ``.agentreflex/allow.toml`` with these, and
``tools/gen_schema.py`` writes their JSON Schemas (``policies/gate/*.schema.json``).
The gate's declaration (``plugin.py``) names them; core never imports them by
name.  Importing this module costs pydantic: never import it from a hook.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError


class _Table(BaseModel):
    """A closed table: an unknown key is an error."""

    model_config = ConfigDict(extra="forbid")


def _regex(value: Any) -> Any:
    if isinstance(value, str):
        try:
            re.compile(value)
        except re.error as exc:
            raise PydanticCustomError(
                "agentreflex_rule", "not a valid regular expression ({error})", {"error": str(exc)}
            ) from None
    return value


_RULE_MATCHES = ("command", "contains", "regex", "path")


class GateRule(_Table):
    """One project rule: it can only add a block, ask or warning."""

    id: str = Field(description="Stable id shown in findings.")
    verdict: Literal["block", "ask", "warn", "BLOCK", "ASK", "WARN"] = "block"
    message: str = Field(default="", description="What the agent and the user are told.")
    command: str = Field(default="", description="The executed command's name.")
    contains: str = Field(default="", description="Text in the executed command.")
    regex: Annotated[str, BeforeValidator(_regex)] = Field(
        default="", description="A regular expression over the expanded argv."
    )
    path: str = Field(
        default="", description="For file tools and shell writes: a path prefix or substring."
    )

    @model_validator(mode="before")
    @classmethod
    def _matches_something(cls, data: Any) -> Any:
        """A rule with nothing to match never fires (the gate ignores it silently)."""
        if isinstance(data, dict) and not any(data.get(k) for k in _RULE_MATCHES):
            unknown = [k for k in data if k not in cls.model_fields]
            hint = f" (unknown keys: {', '.join(unknown)})" if unknown else ""
            raise PydanticCustomError(
                "agentreflex_rule",
                "matches nothing: give command, contains, regex or path{hint}",
                {"hint": hint},
            )
        return data


class GateRulesFile(_Table):
    """``policies/gate/rules.toml`` and ``.agentreflex/gate-rules.toml``."""

    model_config = ConfigDict(extra="forbid", title="agentreflex gate rules")

    rule: list[GateRule] = Field(default_factory=list)


class AllowEntry(_Table):
    """Allows one named gate rule in this project until ``expires``."""

    rule: str = Field(description="A gate rule id, e.g. GATE-GIT-RESET-HARD.")
    expires: dt.date | dt.datetime = Field(description="Required; past entries are ignored.")
    match: str = Field(default="", description="Only segments containing this text.")
    reason: str = ""


class AllowFile(_Table):
    """``.agentreflex/allow.toml`` (see policies/gate/allow.example.toml)."""

    model_config = ConfigDict(extra="forbid", title="agentreflex gate allow-list")

    allow: list[AllowEntry] = Field(default_factory=list)
