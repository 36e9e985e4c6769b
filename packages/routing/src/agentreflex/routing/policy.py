"""The routing policy file: lanes, rules, ladder, fallbacks, budgets.

Why pydantic with ``extra="forbid"``: the commonest complaint about
existing routers is that a rule was *silently* ignored (a misspelt key, a
lane name that does not exist). Here every unknown key, unknown lane and
bad value refuses the whole file at start, and the message names the file,
the line and the key path.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Literal

from agentreflex.core.config.tomlines import key_lines, line_of
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

KeyPath = tuple[str | int, ...]

ApiKind = Literal["anthropic", "openai-chat", "openai-responses"]
DEFAULT_FALLBACK_STATUSES = (429, 500, 502, 503, 504, 529)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Lane(_Strict):
    """One place a request can go: an API, a base URL, a model and where its key lives."""

    provider: str = Field(min_length=1)
    api: ApiKind
    base_url: str = Field(min_length=1)
    model: str = Field(min_length=1)
    # the *name* of an environment variable; the key itself never enters a policy file
    key_env: str | None = None
    # Anthropic extended thinking budget (tokens) / OpenAI reasoning effort, set on the way out
    thinking_budget: int | None = Field(default=None, ge=1024)
    effort: Literal["minimal", "low", "medium", "high"] | None = None
    max_tokens: int | None = Field(default=None, ge=1)
    fallbacks: tuple[str, ...] = ()
    timeout_s: float = Field(default=600.0, gt=0)
    first_byte_timeout_s: float = Field(default=60.0, gt=0)
    # per-lane budget in US dollars over the router's life; prices per million tokens
    budget_usd: float | None = Field(default=None, gt=0)
    price_in_per_mtok: float = Field(default=0.0, ge=0)
    price_out_per_mtok: float = Field(default=0.0, ge=0)

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("key_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not value.replace("_", "A").isalnum():
            raise ValueError("must be an environment variable's name, not a key")
        return value


class When(_Strict):
    """Conditions of a rule; every one that is set must hold (an empty ``when`` always holds)."""

    model: str | None = None  # a glob over the requested model, e.g. "*haiku*"
    thinking: bool | None = None
    min_input_tokens: int | None = Field(default=None, ge=0)
    max_input_tokens: int | None = Field(default=None, ge=0)
    background: bool | None = None
    subagent: bool | None = None
    min_tools: int | None = Field(default=None, ge=0)
    max_tools: int | None = Field(default=None, ge=0)
    api: ApiKind | None = None  # which endpoint the client called


class Rule(_Strict):
    name: str = Field(min_length=1)
    lane: str = Field(min_length=1)
    when: When = When()


class Ladder(_Strict):
    """Escalate to the next lane of ``lanes`` after ``after_failures`` failures in a session."""

    lanes: tuple[str, ...] = ()
    after_failures: int = Field(default=2, ge=1)


class Fallback(_Strict):
    on_status: tuple[int, ...] = DEFAULT_FALLBACK_STATUSES
    on_timeout: bool = True
    on_connect_error: bool = True


class Policy(_Strict):
    default_lane: str
    allow_tags: bool = True
    lanes: dict[str, Lane]
    rules: tuple[Rule, ...] = ()
    ladder: Ladder = Ladder()
    fallback: Fallback = Fallback()

    def unknown_lanes(self) -> list[tuple[tuple[str | int, ...], str]]:
        """Every reference to a lane that does not exist, with its key path."""
        known = set(self.lanes)
        refs: list[tuple[tuple[str | int, ...], str]] = [(("default_lane",), self.default_lane)]
        refs += [(("rules", i, "lane"), rule.lane) for i, rule in enumerate(self.rules)]
        for name, lane in self.lanes.items():
            refs += [(("lanes", name, "fallbacks", i), f) for i, f in enumerate(lane.fallbacks)]
        refs += [(("ladder", "lanes", i), f) for i, f in enumerate(self.ladder.lanes)]
        return [(loc, name) for loc, name in refs if name not in known]


class PolicyError(ValueError):
    """A policy file that cannot be used; ``str()`` names the file, line and key."""


def load_policy(path: str | Path) -> Policy:
    """Read and validate a routing policy, or raise :class:`PolicyError`."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{file}: cannot read the routing policy: {exc}") from exc
    return parse_policy(text, str(file))


def parse_policy(text: str, source: str = "<policy>") -> Policy:
    """Validate the TOML ``text``; errors name ``source``, the line and the key path."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PolicyError(f"{source}: not valid TOML: {exc}") from exc
    lines = key_lines(text)
    try:
        policy = Policy.model_validate(data)
    except ValidationError as exc:
        problems = [_problem(source, lines, tuple(e["loc"]), e["msg"]) for e in exc.errors()]
        raise PolicyError("\n".join(problems)) from None
    unknown = policy.unknown_lanes()
    if unknown:
        known = ", ".join(sorted(policy.lanes))
        problems = [
            _problem(source, lines, loc, f"unknown lane {name!r} (known lanes: {known})")
            for loc, name in unknown
        ]
        raise PolicyError("\n".join(problems))
    return policy


def _problem(source: str, lines: dict[KeyPath, int], loc: tuple[object, ...], msg: str) -> str:
    path: KeyPath = tuple(p for p in loc if isinstance(p, str | int))
    line = line_of(lines, path) or 1
    key = ".".join(str(p) for p in path) or "(top level)"
    return f"{source}:{line}: {key}: {msg}"
