"""Routes to agentreflex's own files where no boundary holds (red-team rt79, issue #28).

With ``contain = false`` (or no engine) the hook falls back to the parse-based gate,
which must fail closed for the guard's own files.  Each class below got through the
real Claude Code hook with containment off before; each is shown with near misses
that stay allowed.

- a sed script's own ``w``/``W`` commands and the ``s///w`` flag write a file, with
  or without ``-i`` (https://gtfobins.github.io/gtfobins/sed/, GNU sed manual);
- an unmodelled program's argument holding a path after another word: sqlite3's
  dot-commands ``.output F``, ``.once F``, ``.save F``, ``.backup F``
  (https://sqlite.org/cli.html), whether as an argument or a ``-cmd`` value;
- archivers that delete what they pack: ``tar --remove-files``, ``7z a -sdel``,
  ``rsync --remove-source-files`` (GNU tar manual, 7-Zip's ``-sdel``, rsync(1));
- environment creators aimed at the hook's own interpreter: ``uv venv ENV``,
  ``virtualenv ENV`` (https://docs.astral.sh/uv/reference/cli/#uv-venv);
- a folder holding the per-user key named by a bare relative name after ``cd``
  (``cd ~/.local && tar -c state``);
- ``git apply --directory=DIR``, which prefixes every path in the patch with DIR
  (https://git-scm.com/docs/git-apply).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.core.testing import hook_process

from .conftest import Checked

PREFIX = sys.prefix
OWN = {"GATE-SELF-PROTECT", "GATE-SELF-KEY"}  # a change to the guard's files; a read of its key

REFUSED = [
    "sed -n '1w .agentreflex/config.toml' x.txt",
    "sed -n 's/a/b/w ~/.claude/settings.json' x.txt",
    "sed -e '$W ~/.config/agentreflex/config.toml' x.txt",
    "sed --expression='/x/w .claude/settings.local.json' x.txt",
    "sed -n -e p -e '1,3w .agentreflex/config.toml' x.txt",
    "sed -e 's/new/x/;1w .agentreflex/config.toml' x.txt",
    "sqlite3 x.db '.save .agentreflex/config.toml'",
    "sqlite3 /dev/null -cmd '.output .agentreflex/config.toml' 'select 1;'",
    'sqlite3 x.db ".once ~/.claude/settings.json" "select \'x\';"',
    "sqlite3 x.db '.backup main ~/.config/agentreflex/config.toml'",
    "tar --remove-files -cf g.tar .agentreflex",
    "tar -cf g.tar --remove-files .claude",
    "7z a -sdel g.7z .agentreflex",
    "rsync -a --remove-source-files .agentreflex/ /tmp/g/",
    f"uv venv {PREFIX}",
    f"uv venv --allow-existing {PREFIX}",
    f"virtualenv {PREFIX}",
    f"python3 -m virtualenv --clear {PREFIX}",
    "cd ~/.local && tar -c state | base64",
    "cd ~/.local/state && zip -r - agentreflex | base64",
    "cd ~/.local/state && cp -r agentreflex /tmp/x",
    "git apply --directory=.agentreflex x.patch",
    "git apply --directory .agentreflex < x.patch",
]

ALLOWED = [
    "sed -n 'w out.txt' x.txt",
    "sed -n 's/a/b/w changes.txt' x.txt",
    "sed 's/new/old/g' x.txt",
    "sed -n p .agentreflex/config.toml",
    "sqlite3 x.db '.output out.txt' 'select 1;'",
    "sqlite3 x.db '.tables'",
    "tar --remove-files -cf g.tar build",
    "tar -cf g.tar .agentreflex",
    "7z a -sdel g.7z build",
    "7z a g.7z .agentreflex",
    "rsync -a --remove-source-files build/ /tmp/g/",
    "uv venv .venv2",
    "virtualenv /tmp/env",
    "cd ~/.local && tar -c share | base64",
    "git apply --directory=src x.patch",
]


@pytest.fixture
def world(gate_project: Path) -> Path:
    """The gate project with a patch on ``config.toml`` and the per-user key in place."""
    home = gate_project.parent
    (gate_project / ".agentreflex").mkdir()
    (gate_project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    (gate_project / "x.patch").write_text(
        "diff --git a/config.toml b/config.toml\n--- a/config.toml\n+++ b/config.toml\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    (home / ".local" / "state" / "agentreflex").mkdir(parents=True)
    (home / ".local" / "state" / "agentreflex" / "key").write_bytes(b"k" * 32)
    (home / ".local" / "share").mkdir()
    return gate_project


@pytest.mark.parametrize("command", REFUSED)
def test_route_to_own_files_is_refused(
    world: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict != "ALLOW" and codes & OWN, (command, verdict, codes)


@pytest.mark.parametrize("command", ALLOWED)
def test_near_miss_stays_allowed(
    world: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert not codes & OWN, (command, verdict, codes)


def test_real_hook_without_containment_refuses_them(world: Path) -> None:
    """The real Claude Code hook, the user's ``contain = false``, enforced mode: each class's
    first spelling is denied, and a near miss is not."""
    home = world.parent
    (home / ".config" / "agentreflex").mkdir(parents=True)
    (home / ".config" / "agentreflex" / "contain.toml").write_text("contain = false\n")
    (world / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')

    def answer(command: str) -> str:
        payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(world)}
        payload |= {"permission_mode": "bypassPermissions", "tool_name": "Bash"}
        payload |= {"tool_input": {"command": command}}
        out = hook_process(world, "claude-code", "PreToolUse", payload)
        return str(json.loads(out)["hookSpecificOutput"]["permissionDecision"]) if out else ""

    for command in (REFUSED[0], REFUSED[5], REFUSED[9], REFUSED[13], REFUSED[17], REFUSED[-1]):
        assert answer(command) == "deny", command
    assert answer("sed -n 'w out.txt' x.txt") != "deny"
