"""How agentreflex starts its own Python outside the boundary: deaf to the environment and the cwd.

Why: the hook, the daemon and the helpers the JavaScript shims start all run
outside the boundary, but the environment they inherit and the folder they
start in are the agent's to shape.  A ``PYTHONPATH=src`` the user exported (a
direnv ``.envrc``, an IDE) puts the project in front of the standard library,
so a ``sitecustomize.py`` or an ``encodings/`` package that a contained
command wrote there would run in every later hook call, before any line of
ours.  And ``python -c`` and ``python -m`` put the working directory (the
project) first on ``sys.path``, so a ``json.py`` there would run too.

``-E`` makes the interpreter ignore every ``PYTHON*`` variable and ``-P``
keeps the working directory and the script's folder off ``sys.path``.  Not
``-I``: that also drops the user's own site-packages, which is where
``pip install --user`` puts agentreflex (it is in home, read-only in the
boundary).
"""

from __future__ import annotations

__all__ = ["ISOLATED", "isolated"]

ISOLATED: tuple[str, ...] = ("-E", "-P")


def isolated(python: str, *args: str) -> list[str]:
    """The argv that runs ``python args`` with :data:`ISOLATED` first."""
    return [python, *ISOLATED, *args]
