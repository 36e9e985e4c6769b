"""Package installers pointed at the hook's own Python environment.

``pip install`` run by that environment's ``pip`` or ``python -m pip``, ``uv
pip install --python ENV``, ``pip install --target SITE`` and ``python -m venv
--clear ENV`` all write where the hook's interpreter takes code from at start-up
(:func:`agentreflex.core.state.userdirs.interpreter_paths`): a package that
ships a ``.pth`` file then runs in every hook.  An installer is judged only by
where it installs, never by what: an install into any other environment (the
project's own ``.venv``, a bare ``pip`` on the PATH) changes nothing here.
Where a command installs is read in :mod:`installplace`, which the pre-filter
shares: an install naming a place is always judged here.  The variables the
installers read count as the options they stand for, whether set before the
command (``PIP_TARGET=SITE pip ...``, ``env ...``) or earlier in the line
(``export PIP_TARGET=SITE; pip ...``).  ``pip install --user`` writes into the
hook's environment only when its interpreter loads the user site, and ``uv pip
install --system`` or a bare ``pip install --break-system-packages`` only when
it is the system's interpreter, no virtual environment.
"""

from __future__ import annotations

import posixpath
import sys

from agentreflex.core.state import userdirs
from agentreflex.gate.model import Cmd
from agentreflex.gate.rules.protected import WRITE, full_path, real_path, under
from agentreflex.gate.shell.installplace import SYSTEM, USER
from agentreflex.gate.shell.installplace import places as install_places
from agentreflex.gate.shell.paths import Where

__all__ = ["environment_writes"]


def environment_writes(cmd: Cmd, where: Where) -> list[tuple[str, str]]:
    """``(path, WRITE)`` for each of the hook interpreter's start-up paths ``cmd`` installs into."""
    env = {**cmd.shell_vars, **cmd.assigns} if cmd.shell_vars else cmd.assigns
    places = [_special(p) for p in install_places(cmd.name, cmd.args, cmd.program, env) if p]
    places = [p for p in places if p]
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


def _special(place: str) -> str:
    """The folder :data:`USER` or :data:`SYSTEM` stands for where the hook's
    interpreter takes code from it (``""`` where not), else ``place``."""
    if place == USER:
        return userdirs.loaded_user_site()
    if place == SYSTEM:
        return sys.prefix if sys.prefix == sys.base_prefix else ""
    return place
