"""Only the host writes history: is this process a host's hook, or an agent's command?

A record sealed with the state key must come from a hook process the host
started.  Without containment (issue #28 makes the key unreadable inside an
OS boundary) an agent's shell command runs as the user and can start
``agentreflex hook`` or ``replay`` itself.  This module detects that case from
the environment markers the hosts set differently for their hook processes
and for the agent's shell commands, so the callers can refuse to record.

What it rests on (checked against the installed host, see SECURITY.md):

* Claude Code starts the agent's Bash commands with ``CLAUDECODE=1`` (the
  shell spawn in the 2.1.328 binary sets ``{..., GIT_EDITOR: "true",
  CLAUDECODE: "1"}``) and sets ``CLAUDE_PROJECT_DIR`` for hook commands
  ("only available when Claude Code spawns the hook command",
  https://docs.claude.com/en/docs/claude-code/hooks).
  ``CLAUDECODE=1`` without ``CLAUDE_PROJECT_DIR`` is an agent's command.

What it cannot stop: these are environment variables, and an agent's command
can set or unset them (``env -u CLAUDECODE``, ``CLAUDE_PROJECT_DIR=x``).  It
refuses the plain attempt; containment is what makes the key unreachable.
Hosts whose markers are not confirmed here are not checked.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

REFUSED = (
    "refused: this runs inside an agent's shell command, not a hook the host started; "
    "only the host writes a session's history (see SECURITY.md)"
)


def writes_live_history(env: Mapping[str, str]) -> str:
    """The host whose live session an agent's command would write to, or ``""``.

    An agent's command that runs with another key (``HOME`` pointed at a
    scratch directory, as test suites do) cannot seal records the live
    session accepts, so it is let through; one that would use the user's key
    is refused.
    """
    host = inside_agent_command(env)
    if not host:
        return ""
    import os
    import pwd

    from agentreflex.core.state.userdirs import key_path

    try:
        real_home = pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return host  # no account record: cannot tell, so refuse
    live = os.path.realpath(key_path({"HOME": real_home}))
    mine = os.path.realpath(key_path(env))
    return host if mine == live else ""


def inside_agent_command(env: Mapping[str, str]) -> str:
    """The host whose agent command this process runs in, or ``""`` (a hook, or unknown)."""
    if env.get("CLAUDECODE") == "1" and "CLAUDE_PROJECT_DIR" not in env:
        return "claude-code"
    return ""
