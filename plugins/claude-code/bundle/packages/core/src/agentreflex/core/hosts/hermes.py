"""Hermes Agent shell hooks (``hooks:`` in config.yaml): Claude-like JSON.

stdin: ``{"hook_event_name": "pre_tool_call", "tool_name", "tool_input",
"session_id", "cwd", "extra": {...}}``.  A block is ``{"decision": "block",
"reason"}``; ``pre_llm_call`` may add context with ``{"context": "..."}``;
``{}`` is a no-op.  Hermes' shell tools are ``terminal``, ``execute_code``
and ``process``; files go through ``write_file`` and ``patch``.
"""

from __future__ import annotations

import contextlib

from agentreflex.core.decision import Decision, Mode, Verdict
from agentreflex.core.events import (
    Event,
    EventKind,
    ToolCall,
    ToolKind,
    ToolResult,
    build_tool_call,
)
from agentreflex.core.hosts.base import (
    HostReply,
    PayloadError,
    cap,
    default_reason,
    in_its_folder,
    require_str,
    require_tool_input,
    tool_response_text,
)
from agentreflex.core.hosts.contained import as_the_agent_wrote, contained_command
from agentreflex.core.recap import Recap, render_plain
from agentreflex.core.util import fastjson

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS: dict[str, EventKind] = {
    "on_session_start": EventKind.SESSION_START,
    "pre_llm_call": EventKind.USER_PROMPT,
    "pre_tool_call": EventKind.PRE_TOOL,
    "post_tool_call": EventKind.POST_TOOL,
    "pre_verify": EventKind.STOP,
    "on_session_end": EventKind.SESSION_END,
}


# Hermes Agent's own tool names (tools/ in NousResearch/hermes-agent).
TOOL_KINDS: dict[str, ToolKind] = {
    "terminal": ToolKind.SHELL,
    "execute_code": ToolKind.SHELL,
    "process": ToolKind.SHELL,
    "read_file": ToolKind.READ,
    "write_file": ToolKind.WRITE,
    "patch": ToolKind.PATCH,
    "search_files": ToolKind.SEARCH,
    "web_search": ToolKind.WEB,
    "web_extract": ToolKind.WEB,
    "delegate_task": ToolKind.SUBAGENT,
}


class HermesAdapter:
    name = "hermes"
    tools = TOOL_KINDS
    # the plugin's tool_execution middleware runs each terminal command in our boundary
    containment = "bwrap"
    project_settings = (".hermes",)
    tilde_folders = True  # ``workdir: ~/x`` is $HOME/x (tools/environments/base.py)
    events = EVENTS
    # shell hooks fail open unless ``fail_closed``, and are usually registered
    # without an event argument: an unreadable payload is a proposed tool call
    unknown_event: EventKind | None = EventKind.PRE_TOOL
    traits: frozenset[str] = frozenset()

    def parse(self, payload: dict[str, Any]) -> Event:
        name = require_str(payload, "hook_event_name")
        kind = EVENTS.get(name)
        if kind is None:
            raise PayloadError(f"unsupported hook_event_name {name!r} for hermes")
        try:
            return self._parse_fields(payload, name, kind)
        except PayloadError as exc:
            exc.kind = exc.kind or kind
            raise

    def _parse_fields(self, payload: dict[str, Any], name: str, kind: EventKind) -> Event:
        raw_extra = payload.get("extra")
        extra: dict[str, Any] = raw_extra if isinstance(raw_extra, dict) else {}
        event = Event(
            kind=kind,
            host=self.name,
            session_id=require_str(payload, "session_id", "") or "unknown-session",
            cwd=require_str(payload, "cwd", ""),
            host_event=name,
            raw=payload,
        )
        if kind in (EventKind.PRE_TOOL, EventKind.POST_TOOL):
            tool_name = require_str(payload, "tool_name")
            tool_input = require_tool_input(payload, kind, TOOL_KINDS)
            call_id = str(extra.get("tool_call_id", ""))
            if kind is EventKind.POST_TOOL:  # the arguments it ran with: ours, if we contained it
                tool_input = as_the_agent_wrote(tool_input)
            event.tool = build_tool_call(tool_name, tool_input, call_id, TOOL_KINDS)
            if tool_name == "terminal":
                _where_the_background_runs(event.tool, extra, event.cwd)
            # the terminal's own folder (``cd -- WORKDIR`` in Hermes' shell, ``~`` its home):
            # a relative one from the folder the payload's ``cwd`` names, which is the
            # session's (the plugin's) or Hermes' own (a shell hook's, all it has).  It was
            # read only when absolute, so ``workdir: .claude`` given to a shell hook was
            # judged in the folder above it (red-team rt41)
            in_its_folder(event.tool, kind, home=True)
            if tool_name == "execute_code" and "code" in tool_input:
                # Hermes runs the code with Python: spelled as the one-liner it amounts
                # to, so the gate's interpreter scan (shell-outs, rmtree...) sees it
                event.tool.command = "python3 -c " + _sh_quote(event.tool.command)
        if kind is EventKind.POST_TOOL:
            raw_result = extra.get("result", payload.get("tool_result"))
            if isinstance(raw_result, str):
                with contextlib.suppress(ValueError):
                    raw_result = fastjson.loads(raw_result)
            ok, out, err, code, interrupted = tool_response_text(raw_result)
            # Hermes' status says whether the tool errored ("ok" for a command that
            # ran and exited 1): it can only make a result worse, never better
            status = extra.get("status")
            if isinstance(status, str) and status:
                if status not in ("ok", "success", "completed"):
                    ok = False
                elif ok is None:
                    ok = code in (None, 0)
            event.result = ToolResult(
                ok=ok, output=out, error=err, exit_code=code, interrupted=interrupted
            )
        if kind is EventKind.USER_PROMPT:
            msg = extra.get("user_message", payload.get("user_message", ""))
            event.prompt = msg if isinstance(msg, str) else ""
        if kind is EventKind.STOP:
            msg = extra.get("final_response", extra.get("response", ""))
            event.last_message = msg if isinstance(msg, str) else ""
            # the plugin marks a second pre_verify in one turn (Hermes' ``attempt``)
            # only JSON true: "false", 1 or {} must not open the valve
            event.stop_hook_active = extra.get("stop_hook_active") is True
        return event

    def render_recap(self, recap: Recap) -> str:
        """The session recap as Hermes shows it (``pre_llm_call`` context)."""
        return render_plain(recap)

    def render(self, event: Event, decision: Decision) -> HostReply:
        if decision.verdict in (Verdict.BLOCK, Verdict.ASK_USER) and event.kind in (
            EventKind.PRE_TOOL,
            EventKind.STOP,
        ):
            return HostReply(
                fastjson.dumps({"decision": "block", "reason": cap(default_reason(decision))})
            )
        uncontained = _runs_uncontained(event, decision)
        if uncontained:
            return HostReply(fastjson.dumps({"decision": "block", "reason": uncontained}))
        contained = contained_command(event, decision) if _is_terminal(event) else None
        if contained is not None and not contained[1]:
            # the plugin's tool_execution middleware runs this in the tool's place
            return HostReply(fastjson.dumps({"command": contained[0]}))
        parts = list(decision.context)
        if decision.recap is not None and event.kind is EventKind.USER_PROMPT:
            parts.insert(0, self.render_recap(decision.recap))
        context = "\n".join(parts)
        if event.kind is EventKind.USER_PROMPT and (context or decision.verdict is Verdict.WARN):
            text = context or f"agentreflex warning: {default_reason(decision)}"
            return HostReply(fastjson.dumps({"context": cap(text)}))
        return HostReply("{}")

    def render_error(self, kind: EventKind | None, message: str, fail_closed: bool) -> HostReply:
        text = cap(f"agentreflex error: {message}")
        if fail_closed and kind is EventKind.PRE_TOOL:
            return HostReply(fastjson.dumps({"decision": "block", "reason": text}), text + "\n", 0)
        return HostReply("{}", text + "\n", 0)


def _where_the_background_runs(call: ToolCall, extra: dict[str, Any], cwd: str) -> None:
    """A background terminal call's ``workdir``, read as the folder Hermes starts it in.

    Hermes 0.19 runs ``background: true`` through ``process_registry.spawn_local``, not
    its shell: ``Popen(cwd=_resolve_safe_cwd(workdir))`` (tools/terminal_tool.py
    ``terminal_tool``, tools/process_registry.py ``spawn_local``,
    tools/environments/local.py ``_resolve_safe_cwd``).  A relative folder is Hermes'
    own process folder's, not the session's (which every foreground command moves, and
    which the plugin's payload names), ``~`` is no home there, and a folder that is not
    there is its nearest existing parent (the temp folder when a relative one has none):
    ``workdir: .git`` after the session moved to ``notes`` was judged in
    ``notes/.git`` and ran in ``.git``.  Hermes' process folder is the plugin's
    ``process_cwd``, or a shell hook's ``cwd`` (agent/shell_hooks.py
    ``_serialize_payload``: ``Path.cwd()``).  Only the judged copy of the input changes.
    """
    background = call.input.get("background")
    workdir = call.input.get("workdir")
    if not background or (isinstance(background, str) and background.lower() == "false"):
        return  # Hermes reads a string "false" as false (model_tools.coerce_tool_args)
    if not isinstance(workdir, str) or not workdir:
        return
    process = extra.get("process_cwd")
    base = process if isinstance(process, str) and process.startswith("/") else cwd
    if not base.startswith("/"):
        return
    import os

    def usable(path: str) -> bool:  # Hermes' _cwd_usable
        full = os.path.join(base, path)
        return os.path.isdir(full) and os.access(full, os.X_OK)

    found = workdir if usable(workdir) else ""
    parent = os.path.dirname(workdir)
    while not found and parent:
        if usable(parent):
            found = parent
        elif os.path.dirname(parent) == parent:
            break
        parent = os.path.dirname(parent)
    if not found:
        import tempfile

        found = tempfile.gettempdir()
    call.input = {**call.input, "workdir": os.path.normpath(os.path.join(base, found))}


def _sh_quote(text: str) -> str:
    """POSIX single quotes (shlex.quote without importing shlex on the hot path)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


UNCONTAINED_CODE = (
    "agentreflex (enforced mode): execute_code runs its Python in Hermes' own process "
    "tree, outside agentreflex's boundary, so it is refused. Write the code to a file in "
    "the project and run it with the terminal tool (python3 script.py), where it is "
    "contained."
)


UNCONTAINED_SCRIPT = (
    "agentreflex (enforced mode): a cron job's script runs on its schedule from Hermes' "
    "scheduler, outside agentreflex's boundary and with no hook to judge it, so it is "
    "refused. Run the script with the terminal tool, where it is contained, or schedule "
    "a prompt (the agent's own tool calls are judged)."
)


UNCONTAINED_DESKTOP = (
    "agentreflex (enforced mode): computer_use types and clicks into the user's desktop "
    "from Hermes' own process, a terminal window's included, where a command runs "
    "unjudged and outside agentreflex's boundary, so it is refused. Run commands with "
    "the terminal tool, where they are contained; capture and list_windows still work."
)
# computer_use's actions that only look (tools/computer_use/schema.py in Hermes 0.19)
_LOOKING = frozenset({"capture", "wait", "list_apps", "list_windows"})


def _runs_uncontained(event: Event, decision: Decision) -> str:
    """Why a tool that runs code in enforced mode is one no boundary can hold, or "".

    Hermes' ``execute_code`` (a Python subprocess of Hermes itself; the plugin's
    middleware puts only ``terminal`` commands in the boundary).  Seen in Hermes 0.19.0:
    code reading its paths from a data file appended to ``.agentreflex/config.toml`` and
    printed the key.  And ``cronjob`` with a ``script`` (tools/cronjob_tools.py: bash or
    Python runs ``~/.hermes/scripts/<script>`` every tick, ``no_agent`` with no model
    at all): a command run later, unjudged and uncontained (red-team rt41).  And
    ``computer_use`` acting on the desktop (typing into a terminal window is a command
    no hook sees; red-team rt46)."""
    tool = event.tool
    if event.kind is not EventKind.PRE_TOOL or tool is None or decision.mode is not Mode.ENFORCED:
        return ""
    if tool.name == "execute_code":
        return UNCONTAINED_CODE
    if tool.name == "computer_use" and tool.input.get("action") not in _LOOKING:
        return UNCONTAINED_DESKTOP
    script = tool.input.get("script")
    if tool.name == "cronjob" and script not in (None, ""):
        return UNCONTAINED_SCRIPT
    return ""


def _is_terminal(event: Event) -> bool:
    """Only Hermes' ``terminal`` tool takes a shell line (``execute_code`` takes Python)."""
    return event.tool is not None and event.tool.name == "terminal"
