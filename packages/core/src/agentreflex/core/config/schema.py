"""The configuration and policy files as pydantic models (cold path only).

Why a second description of the config: the hook's loader
(:mod:`agentreflex.core.config.settings`) must stay stdlib-only and stops at the first
bad key, but a user editing ``.agentreflex/config.toml`` wants every problem at
once, with its line, and an editor that completes keys.  These models give
``agentreflex config check``, ``doctor`` and the JSON Schema shipped as
``policies/config.schema.json`` (``tools/gen_schema.py``).

They do not restate the loader's rules where they can reuse them: every leaf
value goes through the loader's own checks (``_choice``, ``_int``,
``_probability``, ``section_value``...), so a value is coerced and rejected
exactly as a hook would, with the same message; structural errors (unknown
keys, a value that is not a table) take their message from the loader too
(:mod:`agentreflex.core.cli.configcheck`).  The package-owned sections are built
from the packages' declarations (:func:`section_model`: each declared
``Setting`` becomes a field checked by ``section_value``, a section with no
settings a free table), so core names no package;
``tests/test_config_schema_differential.py`` proves, with random files, that
the models and the real loaders (core's and the packages') accept and reject
the same files with the same messages, and
``tests/test_declarations_differential.py`` that the schema and ``config
check`` say what they said when core named the sections itself.

Importing this module costs about 300 ms (pydantic): never import it from a
hook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, cast

from agentreflex.core.config import settings as fast
from agentreflex.core.plugin import PolicyFile, Section
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    create_model,
)
from pydantic import GetJsonSchemaHandler as JsonHandler
from pydantic_core import PydanticCustomError, core_schema

# -- leaf checks: the loader's functions, wrapped for pydantic ---------------

MARK = "\x00"  # the key handed to a loader check; the error's location names the real one


class Check:
    """Annotated metadata: run one of the loader's checks before pydantic's type.

    ``run`` returns the coerced value or raises the loader's ``ConfigError``.
    The loader's messages read ``KEY: what is wrong``; the check is run with
    ``strip`` standing for ``KEY``, and the rest of the message is kept as the
    error's ``tail``, to be joined to the key path pydantic reports (so one
    check serves every key it guards).  ``schema`` adds what the check
    enforces (bounds) to the JSON Schema.
    """

    def __init__(self, run: Callable[[Any], Any], strip: str = MARK, **schema: Any) -> None:
        self.run = run
        self.strip = strip
        self.schema = schema

    def _validate(self, value: Any) -> Any:
        try:
            return self.run(value)
        except fast.ConfigError as exc:
            tail = str(exc).removeprefix(self.strip)
            raise PydanticCustomError("agentreflex", "{tail}", {"tail": tail}) from None

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_before_validator_function(self._validate, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: JsonHandler
    ) -> dict[str, Any]:
        out = dict(handler(schema))
        out.update(self.schema)
        return out


def choice(allowed: tuple[str, ...]) -> Check:
    return Check(lambda v: fast._choice(MARK, v, allowed), enum=list(allowed))


def integer(low: int, high: int) -> Check:
    return Check(lambda v: fast._int(MARK, v, low, high), minimum=low, maximum=high)


PROBABILITY = Check(lambda v: fast._probability(MARK, v), minimum=0, maximum=1)


def section_key(kind: str, **bounds: Any) -> Check:
    """A key of a package-owned section, checked by core's ``section_value``."""

    def run(value: Any) -> Any:
        holder = fast.Config(sections={MARK: {MARK: value}})
        return fast.section_value(holder, MARK, MARK, None, kind, **bounds)

    schema: dict[str, Any] = {}
    if kind == "prob":
        schema = {"minimum": 0, "maximum": 1}
    elif kind in ("int", "float"):
        schema = {"minimum": bounds["low"], "maximum": bounds["high"]}
    elif kind == "choice":
        schema = {"enum": list(bounds["allowed"])}
    return Check(run, f"{MARK}.{MARK}", **schema)


def loader_check(key: str) -> Check:
    """A top-level key whose rule (and message) is written inline in the loader."""

    def run(value: Any) -> Any:
        fast._apply_file(fast.Config(), {key: value}, MARK)
        return value

    return Check(run, f"{MARK}: {key}")


class _Table(BaseModel):
    """A closed table: an unknown key is an error, as in the loader."""

    model_config = ConfigDict(extra="forbid")


class _OpenTable(BaseModel):
    """A table whose package ignores keys it does not know (so the loader accepts them)."""

    model_config = ConfigDict(extra="allow")


Prob = Annotated[float, PROBABILITY]

# -- core's own keys ----------------------------------------------------------


class Thresholds(_Table):
    """Block/warn levels each reflex compares its signal with (probabilities from 0 to 1)."""

    constraint_violation_block: Prob = 0.70
    secret_exposure_block: Prob = 0.70
    destructive_block: Prob = 0.75
    destructive_warn: Prob = 0.50
    loop_probability_block: Prob = 0.80
    loop_expected_progress_ceiling: Prob = 0.30
    redundant_warn: Prob = 0.85
    evidence_insufficient_warn: Prob = 0.85
    goal_alignment_warn: Prob = 0.20
    post_tool_blocker_warn: Prob = 0.75
    post_tool_retry_unlikely_warn: Prob = 0.75
    unresolved_failure_block: Prob = 0.70
    verification_insufficient_block: Prob = 0.70
    more_verification_helpful_block: Prob = 0.90


class Loop(_Table):
    """The exact-repeat floor (environment: REFLEX_HARD_LOOP_REPEAT_COUNT, REFLEX_RECENT_ACTION_WINDOW)."""

    hard_repeat_count: Annotated[int, integer(2, 1000)] = Field(
        default=3, description="Identical tool calls in a row that are blocked."
    )
    recent_action_window: Annotated[int, integer(5, 500)] = Field(
        default=20, description="How many recent actions the reflexes look back over."
    )


class Judge(_Table):
    """The shared judge (the key is never read from a file: set JEV_API_KEY)."""

    mode: Annotated[str, choice(fast.JUDGE_MODES)] = Field(
        default="auto",
        description="auto (the Jev API with a key, else the offline stand-in), mock, jev or "
        "off (JEV_MODE). The default comes from the profile: off for off and lean.",
    )
    base_url: Annotated[str, Check(lambda v: fast._url(MARK, v), minLength=1)] = Field(
        default="https://api.typesafe.ai", description="The judge API's base URL (JEV_BASE_URL)."
    )
    model: Annotated[str, Check(str)] = Field(
        default="jev-latest", description="The judge model (JEV_MODEL)."
    )
    timeout_ms: Annotated[int, integer(50, 60000)] = Field(
        default=1500, description="Per-request timeout."
    )
    retries: Annotated[int, integer(0, 10)] = Field(
        default=2, description="Retries after a failed request."
    )


class Hook(_Table):
    floor_budget_ms: Annotated[int, integer(10, 60000)] = Field(
        default=200, description="Time the deterministic floors may take per hook."
    )


class Daemon(_Table):
    idle_seconds: Annotated[int, integer(5, 7 * 86400)] = Field(
        default=1800, description="The warm daemon exits after this many idle seconds."
    )


class Worktree(_Table):
    observe: bool = Field(
        default=True,
        description="Fingerprint the git work tree around tool calls and snapshot before discards.",
    )
    snapshot_max_bytes: Annotated[int, integer(0, 1 << 34)] = Field(
        default=64 << 20,
        description="Uncommitted work a snapshot may hold; past it the smallest files that fit are saved and the rest named.",
    )
    allow_undoable: Annotated[str, choice(fast.UNDOABLE_LEVELS)] = Field(
        default="asks",
        description="In-project discards a snapshot holds run with the undo hint: off, asks "
        "(what the reflexes asked) or discards (also what it blocks). The default comes from the "
        "profile: discards for lean, off for off and thorough.",
    )


def _otlp_url(value: Any) -> Any:
    """An http(s) collector URL without credentials (the exporter's own rule)."""
    from agentreflex.core.otlp.sink import check_url

    if not isinstance(value, str):
        raise fast.ConfigError(f"{MARK}: {value!r} is not a URL (a string)")
    try:
        check_url(value)
    except ValueError as exc:
        raise fast.ConfigError(f"{MARK}: {exc}") from None
    return value


class Export(_Table):
    """``[export]``: where decisions go (user config, or a project config the user approved)."""

    otlp: Annotated[str, Check(_otlp_url, minLength=1)] = Field(
        default="",
        description="OTLP/HTTP collector URL; the daemon sends decisions and findings there.",
    )
    queue: Annotated[int, section_key("int", low=1, high=1_000_000)] = Field(
        default=4096, description="Log records waiting to be sent; more are dropped and counted."
    )


# -- package-owned sections: built from each package's declaration ------------


_PY_TYPES: dict[str, Any] = {
    "str": str,
    "choice": str,
    "int": int,
    "float": float,
    "prob": float,
    "bool": bool,
    "list": list[str],
}

_FreeSection: Any = Field(
    default_factory=dict, description="Reserved for its package, which reads no keys yet."
)


def section_field(section: Section) -> tuple[Any, Any]:
    """``(annotation, field)`` of one declared section in :class:`ConfigFile`.

    A section that declares no settings is a free table (its package reads
    what it reads); one that does becomes a model whose every key is checked
    by ``section_value``, as the package's own reader checks it.
    """
    if not section.settings:
        return dict[str, Any], _FreeSection
    model = section_model(section)
    return model, Field(default_factory=model)


def section_model(section: Section) -> type[BaseModel]:
    """The pydantic model of a declared section (closed unless ``section.open``).

    Its settings come first, then each sub-table as a model of its own.
    """
    fields: dict[str, Any] = {}
    for item in section.settings:
        default = list(item.default) if isinstance(item.default, tuple) else item.default
        check = section_key(item.kind, **item.bounds())
        annotation = cast(Any, Annotated)[_PY_TYPES[item.kind], check]  # a type built at run time
        fields[item.key] = (
            annotation,
            Field(default=default, description=item.description or None),
        )
    for table in section.tables:
        sub = section_model(table)
        fields[table.key] = (sub, Field(default_factory=sub))
    model: type[BaseModel] = create_model(
        section.title or section.key.title(),
        __base__=_OpenTable if section.open else _Table,
        __doc__=section.description or None,
        __module__=__name__,
        **fields,
    )
    return model


def declared_sections() -> list[Section]:
    """Every config section the installed packages declare, by key."""
    from agentreflex.core.registry import declarations

    found = {s.key: s for plugin in declarations() for s in plugin.sections}
    return [found[key] for key in sorted(found)]


class _ConfigBase(_Table):
    model_config = ConfigDict(extra="forbid", title="agentreflex config.toml")


class CoreKeys(_Table):
    """``.agentreflex/config.toml`` (project) and ``~/.config/agentreflex/config.toml`` (user)."""

    model_config = ConfigDict(extra="forbid", title="agentreflex config.toml")

    mode: Annotated[str, choice(("shadow", "enforced"))] = Field(
        default="shadow",
        description="shadow reports WOULD_BLOCK and never blocks; enforced blocks (REFLEX_MODE).",
    )
    profile: Annotated[str, choice(fast.PROFILES)] = Field(
        default="balanced",
        description="Defaults for every package's settings (AGENTREFLEX_PROFILE).",
    )
    state_dir: Annotated[str, loader_check("state_dir")] = Field(
        default=".agentreflex",
        description="Where sessions are recorded; relative to the project (AGENTREFLEX_STATE_DIR).",
    )
    disabled_reflexes: Annotated[list[str], loader_check("disabled_reflexes")] = Field(
        default_factory=list, description="Reflexes switched off by name."
    )
    thresholds: Thresholds = Field(default_factory=Thresholds)
    loop: Loop = Field(default_factory=Loop)
    judge: Judge = Field(default_factory=Judge)
    hook: Hook = Field(default_factory=Hook)
    daemon: Daemon = Field(default_factory=Daemon)
    worktree: Worktree = Field(default_factory=Worktree)


def _config_file() -> type[BaseModel]:
    """:class:`CoreKeys`, every declared package section, then ``[export]``.

    A section that declares ``after`` comes right after that key (so a table
    keeps its documented place in the schema); the others follow core's own
    keys in key order.
    """
    sections = declared_sections()
    fields: dict[str, Any] = {}
    for name, info in CoreKeys.model_fields.items():
        fields[name] = (info.annotation, info)
        for section in sections:
            if section.after == name:
                fields[section.key] = section_field(section)
    for section in sections:
        fields.setdefault(section.key, section_field(section))
    fields["export"] = (Export, Field(default_factory=Export))
    model: type[BaseModel] = create_model(
        "ConfigFile", __base__=_ConfigBase, __doc__=CoreKeys.__doc__, __module__=__name__, **fields
    )
    return model


# -- policies/ ----------------------------------------------------------------


class ThresholdsFile(_Table):
    """``policies/thresholds.toml``: seed 001's documented thresholds."""

    model_config = ConfigDict(extra="forbid", title="agentreflex policies/thresholds.toml")

    thresholds: Thresholds = Field(default_factory=Thresholds)


def declared_files() -> list[PolicyFile]:
    """Every policy file kind the installed packages declare (``Plugin.files``)."""
    from agentreflex.core.registry import declarations

    return [f for plugin in declarations() for f in plugin.files]


def _kinds() -> dict[str, tuple[type[BaseModel], str]]:
    """Core's two file kinds, then each declared one (its model imported here)."""
    from agentreflex.core.registry import load_object

    kinds: dict[str, tuple[type[BaseModel], str]] = {
        "config": (ConfigFile, "config.schema.json"),
        "thresholds": (ThresholdsFile, "thresholds.schema.json"),
    }
    for item in declared_files():
        kinds.setdefault(item.kind, (load_object(item.model), item.schema))
    return kinds


ConfigFile = _config_file()
#: File kinds ``agentreflex config check --as`` knows, with their model and shipped schema.
KINDS = _kinds()
