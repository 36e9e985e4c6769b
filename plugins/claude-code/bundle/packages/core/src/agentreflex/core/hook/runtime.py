"""The hook path: payload in, host-native answer out.

    payload -> adapter.parse -> Event
            -> config (files + env)
            -> store.load (fold the session log)
            -> reflexes (floors + judge probabilities, each its own policy)
            -> merge (BLOCK > ASK_USER > WARN > ALLOW; shadow -> WOULD_*)
            -> store.record, panels
            -> adapter.render

The same :func:`run_hook` serves the one-shot hook process and the warm
daemon, so both paths give identical decisions.  Failures are classified:
our own code failing on a pre-tool floor blocks (fail closed); anything else
is logged and allowed (fail open).  Nothing here raises to the caller.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping

from agentreflex.core.config.settings import Config, ConfigError, load_config
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind, ToolKind
from agentreflex.core.hook.sessionproject import session_project
from agentreflex.core.hook.sessionproject import started as session_started
from agentreflex.core.hosts import TRANSCRIPT_USAGE, get_adapter
from agentreflex.core.hosts.base import HostReply, PayloadError
from agentreflex.core.redaction.redact import redact, redact_head, redact_line, redact_obj
from agentreflex.core.reflex import Note, ReflexContext
from agentreflex.core.state.auth import KeyUnavailable
from agentreflex.core.state.home import state_problem
from agentreflex.core.state.integrity import (
    LOST_NOTE,
    home_finding,
    lost_finding,
    report_finding,
    tamper_findings,
)
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import SessionStore, apply_usage, usage_record
from agentreflex.core.state.usage import UsageDelta, read_usage
from agentreflex.core.util import fastjson
from agentreflex.core.util.deadline import OutOfTime  # the reflexes ran past their time, too
from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.record import field, record
from agentreflex.core.worktree.gitboundary import within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.protocols import HostAdapter, Judge, Reflex

MAX_PAYLOAD_BYTES = 10 * 1024 * 1024
MAX_ANALYSED = 256 * 1024  # characters of one tool input the reflexes look at
MAX_OUTPUT_KEPT = 64 * 1024  # head and tail of a tool output, prompt or message
GROUP = "agentreflex.reflexes"


@record
class HookOutcome:
    reply: HostReply
    event: Event | None = None
    decision: Decision | None = None
    error: str = ""
    state: SessionState | None = None


@record
class Plugins:
    """The reflexes and judge factory of this process (kept warm by the daemon)."""

    reflexes: list[Reflex] = field(default_factory=list)
    judges: list[tuple[str, Any]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


_PLUGINS: Plugins | None = None
_LOADED: dict[str, Reflex] = {}  # spec -> instance, for this process
_ERRORS: dict[str, str] = {}  # spec -> why it could not be loaded


def load_plugins(
    refresh: bool = False, kind: EventKind | None = None, config: Config | None = None
) -> Plugins:
    """The installed reflexes, each imported once per process.

    With ``kind``, a reflex that is known (from the last time it was imported,
    and unchanged on disk since) not to handle that event is not imported at
    all: a one-shot hook process pays only for the reflexes its event needs.
    With ``config`` too, a reflex the configuration switches off is not
    imported either (it would not run). The daemon and the cold commands load
    everything.
    """
    global _PLUGINS
    if _PLUGINS is not None and not refresh:
        return _PLUGINS
    from agentreflex.core import registry

    if refresh:
        registry.clear_memo()
        _LOADED.clear()
        _ERRORS.clear()
    meta = registry.reflex_meta() if kind is not None else {}
    changed = False
    named: list[tuple[str, Reflex]] = []
    # Before a tool call the floors act: no cached note may leave one out.
    pre_tool = kind is EventKind.PRE_TOOL
    if pre_tool:
        listed, order, declared = registry.reflexes_for_pre_tool()
    else:
        listed, order = registry.entries(GROUP), dict(registry.entries(registry.ORDER))
        declared = dict(registry.entries(registry.EVENTS))
    for name, spec in listed:
        known = meta.get(spec)
        if kind is not None and _not_declared_for(declared.get(name), kind):
            continue
        if kind is not None and _not_needed(known, kind, config, name):
            continue
        if spec not in _LOADED and spec not in _ERRORS:
            try:
                _LOADED[spec] = registry.load_object(spec)()
            except Exception as exc:  # a broken plug-in is reported, never fatal
                _ERRORS[spec] = f"reflex {name} ({spec}): {type(exc).__name__}: {exc}"
                continue
            fresh = registry.describe(spec, _LOADED[spec])
            if fresh is not None and fresh != known:
                meta[spec] = fresh
                changed = True
        if spec in _LOADED:
            named.append((name, _LOADED[spec]))
    if changed:
        registry.record_reflex_meta(meta)
    named.sort(key=lambda item: (_place(order, item[0]), item[0]))
    plugins = Plugins(reflexes=[r for _, r in named], errors=list(_ERRORS.values()))
    plugins.judges = [(name, spec) for name, spec in registry.entries("agentreflex.judges")]
    if kind is None:
        _PLUGINS = plugins  # the full set: reuse it for every later event
    return plugins


def _place(order: dict[str, Any], name: str) -> int:
    """Where a reflex runs: the place its package declares (lower first)."""
    from agentreflex.core.plugin import DEFAULT_ORDER

    place = order.get(name, DEFAULT_ORDER)
    return place if isinstance(place, int) else DEFAULT_ORDER


def _not_declared_for(events: Any, kind: EventKind) -> bool:
    """Its package declares the events it handles, and ``kind`` is not one of them."""
    return isinstance(events, list) and bool(events) and kind.value not in events


def _not_needed(
    known: dict[str, Any] | None, kind: EventKind, config: Config | None, entry_name: str
) -> bool:
    """Known (and unchanged on disk since) not to handle ``kind``, or to be switched off.

    Before a tool call only the configuration may leave a reflex out, by the
    entry point's own name: what a cached note says a reflex handles is not
    enough there (a forged note must not skip the gate).
    """
    from agentreflex.core import registry

    if known is None or not registry.still_current(known):
        return False
    name = known.get("name")
    switched_off = config is not None and isinstance(name, str) and not config.reflex_enabled(name)
    if kind is EventKind.PRE_TOOL:
        return switched_off and name == entry_name
    return kind.value not in known["events"] or switched_off


def set_plugins(plugins: Plugins | None) -> None:
    """Install a fixed plug-in set (tests, ``check`` with explicit reflexes)."""
    global _PLUGINS
    _PLUGINS = plugins


def _judge_factory(plugins: Plugins, config: Config) -> Judge | None:
    if config.judge.mode == "off" or not plugins.judges:
        return None
    from agentreflex.core import registry

    _name, spec = plugins.judges[0]
    factory = registry.load_object(spec)
    judge: Judge | None = factory(config)
    return judge


def decode_payload(data: bytes) -> dict[str, Any]:
    """Bytes from the host -> dict, or PayloadError with a one-line reason."""
    if len(data) > MAX_PAYLOAD_BYTES:
        raise PayloadError(f"payload is {len(data)} bytes, over the {MAX_PAYLOAD_BYTES} limit")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"payload is not valid UTF-8 (byte {exc.start})") from None
    if not text.strip():
        raise PayloadError("empty payload on stdin")
    try:
        payload = fastjson.loads(text)
    except ValueError as exc:  # json.JSONDecodeError, which carries msg and pos
        where = f"{getattr(exc, 'msg', exc)} at char {getattr(exc, 'pos', '?')}"
        raise PayloadError(f"payload is not valid JSON ({where})") from None
    except RecursionError:
        raise PayloadError("payload is nested too deeply") from None
    if not isinstance(payload, dict):
        raise PayloadError(f"payload must be a JSON object, got {type(payload).__name__}")
    return payload


def _tool_size(event: Event) -> int:
    tool = event.tool
    return 0 if tool is None else max(len(tool.command), len(tool.content), len(tool.patch))


def _before_a_shell_command(event: Event, decision: Decision) -> bool:
    """A shell command is about to run, in enforced mode (the only one that changes things)."""
    tool = event.tool
    return (
        event.kind is EventKind.PRE_TOOL
        and tool is not None
        and tool.kind is ToolKind.SHELL
        and decision.mode is Mode.ENFORCED
        and decision.verdict is not Verdict.BLOCK
    )


def _too_large(size: int) -> Finding:
    return Finding(
        reflex="core",
        code="CORE-INPUT-TOO-LARGE",
        verdict=Verdict.ASK_USER,
        title="TOOL CALL TOO LARGE TO CHECK",
        message=f"This tool call is {size:,} characters, more than the {MAX_ANALYSED:,} "
        "agentreflex analyses, so its safety floors only saw the beginning. Ask the user "
        "to confirm it, or split it into smaller steps.",
    )


def bound_event(event: Event) -> Event:
    """Cut what reflexes may scan to a size every rule handles in milliseconds.

    Tool output keeps its head and its tail (errors are usually at the end);
    a pre-tool input longer than MAX_ANALYSED is cut too, and the decision
    then asks the user (see ``_too_large``).
    """
    result = event.result
    if result is not None:
        result.output = _head_tail(result.output)
        result.error = _head_tail(result.error)
    tool = event.tool
    if tool is not None:
        tool.command = tool.command[:MAX_ANALYSED]
        tool.content = tool.content[:MAX_ANALYSED]
        tool.old_content = tool.old_content[:MAX_ANALYSED]
        tool.patch = tool.patch[:MAX_ANALYSED]
    event.prompt = _head_tail(event.prompt)
    event.last_message = _head_tail(event.last_message)
    return event


def _head_tail(text: str, keep: int = MAX_OUTPUT_KEPT) -> str:
    if len(text) <= 2 * keep:
        return text
    return (
        text[:keep] + f"\n… [{len(text) - 2 * keep:,} characters not analysed] …\n" + text[-keep:]
    )


def evaluate(
    event: Event,
    state: SessionState,
    config: Config,
    plugins: Plugins,
    history_missing: bool = False,
    state_dir: str | None = None,
    spent: float = 0.0,
) -> tuple[Decision, ReflexContext]:
    """Run every enabled reflex for this event and merge their findings.

    ``history_missing``: the session state could not be read, so only floors
    (which need no history) may act; other findings become report-only.
    ``state_dir``: where reflexes may keep state ("" when nowhere may be
    written, see ``state.home``); the configured one by default.
    ``spent``: seconds of the host's timeout gone before (see :func:`run_hook`).
    """
    ctx = ReflexContext(
        event=event,
        state=state,
        config=config,
        state_dir=config.state_dir if state_dir is None else state_dir,
        deadline=time.monotonic() + config.floor_budget_ms / 1000.0,
        judge_factory=lambda: _judge_factory(plugins, config),
        judge_offline=config.judge.offline,
    )
    findings: list[Finding] = []
    errors: list[str] = []
    try:
        _bounded_reflexes(ctx, plugins, history_missing, findings, errors, spent)
    except OutOfTime as exc:  # between two reflexes, or as the timer was being stopped
        findings.append(_floor_error("core", f"{type(exc).__name__}: {exc}"))
    for finding in findings:  # what a reflex says goes to the host, the log and the agent
        _redact_finding(finding)
    if plugins.errors and event.kind is EventKind.PRE_TOOL:
        # An installed reflex that cannot load may be a safety floor: fail closed.
        findings.append(_plugin_error(plugins.errors))
    decision = merge(findings, config.mode)
    decision.errors = errors + list(plugins.errors)
    decision.degraded = list(ctx.degraded)
    decision.recap, decision.updated_output = ctx.recap, ctx.updated_output
    return decision, ctx


def host_set_env(
    adapter: HostAdapter, project: str, env: Mapping[str, str]
) -> tuple[Mapping[str, str], list[str]]:
    """``env`` without the variables a project's host settings gave the host that change
    what agentreflex reads.

    A host that applies a settings file's ``env`` to its own process (Claude Code; Gemini
    CLI's ``.env``) hands them to every hook as if the user had set them; one a project's
    file sets (a cloned repository's ``.claude/settings.json``) would change agentreflex's
    settings past the trust rule (``REFLEX_MODE=shadow``, ``AGENTREFLEX_STATE_DIR``,
    ``JEV_BASE_URL``) or where it reads the user's own (``XDG_CONFIG_HOME``,
    ``CLAUDE_CONFIG_DIR``).  So each variable :func:`~agentreflex.core.contain.dotenv.
    reaches` names is set aside where its value is the project file's, and said so in
    the log.
    """
    read = getattr(adapter, "project_settings_env", None)
    if read is None or not project:
        return env, []
    given = read(project)
    if not given:
        return env, []
    from agentreflex.core.contain.dotenv import reaches  # what changes where a program reads
    from agentreflex.core.hook.client import policy_variables

    # but a cache the containment policy holds ({env:NAME}) stays where the host's programs
    # will find it: set aside, the boundary would leave that folder writable (red-team rt84)
    held = policy_variables(env)
    given = {
        k: v
        for k, v in given.items()
        if reaches(k, held)
        and k.lower() not in held
        and not (k == "REFLEX_MODE" and v == "enforced")
    }  # a team's settings that turn enforced mode on (stricter) still do
    dropped = sorted(k for k, v in given.items() if env.get(k) == v)
    if not dropped:
        return env, []
    note = f"set aside {', '.join(dropped)}: given by the project's host settings, not the user"
    if env is os.environ:  # the hook's own process: what reads os.environ (the answer's
        for name in dropped:  # boundary, the policy's folders) must not see them either
            os.environ.pop(name, None)
        return env, [note]
    return {k: v for k, v in env.items() if k not in dropped}, [note]


def _bounded_reflexes(
    ctx: ReflexContext,
    plugins: Plugins,
    history_missing: bool,
    findings: list[Finding],
    errors: list[str],
    spent: float = 0.0,
) -> None:
    """:func:`_run_reflexes`, stopped past :func:`floor_limit` (less what was ``spent``
    before, but no less than :data:`_LEAST_TIME`) before a tool call.

    The reflexes' slow steps check their own deadline (:mod:`~agentreflex.core.util.
    deadline`): that holds on the warm daemon's threads, where no signal arrives, and
    wherever the interpreter is.  The main thread's signal is only the backstop for one
    step that hangs, and comes later: its exception lands wherever the interpreter is, a
    garbage collector's callback or a ``__del__`` included, where it is swallowed
    ("Exception ignored") and the reflexes go on.
    """
    if ctx.event.kind is not EventKind.PRE_TOOL:
        _run_reflexes(ctx, plugins, history_missing, findings, errors)
        return
    from agentreflex.core.util import deadline

    limit = max(round(floor_limit() - spent, 1), min(_LEAST_TIME, floor_limit()))
    stop_timer = _floor_timer(limit + _BACKSTOP_AFTER)
    before = deadline.start(limit)
    try:
        _run_reflexes(ctx, plugins, history_missing, findings, errors)
    finally:
        deadline.restore(before)  # the work tree's look that follows has its own
        if stop_timer is not None:
            stop_timer()


def _run_reflexes(
    ctx: ReflexContext,
    plugins: Plugins,
    history_missing: bool,
    findings: list[Finding],
    errors: list[str],
) -> None:
    """Each enabled reflex's findings into ``findings``; a floor that fails, fails closed."""
    event, config = ctx.event, ctx.config
    out_of_time = ""
    for reflex in plugins.reflexes:
        if event.kind not in reflex.events or not config.reflex_enabled(reflex.name):
            continue
        if out_of_time:  # what is left of the floors fails closed, unrun
            if reflex.floor:
                findings.append(_floor_error(reflex.name, out_of_time))
            continue
        try:
            check_time()  # one that ran long without asking leaves the rest no time
            produced = reflex.evaluate(ctx)
            if history_missing and not reflex.floor:
                for finding in produced:
                    finding.enforce = False
            findings.extend(produced)
        except (Exception, OutOfTime) as exc:
            msg = redact(f"reflex {reflex.name} failed: {type(exc).__name__}: {exc}")
            errors.append(msg)
            if isinstance(exc, OutOfTime):
                out_of_time = msg
            if reflex.floor and event.kind is EventKind.PRE_TOOL:
                findings.append(_floor_error(reflex.name, msg))


# Seconds the reflexes may take on a proposed tool call, well inside the host's own hook
# timeout (30 s as installed): a hook the host stops answers nothing, and the host runs
# the tool (red-team rt36: an MCP call naming 30 000 paths took the gate 40 s).
FLOOR_HARD_LIMIT = 15.0


# Seconds the work tree's look (change facts, the snapshot for undo) may take, after the
# reflexes' own FLOOR_HARD_LIMIT and still inside the host's 30 s: its cost grows with the
# files a command leaves (a million empty ones made it 47 s, red-team rt70), and a hook the
# host stops answers nothing, so the next command ran as written, outside the boundary.
WORKTREE_LIMIT = 8.0


def _observe_worktree(event: Event, decision: Decision, notes: list[Note], config: Config) -> None:
    """The work tree's look before or after the tool, given up past :data:`WORKTREE_LIMIT`.

    Given up, the call has no change facts and no snapshot, and says so; the answer (the
    boundary's line among it) is still given in time.  A discard the gate asked about
    stays asked (only a snapshot that holds its work lifts a question), and the question
    says that nothing is saved: a command that left a million files must not buy the next
    one a silent discard.
    """
    from agentreflex.core.util import deadline
    from agentreflex.core.worktree.hook import around_tool, say_nothing_saved

    limit = worktree_limit()
    # the look's own checks stop it (they hold on the daemon's threads too); the main
    # thread's signal is only the backstop for one step that hangs, and comes later: a
    # signal's exception lands wherever the interpreter is, a garbage collector's callback
    # included, where it is swallowed ("Exception ignored") and the look goes on
    stop_timer = _floor_timer(limit + _BACKSTOP_AFTER)
    before = deadline.start(limit)
    try:
        around_tool(event, decision, notes, config)
    except OutOfTime as exc:
        why = f"{exc}: too many files to look at"
        decision.errors.append(f"work tree not observed ({why})")
        if event.kind is EventKind.PRE_TOOL and decision.verdict.rank >= Verdict.ASK_USER.rank:
            say_nothing_saved(decision, why)  # not lifted: no snapshot holds its work
    finally:
        deadline.restore(before)
        if stop_timer is not None:
            stop_timer()


# Seconds the reflexes get however long the hook waited before (an ordinary call takes
# milliseconds; one that takes more fails closed, which is the safe side)
_LEAST_TIME = 1.0

# Seconds past a deadline the steps check themselves before the main thread's signal
# backstop fires (only for one step that hangs, see _bounded_reflexes)
_BACKSTOP_AFTER = 2.0


def worktree_limit() -> float:
    """:data:`WORKTREE_LIMIT`, or less where ``AGENTREFLEX_WORKTREE_LIMIT`` asks for less."""
    return _lowered("AGENTREFLEX_WORKTREE_LIMIT", WORKTREE_LIMIT)


def floor_limit() -> float:
    """:data:`FLOOR_HARD_LIMIT`, or less where ``AGENTREFLEX_FLOOR_LIMIT`` asks for less."""
    return _lowered("AGENTREFLEX_FLOOR_LIMIT", FLOOR_HARD_LIMIT)


def _lowered(name: str, limit: float) -> float:
    """``limit``, or the variable ``name``'s seconds where they are fewer.

    Only lower: a slow disk's user may want the answer sooner (and tests want a few
    thousand files or paths to stand for a million); more would miss the host's timeout.
    Read from the process's environment, which the warm daemon takes from each client.
    """
    try:
        asked = float(os.environ.get(name, ""))
    except ValueError:
        return limit
    return asked if 0 < asked < limit else limit


def _floor_timer(limit: float) -> Callable[[], None] | None:
    """Raise :class:`OutOfTime` in this thread after ``limit`` seconds; the stopper.

    Only the main thread has signals (None elsewhere, and where a test runner's timer
    comes first): the backstop behind the steps' own deadline checks.
    """
    if TYPE_CHECKING:
        import signal
    else:  # signal.py imports enum for its IntEnums; the C module it wraps is enough here
        import _signal as signal

    def _raise(signum: int, frame: object) -> None:
        raise OutOfTime(f"no answer within {limit:g} s")

    try:
        previous = signal.signal(signal.SIGALRM, _raise)
        delay, interval = signal.setitimer(signal.ITIMER_REAL, limit)
    except (ValueError, AttributeError, OSError):
        return None
    started = time.monotonic()

    def stop() -> None:
        # a timer someone else had set (a test runner's) runs on with what it had left
        left = max(delay - (time.monotonic() - started), 0.001) if delay else 0.0
        signal.setitimer(signal.ITIMER_REAL, left, interval)
        signal.signal(signal.SIGALRM, previous)

    if 0 < delay <= limit:  # theirs comes first: leave it as it was
        stop()
        return None
    return stop


def _redact_finding(finding: Finding) -> None:
    """Secrets quoted by a reflex (a command segment, a path) never leave in its words."""
    finding.message = redact(finding.message)
    finding.context = redact(finding.context)
    if finding.detail:
        clean = redact_obj(finding.detail)
        finding.detail = clean if isinstance(clean, dict) else {}


def _floor_error(reflex: str, message: str) -> Finding:
    return Finding(
        reflex=reflex,
        code="CORE-FLOOR-ERROR",
        verdict=Verdict.BLOCK,
        title="SAFETY FLOOR COULD NOT BE EVALUATED",
        message=f"agentreflex could not evaluate the {reflex} safety floor ({message}); "
        "failing closed. Ask the user to check `agentreflex doctor`.",
    )


def _plugin_error(errors: list[str]) -> Finding:
    return Finding(
        reflex="core",
        code="CORE-PLUGIN-ERROR",
        verdict=Verdict.BLOCK,
        title="A REFLEX PACKAGE COULD NOT BE LOADED",
        message="agentreflex could not load an installed reflex package ("
        + redact_head("; ".join(errors), 400)
        + "), so its safety floors cannot run; failing closed. "
        "Ask the user to run `agentreflex doctor` and repair the installation.",
    )


def run_hook(
    host: str,
    data: bytes,
    env: Mapping[str, str] | None = None,
    event_hint: str | None = None,
    plugins: Plugins | None = None,
    still_wanted: Callable[[], bool] | None = None,
    spent: float = 0.0,
) -> HookOutcome:
    """The whole hook path.  Never raises; the reply is always host-valid.

    ``spent``: seconds of the host's timeout this hook already spent, waiting for a
    warm daemon that did not answer: the reflexes get that much less (see
    :func:`_bounded_reflexes`), so that the wait, the reflexes and the work tree's look
    stay inside the host's 30 s together (5 + 10 + 8, not 5 + 15 + 8 and backstops).

    ``event_hint`` is the event the hook was registered for (``agentreflex
    hook claude-code PreToolUse``); it wins over the payload's own
    ``hook_event_name`` (see :func:`reconcile_event`).  ``still_wanted`` (the
    daemon's) is asked after the reflexes and again just before the event is
    recorded: a caller that gave up waiting evaluates the event itself, looks
    included, and it must be recorded once.
    """
    started = time.perf_counter()
    try:
        adapter = get_adapter(host)
    except ValueError as exc:
        return HookOutcome(HostReply("", f"agentreflex: {exc}\n", 1), error=str(exc))
    registered = adapter.events.get(event_hint) if event_hint else None
    payload: dict[str, Any] | None = None
    notes: list[str] = []
    try:
        payload = decode_payload(data)
        payload, note = reconcile_event(adapter, payload, event_hint or "", registered)
        notes += [note] if note else []
        event = adapter.parse(payload)
    except PayloadError as exc:
        kind = registered or exc.kind or adapter.unknown_event
        return _fail(
            adapter, kind, f"bad {host} payload: {exc}", None, True, _error_dir(env, payload)
        )
    except Exception as exc:  # adapter bug: same treatment as a bad payload
        return _fail(
            adapter,
            registered or adapter.unknown_event,
            f"adapter error: {type(exc).__name__}: {exc}",
            None,
            True,
            _error_dir(env, payload),
        )
    try:
        # a broken project file applies not at all (see load_config): never a way to fail open
        # the session's project, never the nearest .git above a cwd the agent moved to
        project, event.session_folder = session_project(adapter, event, env)
        event.session_started = session_started(event, os.environ if env is None else env)
        env, set_aside = host_set_env(adapter, project, os.environ if env is None else env)
        notes += set_aside
        config = load_config(project, env, bad_project_file="ignore")
        event.project = config.project_dir
    except ConfigError as exc:
        return _fail(
            adapter,
            event.kind,
            f"configuration error: {exc}",
            event,
            True,
            _error_dir(env, payload),
        )
    try:
        plugins = plugins or load_plugins(kind=event.kind, config=config)
        with within(event.session_folder or event.project or event.cwd):
            return _run_event(adapter, event, config, plugins, started, notes, still_wanted, spent)
    except Exception as exc:  # last line of defence: never a traceback on the host
        return _fail(
            adapter,
            event.kind,
            f"internal error: {type(exc).__name__}: {exc}",
            event,
            True,
            config.state_dir,
        )


def reconcile_event(
    host: HostAdapter | str, payload: dict[str, Any], hint: str, registered: EventKind | None
) -> tuple[dict[str, Any], str]:
    """The payload with the event the hook was registered for, and a note if they differed.

    Why: the payload is data the host assembled from the agent's session; the
    registration is the user's configuration.  A payload that names another
    event than the hook it reached must not pick a laxer path: the
    registration wins, and if either side is a proposed tool call the event is
    handled as one (the strictest), with the disagreement reported.
    """
    if registered is None:
        return payload, ""
    names = (get_adapter(host) if isinstance(host, str) else host).events
    said = payload.get("hook_event_name")
    announced = names.get(said) if isinstance(said, str) else None
    if announced is registered:
        return payload, ""
    effective = EventKind.PRE_TOOL if EventKind.PRE_TOOL in (registered, announced) else registered
    name = hint if effective is registered else _name_of(names, effective)
    fixed = dict(payload)
    fixed["hook_event_name"] = name
    if "hook_event_name" not in payload:
        return fixed, ""
    said_text = redact_head(repr(said), 80)
    return fixed, (
        f"the hook is registered for {hint} but its payload says hook_event_name={said_text}; "
        f"handled as {name}"
    )


def _name_of(names: Mapping[str, EventKind], kind: EventKind) -> str:
    return next(name for name, k in names.items() if k is kind)


def _needs_history(config: Config) -> bool:
    """Does an enabled reflex declare that its stop question needs the session history?"""
    from agentreflex.core import registry

    return any(map(config.reflex_enabled, registry.history_reflexes()))


def _run_event(
    adapter: HostAdapter,
    event: Event,
    config: Config,
    plugins: Plugins,
    started: float,
    notes: list[str] | None = None,
    still_wanted: Callable[[], bool] | None = None,
    spent: float = 0.0,
) -> HookOutcome:
    size = _tool_size(event)
    bound_event(event)
    store = SessionStore(config.state_dir, event.session_id, config.recent_action_window)
    store_errors: list[str] = []
    extra: list[Finding] = []
    store_down, refused = state_problem(config, event.cwd)
    homeless = bool(store_down)  # nowhere we may write: no log, no panel
    lost = ""
    if store_down:
        state = SessionState(session_id=event.session_id, host=event.host, cwd=event.cwd)
        if refused:
            extra.append(home_finding(store_down, event.kind is EventKind.PRE_TOOL))
    else:
        state, store_down, lost = _load_state(store, event, extra, store_errors)
    usage = _read_usage(event, state, adapter)
    if usage is not None:
        apply_usage(state, usage_record(usage))
    # Without history, judgment calls have nothing to judge: they fail open.
    decision, ctx = evaluate(
        event,
        state,
        config,
        plugins,
        history_missing=bool(store_down),
        state_dir="" if homeless else None,
        spent=spent,
    )
    lost = lost or "; ".join(state.notes.get(LOST_NOTE, []))
    stopping = event.kind in (EventKind.STOP, EventKind.SUBAGENT_STOP)
    if lost and stopping and _needs_history(config):
        # a reflex's stop question cannot be answered without the history: fail closed
        extra.append(lost_finding(event.session_id, lost))
    if event.kind is EventKind.PRE_TOOL and size > MAX_ANALYSED:
        # Too big to check within any sane budget: a floor that cannot run asks.
        extra.append(_too_large(size))
    if extra:
        decision = _remerge(decision, extra, config)
    if _given_up(still_wanted):
        # the client evaluates the call itself, looks included: taken here too (seconds for
        # a large command), they would only compete with it for the CPU
        return HookOutcome(adapter.render(event, decision), event, decision, state=state)
    if _before_a_shell_command(event, decision) and config.state_dir and not homeless:
        # the hook's own code shares no file with a cache a command may write (hard links)
        from agentreflex.core.contain import ownlinks

        ownlinks.separate(config.state_dir)
    if event.tool is not None:
        from agentreflex.core.contain import planted

        # a plain folder too: a command there may make it a repository, or plant settings
        moved = planted.around_tool(event, decision, config, homeless)
        if moved:
            decision = _remerge(decision, moved, config)
    if event.tool is not None and not homeless and config.worktree_observe:
        # after the look for planted settings: reading the work tree may take long (a
        # large file written), and a host that stops waiting must not skip that look
        _observe_worktree(event, decision, ctx.notes, config)
    notice = _trust_notice(event, state, config)
    if notice:
        ctx.notes.append(Note("core", TRUST_NOTE, config.pending_sha256))
    latency = (time.perf_counter() - started) * 1000.0
    if store_down:
        store_errors.append(store_down + "; evaluated without session history, nothing recorded")
    elif _given_up(still_wanted):
        # The client gave up waiting and evaluates (and records) the event itself.
        return HookOutcome(adapter.render(event, decision), event, decision, state=state)
    else:
        try:
            state = store.record(event, decision, ctx.notes, latency, usage)
        except OSError as exc:
            store_errors.append(f"could not record the event ({exc.strerror or exc})")
    decision.errors.extend([*(notes or []), *store_errors])
    if decision.worth_logging and not homeless:
        from agentreflex.core.hook.panels import write_panels  # a plain ALLOW writes no panel

        write_panels(config.state_dir, event, decision)
    reply = adapter.render(event, decision)
    if notice:
        reply.stderr += notice
    if event.kind is EventKind.SESSION_START and not plugins.reflexes:
        reply.stderr += UNGUARDED_NOTICE
    if decision.errors:
        reply.stderr += "".join(f"agentreflex: {redact(e)}\n" for e in decision.errors)
    return HookOutcome(reply, event, decision, state=state)


def _given_up(still_wanted: Callable[[], bool] | None) -> bool:
    """Has the warm daemon's client stopped waiting (it evaluates the call itself)?"""
    return still_wanted is not None and not still_wanted()


UNGUARDED_NOTICE = (
    "agentreflex: no reflex package is installed, so nothing is guarding this session "
    "(agentreflex-core alone allows everything; `pip install agentreflex` adds the guards)\n"
)
TRUST_NOTE = "trust_notice"  # state.notes key: content hashes already announced


def _trust_notice(event: Event, state: SessionState, config: Config) -> str:
    """Once per session and content: say that a project config is waiting for approval.

    Logs the panel and returns the one line for the host's stderr ("" when
    nothing is withheld or this content was announced in this session).
    """
    if not config.pending_config or config.pending_sha256 in state.notes.get(TRUST_NOTE, ()):
        return ""
    from agentreflex.core.hook.panels import write_trust_panel

    write_trust_panel(config.state_dir, event, config)
    return (
        f"agentreflex: {config.pending_config} weakens protection and is not approved; "
        "what it weakens is withheld until the user runs `agentreflex trust`\n"
    )


def _load_state(
    store: SessionStore, event: Event, extra: list[Finding], errors: list[str]
) -> tuple[SessionState, str, str]:
    """The session's state; why it is unavailable ("" if it is); why its history is lost."""
    try:
        state, report = store.load()
    except KeyUnavailable as exc:
        reason = str(exc)
        extra.append(report_finding("CORE-STATE-KEY", reason))
        return _blank(event), f"state store unavailable ({reason})", reason
    except OSError as exc:
        why = exc.strerror or str(exc)
        lost = ""
        with contextlib.suppress(OSError):
            if store.anchored():  # records existed: their loss is not a fresh start
                lost = f"the session log cannot be read ({why})"
                extra.append(report_finding("CORE-STATE-LOST", lost))
        return _blank(event), f"state store unavailable ({why})", lost
    errors.extend(report.skipped)
    extra.extend(tamper_findings(report.tamper))
    if report.lost:
        extra.append(report_finding("CORE-STATE-LOST", report.lost))
    return state, "", ""


def _blank(event: Event) -> SessionState:
    return SessionState(session_id=event.session_id, host=event.host, cwd=event.cwd)


def _remerge(decision: Decision, extra: list[Finding], config: Config) -> Decision:
    merged = merge([*decision.findings, *extra], config.mode)
    merged.errors = decision.errors
    merged.degraded = decision.degraded
    merged.recap, merged.updated_output = decision.recap, decision.updated_output
    return merged


def _read_usage(event: Event, state: SessionState, adapter: HostAdapter) -> UsageDelta | None:
    """New token/cost usage from the host transcript (Claude Code records it)."""
    if TRANSCRIPT_USAGE not in adapter.traits or not event.transcript_path:
        return None
    seen = set(str(i) for i in state.notes.get("usage_ids", []))
    delta = read_usage(event.transcript_path, state.counters.transcript_cursor, seen)
    if delta is None or (delta.empty and delta.cursor == state.counters.transcript_cursor):
        return None
    return delta


def _error_dir(env: Mapping[str, str] | None, payload: dict[str, Any] | None) -> str | None:
    """Where to log an error that happened before the configuration was known."""
    import os

    source = os.environ if env is None else env
    if source.get("AGENTREFLEX_STATE_DIR"):
        return source["AGENTREFLEX_STATE_DIR"]
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    if isinstance(cwd, str) and cwd and os.path.isdir(os.path.join(cwd, ".agentreflex")):
        return os.path.join(cwd, ".agentreflex")
    return None


def _fail(
    adapter: HostAdapter,
    kind: EventKind | None,
    message: str,
    event: Event | None,
    fail_closed: bool,
    state_dir: str | None = None,
) -> HookOutcome:
    # redact, then collapse, then cut: a cut first could leave half a secret no rule knows
    one_line = redact_line(message, 500)
    if state_dir:
        from agentreflex.core.hook.panels import write_error

        write_error(state_dir, one_line)
    reply = adapter.render_error(kind, one_line, fail_closed)
    return HookOutcome(reply, event, None, error=one_line)


def check_command(
    command: str,
    cwd: str,
    tool: str = "Bash",
    env: Mapping[str, str] | None = None,
    plugins: Plugins | None = None,
    mode: Mode = Mode.ENFORCED,
) -> tuple[Decision, Event]:
    """One proposed tool call through every pre-tool reflex, with no session history."""
    from agentreflex.core.events import build_tool_call

    config = load_config(cwd, env)
    config.mode = mode
    lowered = tool.lower()
    if lowered in ("write", "edit", "read", "write_file", "read_file"):
        tool_input: dict[str, Any] = {"file_path": command}
    else:
        tool_input = {"command": command}
    event = Event(
        kind=EventKind.PRE_TOOL,
        host="check",
        session_id="check",
        cwd=cwd,
        tool=build_tool_call(tool, tool_input, "check"),
        host_event="PreToolUse",
    )
    state = SessionState(session_id="check", cwd=cwd)
    decision, _ = evaluate(event, state, config, plugins or load_plugins())
    return decision, event
