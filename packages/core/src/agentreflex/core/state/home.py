"""Where session state may be written: under a real project root, never anywhere a payload names.

Why: the hook payload's ``cwd`` comes from the host (or from whoever wrote
the payload).  Creating ``<cwd>/.agentreflex`` blindly would scatter state
over ``/``, a home folder or a directory that does not exist yet, and a
``.agentreflex`` symlinked out of the project would let the project redirect
our writes anywhere the user can write.  So state is written only

* into a state dir the user chose (``AGENTREFLEX_STATE_DIR`` or ``state_dir``), or
* into ``<project>/.agentreflex`` where the project is a git work tree or has
  ``.agentreflex/config.toml`` (``config.project_root``), is not ``/``, and
  exists; a ``.agentreflex`` that is a symlink must stay inside the project.
"""

from __future__ import annotations

import os

from agentreflex.core.config.settings import Config

STATE_DIR_NAME = ".agentreflex"


def state_problem(config: Config, cwd: str) -> tuple[str, bool]:
    """Why state may not be written for this call ("" when it may), and whether it is a refusal.

    A refusal (a symlink leaving the project) is something an attacker
    arranged: pre-tool calls fail closed on it.  The rest (no project, a
    working directory that does not exist) only means there is nothing to
    record.
    """
    project = config.project_dir
    default = os.path.join(project, STATE_DIR_NAME)
    if cwd and not os.path.isdir(cwd):
        return f"the working directory {cwd!r} does not exist; nothing recorded", False
    if os.path.normpath(config.state_dir) != os.path.normpath(default):
        return "", False  # the user chose where state goes
    if os.path.islink(default):
        target = os.path.realpath(default)
        root = os.path.realpath(project)
        if not target.startswith(root.rstrip("/") + "/"):
            return (
                f"{default} is a symlink to {target}, outside the project; refusing to "
                "use it (remove the link so agentreflex can keep its state in the project)",
                True,
            )
    if os.path.realpath(project) == "/" or not _is_project(project):
        return (
            f"{project} is not a project (no git work tree or .agentreflex/config.toml); "
            "session state not recorded",
            False,
        )
    return "", False


def _is_project(path: str) -> bool:
    return os.path.exists(os.path.join(path, ".git")) or os.path.isfile(
        os.path.join(path, STATE_DIR_NAME, "config.toml")
    )
