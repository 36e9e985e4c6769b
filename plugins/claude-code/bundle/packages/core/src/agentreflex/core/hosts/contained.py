"""The shell command a host without a sandbox of its own runs instead: inside agentreflex's boundary.

Why here and not in each adapter: OpenCode, pi, Gemini CLI and Copilot CLI
all let the hook replace a shell tool's command before it runs (the shims'
``command`` reply, Gemini's ``hookSpecificOutput.tool_input``, Copilot's
``modifiedArgs``); what the replacement is, and when there is one, is one
rule.  The boundary itself is :mod:`agentreflex.core.contain.boundary`.
"""

from __future__ import annotations

from agentreflex.core.decision import Decision, Mode
from agentreflex.core.events import Event, EventKind, ToolKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["as_the_agent_wrote", "contained_command"]


def contained_command(event: Event, decision: Decision) -> tuple[str, str] | None:
    """The shell command run inside agentreflex's boundary (enforced mode), and a note.

    Only shell tools in enforced mode; the project is the folder the
    session started in (:mod:`agentreflex.core.hook.sessionproject`: the one
    the host reported), wherever the command's ``cwd`` is: a ``.git`` the
    agent made in a subfolder it then moved into does not make that
    subfolder the boundary's project.
    When the engine can't be had the command goes unchanged (the gate
    already answered for it) and the note says "not contained".
    """
    tool = event.tool
    if event.kind is not EventKind.PRE_TOOL or tool is None or tool.kind is not ToolKind.SHELL:
        return None
    if decision.mode is not Mode.ENFORCED or not isinstance(tool.input.get("command"), str):
        return None
    from agentreflex.core.contain import boundary as contain
    from agentreflex.core.hosts import get_adapter

    try:
        adapter: object = get_adapter(event.host)
    except ValueError:
        adapter = None  # no adapter (agentreflex check, tests): no host's folder to keep
    folders = getattr(adapter, "project_settings", ())
    direct = not getattr(adapter, "contained_shell_form", False)
    project = event.session_folder or event.cwd
    takes_filter = getattr(adapter, "terminal_filter", None)  # a host whose rules see the line
    takes_spaces = getattr(adapter, "pid_namespace", None)
    from agentreflex.core.hosts.base import shell_folder

    # where the host runs it: the call's own folder field (OpenCode's ``workdir``, Gemini
    # CLI's ``dir_path``), not the session's folder (red-team rt41)
    home = bool(getattr(adapter, "tilde_folders", False))
    command, note = contain.shell_rewrite(
        tool.input["command"],
        project,
        folders=folders,
        direct=direct,
        cwd=shell_folder(tool, event.cwd, home),
        terminal=takes_filter() if callable(takes_filter) else True,
        joined=takes_spaces() if callable(takes_spaces) else True,
    )
    return command, (f"agentreflex: {note}" if note else "")


def as_the_agent_wrote(tool_input: Any) -> Any:
    """A tool's input after it ran, with a command the hook contained read as the agent wrote it.

    The hosts that take the hook's replacement arguments report those after
    the tool; what the agent asked for is the inner command.
    """
    if not isinstance(tool_input, dict):
        return tool_input
    command = tool_input.get("command")
    if not isinstance(command, str) or "bwrap" not in command:
        return tool_input  # cheap: most commands never load the boundary's module
    from agentreflex.core.contain import boundary as contain

    inner = contain.inner_command(command)
    return tool_input if inner is None else {**tool_input, "command": inner}
