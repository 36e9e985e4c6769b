"""One list of the guard's own files (issue 32, item 4): every guarded path is named by it.

The gate looks for ``GUARDED_NAMES`` in file-writing code and in commands;
``guarded_paths`` is what it protects.  Were a host's folder added to one and
not the other, the gate would protect the folder yet let code that builds its
path, or a command naming it, through the cheap checks.  This test ties them.
"""

from __future__ import annotations

from pathlib import Path

from agentreflex.core.state.userdirs import COMMON_GUARDED_NAMES, GUARDED_NAMES, guarded_paths


def test_every_guarded_path_is_named_by_the_one_list(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "proj"
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    names = (*GUARDED_NAMES, *COMMON_GUARDED_NAMES)
    unnamed = [p for p in guarded_paths(str(project), env) if not any(n in p for n in names)]
    assert unnamed == []


def test_common_names_are_not_looked_for_in_code() -> None:
    """``.pi`` would match ``data.pickle``: it is a path name, never a code fragment."""
    assert not set(COMMON_GUARDED_NAMES) & set(GUARDED_NAMES)
    assert not any(n in "open('data.pickle', 'wb')" for n in GUARDED_NAMES)
