"""Poetry's virtualenvs of the user's other projects, in its cache folder: held read-only.

Why: Poetry makes each project's virtualenv in ``{cache-dir}/virtualenvs``
(python-poetry.org/docs/configuration: ``virtualenvs.path``), under
``~/.cache/pypoetry``, which the boundary leaves writable so ``poetry install``
works there.  That folder holds every Poetry project's environment, not only
this one's: a contained command could put a ``.pth`` file (run at every start
of that interpreter) or a script in another project's environment, and the
user's next ``poetry run`` or test run there, or the editor's language server,
ran it outside any boundary (red-team rt83).  So each environment there whose
name is not one of this project's is read-only (the policy's
``{poetry_envs}``).

An environment's name is Poetry's own (``EnvManager.generate_env_name``: the
project's name, then the first 8 characters of the URL-safe base64 of the
SHA-256 of its folder's real path, then ``-pyX.Y``), so this project's are
told from the others' by that hash: the project root's, and the folders one and
two down that hold a ``pyproject.toml`` (a monorepo's packages).  Stdlib only:
it runs on each contained command's plan, and lists nothing where Poetry has no
such folder.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

__all__ = ["others"]

_SKIP = frozenset({"node_modules", ".git", ".venv", "venv", "target", "build", "dist"})
_MAX_ENTRIES = 2000  # per folder listed for a package's pyproject.toml


def others(folders: Sequence[str], project: str) -> list[str]:
    """The environments in Poetry's ``folders`` (``virtualenvs``) that are not ``project``'s."""
    found: list[str] = []
    mine: set[str] | None = None
    for folder in folders:
        try:
            names = [e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        if names and mine is None:
            mine = {f"-{_hash(p)}-py" for p in _project_roots(project)}
        found += [os.path.join(folder, n) for n in names if not any(m in n for m in mine or ())]
    return found


def _hash(folder: str) -> str:
    """Poetry's hash of a project folder (src/poetry/utils/env/env_manager.py); loaded only
    where Poetry has environments to tell apart."""
    import base64
    import hashlib

    real = os.path.normcase(os.path.realpath(folder))
    digest = hashlib.sha256(real.encode("utf-8", "surrogateescape")).digest()
    return base64.urlsafe_b64encode(digest).decode()[:8]


def _project_roots(project: str) -> list[str]:
    """The project and the folders one and two down with a ``pyproject.toml``."""
    roots = [project]
    level = [project]
    for _ in range(2):
        deeper = []
        for folder in level:
            deeper += _subfolders(folder)
        roots += [f for f in deeper if os.path.isfile(os.path.join(f, "pyproject.toml"))]
        level = deeper
    return roots


def _subfolders(folder: str) -> list[str]:
    found: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for n, entry in enumerate(entries):
                if n >= _MAX_ENTRIES:
                    break
                skip = entry.name.startswith(".") or entry.name in _SKIP
                if not skip and entry.is_dir(follow_symlinks=False):
                    found.append(entry.path)
    except OSError:
        pass
    return found
