"""Package installers pointed at the hook's own Python environment.

``pip install`` run by that environment's ``pip`` or ``python -m pip``, ``uv
pip install --python ENV``, ``pip install --target SITE`` and ``python -m venv
--clear ENV`` all write where the hook's interpreter takes code from at start-up
(:func:`agentreflex.core.state.userdirs.interpreter_paths`): a package that
ships a ``.pth`` file then runs in every hook.  An installer is judged only by
where it installs, never by what: an install into any other environment (the
project's own ``.venv``, a bare ``pip`` on the PATH) changes nothing here.
Where a command installs is read in :mod:`installplace`, which the pre-filter
shares: an install naming a place is always judged here.
"""

from __future__ import annotations

import posixpath

from agentreflex.core.state import userdirs
from agentreflex.gate.model import Cmd
from agentreflex.gate.rules.protected import WRITE, full_path, real_path, under
from agentreflex.gate.shell.installplace import places as install_places
from agentreflex.gate.shell.paths import Where

__all__ = ["environment_writes"]


def environment_writes(cmd: Cmd, where: Where) -> list[tuple[str, str]]:
    """``(path, WRITE)`` for each of the hook interpreter's start-up paths ``cmd`` installs into."""
    places = [p for p in install_places(cmd.name, cmd.args, cmd.program, cmd.assigns) if p]
    if not places:
        return []
    own = userdirs.interpreter_paths()
    out: list[tuple[str, str]] = []
    for place in places:
        full = full_path(place, where, cmd.cwd)
        if not full:
            continue
        if posixpath.basename(posixpath.dirname(full)) == "bin":  # ``--python ENV/bin/python``
            full = posixpath.dirname(posixpath.dirname(full))
        for entry in own:
            if any(under(entry, p) or under(p, entry) for p in {full, real_path(full)}):
                out.append((entry, WRITE))
                break
    return out
