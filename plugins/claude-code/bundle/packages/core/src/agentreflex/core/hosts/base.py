"""What every host adapter provides, and the errors they raise.

An adapter has two halves.  ``parse`` turns the host's payload into an
:class:`~agentreflex.core.events.Event` (or raises :class:`PayloadError` with a
one-line reason).  ``render`` turns a :class:`~agentreflex.core.decision.Decision`
into exactly what the host accepts: stdout text, stderr text and an exit code.
``render_error`` answers when our own code failed: a pre-tool floor fails
closed (the host is told to deny), everything else fails open with a visible
message.  An adapter never emits a field its host would reject, because a
rejected answer makes most hosts run the tool anyway.
"""

from __future__ import annotations

import re

from agentreflex.core.decision import Decision, Verdict
from agentreflex.core.events import TYPED_FIELDS, EventKind, ToolCall, ToolKind, tool_kind
from agentreflex.core.util import fastjson
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from agentreflex.core.protocols import HostAdapter as HostAdapter


class PayloadError(ValueError):
    """The host payload could not be understood.  The message is one line.

    ``kind`` is the event the payload announced (its ``hook_event_name``) when
    that much was readable, so a caller can fail closed on a malformed
    pre-tool payload even without an event hint; ``None`` when unknown.
    """

    def __init__(self, message: str, kind: EventKind | None = None) -> None:
        super().__init__(message)
        self.kind = kind


@record
class HostReply:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0


def require_str(payload: dict[str, Any], key: str, default: str | None = None) -> str:
    """A string field, or the default; a wrong type is a PayloadError."""
    value = payload.get(key, default)
    if value is None:
        if default is None:
            raise PayloadError(f"missing field {key!r}")
        return default
    if not isinstance(value, str):
        raise PayloadError(f"field {key!r} must be a string, got {type(value).__name__}")
    return value


# Fields of a tool input that reflexes read as text.  On a proposed call each
# must be a string when present: a list or an object there would be read as
# "nothing", so a floor would see no command and no path; the call fails closed
# instead.  Unknown fields are fine.  Content fields are checked only for the
# file tools that carry them (an MCP tool may shape its own ``content``).
COMMAND_AND_PATH_FIELDS = (
    "command",
    "cmd",
    "code",
    "chars",
    "file_path",
    "filePath",
    "path",
    "notebook_path",
    "file",
)
# What a shell tool runs or types, by host (events._shell_text reads the first present).
SHELL_TEXT_FIELDS = ("command", "cmd", "code", "chars", "data", "input")
CONTENT_FIELDS = (
    "content",
    "contents",
    "text",
    "file_text",
    "new_string",
    "newString",
    "newText",
    "new_str",
    "old_string",
    "oldString",
    "oldText",
    "old_str",
    "new_source",
    "patch",
    "patchText",
    "patch_text",
)


def require_tool_input(
    payload: dict[str, Any], kind: EventKind, tools: Mapping[str, ToolKind] | None = None
) -> dict[str, Any]:
    """``tool_input`` of a pre-tool payload, strictly typed; lenient after the fact.

    A proposed call whose input is missing, null, not an object, or carries a
    non-string where a command or a path belongs cannot be checked, so it is a
    PayloadError (which fails closed on pre-tool).  After the tool ran, a
    malformed input only loses detail.
    """
    value = payload.get("tool_input")
    if kind is not EventKind.PRE_TOOL:
        if value is not None and not isinstance(value, dict):
            raise PayloadError("field 'tool_input' must be an object")
        return value or {}
    if not isinstance(value, dict):
        got = "missing" if "tool_input" not in payload else _json_type(value)
        raise PayloadError(f"field 'tool_input' must be an object, got {got}", kind)
    fields: tuple[str, ...] = COMMAND_AND_PATH_FIELDS
    kind_of_tool = tool_kind(str(payload.get("tool_name", "")), tools)
    if kind_of_tool in (ToolKind.WRITE, ToolKind.EDIT, ToolKind.PATCH):
        fields = fields + CONTENT_FIELDS
    if kind_of_tool is ToolKind.SHELL:
        # each host runs the one its schema names (Hermes' ``process`` its ``data``) and
        # passes over a decoy ``command`` beside it: two commands can't be checked as one
        named = [k for k in SHELL_TEXT_FIELDS if value.get(k) not in (None, "")]
        if any(value[k] != value[named[0]] for k in named):
            raise PayloadError(
                f"a shell call carries more than one command ({', '.join(named)})", kind
            )
        for key in named:
            where = line_editing(value[key], typed=key in TYPED_FIELDS)
            if where is not None:
                raise PayloadError(
                    f"field 'tool_input.{key}' has a control character or key ({value[key][where : where + 11]!r} "
                    f"at {where}) that a shell or terminal edits the line with, so what runs "
                    "is not what is written; send plain text",
                    kind,
                )
    for key in fields:
        if key in value and not isinstance(value[key], str):
            raise PayloadError(
                f"field 'tool_input.{key}' must be a string, got {_json_type(value[key])}", kind
            )
    edits = value.get("edits")
    if edits is not None and not (
        isinstance(edits, list) and all(isinstance(e, dict) for e in edits)
    ):
        raise PayloadError("field 'tool_input.edits' must be a list of objects", kind)
    return value


# A shell tool's own working directory, beside its command: OpenCode's ``workdir``,
# Gemini CLI's ``dir_path`` (``directory`` before it).  The host runs the command
# there, so the floors must resolve its paths there too (red-team rt36: ``echo x >
# settings.json`` with ``workdir: .claude`` was read as a write to the project's root).
SHELL_FOLDER_FIELDS = ("workdir", "dir_path", "directory")


def in_its_folder(call: ToolCall, kind: EventKind, home: bool = False) -> None:
    """Read a shell call's command as run from the folder its input names, if any.

    The command the reflexes read starts with a ``cd`` there (a line of its own,
    so nothing of the command is read differently); what the host runs is
    untouched (``call.input``).  A relative folder is the host's own, resolved
    against the call's ``cwd`` as the ``cd`` is.  ``home``: the host reads a leading
    ``~`` as the home folder (Hermes' ``cd -- $HOME/...``).  On a proposed call a
    folder that is not a string, or two different ones, cannot be checked: a
    PayloadError (closed).
    """
    folder = _own_folder(call, kind)
    if folder is None:
        return
    if home and (folder == "~" or folder.startswith("~/")):
        rest = folder[2:].lstrip("/")  # from the home folder, a line of its own
        call.command = "cd -- ~\n" + (f"cd -- {_quoted(rest)}\n" if rest else "") + call.command
    else:
        call.command = f"cd -- {_quoted(folder)}\n{call.command}"


def shell_folder(call: ToolCall | None, cwd: str, home: bool = False) -> str:
    """The folder a shell call runs in: its own folder field resolved against ``cwd``.

    One answer for the gate (:func:`in_its_folder`) and for containment's planning
    (a ``./script`` is found there: :mod:`agentreflex.core.contain.direct`).
    """
    folder = _own_folder(call, EventKind.POST_TOOL) if call is not None else None
    if folder is None:
        return cwd
    if home and (folder == "~" or folder.startswith("~/")):
        import os

        folder = os.path.expanduser(folder)
    if folder.startswith("/") or not cwd:
        return folder
    return cwd.rstrip("/") + "/" + folder


def _own_folder(call: ToolCall, kind: EventKind) -> str | None:
    """The one folder a shell call's input names (:data:`SHELL_FOLDER_FIELDS`), if any."""
    if call.kind is not ToolKind.SHELL:
        return None
    given = [
        call.input[key] for key in SHELL_FOLDER_FIELDS if call.input.get(key) not in (None, "")
    ]
    if not given:
        return None
    folder = given[0]
    if not all(isinstance(f, str) for f in given) or any(f != folder for f in given):
        if kind is EventKind.PRE_TOOL:
            fields = ", ".join(SHELL_FOLDER_FIELDS)
            raise PayloadError(f"a shell call's folder ({fields}) must be one string", kind)
        return None
    return str(folder)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


# C0 controls and DEL: a terminal's line discipline and line editor act on them (``^U``
# kills the line typed so far, ``^C`` drops it, ``^A`` moves to its start, a tab
# completes a name, ``^P`` recalls one), and a shell line can't carry a NUL.
_EDITING = frozenset(chr(c) for c in (*range(32), 127))
_KEPT_IN_COMMANDS = frozenset("\t\n\r")
_KEPT_IN_TYPING = frozenset("\n\r")


def line_editing(text: Any, typed: bool) -> int | None:
    """Where ``text`` first has a control character that edits the line it is on, if any.

    Why: the floors read the characters as written, the shell or the terminal the host
    types them into acts on them (red-team rt36: ``echo hi^Urm -rf ~`` typed into a
    running shell was allowed, and runs ``rm -rf ~``).  Text of control characters only
    (``^C`` to stop a server, ``^D``) writes no command and is let through.
    """
    if not isinstance(text, str):
        return None
    kept = _KEPT_IN_TYPING if typed else _KEPT_IN_COMMANDS
    found = next((i for i, ch in enumerate(text) if ch in _EDITING and ch not in kept), None)
    plain = text
    if typed:  # the keys Copilot CLI types by name ({up}, {backspace}, ...)
        key = _NAMED_KEY.search(text)
        if key is not None and (found is None or key.start() < found):
            found = key.start()
        plain = _ANY_KEY.sub("", text)
    if found is None or all(ch in _EDITING or ch.isspace() for ch in plain):
        return None
    return found


_NAMED_KEY = LazyPattern(
    r"(?<!\$)\{(?:up|down|left|right|backspace|tab|delete|del|home|end|esc|escape)\}",
    re.IGNORECASE,
    hints="{",
)
_ANY_KEY = LazyPattern(
    r"(?<!\$)\{(?:up|down|left|right|backspace|tab|delete|del|home|end|esc|escape|enter)\}",
    re.IGNORECASE,
    hints="{",
)


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, for a reason the user can act on."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def tool_response_text(response: Any) -> tuple[bool | None, str, str, int | None, bool]:
    """(ok, output, error, exit_code, interrupted) from any host's tool response shape.

    Claude's Bash answers ``{stdout, stderr, interrupted}``; Write answers
    ``{filePath, success}``; MCP tools answer content lists; Codex and others
    answer plain strings.  Unknown shapes yield ``ok=None`` (unknown), never a
    guess from words in the output.
    """
    if response is None:
        return None, "", "", None, False
    if isinstance(response, str):
        return None, response, "", None, False
    if isinstance(response, list):
        texts = [str(b.get("text", "")) for b in response if isinstance(b, dict)]
        return None, "\n".join(texts), "", None, False
    if not isinstance(response, dict):
        return None, str(response), "", None, False
    stdout = _text(response.get("stdout", response.get("output", response.get("content", ""))))
    stderr = _text(response.get("stderr", ""))
    error = _text(response.get("error", ""))
    interrupted = bool(response.get("interrupted", False))
    exit_code = response.get("exit_code", response.get("exitCode", response.get("returncode")))
    exit_code = (
        exit_code if isinstance(exit_code, int) and not isinstance(exit_code, bool) else None
    )
    ok: bool | None = None
    if isinstance(response.get("success"), bool):
        ok = response["success"]
    elif isinstance(response.get("is_error"), bool):
        ok = not response["is_error"]
    elif exit_code is not None:
        ok = exit_code == 0
    elif error or interrupted:
        ok = False
    elif "stdout" in response or "filePath" in response or "file" in response:
        ok = True
    combined_err = "\n".join(x for x in (error, stderr) if x)
    return ok, stdout, combined_err, exit_code, interrupted


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(b.get("text", "")) if isinstance(b, dict) else str(b) for b in value)
    if value is None:
        return ""
    return str(value)


def default_reason(decision: Decision) -> str:
    """The decision's reason, or a neutral one that never says "blocked" for a warning."""
    if decision.reason.strip():
        return decision.reason
    if decision.verdict in (Verdict.BLOCK, Verdict.ASK_USER):
        return "blocked by agentreflex"
    return "agentreflex flagged this"


def dump_json(obj: dict[str, Any]) -> str:
    """The one JSON object a hook prints (non-ASCII kept readable)."""
    return fastjson.dumps(obj, ensure_ascii=False)


def cap(text: str, limit: int = 9000) -> str:
    """Hosts cap hook output strings (Claude at 10k chars); stay under it."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def __getattr__(name: str) -> object:
    """``HostAdapter`` lives in :mod:`agentreflex.core.protocols` (it needs typing)."""
    if name == "HostAdapter":
        from agentreflex.core.protocols import HostAdapter

        return HostAdapter
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
