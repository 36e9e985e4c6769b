"""What an MCP or unknown tool's input does, whatever the tool is called.

A tool's name says little: an MCP server may call its shell ``run``,
``execute`` or ``terminal_exec``, and its file writer ``save`` or
``put_document``.  Its input says more.  Each field that carries a command,
code, or a path with new content is turned into the built-in call it amounts
to (a ``Bash`` command, a Python one-liner, a ``Write``, a deletion patch),
and the gate judges those with the same rules as the built-in tools.  The
tool's last name part (``mcp__fs__delete_file`` -> ``delete_file``) only
decides what a bare path means: read, delete or change.
"""

from __future__ import annotations

from agentreflex.core.events import ToolCall, build_tool_call

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Fields whose text a shell runs.
COMMAND_KEYS = (
    "command",
    "cmd",
    "commands",
    "script",
    "shell",
    "bash",
    "shell_command",
    "command_line",
    "commandLine",
)
# Fields whose text an interpreter runs; ``language`` (or ``lang``) names it.
CODE_KEYS = ("code", "python", "source_code", "program")
LANGUAGE_KEYS = ("language", "lang", "runtime", "interpreter")
# Fields naming a file (a move's source and target are both changed).
PATH_KEYS = (
    "path",
    "file_path",
    "filePath",
    "filename",
    "file",
    "destination",
    "dest",
    "target",
    "source",
    "src",
    "new_path",
    "old_path",
    "newPath",
    "oldPath",
    "directory",
    "dir",
)
LIST_PATH_KEYS = ("paths", "files", "sources")
# Fields holding what a write puts into the file.
CONTENT_KEYS = ("content", "contents", "text", "new_string", "newString", "new_text", "body")
# Fields that nest the real arguments one level down.
NESTED_KEYS = ("arguments", "args", "params", "input")

READ_VERBS: tuple[str, ...] = ("read", "get", "list", "search", "view", "stat", "info", "tree")
READ_VERBS += ("find", "glob", "grep", "open", "cat", "show", "describe", "fetch", "query")
DELETE_VERBS = ("delete", "remove", "unlink", "rm", "erase", "trash", "destroy", "drop")
# Interpreters whose one-liner form the gate's interpreter scan understands.
_INTERPRETERS = {
    "python": "python3 -c",
    "python3": "python3 -c",
    "py": "python3 -c",
    "javascript": "node -e",
    "js": "node -e",
    "node": "node -e",
    "typescript": "node -e",
    "ruby": "ruby -e",
    "perl": "perl -e",
    "php": "php -r",
}
_SHELLS = ("sh", "bash", "shell", "zsh", "dash")
MAX_DEPTH = 2


def implied_calls(tool_name: str, data: object, depth: int = 0) -> list[ToolCall]:
    """The built-in calls an MCP or unknown tool's input amounts to (often none)."""
    if not isinstance(data, dict) or depth > MAX_DEPTH:
        return []
    verb = tool_name.rsplit("__", 1)[-1].lower()
    calls = _commands(data) + _code(data)
    calls += _file_calls(verb, data)
    for key in NESTED_KEYS:
        calls += implied_calls(tool_name, data.get(key), depth + 1)
    return calls


def _commands(data: dict[str, Any]) -> list[ToolCall]:
    out = []
    for key in COMMAND_KEYS:
        value = data.get(key)
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = " ".join(value)  # an argv list, as Codex's old shell took it
        if isinstance(value, str) and value.strip():
            out.append(build_tool_call("Bash", {"command": value}))
    return out


def _code(data: dict[str, Any]) -> list[ToolCall]:
    language = next(
        (str(data[k]).strip().lower() for k in LANGUAGE_KEYS if isinstance(data.get(k), str)),
        "python",  # the usual default of code-running tools
    )
    out = []
    for key in CODE_KEYS:
        value = data.get(key)
        if not isinstance(value, str) or not value.strip():
            continue
        if language in _SHELLS:
            out.append(build_tool_call("Bash", {"command": value}))
        elif language in _INTERPRETERS:
            runner = _INTERPRETERS[language]
            out.append(build_tool_call("Bash", {"command": f"{runner} {_sh_quote(value)}"}))
        else:  # a language the gate has no scan for: read it as Python, the widest net
            out.append(build_tool_call("Bash", {"command": f"python3 -c {_sh_quote(value)}"}))
    return out


def _file_calls(verb: str, data: dict[str, Any]) -> list[ToolCall]:
    paths = [v for k in PATH_KEYS if isinstance(v := data.get(k), str) and v]
    for key in LIST_PATH_KEYS:
        value = data.get(key)
        if isinstance(value, list):
            paths += [v for v in value if isinstance(v, str) and v]
    if not paths:
        return []
    content = next((v for k in CONTENT_KEYS if isinstance(v := data.get(k), str)), None)
    if content is None and verb.startswith(READ_VERBS):
        return [build_tool_call("Read", {"file_path": p}) for p in paths]
    if content is None and verb.startswith(DELETE_VERBS):
        body = "".join(f"*** Delete File: {p}\n" for p in paths)
        return [
            build_tool_call("apply_patch", {"command": f"*** Begin Patch\n{body}*** End Patch"})
        ]
    return [build_tool_call("Write", {"file_path": p, "content": content or ""}) for p in paths]


def _sh_quote(text: str) -> str:
    return "'" + text.replace("'", "'\"'\"'") + "'"
