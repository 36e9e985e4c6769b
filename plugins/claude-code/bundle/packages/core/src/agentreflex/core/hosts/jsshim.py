"""The payload our own JavaScript shims send, shared by OpenCode, pi and omp.

These hosts load plugins into their own process and have no hook commands,
so ``plugins/opencode`` and ``plugins/pi`` carry a small shim that turns each
host callback into one JSON object and sends it to ``agentreflex hook HOST
EVENT`` (stdin) or to the warm daemon's socket.  The contract is ours, so it
is one shape for every JS host:

request (one JSON object)::

    hook_event_name  the host's own callback name (required; see each adapter's EVENTS)
    session_id       the host's session id                     (string, optional)
    cwd              the project directory                     (string, optional)
    tool             tool name as the host spells it           (tool events, required)
    call_id          the host's tool-call id                   (string, optional)
    args             tool input as the host passed it          (object, required before a tool)
    result           after a tool: {"output": str, "is_error": bool,
                     "exit_code": int}                         (each optional)
    prompt           the user's message                        (prompt events)
    last_message     the agent's final text                    (stop events)
    stop_hook_active true when the shim already re-prompted for this stop
                     (the one-shot valve: the reflex then lets the turn end)
    model_id         the model answering (OpenCode, from the shim's bounded
    model_variant    ``message.updated`` cache; raw variant/effort)  (strings, <= 128 chars)

Unknown keys are kept in ``Event.raw`` and otherwise ignored.

reply (stdout, one JSON object)::

    {}                                   nothing to do
    {"block": true, "reason": "..."}     before a tool: refuse it with this reason;
                                         at a stop: send this reason as a follow-up
    {"context": "..."}                   text for the model's next request
    {"command": "..."}                   before a shell tool, enforced mode: run this
                                         instead (the same command inside agentreflex's
                                         bubblewrap boundary; see core/contain/boundary.py)

Why not reuse the Claude shape: the shims are ours, and each field the shim
has to interpret is a field it could misread; four keys are all it needs.
"""

from __future__ import annotations

from agentreflex.core.decision import Decision, Mode, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind, ToolResult, build_tool_call
from agentreflex.core.hosts.base import (
    HostReply,
    PayloadError,
    cap,
    default_reason,
    dump_json,
    in_its_folder,
    require_str,
    require_tool_input,
    tool_response_text,
)
from agentreflex.core.hosts.contained import contained_command
from agentreflex.core.recap import Recap, render_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, ClassVar

MODEL_KEYS = ("model_id", "model_variant")
MODEL_LIMIT = 128
_TOOL_EVENTS = (EventKind.PRE_TOOL, EventKind.POST_TOOL)
_CONTEXT_EVENTS = (
    EventKind.PRE_TOOL,
    EventKind.POST_TOOL,
    EventKind.USER_PROMPT,
    EventKind.SESSION_START,
)
# OpenCode's patch tool carries its body as ``patchText``
_PATCH_ALIASES = ("patchText", "patch_text")


def parse_shim_payload(
    payload: dict[str, Any],
    host: str,
    events: dict[str, EventKind],
    tools: Mapping[str, ToolKind] | None = None,
) -> Event:
    """An :class:`Event` from a shim payload, or a one-line :class:`PayloadError`."""
    name = require_str(payload, "hook_event_name")
    kind = events.get(name)
    if kind is None:
        raise PayloadError(f"unsupported hook_event_name {name!r} for {host}")
    try:
        return _parse_fields(payload, host, name, kind, tools)
    except PayloadError as exc:
        exc.kind = exc.kind or kind
        raise


def _parse_fields(
    payload: dict[str, Any],
    host: str,
    name: str,
    kind: EventKind,
    tools: Mapping[str, ToolKind] | None = None,
) -> Event:
    raw = _bounded_model_keys(payload)
    event = Event(
        kind=kind,
        host=host,
        session_id=require_str(payload, "session_id", "") or "unknown-session",
        cwd=require_str(payload, "cwd", ""),
        model=raw.get("model_id", ""),
        host_event=name,
        raw=raw,
    )
    if kind in _TOOL_EVENTS:
        tool_name = require_str(payload, "tool")
        if not tool_name.strip():
            raise PayloadError("field 'tool' must not be empty", kind)
        tool_input = _require_args(payload, tool_name, kind, tools)
        tool_input = _normalise_args(tool_input)
        event.tool = build_tool_call(
            tool_name, tool_input, require_str(payload, "call_id", ""), tools
        )
        in_its_folder(event.tool, kind)
    if kind is EventKind.POST_TOOL:
        event.result = _result(payload.get("result"))
    if kind is EventKind.USER_PROMPT:
        event.prompt = require_str(payload, "prompt", "")
    if kind is EventKind.STOP:
        event.last_message = require_str(payload, "last_message", "")
        # only JSON true: "false", 1 or {} must not open the valve
        event.stop_hook_active = payload.get("stop_hook_active") is True
    return event


def _require_args(
    payload: dict[str, Any],
    tool_name: str,
    kind: EventKind,
    tools: Mapping[str, ToolKind] | None = None,
) -> dict[str, Any]:
    """``args``, as strict as every host's ``tool_input`` (the shared check), named ``args``."""
    shaped = {"tool_name": tool_name}
    if "args" in payload:
        shaped["tool_input"] = payload["args"]
    try:
        return require_tool_input(shaped, kind, tools)
    except PayloadError as exc:
        raise PayloadError(str(exc).replace("'tool_input", "'args"), exc.kind) from None


def _bounded_model_keys(payload: dict[str, Any]) -> dict[str, Any]:
    """The payload with ``model_id``/``model_variant`` kept only as strings of <= 128 chars.

    Why: the guard reads exactly these two keys from ``Event.raw``; a list, a
    number or a megabyte there must never reach it.
    """
    raw = dict(payload)
    for key in MODEL_KEYS:
        value = raw.pop(key, None)
        if isinstance(value, str) and value:
            raw[key] = value[:MODEL_LIMIT]
    return raw


def _normalise_args(args: dict[str, Any]) -> dict[str, Any]:
    for alias in _PATCH_ALIASES:
        if alias in args and "patch" not in args:
            value = args[alias]
            if not isinstance(value, str):
                raise PayloadError(f"field 'args.{alias}' must be a string", EventKind.PRE_TOOL)
            return {**args, "patch": value}
    return args


def _result(value: Any) -> ToolResult:
    """What the tool did; an unknown shape is "unknown", never a guess."""
    ok, out, err, code, interrupted = tool_response_text(value)
    if isinstance(value, dict) and value.get("is_error") is True:
        ok = False
    return ToolResult(ok=ok, output=out, error=err, exit_code=code, interrupted=interrupted)


# Events where the session recap reaches the model (the prompt; OpenCode's
# system prompt of the turn, pi's extension message before the agent starts).
_RECAP_EVENTS = (EventKind.USER_PROMPT, EventKind.SESSION_START)
_REFUSING = (Verdict.BLOCK, Verdict.ASK_USER)  # refused already: no rule to read


def render_shim(
    event: Event, decision: Decision, recap: str = "", host_allows: bool = True
) -> HostReply:
    """The shim's reply for a decision (see the module docstring).

    ``recap``: the session recap as the host's adapter rendered it, sent as
    context with the user's prompt.  ``host_allows``: the host's own rules run
    the command as written without asking, so replacing it changes nothing
    but the boundary (:meth:`ShimAdapter.host_rules`).
    """
    verdict = decision.verdict
    reason = cap(default_reason(decision))
    refuse = verdict in (Verdict.BLOCK, Verdict.ASK_USER)
    if verdict is Verdict.ASK_USER:
        # neither host can ask a person from a plugin in a headless run
        reason = cap("Needs the user's approval before it runs; ask the user. " + reason)
    if refuse and event.kind in (EventKind.PRE_TOOL, EventKind.STOP):
        return HostReply(dump_json({"block": True, "reason": reason}))
    contained = contained_command(event, decision) if host_allows else None
    parts = list(decision.context)
    if recap and event.kind in _RECAP_EVENTS:
        parts.insert(0, recap)
    context = "\n".join(parts)
    reply: dict[str, str] = {}
    if event.kind in _CONTEXT_EVENTS and (context or verdict is not Verdict.ALLOW):
        reply["context"] = cap(context or f"agentreflex warning: {reason}")
    if contained is not None:
        reply["command"] = contained[0]
    if not reply:
        return HostReply("{}")
    note = contained[1] + "\n" if contained and contained[1] else ""
    return HostReply(dump_json(reply), note)


class ShimAdapter:
    """A host served by one of our JS shims: its events by name, the one reply shape.

    A host's adapter names itself and lists its callbacks (``events``); the
    session recap is plain text the shim puts before the model's next turn.
    """

    name = ""
    events: ClassVar[dict[str, EventKind]] = {}
    tools: ClassVar[dict[str, ToolKind]] = {}  # the host's own tool names (lower-cased)
    containment = "bwrap"  # the shim runs the command the hook rewrote (hosts/contained.py)
    project_settings: tuple[str, ...] = ()  # each host's own (OpenCode's, pi's)
    unknown_event: EventKind | None = None
    traits: frozenset[str] = frozenset()

    def parse(self, payload: dict[str, Any]) -> Event:
        return parse_shim_payload(payload, self.name, self.events, self.tools)

    def render(self, event: Event, decision: Decision) -> HostReply:
        recap = self.render_recap(decision.recap) if decision.recap is not None else ""
        tool = event.tool
        shell = (
            event.kind is EventKind.PRE_TOOL and tool is not None and tool.kind is ToolKind.SHELL
        )
        answer = "contain"
        if shell and decision.mode is Mode.ENFORCED and decision.verdict not in _REFUSING:
            answer = self.host_rules(event)
        if answer not in ("contain", "host"):  # the host's rule, held by the hook
            return HostReply(dump_json({"block": True, "reason": cap(answer)}), answer + "\n")
        return render_shim(event, decision, recap, answer == "contain")

    def host_rules(self, event: Event) -> str:
        """What the host's own permission rules make of this shell command: ``"contain"``
        (they run it as written without asking: only then is it replaced by the contained
        one, as a host that checks its rules against the replacement would otherwise pass
        over them), ``"host"`` (they deny or ask: the host decides on it as written), or
        the reason the hook refuses it, holding a rule the host's own matching would pass
        over.  pi has no such rules."""
        return "contain"

    def render_recap(self, recap: Recap) -> str:
        return render_plain(recap)

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        return render_shim_error(kind, message, fail_closed)


def render_shim_error(kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
    """Our own failure: refuse a proposed tool (floors fail closed), else say it and go on."""
    text = cap(f"agentreflex error: {message}")
    if fail_closed and kind is EventKind.PRE_TOOL:
        reason = text + " (failing closed: the safety floor could not be evaluated)"
        return HostReply(dump_json({"block": True, "reason": reason}), text + "\n", 0)
    return HostReply("{}", text + "\n", 0)
