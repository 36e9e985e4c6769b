"""The normalised event model every host is translated into.

Hosts disagree on names (Claude's ``Bash`` is Codex's ``exec_command`` is
Hermes' ``terminal``) and on shapes (``file_path`` vs ``filePath`` vs
``path``).  Reflexes must not care, so adapters translate each payload into an
:class:`Event` whose tool identity is a :class:`ToolKind` plus the host's own
name, and whose common inputs (command, file path, content) are pulled out
into plain attributes.  The raw payload is kept for the rare reflex that needs
a host-specific detail.

Stdlib only: this module is imported on every hook call.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    SESSION_START = "session_start"
    USER_PROMPT = "user_prompt"
    PRE_TOOL = "pre_tool"
    POST_TOOL = "post_tool"
    POST_TOOL_FAILURE = "post_tool_failure"
    STOP = "stop"
    SUBAGENT_STOP = "subagent_stop"
    PRE_COMPACT = "pre_compact"
    SESSION_END = "session_end"


class ToolKind(StrEnum):
    SHELL = "shell"
    READ = "read"
    WRITE = "write"
    EDIT = "edit"
    PATCH = "patch"
    WEB = "web"
    SUBAGENT = "subagent"
    MCP = "mcp"
    SEARCH = "search"
    OTHER = "other"


# Host tool names (lower-cased) -> kind.  Unknown names fall back to OTHER,
# except ``mcp__*`` which is always MCP.
_TOOL_KINDS: dict[str, ToolKind] = {
    # shells, across hosts
    "bash": ToolKind.SHELL,
    "shell": ToolKind.SHELL,
    "exec_command": ToolKind.SHELL,
    "write_stdin": ToolKind.SHELL,
    "local_shell": ToolKind.SHELL,
    "terminal": ToolKind.SHELL,
    "execute_code": ToolKind.SHELL,
    "process": ToolKind.SHELL,
    "bashoutput": ToolKind.READ,
    # files
    "read": ToolKind.READ,
    "read_file": ToolKind.READ,
    "notebookread": ToolKind.READ,
    "view_image": ToolKind.READ,
    "write": ToolKind.WRITE,
    "write_file": ToolKind.WRITE,
    "edit": ToolKind.EDIT,
    "multiedit": ToolKind.EDIT,
    "notebookedit": ToolKind.EDIT,
    "str_replace_based_edit_tool": ToolKind.EDIT,
    "apply_patch": ToolKind.PATCH,
    "patch": ToolKind.PATCH,
    # search
    "glob": ToolKind.SEARCH,
    "grep": ToolKind.SEARCH,
    "ls": ToolKind.SEARCH,
    "list": ToolKind.SEARCH,
    "find": ToolKind.SEARCH,
    "search_files": ToolKind.SEARCH,
    # web
    "webfetch": ToolKind.WEB,
    "websearch": ToolKind.WEB,
    "web_search": ToolKind.WEB,
    "web_fetch": ToolKind.WEB,
    # sub-agents
    "task": ToolKind.SUBAGENT,
    "agent": ToolKind.SUBAGENT,
    "spawn_agent": ToolKind.SUBAGENT,
    "delegate_task": ToolKind.SUBAGENT,
}


def tool_kind(host_name: str) -> ToolKind:
    """Classify a host's tool name.  MCP tools are ``mcp__server__tool``."""
    low = host_name.strip().lower()
    if low.startswith("mcp__"):
        return ToolKind.MCP
    return _TOOL_KINDS.get(low, ToolKind.OTHER)


@dataclass(slots=True)
class ToolCall:
    """A proposed or completed tool call, normalised.

    ``command`` is set for shell tools, ``path`` for file tools, ``content``
    for writes (and the new text of edits), ``patch`` for patch bodies.
    ``paths`` lists every file the call would touch (a patch can touch many).
    """

    name: str
    kind: ToolKind
    input: dict[str, Any] = field(default_factory=dict)
    tool_use_id: str = ""
    command: str = ""
    path: str = ""
    paths: list[str] = field(default_factory=list)
    content: str = ""
    old_content: str = ""
    patch: str = ""

    @property
    def mutates_files(self) -> bool:
        return self.kind in (ToolKind.WRITE, ToolKind.EDIT, ToolKind.PATCH)


@dataclass(slots=True)
class ToolResult:
    """The outcome of a tool call.  ``ok`` is None when the shape was unknown."""

    ok: bool | None
    output: str = ""
    error: str = ""
    exit_code: int | None = None
    interrupted: bool = False


@dataclass(slots=True)
class Event:
    """One host hook call, normalised.  ``raw`` is the host payload as parsed."""

    kind: EventKind
    host: str
    session_id: str
    cwd: str = ""
    tool: ToolCall | None = None
    result: ToolResult | None = None
    prompt: str = ""
    last_message: str = ""
    stop_hook_active: bool = False
    transcript_path: str = ""
    model: str = ""
    agent_id: str = ""
    host_event: str = ""
    timestamp: float = field(default_factory=time.time)
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def is_pre_tool(self) -> bool:
        return self.kind is EventKind.PRE_TOOL

    @property
    def is_stop(self) -> bool:
        return self.kind in (EventKind.STOP, EventKind.SUBAGENT_STOP)


def build_tool_call(name: str, tool_input: Any, tool_use_id: str = "") -> ToolCall:
    """Normalise a tool name and input dict from any host.

    Field names differ per host: Claude ``file_path``/``old_string``, OpenCode
    ``filePath``/``oldString``, pi ``path``/``oldText``, Codex ``cmd`` and
    patches in ``command`` or ``input``.  Everything is coerced to strings;
    non-dict inputs are kept under ``{"value": ...}``.
    """
    data: dict[str, Any] = tool_input if isinstance(tool_input, dict) else {"value": tool_input}
    kind = tool_kind(name)
    call = ToolCall(name=name, kind=kind, input=data, tool_use_id=str(tool_use_id or ""))
    if kind is ToolKind.PATCH:
        body = _first_str(data, "patch", "input", "command", "value", "content")
        call.patch = body
        call.paths = patch_paths(body)
        if not call.paths:
            p = _first_str(data, "file_path", "filePath", "path")
            call.paths = [p] if p else []
        call.path = call.paths[0] if call.paths else ""
        call.content = body
        return call
    if kind is ToolKind.SHELL:
        cmd = data.get("command", data.get("cmd", data.get("code", data.get("chars", ""))))
        if isinstance(cmd, list):
            cmd = " ".join(str(c) for c in cmd)
        call.command = str(cmd) if cmd is not None else ""
        return call
    call.path = _first_str(data, "file_path", "filePath", "path", "notebook_path", "file")
    if call.path:
        call.paths = [call.path]
    if kind is ToolKind.WRITE:
        call.content = _first_str(data, "content", "contents", "text")
    elif kind is ToolKind.EDIT:
        call.content = _first_str(
            data, "new_string", "newString", "newText", "new_str", "new_source"
        )
        call.old_content = _first_str(data, "old_string", "oldString", "oldText", "old_str")
        edits = data.get("edits")
        if isinstance(edits, list):
            parts = [
                str(e.get("new_string", e.get("newString", "")))
                for e in edits
                if isinstance(e, dict)
            ]
            call.content = "\n".join(p for p in [call.content, *parts] if p)
    return call


def _first_str(data: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


_PATCH_MARKERS = ("*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: ")


def patch_paths(body: str) -> list[str]:
    """Files named by a Codex-style ``*** Begin Patch`` body or a unified diff."""
    paths: list[str] = []
    for line in body.splitlines():
        for marker in _PATCH_MARKERS:
            if line.startswith(marker):
                paths.append(line[len(marker) :].strip())
        if line.startswith("+++ ") or line.startswith("--- "):
            target = line[4:].strip().split("\t")[0]
            if target != "/dev/null":
                target = target[2:] if target[:2] in ("a/", "b/") else target
                if target not in paths:
                    paths.append(target)
    return paths
