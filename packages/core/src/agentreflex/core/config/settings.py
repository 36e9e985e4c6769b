"""Configuration: defaults, profiles, TOML files and environment, validated.

Precedence (later wins): built-in defaults -> profile -> user config
(``$XDG_CONFIG_HOME/agentreflex/config.toml``) -> project config
(``<project>/.agentreflex/config.toml``) -> environment.  The seed's
environment names keep working (``REFLEX_MODE``, ``REFLEX_THRESH_*``,
``REFLEX_HARD_LOOP_REPEAT_COUNT``, ``REFLEX_RECENT_ACTION_WINDOW``,
``JEV_API_KEY``, ``JEV_MODE``).

A bad value is a :class:`ConfigError` naming the key and what is allowed;
nothing is silently defaulted.  The sections the installed packages declare
(their ``plugin.py``; :func:`package_sections`) are kept as plain dicts in
:attr:`Config.sections` and validated by the package that reads them, with
:func:`section_value` (through ``Setting.read``); a checked section
(``Section.checked``) is validated here, from its declaration, as it is loaded.

Stdlib only; ``tomllib`` is imported only when a config file is new or changed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

from agentreflex.core.decision import Mode
from agentreflex.core.state.userdirs import user_config_path
from agentreflex.core.util.record import field, record, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from agentreflex.core.config.trust import Lookup
    from agentreflex.core.plugin import Section


class ConfigError(ValueError):
    """A configuration value is invalid.  The message names key and allowed values."""


# Seed 001's thresholds.  The documented copy is policies/thresholds.toml; a
# test keeps the two identical.
DEFAULT_THRESHOLDS: dict[str, float] = {
    "constraint_violation_block": 0.70,
    "secret_exposure_block": 0.70,
    "destructive_block": 0.75,
    "destructive_warn": 0.50,
    "loop_probability_block": 0.80,
    "loop_expected_progress_ceiling": 0.30,
    "redundant_warn": 0.85,
    "evidence_insufficient_warn": 0.85,
    "goal_alignment_warn": 0.20,
    "post_tool_blocker_warn": 0.75,
    "post_tool_retry_unlikely_warn": 0.75,
    "unresolved_failure_block": 0.70,
    "verification_insufficient_block": 0.70,
    "more_verification_helpful_block": 0.90,
}

PROFILES = ("off", "lean", "balanced", "thorough")
JUDGE_MODES = ("auto", "mock", "jev", "off")

# Core's own table that, like a package's section, is kept as a plain dict.
CORE_SECTIONS = ("export",)  # [export] otlp = URL: where decisions go, "same" (approval)


# Sections come from the installed packages' declarations: a table for a package
# that is not installed is unknown here, and the message says why.
NOT_DECLARED = (
    " (no installed agentreflex package declares this table:"
    " install the one that reads it, or remove it)"
)


def package_sections() -> tuple[str, ...]:
    """The tables the installed packages own (their declarations), then core's own.

    Unknown top-level keys are an error.  Read from the registry's table: the
    hook path imports no package to learn this.
    """
    from agentreflex.core.registry import config_sections

    declared = config_sections()
    return (*declared, *(key for key in CORE_SECTIONS if key not in declared))


# What each profile sets before files and environment are applied.
# (A package's settings declare their own per-profile defaults: Setting.profiles.)
_PROFILE_SETTINGS: dict[str, dict[str, Any]] = {
    "off": {"reflexes_enabled": False, "judge_mode": "off"},
    "lean": {"reflexes_enabled": True, "judge_mode": "off"},
    "balanced": {"reflexes_enabled": True, "judge_mode": "auto"},
    "thorough": {"reflexes_enabled": True, "judge_mode": "auto"},
}


@record
class JudgeSettings:
    mode: str = "auto"
    base_url: str = "https://api.typesafe.ai"
    model: str = "jev-latest"
    api_key: str = field(default="", repr=False)
    timeout_ms: int = 1500
    retries: int = 2

    # Where base_url came from ("default", a file, "JEV_BASE_URL"), and whether
    # the user sent it there: False for a project file's URL not yet approved.
    base_url_source: str = "default"
    base_url_trusted: bool = True

    @property
    def request_key(self) -> str:
        """The key to send to ``base_url``: the one rule for where ``JEV_API_KEY`` goes.

        The key goes only where the user sent it: to a base URL from the
        defaults, the user's environment or config, or a project file whose
        content the user approved (``agentreflex trust``).  A URL from an
        unapproved project file gets no key at all, whatever it is.
        """
        return self.api_key if self.base_url_trusted else ""

    @property
    def has_key(self) -> bool:
        return bool(self.request_key)

    @property
    def local(self) -> bool:
        """A loopback backend (a local laya server): it needs no key."""
        return is_loopback_url(self.base_url)

    @property
    def offline(self) -> bool:
        """Seed 001: no key (or ``JEV_MODE=mock``) means the offline heuristic stand-in.

        Its numbers are shown but never acted on, so the hot path need not ask
        it.  A loopback backend needs no key, so ``auto`` uses it without one.
        """
        return self.mode == "mock" or (self.mode == "auto" and not self.has_key and not self.local)


def is_loopback_url(url: str) -> bool:
    """Whether ``url``'s host is loopback: ``localhost``, 127.0.0.0/8 or ::1.

    Parsed by hand (no ``urllib``/``ipaddress`` import: the hot path asks it).
    Anything it cannot read is not loopback.
    """
    rest = url.strip().split("://", 1)[-1]
    netloc = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    host = netloc.rsplit("@", 1)[-1]
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    elif host.count(":") == 1:
        host = host.split(":", 1)[0]
    host = host.lower().rstrip(".")
    if host == "localhost" or host in ("::1", "0:0:0:0:0:0:0:1"):
        return True
    parts = host.split(".")
    return (
        len(parts) == 4
        and parts[0] == "127"
        and all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts)
    )


@record
class Config:
    mode: Mode = Mode.SHADOW
    profile: str = "balanced"
    reflexes_enabled: bool = True
    disabled_reflexes: tuple[str, ...] = ()
    state_dir: str = ""
    project_dir: str = ""
    thresholds: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))
    hard_loop_repeat_count: int = 3
    recent_action_window: int = 20
    floor_budget_ms: int = 200
    daemon_idle_seconds: int = 1800
    worktree_observe: bool = True  # fingerprint the git work tree around tool calls
    worktree_snapshot_max_bytes: int = 64 << 20  # uncommitted work a snapshot may hold
    worktree_allow_undoable: str = "asks"  # off | asks | discards (worktree/relax.py)
    judge: JudgeSettings = field(default_factory=JudgeSettings)
    sections: dict[str, dict[str, Any]] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    # What an unapproved project config asked for and did not get, and why
    # (one human-readable line each); empty when nothing was withheld.
    untrusted: list[str] = field(default_factory=list)
    # The project config waiting for the user's approval, and its content's SHA-256.
    pending_config: str = ""
    pending_sha256: str = ""

    @property
    def enforced(self) -> bool:
        return self.mode is Mode.ENFORCED

    def threshold(self, name: str) -> float:
        return self.thresholds[name]

    def section(self, name: str) -> dict[str, Any]:
        return self.sections.get(name, {})

    def reflex_enabled(self, name: str) -> bool:
        return self.reflexes_enabled and name not in self.disabled_reflexes


def _choice(key: str, value: Any, allowed: tuple[str, ...]) -> str:
    text = str(value).strip().lower() if isinstance(value, str) else value
    if text not in allowed:
        raise ConfigError(f"{key}: {value!r} is not one of {', '.join(allowed)}")
    return str(text)


def _probability(key: str, value: Any) -> float:
    if isinstance(value, bool):  # float(True) would pass as 1.0
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1") from None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise ConfigError(f"{key}: {value!r} is not a number between 0 and 1")
    return number


def _int(key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}")
    try:
        number = int(str(value).strip())
    except ValueError:
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}") from None
    if not low <= number <= high:
        raise ConfigError(f"{key}: {value!r} is not an integer from {low} to {high}")
    return number


def _url(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{key}: {value!r} is not a URL (a string)")
    return value


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{key}: {value!r} is not a boolean (true/false)")


def section_value(
    config: Config, section: str, key: str, default: Any, kind: str = "str", **bounds: Any
) -> Any:
    """Read and validate one key of a package-owned section.

    ``kind`` is ``str``, ``int`` (``low``/``high``), ``float`` (``low``/``high``),
    ``prob``, ``bool``, ``choice`` (``allowed``) or ``list``.
    """
    data = config.section(section)
    if key not in data:
        return default
    return check_value(f"{section}.{key}", data[key], kind, **bounds)


def check_value(name: str, value: Any, kind: str, **bounds: Any) -> Any:
    """``value`` validated as a ``kind`` (see :func:`section_value`); the error names ``name``."""
    if kind == "int":
        return _int(name, value, bounds.get("low", 0), bounds.get("high", 2**62))
    if kind == "float":
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{name}: {value!r} is not a number") from None
        low, high = bounds.get("low", 0.0), bounds.get("high", math.inf)
        if not math.isfinite(number) or not low <= number <= high:
            raise ConfigError(f"{name}: {value!r} is not a number from {low} to {high}")
        return number
    if kind == "prob":
        return _probability(name, value)
    if kind == "bool":
        return _bool(name, value)
    if kind == "choice":
        return _choice(name, value, tuple(bounds["allowed"]))
    if kind == "list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{name}: {value!r} is not a list of strings")
        return list(value)
    if not isinstance(value, str):
        raise ConfigError(f"{name}: {value!r} is not a string")
    return value


def project_root(cwd: str) -> str:
    """The nearest ancestor that is a git work tree or has ``.agentreflex/config.toml``.

    A bare ``.agentreflex`` state dir is not a marker: one left behind in
    ``/tmp`` by an earlier run must not make every directory below it "the
    project" (and so make a home directory under it look like project files).
    Without a marker the project is ``cwd`` itself.
    """
    path = os.path.abspath(cwd or ".")
    probe = path
    while True:
        if os.path.exists(os.path.join(probe, ".git")) or os.path.isfile(
            os.path.join(probe, ".agentreflex", "config.toml")
        ):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return path
        probe = parent


def load_config(
    cwd: str = "", env: Mapping[str, str] | None = None, bad_project_file: str = "raise"
) -> Config:
    """Build the effective configuration for a project directory.

    The project's ``.agentreflex/config.toml`` is written by whoever writes the
    project, the agent included, so it is applied in full only when it
    weakens nothing compared with the approved baseline (defaults, the user's
    config and environment, and the last content of that file the user
    approved with ``agentreflex trust``), or when the user approved this exact
    content.  Otherwise the stricter of the baseline and the current settings
    applies field by field (:data:`STRICTNESS`), and :attr:`Config.untrusted`
    says what was withheld.  The trust record (one small JSON file) is read
    only when the project has a config file.

    ``bad_project_file="ignore"`` (the hook path): a project file that is not
    valid applies not at all, rather than failing the hook; a hook failing
    open (a Stop, say) would let an unapproved file weaken protection by
    being broken.  The approved baseline applies and ``untrusted`` says why.
    Commands keep the default, ``"raise"``, and show the error.
    """
    env = os.environ if env is None else env
    project = project_root(cwd or env.get("PWD", "") or os.getcwd())
    user: list[tuple[str, dict[str, Any], bool]] = []
    user_path = user_config_path(env)
    user_data = _read_toml(user_path, env)
    if user_data is not None:
        user.append((user_path, user_data, True))
    path = os.path.join(project, ".agentreflex", "config.toml")
    raw = _read_bytes(path)
    if raw is None:
        return _build(project, user, env)
    try:
        current = _build(project, [*user, (path, _parse_toml(path, raw, env), False)], env)
    except ConfigError as exc:
        if bad_project_file != "ignore":
            raise
        return _without_bad_file(project, user, path, raw, env, exc)
    from agentreflex.core.config import trust

    found = trust.lookup(path, raw, env)
    if found.approved:
        current.judge.base_url_trusted = True
        return current
    baseline = _approved_baseline(project, user, path, found, env)
    merged, withheld = strictest(baseline, current)
    merged.untrusted = [f"{path}: {w}" for w in withheld]
    if found.problem:
        merged.untrusted.append(found.problem)
    if withheld:
        from agentreflex.core.util.digest import sha256_hex

        merged.pending_config, merged.pending_sha256 = path, sha256_hex(raw)
        return merged
    return _settle(merged, baseline)


def _approved_baseline(
    project: str,
    user: list[tuple[str, dict[str, Any], bool]],
    path: str,
    found: Lookup,
    env: Mapping[str, str],
) -> Config:
    """Defaults, user config and environment, and the file's last approved content if any."""
    if found.previous is not None:
        from agentreflex.core.config import trust

        label = f"{path} (approved content {found.previous_sha256[:12]})"
        copy = trust.approved_copy_path(found.previous_sha256, env)
        try:
            approved = _parse_toml(copy, found.previous, env)
            return _build(project, [*user, (label, approved, True)], env)
        except ConfigError:
            pass  # the approved copy no longer validates: defaults and user config
    return _build(project, user, env)


def _without_bad_file(
    project: str,
    user: list[tuple[str, dict[str, Any], bool]],
    path: str,
    raw: bytes,
    env: Mapping[str, str],
    error: ConfigError,
) -> Config:
    """The approved baseline when the project file itself is not valid."""
    from agentreflex.core.config import trust
    from agentreflex.core.util.digest import sha256_hex

    found = trust.lookup(path, raw, env)
    baseline = _approved_baseline(project, user, path, found, env)
    baseline.untrusted = [f"{error}; the file is ignored until it is fixed"]
    if found.problem:
        baseline.untrusted.append(found.problem)
    baseline.pending_config, baseline.pending_sha256 = path, sha256_hex(raw)
    return baseline


def _settle(current: Config, baseline: Config) -> Config:
    """``current`` weakens nothing: its judge URL is the baseline's, so is its trust."""
    if current.judge.base_url == baseline.judge.base_url:
        current.judge.base_url_trusted = baseline.judge.base_url_trusted
        current.judge.base_url_source = baseline.judge.base_url_source
    return current


def _read_bytes(path: str) -> bytes | None:
    """A config file's bytes; None when there is none.

    Why not ``open``: on a FIFO (``mkfifo .agentreflex/config.toml``) it waits
    for a writer forever, and a hook that hangs until the host's timeout lets
    the tool call through.  Anything but a regular file is an error instead.
    """
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ConfigError(f"{path}: not a regular file")
        chunks = []
        while chunk := os.read(fd, 1 << 16):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    finally:
        os.close(fd)


def _build(
    project: str, files: list[tuple[str, dict[str, Any], bool]], env: Mapping[str, str]
) -> Config:
    """Defaults -> profile -> files in order -> environment (later wins)."""
    cfg = Config(project_dir=project)
    # The profile is chosen first (env beats files) because it sets defaults.
    profile = "balanced"
    for path, data, _trusted in files:
        if "profile" in data:
            profile = _choice(f"{path}: profile", data["profile"], PROFILES)
    if env.get("AGENTREFLEX_PROFILE"):
        profile = _choice("AGENTREFLEX_PROFILE", env["AGENTREFLEX_PROFILE"], PROFILES)
    _apply_profile(cfg, profile)
    for path, data, trusted in files:
        _apply_file(cfg, data, path, trusted)
        cfg.sources.append(path)
    _apply_env(cfg, env)
    if not cfg.state_dir:
        cfg.state_dir = os.path.join(project, ".agentreflex")
    elif not os.path.isabs(cfg.state_dir):
        cfg.state_dir = os.path.join(project, cfg.state_dir)
    return cfg


def _read_toml(path: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    raw = _read_bytes(path)
    return None if raw is None else _parse_toml(path, raw, env)


def _parse_toml(path: str, raw: bytes, env: Mapping[str, str]) -> dict[str, Any]:
    """Parsed TOML, from a JSON copy cached for this file when its content is unchanged.

    Why: importing ``tomllib`` (it pulls in ``typing``, ``datetime`` and
    ``string``) costs a hook process about 10 ms on this project's machines,
    on every tool call of a user who has a config file. One copy is kept per
    config file, stamped with the SHA-256 of the content it was parsed from,
    so an edit is never missed and old copies do not pile up; an unreadable
    or corrupt copy is parsed again; TOML that JSON cannot hold (dates) is not
    cached. The gate treats the cache directory as policy: an agent cannot
    forge a copy.
    """
    from agentreflex.core.state.userdirs import user_cache_dir
    from agentreflex.core.util import fastjson
    from agentreflex.core.util.digest import sha256_hex
    from agentreflex.core.util.fsutil import atomic_write_bytes

    cached = os.path.join(user_cache_dir(env), f"toml-{sha256_hex(os.path.abspath(path), 24)}.json")
    stamp = sha256_hex(raw)
    try:
        with open(cached, encoding="utf-8") as fh:
            copy = fastjson.loads(fh.read())
        if (
            isinstance(copy, dict)
            and copy.get("sha256") == stamp
            and isinstance(copy.get("data"), dict)
        ):
            return copy["data"]  # type: ignore[no-any-return]
    except (OSError, ValueError):
        pass
    import tomllib

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    try:
        os.makedirs(os.path.dirname(cached), mode=0o700, exist_ok=True)
        # the file's own key order (not dump_state's sorted keys): the first bad key a
        # hook reports must not depend on whether this copy existed
        copy_text = fastjson.dumps({"sha256": stamp, "data": data}, separators=(",", ":"))
        atomic_write_bytes(cached, copy_text.encode(), durable=False)
    except (OSError, TypeError, ValueError):
        pass  # a read-only cache dir or a TOML date: parse again next time
    return data


# ``[worktree] allow_undoable`` per profile: the figures behind it are in core's README.
UNDOABLE_LEVELS = ("off", "asks", "discards")
UNDOABLE_BY_PROFILE = {"off": "off", "lean": "discards", "balanced": "asks", "thorough": "off"}


def _apply_profile(cfg: Config, profile: str) -> None:
    settings = _PROFILE_SETTINGS[profile]
    cfg.profile = profile
    cfg.reflexes_enabled = settings["reflexes_enabled"]
    cfg.judge.mode = settings["judge_mode"]
    cfg.worktree_allow_undoable = UNDOABLE_BY_PROFILE[profile]


_TOP_KEYS = (
    "mode",
    "profile",
    "state_dir",
    "disabled_reflexes",
    "thresholds",
    "loop",
    "judge",
    "hook",
    "daemon",
    "worktree",
)


def _apply_file(cfg: Config, data: dict[str, Any], path: str, trusted: bool = True) -> None:
    for key, value in data.items():
        where = f"{path}: {key}"
        if key == "mode":
            cfg.mode = Mode(_choice(where, value, ("shadow", "enforced")))
        elif key == "profile":
            continue
        elif key == "state_dir":
            if not isinstance(value, str) or not value.strip():
                raise ConfigError(f"{where}: {value!r} is not a directory path (a string)")
            cfg.state_dir = value
        elif key == "disabled_reflexes":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where}: must be a list of reflex names (strings)")
            cfg.disabled_reflexes = tuple(value)
        elif key == "thresholds":
            _table(where, value)
            for name, number in value.items():
                if name not in DEFAULT_THRESHOLDS:
                    raise ConfigError(
                        f"{where}.{name}: unknown threshold; known: {', '.join(DEFAULT_THRESHOLDS)}"
                    )
                cfg.thresholds[name] = _probability(f"{where}.{name}", number)
        elif key == "loop":
            _table(where, value)
            for name, number in value.items():
                if name == "hard_repeat_count":
                    cfg.hard_loop_repeat_count = _int(f"{where}.{name}", number, 2, 1000)
                elif name == "recent_action_window":
                    cfg.recent_action_window = _int(f"{where}.{name}", number, 5, 500)
                else:
                    raise ConfigError(
                        f"{where}.{name}: unknown key; known: hard_repeat_count, recent_action_window"
                    )
        elif key == "judge":
            _apply_judge(cfg, value, where, trusted)
        elif key == "hook":
            _table(where, value)
            for name, number in value.items():
                if name == "floor_budget_ms":
                    cfg.floor_budget_ms = _int(f"{where}.{name}", number, 10, 60000)
                else:
                    raise ConfigError(f"{where}.{name}: unknown key; known: floor_budget_ms")
        elif key == "daemon":
            _table(where, value)
            for name, number in value.items():
                if name == "idle_seconds":
                    cfg.daemon_idle_seconds = _int(f"{where}.{name}", number, 5, 7 * 86400)
                else:
                    raise ConfigError(f"{where}.{name}: unknown key; known: idle_seconds")
        elif key == "worktree":
            _apply_worktree(cfg, value, where)
        elif key in _checked_sections():
            _apply_checked(cfg.sections.setdefault(key, {}), _declared(key), value, where)
        elif key in package_sections():
            _table(where, value)
            cfg.sections[key] = dict(value)
        else:
            known = ", ".join(_TOP_KEYS + package_sections())
            hint = NOT_DECLARED if isinstance(value, dict) else ""
            raise ConfigError(f"{where}: unknown key; known: {known}{hint}")


def _table(where: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: must be a table")


def _apply_judge(cfg: Config, value: Any, where: str, trusted: bool = True) -> None:
    _table(where, value)
    for name, item in value.items():
        key = f"{where}.{name}"
        if name == "mode":
            cfg.judge.mode = _choice(key, item, JUDGE_MODES)
        elif name == "base_url":
            cfg.judge.base_url = _url(key, item)
            cfg.judge.base_url_source = where.split(": ", 1)[0]
            cfg.judge.base_url_trusted = trusted
        elif name == "model":
            cfg.judge.model = str(item)
        elif name == "timeout_ms":
            cfg.judge.timeout_ms = _int(key, item, 50, 60000)
        elif name == "retries":
            cfg.judge.retries = _int(key, item, 0, 10)
        elif name == "api_key":
            raise ConfigError(f"{key}: keys are never read from files; set JEV_API_KEY")
        else:
            raise ConfigError(
                f"{key}: unknown key; known: mode, base_url, model, timeout_ms, retries"
            )


def _checked_sections() -> tuple[str, ...]:
    from agentreflex.core.registry import checked_sections

    return checked_sections()


def _declared(key: str) -> Section:
    """The declaration of checked section ``key`` (imports only its package's ``plugin.py``)."""
    from agentreflex.core.registry import checked_section

    return checked_section(key)


def _apply_checked(into: dict[str, Any], section: Section, value: Any, where: str) -> None:
    """A checked section's table, each key validated as core's own are (later files win)."""
    _table(where, value)
    settings = {item.key: item for item in section.settings}
    tables = {table.key: table for table in section.tables}
    for name, item in value.items():
        key = f"{where}.{name}"
        if name in settings:
            setting = settings[name]
            into[name] = check_value(key, item, setting.kind, **setting.bounds())
        elif name in tables:
            _apply_checked(into.setdefault(name, {}), tables[name], item, key)
        else:
            raise ConfigError(f"{key}: unknown key; known: {', '.join([*settings, *tables])}")


def _lookup(data: Any, dotted: str) -> tuple[bool, Any]:
    """``(True, value)`` at the dotted path in nested tables, ``(False, None)`` when absent."""
    for part in dotted.split("."):
        if not isinstance(data, dict) or part not in data:
            return False, None
        data = data[part]
    return True, data


def _put(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    data[last] = value


def declared_value(cfg: Config, section: Section, key: str) -> Any:
    """The effective value of a declared setting (see :meth:`Section.value`)."""
    setting = section.setting(key)
    found, value = _lookup(cfg.sections.get(section.key), key)
    if found:
        value = check_value(f"{section.key}.{key}", value, setting.kind, **setting.bounds())
    else:
        value = setting.default_for(cfg.profile)
    if not setting.follows:
        return value
    switch = declared_value(cfg, section, setting.follows)
    if switch == "off":
        return "off"
    return switch if value == "inherit" else value


def _apply_declared_env(cfg: Config, env: Mapping[str, str]) -> None:
    """The checked settings' environment variables: they win over every file."""
    from agentreflex.core.registry import env_overrides

    for var, key in env_overrides():
        if env.get(var):
            for dotted, setting in _declared(key).each():
                if setting.env == var:
                    value = check_value(var, env[var], setting.kind, **setting.bounds())
                    _put(cfg.sections.setdefault(key, {}), dotted, value)


_THRESH_PREFIX = "REFLEX_THRESH_"


def _apply_env(cfg: Config, env: Mapping[str, str]) -> None:
    if env.get("REFLEX_MODE"):
        cfg.mode = Mode(_choice("REFLEX_MODE", env["REFLEX_MODE"], ("shadow", "enforced")))
    for var in env:
        if var.startswith(_THRESH_PREFIX) and var[len(_THRESH_PREFIX) :].lower() not in (
            DEFAULT_THRESHOLDS
        ):
            known = ", ".join(_THRESH_PREFIX + n.upper() for n in DEFAULT_THRESHOLDS)
            raise ConfigError(f"{var}: unknown threshold; known: {known}")
    for name in DEFAULT_THRESHOLDS:
        var = _THRESH_PREFIX + name.upper()
        if env.get(var):
            cfg.thresholds[name] = _probability(var, env[var])
    if env.get("REFLEX_HARD_LOOP_REPEAT_COUNT"):
        cfg.hard_loop_repeat_count = _int(
            "REFLEX_HARD_LOOP_REPEAT_COUNT", env["REFLEX_HARD_LOOP_REPEAT_COUNT"], 2, 1000
        )
    if env.get("REFLEX_RECENT_ACTION_WINDOW"):
        cfg.recent_action_window = _int(
            "REFLEX_RECENT_ACTION_WINDOW", env["REFLEX_RECENT_ACTION_WINDOW"], 5, 500
        )
    if env.get("AGENTREFLEX_STATE_DIR"):
        cfg.state_dir = env["AGENTREFLEX_STATE_DIR"]
    _apply_declared_env(cfg, env)
    judge = cfg.judge
    judge.api_key = env.get("JEV_API_KEY", "").strip()
    if env.get("JEV_BASE_URL"):
        judge.base_url = env["JEV_BASE_URL"]
        judge.base_url_source, judge.base_url_trusted = "JEV_BASE_URL", True
    if env.get("JEV_MODEL"):
        judge.model = env["JEV_MODEL"]
    if env.get("JEV_MODE"):
        judge.mode = _choice("JEV_MODE", env["JEV_MODE"], JUDGE_MODES)


# --- strictness: what "weaker" means, field by field --------------------------
#
# The one table an auditor reads.  Each entry is (kind, order):
#   "order"  the values listed from weakest to strictest (a value not listed
#            counts as weakest);
#   "lower"  a lower number is stricter;  "higher"  a higher number is stricter;
#   "fewer"  a list of switched-off things: fewer is stricter (a subset);
#   "same"   any change from the approved value weakens (core cannot judge
#            its effect: where state lives, which judge answers, a package's
#            own section such as [gate] allow-lists or [budgets]);
#   "free"   no effect on protection (applies without approval).
# Threshold entries are generated below from how each threshold is compared:
# a finding fires when its signal is >= the threshold, except the two
# listed in _FIRES_BELOW_OR_AT (lower signal, or at most the ceiling).
STRICTNESS: dict[str, tuple[str, tuple[Any, ...]]] = {
    "mode": ("order", ("shadow", "enforced")),
    "profile": ("order", PROFILES),
    "reflexes_enabled": ("order", (False, True)),
    "disabled_reflexes": ("fewer", ()),
    "state_dir": ("same", ()),
    "hard_loop_repeat_count": ("lower", ()),
    "recent_action_window": ("higher", ()),
    "floor_budget_ms": ("lower", ()),  # an analysis over budget blocks
    "daemon_idle_seconds": ("free", ()),
    "worktree_observe": ("order", (False, True)),
    "worktree_snapshot_max_bytes": ("higher", ()),
    "worktree_allow_undoable": ("order", ("discards", "asks", "off")),
    "judge.mode": ("order", ("off", "mock", "auto", "jev")),
    "judge.base_url": ("same", ()),
    "judge.model": ("same", ()),
    "judge.timeout_ms": ("higher", ()),  # a judge that times out fails open
    "judge.retries": ("higher", ()),
}
_FIRES_BELOW_OR_AT = ("goal_alignment_warn", "loop_expected_progress_ceiling")
for _name in DEFAULT_THRESHOLDS:
    STRICTNESS[f"thresholds.{_name}"] = (
        ("higher", ()) if _name in _FIRES_BELOW_OR_AT else ("lower", ())
    )
# Every package-owned section ([gate], [budgets], [runaway] ...) is "same": core
# cannot judge its effect.  They are not listed here (core names no package):
# strictest() compares every section either config holds (_section_fields).
# A checked section (Section.checked) is compared setting by setting instead,
# each by its declared ``stricter`` (_checked_fields), under its dotted key.
SECTION_STRICTNESS = ("same", ())


def _getter(name: str) -> Callable[[Config], Any]:
    head, _, rest = name.partition(".")
    if head == "thresholds":
        return lambda cfg: cfg.thresholds[rest]
    if head == "sections":
        return lambda cfg: cfg.sections.get(rest)
    if head == "mode":
        return lambda cfg: cfg.mode.value
    if rest:
        return lambda cfg: getattr(getattr(cfg, head), rest)
    return lambda cfg: getattr(cfg, head)


# Built once at import: (field, kind, rank of each ordered value, how to read it).
_FIELDS = [
    (name, kind, {v: i for i, v in enumerate(order)}, _getter(name))
    for name, (kind, order) in STRICTNESS.items()
]
_GETTERS = {name: get for name, _kind, _rank, get in _FIELDS}


def _section_fields(*configs: Config) -> list[tuple[str, str, dict[Any, int], Any]]:
    """A "same" field for each unchecked package section any of ``configs`` holds."""
    checked = _checked_sections()
    names = sorted({name for cfg in configs for name in cfg.sections if name not in checked})
    return [(f"sections.{n}", SECTION_STRICTNESS[0], {}, _getter(f"sections.{n}")) for n in names]


def _checked_setting(name: str) -> tuple[Section, str] | None:
    """``(section, dotted key)`` when field ``name`` is a checked section's setting."""
    head, _, rest = name.partition(".")
    if not rest or head not in _checked_sections():
        return None
    return _declared(head), rest


def _checked_fields() -> list[tuple[str, str, dict[Any, int], Any]]:
    """A field for each setting of each checked section, compared by its ``stricter``."""
    fields = []
    for key in _checked_sections():
        section = _declared(key)
        for dotted, setting in section.each():
            rank = {v: i for i, v in enumerate(setting.order)}
            get = _declared_getter(section, dotted)
            fields.append((f"{key}.{dotted}", setting.stricter, rank, get))
    return fields


def _declared_getter(section: Section, dotted: str) -> Callable[[Config], Any]:
    return lambda cfg: declared_value(cfg, section, dotted)


def field_names() -> list[str]:
    """Every field strictest() compares besides package sections: core's, then checked settings'."""
    return [*STRICTNESS, *(name for name, _kind, _rank, _get in _checked_fields())]


def field_value(cfg: Config, name: str) -> Any:
    """The value of one :func:`field_names` field (a follower by its effective value)."""
    if name.startswith("sections."):
        return _getter(name)(cfg)
    declared = _checked_setting(name)
    if declared is not None:
        return declared_value(cfg, *declared)
    return _GETTERS[name](cfg)


def _copy_table(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_table(v) for k, v in value.items()}
    return value


def _set_field(cfg: Config, name: str, value: Any, source: Config) -> None:
    declared = _checked_setting(name)
    if declared is not None:
        _put(cfg.sections.setdefault(declared[0].key, {}), declared[1], value)
    elif name.startswith("thresholds."):
        cfg.thresholds[name.split(".", 1)[1]] = value
    elif name.startswith("sections."):
        section = name.split(".", 1)[1]
        if value is None:
            cfg.sections.pop(section, None)
        else:
            cfg.sections[section] = _copy_table(source.sections[section])
    elif name == "mode":
        cfg.mode = Mode(value)
    elif name.startswith("judge."):
        setattr(cfg.judge, name.split(".", 1)[1], value)
    else:
        setattr(cfg, name, value)


def weaker(name: str, value: Any, than: Any) -> bool:
    """Whether ``value`` of field ``name`` is weaker than ``than`` (see :data:`STRICTNESS`)."""
    declared = _checked_setting(name)
    if declared is not None:
        setting = declared[0].setting(declared[1])
        kind, order = setting.stricter, setting.order
    else:
        kind, order = SECTION_STRICTNESS if name.startswith("sections.") else STRICTNESS[name]
    return _weaker(kind, {v: i for i, v in enumerate(order)}, value, than)


def _weaker(kind: str, rank: dict[Any, int], value: Any, than: Any) -> bool:
    if kind == "free" or value == than:
        return False
    if kind == "order":
        return rank.get(value, -1) < rank.get(than, -1)
    if kind == "lower":
        return bool(value > than)
    if kind == "higher":
        return bool(value < than)
    if kind == "fewer":
        return not set(value) <= set(than)
    return True  # "same": any change


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(str(v) for v in value) + "]"
    if value is None:
        return "(none)"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {v!r}" for k, v in value.items())[:120] + "}"
    return repr(value) if isinstance(value, str) else str(value)


def _only_switch_differs(a: Config, b: Config, name: str) -> bool:
    """A ``follows`` setting written the same in both: only what it follows differs.

    That setting has its own line, so this one's would repeat it.
    """
    declared = _checked_setting(name)
    if declared is None or not declared[0].setting(declared[1]).follows:
        return False
    section, dotted = declared
    return bool(_written(a, section, dotted) == _written(b, section, dotted))


def _written(cfg: Config, section: Section, dotted: str) -> Any:
    """A declared setting's own value (``inherit`` unresolved), its default when absent."""
    found, value = _lookup(cfg.sections.get(section.key), dotted)
    return value if found else section.setting(dotted).default_for(cfg.profile)


def strictest(baseline: Config, current: Config) -> tuple[Config, list[str]]:
    """The stricter of ``baseline`` and ``current``, field by field, and what was withheld.

    Starts from a copy of ``current`` (so everything that tightens or does not
    matter applies) and puts back the baseline's value of every field where
    ``current`` is weaker.  ``disabled_reflexes`` keeps only the reflexes both
    switch off.
    """
    weaker_fields = [
        (name, kind, get(current), get(baseline))
        for name, kind, rank, get in [
            *_FIELDS,
            *_checked_fields(),
            *_section_fields(baseline, current),
        ]
        if _weaker(kind, rank, get(current), get(baseline))
    ]
    if not weaker_fields:
        return current, []
    merged = replace(
        current,
        thresholds=dict(current.thresholds),
        disabled_reflexes=tuple(current.disabled_reflexes),
        judge=replace(current.judge),
        sections={k: _copy_table(v) for k, v in current.sections.items()},
        sources=list(current.sources),
        untrusted=[],
    )
    withheld: list[str] = []
    for name, kind, now, then in weaker_fields:
        label = name.split(".", 1)[1] if name.startswith("sections.") else name
        if kind == "fewer":
            extra = [v for v in now if v not in then]
            _set_field(merged, name, tuple(v for v in now if v in then), baseline)
            withheld.append(f"{label} {_show(extra)} not switched off (needs your approval)")
            continue
        _set_field(merged, name, then, baseline)
        if _only_switch_differs(current, baseline, name):
            continue  # only the setting it follows differs, and that has its own line
        what = f"[{label}]" if name.startswith("sections.") else label
        withheld.append(f"{what} = {_show(now)} withheld; {_show(then)} applies")
    if merged.judge.base_url == baseline.judge.base_url:
        merged.judge.base_url_trusted = baseline.judge.base_url_trusted
        merged.judge.base_url_source = baseline.judge.base_url_source
    return merged, withheld


def with_mode(cfg: Config, mode: Mode) -> Config:
    """A copy of ``cfg`` with another enforcement mode (used by ``replay --mode``)."""
    return replace(cfg, mode=mode)


def _apply_worktree(cfg: Config, value: Any, where: str) -> None:
    """``[worktree]``: observe = true|false, snapshot_max_bytes = N, allow_undoable = LEVEL."""
    _table(where, value)
    for name, item in value.items():
        if name == "observe" and isinstance(item, bool):
            cfg.worktree_observe = item
        elif name == "snapshot_max_bytes":
            cfg.worktree_snapshot_max_bytes = _int(f"{where}.{name}", item, 0, 1 << 34)
        elif name == "allow_undoable":
            cfg.worktree_allow_undoable = _choice(f"{where}.{name}", item, UNDOABLE_LEVELS)
        else:
            raise ConfigError(
                f"{where}.{name}: unknown key or wrong type; known: observe (bool), "
                "snapshot_max_bytes (int), allow_undoable (off|asks|discards)"
            )
