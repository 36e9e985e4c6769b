"""GitHub Copilot CLI (``@github/copilot``) command hooks from ``.github/hooks/*.json``.

The hooks file (``{"version": 1, "hooks": {"preToolUse": [{"type":
"command", "bash": ..., "timeoutSec": ...}]}}``) names each event, and the
payload does not: ``agentreflex hook copilot <event>`` carries it (the
runtime hands it to :meth:`CopilotAdapter.parse` as ``hook_event_name``).
Payloads are camelCase: ``timestamp``, ``cwd``, and per event ``toolName``
with ``toolArgs`` (a JSON *string* in the CLI, an object in the SDK: both
read), ``toolResult: {resultType, textResultForLlm}`` after a tool,
``prompt`` on ``userPromptSubmitted``, ``source``/``initialPrompt`` on
``sessionStart``; ``sessionId`` when the version sends one.

Answers: ``preToolUse`` ``{"permissionDecision": "deny",
"permissionDecisionReason"}`` (the reason is returned to the model as the
denied tool's result); ``agentStop``/``subagentStop`` ``{"decision": "block",
"reason"}`` makes the agent continue with the reason (the done reflex);
context as ``additionalContext`` on ``sessionStart``, ``userPromptSubmitted``
and ``preToolUse``.  In enforced mode, where Copilot runs every tool without asking
(``--allow-all-tools``, ``--yolo``, ``COPILOT_ALLOW_ALL``), ``preToolUse`` answers
``modifiedArgs`` with the shell command inside agentreflex's boundary; elsewhere
Copilot matches the user's allowed tools against the replacement and refuses it, so
the command is left as written.  Copilot's tool names (``bash``, ``powershell``,
``view``, ``create``, ``edit``, ``str_replace`` ...) map to the shared kinds.
"""

from __future__ import annotations

import json

from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import (
    Event,
    EventKind,
    ToolCall,
    ToolKind,
    ToolResult,
    as_typed,
    tool_kind,
)
from agentreflex.core.hosts.base import (
    HostReply,
    PayloadError,
    cap,
    default_reason,
    dump_json,
    line_editing,
    require_str,
)
from agentreflex.core.hosts.contained import as_the_agent_wrote, contained_command
from agentreflex.core.hosts.toolnames import checked_input, mapped_call
from agentreflex.core.recap import Recap, render_plain
from agentreflex.core.util.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS: dict[str, EventKind] = {
    "sessionStart": EventKind.SESSION_START,
    "userPromptSubmitted": EventKind.USER_PROMPT,
    "preToolUse": EventKind.PRE_TOOL,
    "postToolUse": EventKind.POST_TOOL,
    "agentStop": EventKind.STOP,
    "subagentStop": EventKind.SUBAGENT_STOP,
    "sessionEnd": EventKind.SESSION_END,
}

# Copilot CLI's built-in tools -> the shared name whose kind and fields they share.
TOOL_ALIASES: dict[str, str] = {
    "bash": "bash",
    "powershell": "bash",
    "shell": "bash",
    "write_bash": "bash",  # input to a running shell: a shell
    "read_bash": "read",  # a running shell's output: a read
    # the same tools on Windows, where its shell is PowerShell (``powershell``,
    # ``write_powershell`` {shellId, input, delay} ...): unmapped, ``write_powershell``'s
    # typed ``input`` was judged as nothing at all (red-team rt41)
    "write_powershell": "bash",
    "read_powershell": "read",
    "view": "read",
    "create": "write",
    "edit": "edit",
    "str_replace": "edit",
    "str_replace_editor": "edit",
    "apply_patch": "apply_patch",
    "glob": "glob",
    "grep": "grep",
    "web_fetch": "webfetch",
    "task": "task",
    # {agent_id | agent_ids | scope, message}: the next user turn of a background agent
    # ``task`` started.  A subagent's own tool calls reach preToolUse like the main
    # loop's, as a real 1.0.102 run shows (integration-tests/test_copilot_host.py), so
    # the message is judged where it becomes calls, as ``task``'s prompt is
    "write_agent": "task",
}
_CONTEXT_EVENTS = (EventKind.SESSION_START, EventKind.USER_PROMPT, EventKind.PRE_TOOL)
_RECAP_EVENTS = (EventKind.SESSION_START, EventKind.USER_PROMPT)
_BLOCKING = (Verdict.BLOCK, Verdict.ASK_USER)


# Its own names, classified as the shared name each stands for.
TOOL_KINDS: dict[str, ToolKind] = {name: tool_kind(alias) for name, alias in TOOL_ALIASES.items()}


class CopilotAdapter:
    name = "copilot"
    tools = TOOL_KINDS
    containment = "bwrap"  # the hook replaces each shell command (hosts/contained.py)
    project_settings = (".github/hooks",)
    containment_limits = (
        "only in sessions that run every tool without asking (--allow-all-tools, --yolo, "
        "COPILOT_ALLOW_ALL); with some tools allowed, commands run as written"
    )
    events = EVENTS
    unknown_event: EventKind | None = None
    traits: frozenset[str] = frozenset()

    def parse(self, payload: dict[str, Any]) -> Event:
        name = require_str(payload, "hook_event_name")
        kind = EVENTS.get(name)
        if kind is None:
            raise PayloadError(f"unsupported hook event {name!r} for copilot")
        try:
            return self._parse_fields(payload, name, kind)
        except PayloadError as exc:
            exc.kind = exc.kind or kind
            raise

    def _parse_fields(self, payload: dict[str, Any], name: str, kind: EventKind) -> Event:
        session = require_str(payload, "sessionId", "") or require_str(payload, "session_id", "")
        event = Event(
            kind=kind,
            host=self.name,
            session_id=session or "unknown-session",
            cwd=require_str(payload, "cwd", ""),
            transcript_path=require_str(payload, "transcriptPath", ""),
            host_event=name,
            raw=payload,
        )
        if kind is EventKind.USER_PROMPT:
            event.prompt = require_str(payload, "prompt", "")
        if kind is EventKind.SESSION_START:
            event.prompt = require_str(payload, "initialPrompt", "")
        if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL):
            tool_name = require_str(payload, "toolName")
            alias = TOOL_ALIASES.get(tool_name.lower(), tool_name)
            args = _args(payload.get("toolArgs"), kind)
            if kind is EventKind.POST_TOOL:  # the arguments it ran with: ours, if we contained it
                args = as_the_agent_wrote(args)
            event.tool = mapped_call(tool_name, alias, checked_input(args, "toolArgs", alias, kind))
            if event.tool.kind is ToolKind.SHELL:
                _typed_command(event.tool, kind)
            if event.tool.kind is ToolKind.SEARCH:
                for more in _searched(event.tool.input):
                    if more not in event.tool.paths:
                        event.tool.paths.append(more)
        if kind is EventKind.POST_TOOL:
            shell = event.tool is not None and event.tool.kind is ToolKind.SHELL
            event.result = _result(payload.get("toolResult"), shell)
        if kind in (EventKind.STOP, EventKind.SUBAGENT_STOP):
            event.stop_hook_active = payload.get("stop_hook_active") is True
        return event

    def render_recap(self, recap: Recap) -> str:
        return render_plain(recap)

    def render(self, event: Event, decision: Decision) -> HostReply:
        verdict = decision.verdict
        reason = cap(default_reason(decision))
        if verdict is Verdict.ASK_USER:
            reason = cap("Needs the user's approval before it runs; ask the user. " + reason)
        if verdict in _BLOCKING and event.kind is EventKind.PRE_TOOL:
            body = {"permissionDecision": "deny", "permissionDecisionReason": reason}
            return HostReply(dump_json(body))
        if verdict in _BLOCKING and event.kind in (EventKind.STOP, EventKind.SUBAGENT_STOP):
            return HostReply(dump_json({"decision": "block", "reason": reason}))
        parts = list(decision.context)
        if decision.recap is not None and event.kind in _RECAP_EVENTS:
            parts.insert(0, self.render_recap(decision.recap))
        context = "\n".join(parts)
        out: dict[str, Any] = {}
        if event.kind in _CONTEXT_EVENTS and (verdict is not Verdict.ALLOW or context):
            out["additionalContext"] = cap(context or f"agentreflex warning: {reason}")
        contained = contained_command(event, decision)
        if contained is not None and not contained[1] and not _all_tools_allowed():
            contained = None  # Copilot matches the allowed tools against it: as written
        if contained is not None and not contained[1]:  # a note: left as written
            # preToolUse may replace the tool's arguments: the shell command runs
            # inside agentreflex's boundary (Copilot CLI has no sandbox of its own)
            args = _args(event.raw.get("toolArgs"), event.kind)
            out["modifiedArgs"] = {
                **(args if isinstance(args, dict) else {}),
                "command": contained[0],
            }
        note = contained[1] + "\n" if contained and contained[1] else ""
        return HostReply(dump_json(out) if out else "", note)

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        text = cap(f"agentreflex error: {message}")
        if fail_closed and kind is EventKind.PRE_TOOL:
            body = {
                "permissionDecision": "deny",
                "permissionDecisionReason": text + " (failing closed)",
            }
            return HostReply(dump_json(body), text + "\n", 0)
        return HostReply("", text + "\n", 0)


# Copilot CLI's own switches that run every tool without asking (``--yolo`` and
# ``--allow-all`` include ``--allow-all-tools``), and its environment switch.
_ALLOW_ALL_FLAGS = frozenset({"--allow-all-tools", "--allow-all", "--yolo"})
_TRUTHY = frozenset({"true", "1", "yes", "on", "y"})


def _all_tools_allowed(proc: str = "/proc", start: int = 0) -> bool:
    """Whether this Copilot CLI runs every tool without asking, so a replaced command is too.

    Elsewhere Copilot matches the tools the user allowed (``--allow-tool 'shell(touch)'``,
    or an approval given in the session) against the command it runs: a replacement no
    longer matches and is refused, and a session approval of it would approve every later
    one.  There the command is left as written (seen in 1.0.102).
    """
    import os

    if os.environ.get("COPILOT_ALLOW_ALL", "").strip().lower() in _TRUTHY:
        return True
    from agentreflex.core.hosts.hostprocess import host_argv

    argv = host_argv(("copilot", "npm-loader.js", "index.js"), proc, start)
    return argv is not None and any(w in _ALLOW_ALL_FLAGS for w in argv)


def _typed_command(call: ToolCall, kind: EventKind) -> None:
    """Copilot CLI's ``bash`` types its command into a persistent interactive shell (a
    terminal: ``write_bash`` answers it with keys), so the command is read as typed there:
    ``\\r`` is Enter, and a tab (completion) or ``^U`` beside text edits the line (red-team
    rt36: ``echo hi\\rrm -rf ~`` read as one ``echo``)."""
    if kind is EventKind.PRE_TOOL:
        where = line_editing(call.command, typed=True)
        if where is not None:
            raise PayloadError(
                f"field 'toolArgs.command' has a control character or key "
                f"({call.command[where : where + 11]!r} at {where}) that the terminal edits "
                "the line with; send plain text",
                kind,
            )
    call.command = as_typed(call.command)


def _searched(args: dict[str, Any]) -> list[str]:
    """The folders Copilot's ``grep`` and ``glob`` search: ``paths``, one string or a list
    (their schema in Copilot CLI 1.0.102's tool list: "One directory or an array of
    directories; defaults to cwd").  Read as no path, a ``grep`` of ``~/.ssh`` put keys
    into the transcript where ``view`` of them is refused (red-team rt46)."""
    given = args.get("paths")
    entries = [given] if isinstance(given, str) else given if isinstance(given, list) else []
    return [p for p in entries if isinstance(p, str) and p]


def _args(value: Any, kind: EventKind) -> Any:
    """``toolArgs`` decoded: the CLI sends a JSON string, the SDK an object."""
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except ValueError:
            raise PayloadError("field 'toolArgs' is not valid JSON", kind) from None
    return value  # ``create``'s ``file_text`` is read beside ``content`` (events.build_tool_call)


# The bash tool's text ends in ``<shellId: N completed with exit code C>`` (older builds:
# ``<exited with exit code C>``) and its resultType stays ``success`` for a command that
# exits non-zero: the exit code is only in this last line, as a real Copilot CLI 1.0.102
# run shows (integration-tests/test_copilot_host.py).
_EXIT_LINE = LazyPattern(
    r"<(?:shellId: [^\s>]+ )?(?:completed|exited) with exit code (-?\d+)>\s*\Z",
    hints="exit code",
)


def _result(result: Any, shell: bool) -> ToolResult:
    """``toolResult`` is ``{resultType: success|failure|denied, textResultForLlm}``.

    Only a shell's text ends in the tool's exit line: a viewed file ending in the same
    words was read fine."""
    if not isinstance(result, dict):
        return ToolResult(ok=None, output=str(result) if result is not None else "")
    kind = result.get("resultType")
    text = result.get("textResultForLlm", "")
    text = text if isinstance(text, str) else str(text)
    ok = {"success": True, "failure": False, "denied": False}.get(str(kind))
    found = _EXIT_LINE.search(text[-500:]) if shell else None
    code = int(found.group(1)) if found else None
    if code is not None and code != 0:
        ok = False  # the exit code can only make a result worse, never better
    elif ok is False:
        code = None
    return ToolResult(
        ok=ok,
        output=text if ok is not False else "",
        error=text if ok is False else "",
        exit_code=code,
    )
