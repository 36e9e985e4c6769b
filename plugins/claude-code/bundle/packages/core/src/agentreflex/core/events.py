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

import re
import time
from enum import StrEnum

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import field, record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
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


# The shared tool vocabulary (lower-cased) -> kind: the names a call is built
# with when no host is involved (tests, the gate's derived calls, ``agentreflex
# check``) and the names every host's adapter starts from.  A host's own names
# are its adapter's (``TOOL_KINDS`` in each module of ``core/hosts/``), passed
# to :func:`build_tool_call`; ``mcp__*`` is always MCP.
SHARED_TOOLS: dict[str, ToolKind] = {
    "bash": ToolKind.SHELL,
    "read": ToolKind.READ,
    "write": ToolKind.WRITE,
    "edit": ToolKind.EDIT,
    "apply_patch": ToolKind.PATCH,
    "glob": ToolKind.SEARCH,
    "grep": ToolKind.SEARCH,
    "webfetch": ToolKind.WEB,
    "websearch": ToolKind.WEB,
    "task": ToolKind.SUBAGENT,
}


def tool_kind(name: str, host_tools: Mapping[str, ToolKind] | None = None) -> ToolKind:
    """Classify a tool name: the host's own names first, then the shared ones.

    MCP tools are ``mcp__server__tool``.
    """
    low = name.strip().lower()
    if low.startswith("mcp__"):
        return ToolKind.MCP
    if host_tools is not None and low in host_tools:
        return host_tools[low]
    return SHARED_TOOLS.get(low, ToolKind.OTHER)


@record
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


@record
class ToolResult:
    """The outcome of a tool call.  ``ok`` is None when the shape was unknown."""

    ok: bool | None
    output: str = ""
    error: str = ""
    exit_code: int | None = None
    interrupted: bool = False


@record
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
    # PRE_COMPACT: False where the host's adapter knows the host compacts nothing this time
    # (Gemini CLI fires PreCompress before every request, then checks its threshold)
    compacts: bool = True
    transcript_path: str = ""
    model: str = ""
    agent_id: str = ""
    host_event: str = ""
    timestamp: float = field(default_factory=time.time)
    raw: dict[str, Any] = field(default_factory=dict)
    # the session's project and the folder it started in, as the hook found them at its first
    # call (hook/sessionproject.py): not the nearest .git above ``cwd``, which the agent can
    # make; "" where none was (agentreflex check, tests)
    project: str = ""
    session_folder: str = ""
    # when the session's first call was seen (ns, hook/sessionproject.started), None if unknown
    session_started: int | None = None

    @property
    def is_pre_tool(self) -> bool:
        return self.kind is EventKind.PRE_TOOL

    @property
    def is_stop(self) -> bool:
        return self.kind in (EventKind.STOP, EventKind.SUBAGENT_STOP)


def build_tool_call(
    name: str,
    tool_input: Any,
    tool_use_id: str = "",
    host_tools: Mapping[str, ToolKind] | None = None,
) -> ToolCall:
    """Normalise a tool name and input dict from any host.

    ``host_tools`` is the calling adapter's own tool names (lower-cased) and
    their kinds; without it only the shared vocabulary is known.

    Field names differ per host: Claude ``file_path``/``old_string``, OpenCode
    ``filePath``/``oldString``, pi ``path``/``oldText``, Codex ``cmd`` and
    patches in ``command`` or ``input``.  Everything is coerced to strings;
    non-dict inputs are kept under ``{"value": ...}``.
    """
    data: dict[str, Any] = tool_input if isinstance(tool_input, dict) else {"value": tool_input}
    kind = tool_kind(name, host_tools)
    call = ToolCall(name=name, kind=kind, input=data, tool_use_id=str(tool_use_id or ""))
    if kind is ToolKind.PATCH:
        # every body it carries: each host applies the one its schema names (OpenCode's
        # ``patchText``, Codex's ``input`` or ``command``) and passes over a harmless
        # ``patch`` beside it (red-team rt36)
        bodies = _all_str(data, *_PATCH_BODY_KEYS)
        body = "\n".join(bodies)
        call.patch = body
        # and every path field beside it: Hermes' ``patch`` in replace mode edits ``path``
        # whatever ``patch`` holds (red-team rt35)
        call.paths = []
        for one in bodies:
            for p in patch_paths(one):
                _add_path(call.paths, p)
        for p in _all_str(data, *_PATH_KEYS):
            _add_path(call.paths, p)
        call.path = call.paths[0] if call.paths else ""
        call.content = body
        if not body:  # Hermes' ``patch`` in replace mode: {path, old_string, new_string}
            call.content = _joined(data, *_NEW_TEXT_KEYS)
            call.old_content = _joined(data, *_OLD_TEXT_KEYS)
        return call
    if kind is ToolKind.SHELL:
        cmd = _shell_text(data)
        if isinstance(cmd, list):
            cmd = " ".join(str(c) for c in cmd)
        call.command = str(cmd) if cmd is not None else ""
        return call
    # every path field, not the first: each host writes the one its own schema names
    # (OpenCode's ``filePath``, pi's and Hermes' ``path``) and passes over the others, so a
    # harmless ``file_path`` beside it must not stand for the call (red-team rt35)
    call.paths = _all_str(data, *_PATH_KEYS)
    call.path = call.paths[0] if call.paths else ""
    # and every text field: each host writes the one its schema names and passes over a
    # decoy beside it (OpenCode's ``newString`` with a harmless ``new_string``: red-team rt36)
    if kind is ToolKind.WRITE:
        call.content = _joined(data, *_WRITE_TEXT_KEYS)
    elif kind is ToolKind.EDIT:
        call.content = _joined(data, *_NEW_TEXT_KEYS)
        call.old_content = _joined(data, *_OLD_TEXT_KEYS)
        edits = data.get("edits")
        if isinstance(edits, list):  # Claude MultiEdit, pi/omp multi-edits
            items = [e for e in edits if isinstance(e, dict)]
            new = [_joined(e, *_NEW_TEXT_KEYS) for e in items]
            old = [_joined(e, *_OLD_TEXT_KEYS) for e in items]
            call.content = "\n".join(p for p in [call.content, *new] if p)
            call.old_content = "\n".join(p for p in [call.old_content, *old] if p)
    return call


def _shell_text(data: dict[str, Any]) -> Any:
    """What a shell tool runs or types: ``command``/``cmd``, Hermes' ``execute_code``
    ``code``, Codex's ``write_stdin`` ``chars``, Hermes' ``process`` ``data``."""
    # the first that says something: an empty ``command`` beside Hermes' ``data`` runs
    # nothing, the data is typed in (red-team rt36)
    for key in _SHELL_KEYS:
        if data.get(key) not in (None, ""):
            value = data[key]
            if key in TYPED_FIELDS and isinstance(value, str):
                # a terminal's Enter, as typed (Copilot CLI names its keys: ``{enter}``)
                return as_typed(value)
            return value
    return ""


# Text typed into a running terminal (Codex's ``write_stdin`` ``chars``, Hermes'
# ``process`` ``data``, Copilot CLI's ``write_bash`` ``input``): its line discipline
# and line editor act on control characters in it, and Copilot on the keys it names.
TYPED_FIELDS = ("chars", "data", "input")
_ENTER_KEY = LazyPattern(r"\{enter\}", re.IGNORECASE, hints="{enter}")


def as_typed(text: str) -> str:
    """Text typed into a terminal as its lines run: ``\\r`` and ``{enter}`` are Enter."""
    return _ENTER_KEY.sub("\n", text.replace("\r", "\n"))


def typed_into_a_process(call: ToolCall) -> bool:
    """Is the shell call's text typed into a process already running (not a command run)?

    What answers it is whatever runs there (a shell, a REPL, ``cat``): its output is
    not the result of a command the words name."""
    data = call.input
    if call.kind is not ToolKind.SHELL or not isinstance(data, dict):
        return False
    return next((k for k in _SHELL_KEYS if data.get(k) not in (None, "")), None) in TYPED_FIELDS


_SHELL_KEYS = ("command", "cmd", "code", "chars", "data", "input")


# How each host runs a shell call in the background, its result only that it started:
# Claude Code's ``run_in_background``, Gemini CLI's ``is_background``, Hermes'
# ``background``, Copilot CLI's ``detach`` and ``mode: "async"``.
_BACKGROUND_FLAGS = ("run_in_background", "is_background", "background", "detach")


def runs_in_background(call: ToolCall) -> bool:
    """Does the host run this shell call in the background (any value but false/absent)?"""
    data = call.input
    if call.kind is not ToolKind.SHELL or not isinstance(data, dict):
        return False
    if any(data.get(k) not in (None, False, 0, "", "false") for k in _BACKGROUND_FLAGS):
        return True
    mode = data.get("mode")
    return mode is not None and str(mode).strip().lower() != "sync"


_PATCH_BODY_KEYS = ("patch", "patchText", "patch_text", "input", "command", "value", "content")
_NEW_TEXT_KEYS = ("new_string", "newString", "newText", "new_str", "new_source")
# Copilot CLI's ``create`` names its text ``file_text``
_WRITE_TEXT_KEYS = ("content", "contents", "text", "file_text")
_OLD_TEXT_KEYS = ("old_string", "oldString", "oldText", "old_str")


_PATH_KEYS = ("file_path", "filePath", "path", "notebook_path", "file")


def _all_str(data: dict[str, Any], *keys: str) -> list[str]:
    """Each distinct non-empty string among ``keys``, in their order."""
    found: list[str] = []
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value and value not in found:
            found.append(value)
    return found


def _joined(data: dict[str, Any], *keys: str) -> str:
    """Each distinct non-empty string among ``keys``, one per line: whichever one the host
    takes, the reflexes read it."""
    return "\n".join(_all_str(data, *keys))


def _first_str(data: dict[str, Any], *keys: str) -> str:
    for key in keys:
        value = data.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


# A patch's file headers as the hosts' own parsers read them, the most lenient of each:
# Codex trims the patch and each header line (``  *** Add File: x``), OpenCode takes
# ``*** Add File:x`` and ``*** Move to:x`` with no space, Hermes ``***Add  File:x``, its
# own ``*** Move File: a -> b``, and a patch with no ``*** Begin Patch`` (red-team rt35).
_PATCH_HEADER = LazyPattern(
    r"(?im)^\s*\*\*\*\s*(?:(?:add|update|delete)\s+file|move\s+to)\s*:[ \t]*(.*?)\s*$",
    hints="***",
)
_PATCH_MOVE = LazyPattern(
    r"(?im)^\s*\*\*\*\s*move\s+file\s*:[ \t]*(.*?)\s*$",
    hints="***",
)


def patch_paths(body: str) -> list[str]:
    """Files named by a Codex-style ``*** Begin Patch`` body or a unified diff.

    In a Codex-style patch only the ``*** ... File:`` headers name files (as
    leniently as any host parses them: :data:`_PATCH_HEADER`): a hunk line
    such as ``--- x`` is a removed line ``-- x``, not a header.  In a
    unified diff a ``--- a`` header counts only when a ``+++ b`` header
    follows it, and hunk bodies (sized by their ``@@ -l,n +l,m @@`` header)
    are skipped, so removed or added lines that look like headers are not
    taken for file names.
    """
    paths: list[str] = []
    for m in _PATCH_HEADER.finditer(body):
        _add_path(paths, m.group(1))
    for m in _PATCH_MOVE.finditer(body):
        source, arrow, target = m.group(1).partition("->")
        for path in (source, target) if arrow else (source,):
            _add_path(paths, path.strip())
    if paths or _BEGIN.search(body):
        return paths
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        counts = _hunk_counts(line)
        if counts is not None:
            old, new = counts
            i += 1
            while i < len(lines) and (old > 0 or new > 0):
                head = lines[i][:1]
                if head == "-":
                    old -= 1
                elif head == "+":
                    new -= 1
                elif head != "\\":  # context line (or "\\ No newline at end of file")
                    old -= 1
                    new -= 1
                i += 1
            continue
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            for header in (line, lines[i + 1]):
                target = header[4:].strip().split("\t")[0]
                if target != "/dev/null":
                    _add_path(paths, target[2:] if target[:2] in ("a/", "b/") else target)
            i += 2
            continue
        i += 1
    return paths


_BEGIN = LazyPattern(r"(?im)^\s*\*\*\*\s*begin\s*patch", hints="***")


def _add_path(paths: list[str], path: str) -> None:
    if path and path not in paths:
        paths.append(path)


def _hunk_counts(line: str) -> tuple[int, int] | None:
    """(old, new) line counts of a unified-diff hunk header, or None."""
    if not line.startswith("@@ -"):
        return None
    parts = line.split()
    if len(parts) < 4 or not parts[2].startswith("+") or parts[3] != "@@":
        return None
    old = _count(parts[1][1:])
    new = _count(parts[2][1:])
    return None if old is None or new is None else (old, new)


def _count(span: str) -> int | None:
    start, _, length = span.partition(",")
    if not start.isdigit() or (length and not length.isdigit()):
        return None
    return int(length) if length else 1
