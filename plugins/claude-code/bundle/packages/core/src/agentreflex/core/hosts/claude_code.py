"""Claude Code command hooks: stdin JSON in, JSON on stdout (exit 0) out.

Blocking answers: PreToolUse ``hookSpecificOutput.permissionDecision: deny``
with a reason (the reason reaches the model); Stop/SubagentStop, PostToolUse
and UserPromptSubmit ``{"decision": "block", "reason"}``.  Warnings travel
as ``additionalContext`` (it reaches the model; ``systemMessage`` only
reaches the user).  An ALLOW prints nothing, except in enforced mode for a
Bash command when Claude Code's own sandbox is off: then PreToolUse answers
``updatedInput`` with the command inside agentreflex's bubblewrap boundary
(:mod:`agentreflex.core.hosts.contained`), and PostToolUse reads the command
back as the agent wrote it.  That is every Bash command where permissions are
bypassed (``--dangerously-skip-permissions``, where nothing else stands
between the agent and the machine); in the modes where Claude Code matches the
user's permission rules against the command, only a command a rule certainly
allows as written, with the rule's "allow" (:mod:`.claude_rules`).  Claude
Code's sandbox, when on, is left to do that job (``install claude-code
--sandbox``); it also confines the network, but on Linux it ends whatever a
command started when the command ends, so a dev server started by one command
cannot answer the next, which ours allows.
"""

from __future__ import annotations

import sys

from agentreflex.core.decision import Decision, Mode, Verdict
from agentreflex.core.events import Event, EventKind, ToolKind, ToolResult, build_tool_call
from agentreflex.core.hosts import TRANSCRIPT_USAGE
from agentreflex.core.hosts.base import (
    HostReply,
    PayloadError,
    cap,
    default_reason,
    dump_json,
    require_str,
    require_tool_input,
    tool_response_text,
)
from agentreflex.core.hosts.contained import as_the_agent_wrote, contained_command
from agentreflex.core.recap import Recap, render_plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

EVENTS: dict[str, EventKind] = {
    "SessionStart": EventKind.SESSION_START,
    "UserPromptSubmit": EventKind.USER_PROMPT,
    "PreToolUse": EventKind.PRE_TOOL,
    "PostToolUse": EventKind.POST_TOOL,
    "PostToolUseFailure": EventKind.POST_TOOL_FAILURE,
    "Stop": EventKind.STOP,
    "SubagentStop": EventKind.SUBAGENT_STOP,
    "PreCompact": EventKind.PRE_COMPACT,
    "SessionEnd": EventKind.SESSION_END,
}
HOST_NAMES = {v: k for k, v in EVENTS.items()}

# Claude Code's own tool names beyond the shared ones (docs: "Tools available to Claude").
TOOL_KINDS: dict[str, ToolKind] = {
    "multiedit": ToolKind.EDIT,
    "notebookedit": ToolKind.EDIT,
    "notebookread": ToolKind.READ,
    "bashoutput": ToolKind.READ,
    "ls": ToolKind.SEARCH,
    "agent": ToolKind.SUBAGENT,
    # runs its ``command`` in a shell and streams the output back (sdk-tools.d.ts
    # ``MonitorInput``): unmapped, it ran outside the boundary in enforced mode and
    # overwrote .agentreflex/config.toml in the real Claude Code 2.1.328 (red-team rt41)
    "monitor": ToolKind.SHELL,
    # {script | name | scriptPath, args}: a JavaScript program whose steps are subagents
    # (``agent()``, ``parallel()``, ``pipeline()``), each one's tool calls through
    # PreToolUse as the Agent tool's are.  No shell runs it: 2.1.328's binary compiles it
    # as ``new Lo.Script(r,{filename:"workflow.js",importModuleDynamically:...})`` and
    # runs it in a ``node:vm`` context of its own process built with
    # ``codeGeneration:{strings:!1,wasm:!1}`` (strings of the binary near "import() is
    # not available in workflow scripts").  Read as a shell command (its ``script``
    # field) it was judged as one; enforced mode refuses it (_uncontained_code)
    "workflow": ToolKind.SUBAGENT,
}


def parse_claude_style(
    payload: dict[str, Any], host: str, tools: Mapping[str, ToolKind] | None = None
) -> Event:
    """Parse the Claude-compatible hook payload (shared with Codex)."""
    name = require_str(payload, "hook_event_name")
    kind = EVENTS.get(name)
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
    event = Event(
        kind=kind,
        host=host,
        session_id=require_str(payload, "session_id", "") or "unknown-session",
        cwd=require_str(payload, "cwd", ""),
        transcript_path=require_str(payload, "transcript_path", ""),
        model=_model(payload.get("model")),
        agent_id=require_str(payload, "agent_id", ""),
        host_event=name,
        raw=payload,
    )
    if kind is EventKind.USER_PROMPT:
        event.prompt = require_str(payload, "prompt", "")
    if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL, EventKind.POST_TOOL_FAILURE):
        tool_name = require_str(payload, "tool_name")
        tool_input = require_tool_input(payload, kind, tools)
        event.tool = build_tool_call(tool_name, tool_input, _tool_id(payload), tools)
    if kind is EventKind.POST_TOOL:
        ok, out, err, code, interrupted = tool_response_text(payload.get("tool_response"))
        event.result = ToolResult(
            ok=ok, output=out, error=err, exit_code=code, interrupted=interrupted
        )
    elif kind is EventKind.POST_TOOL_FAILURE:
        error = payload.get("error", "")
        event.result = ToolResult(
            ok=False,
            error=str(error) if error is not None else "",
            interrupted=bool(payload.get("is_interrupt", False)),
        )
    if kind in (EventKind.STOP, EventKind.SUBAGENT_STOP):
        # Only JSON true: "false", 1 or {} must not pass for "the host is already re-prompting".
        event.stop_hook_active = payload.get("stop_hook_active") is True
        msg = payload.get("last_assistant_message")
        event.last_message = msg if isinstance(msg, str) else ""
    return event


def _tool_id(payload: dict[str, Any]) -> str:
    value = payload.get("tool_use_id", "")
    return value if isinstance(value, str) else str(value)


def _model(value: Any) -> str:
    if isinstance(value, str):
        return value[:128]
    if isinstance(value, dict):
        return str(value.get("id", value.get("display_name", "")))[:128]
    return ""


# Permission modes in which Claude Code answers a hook's "ask" itself, without the
# user (seen with Claude Code 2.1.328: ``claude -p --dangerously-skip-permissions``
# ran a Write the hook answered "ask" to).  ASK_USER then becomes a deny that says so.
_NOBODY_ASKED = frozenset({"bypassPermissions", "dontAsk"})


# Events whose ``additionalContext`` reaches the model before its next turn.
_RECAP_EVENTS = (EventKind.SESSION_START, EventKind.USER_PROMPT)


def _with_updated_output(event: Event, decision: Decision, reason: str, context: str) -> HostReply:
    """PostToolUse replacing the tool's output (the context layer's shortened copy).

    ``updatedToolOutput`` must have the tool's own shape (Bash: ``{stdout,
    stderr, interrupted, isImage}``), which the context layer kept; MCP tools
    take ``updatedMCPToolOutput``.  A block or a warning still travels with it.
    """
    mcp = event.tool is not None and event.tool.kind is ToolKind.MCP
    key = "updatedMCPToolOutput" if mcp else "updatedToolOutput"
    out: dict[str, Any] = {"hookEventName": "PostToolUse", key: decision.updated_output}
    body: dict[str, Any] = {"hookSpecificOutput": out}
    if decision.verdict in (Verdict.BLOCK, Verdict.ASK_USER):
        body["decision"] = "block"
        body["reason"] = reason
    elif decision.verdict is Verdict.WARN or context:
        out["additionalContext"] = context or f"agentreflex warning: {reason}"
    return HostReply(dump_json(body))


_AFTER_TOOL = ("PostToolUse", "PostToolUseFailure")
# Where the replacement changes nothing but the boundary: nobody is asked.
_CONTAINED_MODES = frozenset({"bypassPermissions"})
# Where Claude Code matches the user's permission rules (``Bash(npm test:*)``) against the
# command it would run, which a replacement would no longer match: every allowed command
# would ask (seen in 2.1.328).  There a command is contained only when a rule in the
# settings files certainly allows it as written, and the hook then answers "allow" itself
# (:mod:`agentreflex.core.hosts.claude_rules`); the rest is Claude Code's own sandbox's
# to hold (``install --sandbox``).
_RULED_MODES = frozenset({"default", "acceptEdits", "dontAsk"})
# Where Claude Code reads ``sandbox.enabled`` (its settings, managed ones first).
_MANAGED_SETTINGS = "/etc/claude-code/managed-settings.json"
# The rest of its managed tier on Linux: drop-in files that add to it.
_MANAGED_FOLDER = "/etc/claude-code/managed-settings.d"


def _project(event: Event) -> str:
    """The project Claude Code reports to its hooks (``CLAUDE_PROJECT_DIR``), else its ``cwd``."""
    import os

    return os.environ.get("CLAUDE_PROJECT_DIR") or event.cwd


def _contained(event: Event, decision: Decision) -> tuple[str, str, bool] | None:
    """The Bash command inside our boundary, its note, and whether the hook allows it itself.

    None where Claude Code's own sandbox runs the command, or where its permission
    rules would no longer see the command the agent wrote.  A command the agent
    reran with ``dangerouslyDisableSandbox`` (allowed when ``allowUnsandboxedCommands``
    is not false) is outside Claude's sandbox: ours holds it.
    """
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.SHELL or decision.mode is not Mode.ENFORCED:
        return None  # as contained_command would answer, before reading any settings
    mode = event.raw.get("permission_mode")
    if mode not in _CONTAINED_MODES and mode not in _RULED_MODES:
        return None
    import os

    files = settings_files(_project(event), os.environ)
    bypass = tool.input.get("dangerouslyDisableSandbox") is True
    if not bypass and _own_sandbox_holds(files, tool.input.get("command")):
        return None
    allow = mode in _RULED_MODES
    if allow and tool.name != "Bash":
        return None  # the user's rules are Bash's (``Bash(npm test:*)``): Monitor asks as written
    if allow:
        from agentreflex.core.hosts.claude_rules import allowed_by_rules, unseen_rules

        command = tool.input.get("command")
        if not isinstance(command, str) or not allowed_by_rules(command, files):
            return None  # Claude Code asks, or a rule says otherwise: as written
        if unseen_rules(os.path.dirname(files[-1]), (_MANAGED_SETTINGS, _MANAGED_FOLDER)):
            return None  # a rule we can't see could apply to the replacement: as written
    contained = contained_command(event, decision)
    return None if contained is None else (*contained, allow)


UNCONTAINED_POWERSHELL = (
    "agentreflex (enforced mode): Claude Code's PowerShell tool runs its command in pwsh, "
    "which agentreflex's boundary can't take the place of here, while every Bash command "
    "runs inside it, so it is refused. Run the command with the Bash tool."
)


def _uncontained_shell(event: Event, decision: Decision) -> str:
    """Why a shell tool the hook can't put in the boundary is refused where Bash would be.

    Claude Code 2.1.328 offers ``PowerShell`` {command} beside Bash outside Windows too,
    when ``CLAUDE_CODE_USE_POWERSHELL_TOOL`` is set (its ``PowerShellTool``, enabled by
    ``JA()`` in the binary: ``if(x()!=="windows")return e===!0``).  The boundary's line is
    a POSIX one that pwsh would read as PowerShell, so that tool ran every command
    outside the boundary that holds each Bash command (red-team rt46).  Where Bash would
    be left to Claude Code (its own sandbox, the user's rules) so is PowerShell.
    """
    tool = event.tool
    if tool is None or tool.name.lower() != "powershell" or decision.mode is not Mode.ENFORCED:
        return ""
    command = tool.input.get("command")
    if not isinstance(command, str) or not command.strip():
        return ""
    from agentreflex.core.util import record

    as_bash = record.replace(event, tool=build_tool_call("Bash", {"command": command}))
    contained = _contained(as_bash, decision)
    return UNCONTAINED_POWERSHELL if contained is not None and not contained[1] else ""


UNCONTAINED_WORKFLOW = (
    "agentreflex (enforced mode): Claude Code's Workflow runs its JavaScript in Claude "
    "Code's own process, outside agentreflex's boundary and Claude's sandbox (a node:vm "
    "context, which Node documents as no security mechanism), so it is refused. Run each "
    "step with the Agent tool, whose tool calls are judged and contained."
)


def _uncontained_code(event: Event, decision: Decision) -> str:
    """Why a tool that runs the agent's code in Claude Code's own process is refused in
    enforced mode: ``Workflow`` (an inline ``script``, a ``scriptPath`` the agent may
    have written, or a named one from the project's ``.claude/workflows/``), as Hermes'
    ``execute_code`` is (hosts/hermes.py ``_runs_uncontained``; issue #28)."""
    tool = event.tool
    if tool is None or decision.mode is not Mode.ENFORCED:
        return ""
    return UNCONTAINED_WORKFLOW if tool.name.lower() == "workflow" else ""


def settings_files(project: str, env: Mapping[str, str]) -> list[str]:
    """The settings files Claude Code reads for a project, highest precedence first.

    Managed settings, the project's local then shared settings, the user's
    (``CLAUDE_CONFIG_DIR`` or ``~/.claude``).  The hook (is Claude Code's own
    sandbox on?) and ``doctor``/``status`` (is it on with no unsandboxed
    retry?) read this one list, so they cannot disagree about where a setting
    lives.
    """
    import os

    home = env.get("CLAUDE_CONFIG_DIR") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".claude"
    )
    files = [_MANAGED_SETTINGS]
    if project:
        claude = os.path.join(project, ".claude")
        files += [
            os.path.join(claude, "settings.local.json"),
            os.path.join(claude, "settings.json"),
        ]
    files.append(os.path.join(home, "settings.json"))
    return files


def project_settings_env(project: str) -> dict[str, str]:
    """The ``env`` a project's own settings files give Claude Code (and so every hook it runs).

    Claude Code applies a settings file's ``env`` to its own process: a project's
    ``.claude/settings.json`` with ``"env": {"REFLEX_MODE": "shadow"}`` reached the hook as
    the user's own variable and turned enforced mode off (seen in 2.1.328: ``rm -rf`` of
    home ran).  The hook runtime sets such variables aside (:func:`agentreflex.core.hook.
    runtime.host_set_env`): a project can't change agentreflex's settings that way.
    """
    import os

    found: dict[str, str] = {}
    for name in ("settings.local.json", "settings.json"):
        try:
            with open(os.path.join(project, ".claude", name), "rb") as handle:
                data = handle.read(1 << 20)
        except OSError:
            continue
        if b'"env"' not in data:
            continue  # most settings set none: no JSON parse
        from agentreflex.core.util import fastjson

        try:
            env = fastjson.loads(data).get("env")
        except (ValueError, AttributeError):
            continue
        if isinstance(env, dict):
            for key, value in env.items():
                found.setdefault(str(key), value if isinstance(value, str) else str(value))
    return found


def sandbox_setting(path: str) -> dict[str, Any] | None:
    """The ``sandbox`` object of one settings file; None when it has none or can't be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except OSError:
        return None
    if b'"sandbox"' not in data:
        return None  # most settings never mention it: no JSON parse
    from agentreflex.core.util import fastjson

    try:
        box = fastjson.loads(data).get("sandbox")
    except (ValueError, AttributeError):
        return None
    return box if isinstance(box, dict) else None


def sandbox_merged(files: list[str]) -> dict[str, tuple[Any, str]]:
    """The ``sandbox`` keys as Claude Code merges them, each with the file it came from.

    Claude Code merges its settings key by key, a file of higher precedence over a lower
    one (:func:`settings_files` lists them highest first): a project file that says only
    ``"enabled": false`` turns off the sandbox the user's settings turned on.
    """
    merged: dict[str, tuple[Any, str]] = {}
    for path in files:
        box = sandbox_setting(path)
        for key, value in (box or {}).items():
            merged.setdefault(key, (value, path))
    return merged


def sandbox_on(files: list[str]) -> bool:
    """``sandbox.enabled`` as Claude Code reads it from its settings files (:func:`settings_files`),
    for this platform: ``enabledPlatforms`` (the file of highest precedence that sets it)
    limits where "on" is on (red-team rt36: on for macOS only was taken for on here)."""
    merged = sandbox_merged(files)
    if merged.get("enabled", (None, ""))[0] is not True:
        return False
    platforms = merged.get("enabledPlatforms")
    return platforms is None or (isinstance(platforms[0], list) and _PLATFORM in platforms[0])


_PLATFORM = "macos" if sys.platform == "darwin" else sys.platform  # linux


def excluded_commands(files: list[str]) -> list[str]:
    """``sandbox.excludedCommands`` of every settings file: commands Claude Code runs outside
    its sandbox.  A value that is not a list of strings counts as ``*`` (any command)."""
    names: list[str] = []
    for path in files:
        box = sandbox_setting(path)
        value = None if box is None else box.get("excludedCommands", [])
        if value is None:
            continue
        if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
            return ["*"]
        names += value
    return names


def may_be_excluded(command: Any, names: list[str]) -> bool:
    """Could Claude Code find one of ``names`` (``excludedCommands``) in ``command``?

    It runs the whole command line outside its sandbox when any part of it matches
    one (``git status && …``), after stripping wrappers and variables; so this
    answers yes wherever an entry's program name appears as a word anywhere in
    the line, and for an entry that starts with a wildcard.
    """
    if not names:
        return False
    if not isinstance(command, str):
        return True
    for entry in names:
        words = entry.split()
        head = words[0].split(":", 1)[0] if words else ""
        if not head or "*" in head:
            return True
        if _has_word(command, head):
            return True
    return False


def _has_word(text: str, word: str) -> bool:
    """``word`` in ``text`` with no name character right before or after it."""
    start = text.find(word)
    while start >= 0:
        end = start + len(word)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (_name_char(before) or _name_char(after)):
            return True
        start = text.find(word, start + 1)
    return False


def _name_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_-."


def _own_sandbox_holds(files: list[str], command: Any) -> bool:
    """Does Claude Code's own sandbox run this Bash command?  On (as it reads
    ``enabled``), and not a command it leaves out (``excludedCommands``)."""
    if not sandbox_on(files):
        return False
    return not may_be_excluded(command, excluded_commands(files))


class ClaudeCodeAdapter:
    name = "claude-code"
    tools = TOOL_KINDS
    containment = "agentreflex.core.install.sandbox:claude_contained"  # its own sandbox
    containment_otherwise = "bwrap"  # when it is off, the hook puts Bash commands in ours
    # the project folder it reads settings and hooks from (read-only in our boundary,
    # an empty one when missing: contain.mounts.plan)
    project_settings = (".claude",)
    project_settings_env = staticmethod(project_settings_env)
    project_env = ("CLAUDE_PROJECT_DIR",)  # the session's project (hook/sessionproject.py)
    events = EVENTS
    unknown_event: EventKind | None = None
    traits = frozenset({TRANSCRIPT_USAGE})

    def parse(self, payload: dict[str, Any]) -> Event:
        if payload.get("hook_event_name") in _AFTER_TOOL and "tool_input" in payload:
            # the input it ran with: ours, if we contained it; the agent wrote the inner one
            payload = {**payload, "tool_input": as_the_agent_wrote(payload["tool_input"])}
        return parse_claude_style(payload, self.name, TOOL_KINDS)

    def render_recap(self, recap: Recap) -> str:
        """The session recap as Claude Code shows it (``additionalContext``, a system reminder)."""
        return render_plain(recap)

    def render(self, event: Event, decision: Decision) -> HostReply:
        verdict = decision.verdict
        reason = cap(default_reason(decision))
        hook = HOST_NAMES.get(event.kind, "")
        parts = list(decision.context)
        if decision.recap is not None and event.kind in _RECAP_EVENTS:
            parts.insert(0, self.render_recap(decision.recap))
        context = cap("\n".join(parts)) if parts else ""
        if event.kind is EventKind.POST_TOOL and decision.updated_output is not None:
            return _with_updated_output(event, decision, reason, context)
        if event.kind is EventKind.PRE_TOOL:
            if verdict in (Verdict.BLOCK, Verdict.ASK_USER):
                ask = verdict is Verdict.ASK_USER
                if ask and event.raw.get("permission_mode") in _NOBODY_ASKED:
                    # in these modes Claude Code runs an "ask" without asking anyone
                    ask = False
                    reason = cap(
                        "Needs the user's approval, and this session cannot ask "
                        "(permissions bypassed); ask the user. " + reason
                    )
                out: dict[str, Any] = {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "ask" if ask else "deny",
                    "permissionDecisionReason": reason,
                }
                return HostReply(dump_json({"hookSpecificOutput": out}))
            allowed: dict[str, Any] = {"hookEventName": "PreToolUse"}
            if verdict is Verdict.WARN or context:
                allowed["additionalContext"] = context or f"agentreflex warning: {reason}"
            refused = _uncontained_shell(event, decision) or _uncontained_code(event, decision)
            if refused:
                out = {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": refused,
                }
                return HostReply(dump_json({"hookSpecificOutput": out}))
            contained = _contained(event, decision)
            if contained is not None and not contained[1] and event.tool is not None:
                allowed["updatedInput"] = {**event.tool.input, "command": contained[0]}
                if contained[2]:  # what the user's own rule answers for the command as written
                    allowed["permissionDecision"] = "allow"
                    allowed["permissionDecisionReason"] = (
                        "allowed by your permission rules; run inside agentreflex's boundary"
                    )
            note = contained[1] + "\n" if contained and contained[1] else ""
            if len(allowed) == 1:
                return HostReply("", note)
            return HostReply(dump_json({"hookSpecificOutput": allowed}), note)
        if verdict in (Verdict.BLOCK, Verdict.ASK_USER) and event.kind in (
            EventKind.STOP,
            EventKind.SUBAGENT_STOP,
            EventKind.POST_TOOL,
            EventKind.POST_TOOL_FAILURE,
            EventKind.USER_PROMPT,
        ):
            return HostReply(dump_json({"decision": "block", "reason": reason}))
        if (verdict is Verdict.WARN or context) and event.kind in (
            EventKind.POST_TOOL,
            EventKind.POST_TOOL_FAILURE,
            EventKind.USER_PROMPT,
            EventKind.SESSION_START,
        ):
            ctx = context or f"agentreflex warning: {reason}"
            return HostReply(
                dump_json({"hookSpecificOutput": {"hookEventName": hook, "additionalContext": ctx}})
            )
        if verdict is Verdict.WARN:
            return HostReply(dump_json({"systemMessage": cap(f"agentreflex: {reason}")}))
        return HostReply()

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        text = cap(f"agentreflex error: {message}")
        if fail_closed and kind is EventKind.PRE_TOOL:
            out = {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": text + " (failing closed: the safety floor "
                "could not be evaluated; fix the error or ask the user)",
            }
            return HostReply(dump_json({"hookSpecificOutput": out}), text + "\n", 0)
        return HostReply(dump_json({"systemMessage": text}), text + "\n", 0)
