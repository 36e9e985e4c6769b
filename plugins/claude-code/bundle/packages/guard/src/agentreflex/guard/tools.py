"""What the guard needs to know about a tool call: its names and whether it mutates policy.

A directive names a tool the way the agent thinks of it (``pytest``,
``adapter-status``), while hosts name the tool that ran it (``Bash``,
``exec_command``).  A requirement matches either the host tool name or the
first word of a shell command (after ``env``/``sudo``/assignments and a path
prefix), so ``"tool":"adapter-status"`` matches ``Bash`` running
``adapter-status --json``.

A permanent mutation is a write, edit or patch (or a shell write such as a
redirect, ``sed -i``, ``tee``, ``cp``/``mv``) whose target looks like
configuration, routing, fallback, policy, hook or profile state.
"""

from __future__ import annotations

import os
import re

from agentreflex.core import testrun
from agentreflex.core.events import ToolCall, ToolKind
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.guard import description_texts

__all__ = ["description_texts", "first_word", "matches", "mutated_policy_paths", "policy_path"]

_POLICY_WORDS = frozenset(
    {
        "config",
        "configs",
        "configuration",
        "conf",
        "settings",
        "setting",
        "routing",
        "routes",
        "route",
        "router",
        "fallback",
        "fallbacks",
        "policy",
        "policies",
        "hook",
        "hooks",
        "profile",
        "profiles",
        "env",
        "lanes",
        "thresholds",
        "guardrails",
        "rules",
    }
)
_SHELL_WRITERS = frozenset({"tee", "cp", "mv", "install", "ln", "truncate", "rsync"})
_REDIRECT = LazyPattern(r"(?:^|[^0-9&<>])>>?\s*([^\s;&|<>]+)")


def first_word(command: str) -> str:
    """The program a shell command runs, without wrappers, assignments or a path (core.testrun)."""
    return testrun.program(command)


def matches(requirement_tool: str, call: ToolCall) -> bool:
    """Does ``call`` run the tool a requirement names (host name or shell program)?"""
    want = requirement_tool.lower()
    if call.name.lower() == want:
        return True
    if call.kind is ToolKind.SHELL and call.command:
        prog = first_word(call.command).lower()
        return prog == want or prog.rsplit(".", 1)[0] == want
    return False


def policy_path(path: str) -> bool:
    """Does ``path`` look like config/routing/policy/hook/profile state?"""
    if not path:
        return False
    parts = re.split(r"[/\\]+", path.lower())
    for part in parts:
        stem = part.lstrip(".")
        words = set(re.split(r"[^a-z0-9]+", stem))
        if words & _POLICY_WORDS:
            return True
    return False


def mutated_policy_paths(call: ToolCall) -> list[str]:
    """The policy-shaped targets this call would write ([] when none)."""
    if call.mutates_files:
        return [p for p in (call.paths or [call.path]) if policy_path(p)]
    if call.kind is ToolKind.SHELL and call.command:
        return [t for t in _shell_targets(call.command) if policy_path(t)]
    return []


# shlex is quadratic on long tokens; a command this long is data, not a policy edit
# we could reason about.  Scan the head only (the guard reports, it is not a floor).
_SCAN_LIMIT = 16 * 1024


def _shell_targets(command: str) -> list[str]:
    import shlex  # lazy: only needed for a shell command that may write a file

    command = command[:_SCAN_LIMIT]
    targets = [m.group(1) for m in _REDIRECT.finditer(command)]
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for i, word in enumerate(words):
        base = os.path.basename(word)
        if base in _SHELL_WRITERS:
            args = [w for w in words[i + 1 :] if not w.startswith("-")]
            targets.extend(args[-1:] if base != "tee" else args)
        elif base in ("sed", "perl") and any(w.startswith("-i") for w in words[i + 1 :]):
            targets.extend(w for w in words[i + 1 :] if not w.startswith("-"))
        elif base == "git" and words[i + 1 : i + 2] == ["config"]:
            rest = words[i + 2 :]
            if rest and not any(w.startswith("--get") or w == "--list" for w in rest):
                targets.append(".git/config")
    return targets
