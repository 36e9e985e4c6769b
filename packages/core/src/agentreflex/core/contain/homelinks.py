"""What home's links lead to in the project or a temp folder: held like home itself.

Why: home is read-only in the boundary by name, but a dotfiles repository
opened as the project (GNU Stow's layout: ``~/.bashrc -> ~/dotfiles/bashrc``,
``~/.config/git/config -> ~/dotfiles/gitconfig``, ``~/.local/bin`` itself a
link to ``~/dotfiles/bin``) leaves what git, ssh and the shell read outside
writable through the link (red-team rt26, rt27).  What those links lead to is
read-only where it exists (the policy's ``{home_links}``), and moved aside
where a command made it (:func:`.planted.watched`).

Only the places where dotfiles live are looked in, not the whole of home:
home's own entries, two levels of ``~/.config``, ``~/.ssh``, ``~/.gnupg`` and
the user's program folders, and each of those folders when it is a link
itself.  Stdlib only: it is on the hook's path (once per hook process).
"""

from __future__ import annotations

import functools
import os
import time

from agentreflex.core.util.fsutil import inside

__all__ = ["targets"]

# (folder under home, how many levels of it are listed)
_PLACES = (("", 1), (".config", 2), (".ssh", 1), (".gnupg", 1), (".local/bin", 1), ("bin", 1))
_MAX_ENTRIES = 4000  # per call: a home padded past this is not listed further (SECURITY.md)


def targets(home: str, roots: tuple[str, ...]) -> list[str]:
    """Where home's links (in :data:`_PLACES`) lead inside ``roots``, existing or not.

    Listed once per hook call (the plan and the looks around one command ask in the
    same second); the warm daemon, which lives on, lists again a second later.
    """
    return list(_targets(home, roots, int(time.monotonic())))


@functools.lru_cache(maxsize=4)
def _targets(home: str, roots: tuple[str, ...], _second: int) -> tuple[str, ...]:
    found: dict[str, None] = {}
    budget = [_MAX_ENTRIES]
    for place, depth in _PLACES:
        folder = os.path.join(home, place) if place else home
        if place and os.path.islink(folder):
            _keep(folder, roots, found)
        _scan(folder, depth, roots, found, budget)
    return tuple(found)


def _scan(
    folder: str, depth: int, roots: tuple[str, ...], found: dict[str, None], budget: list[int]
) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        budget[0] -= 1
        if budget[0] < 0:
            return
        if entry.is_symlink():
            _keep(entry.path, roots, found)
        elif depth > 1 and entry.is_dir(follow_symlinks=False):
            _scan(entry.path, depth - 1, roots, found, budget)


def _keep(link: str, roots: tuple[str, ...], found: dict[str, None]) -> None:
    real = os.path.realpath(link)
    if any(inside(real, r) for r in roots):
        found[real] = None
