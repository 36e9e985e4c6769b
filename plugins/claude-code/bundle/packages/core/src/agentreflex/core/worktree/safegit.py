"""Run git in an agent-controlled repository without running what it configures.

The agent writes the project, including ``.git/config``.  Every git process
the guard starts goes through :func:`git`: hooks point at ``/dev/null``,
fsmonitor is off, no pager, no external diff, no ``core.sshCommand``, the
system config and the caller's ``GIT_*`` environment are dropped, every
configured filter driver is overridden to nothing (so ``git status`` and
``hash-object`` cannot run a clean filter), and the run is bounded by a
timeout.  Any failure answers ``None`` and the caller decides.
"""

from __future__ import annotations

import os
import subprocess

from agentreflex.core.worktree import gitboundary

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

TIMEOUT_S = 2.0

_SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.sshCommand=false",
    "core.pager=cat",
    "diff.external=",
    "submodule.recurse=false",
    "protocol.allow=never",
)
_FILTER_KEYS = r"^filter\..*\.(clean|smudge|process|required)$"
# the values the filter overrides take, by --config-env: `-c KEY=VALUE` splits at the first
# '=', so a driver named `a=b` (.gitattributes `filter=a=b`) would not be blanked (red-team
# rt31); --config-env splits at the last
_EMPTY_ENV = "AGENTREFLEX_GIT_EMPTY"
_FALSE_ENV = "AGENTREFLEX_GIT_FALSE"
# the git commands that read the work tree's files, and so run a filter driver on them
_READS_FILES = frozenset({"status", "diff"})


def base_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a guard's git: no inherited GIT_*, no system config, no prompt."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_OPTIONAL_LOCKS="0",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        PAGER="cat",
        LC_ALL="C",
        # no transport at all, whatever the repository's protocol.<name>.allow says (it is read
        # before `-c protocol.allow=never`): a partial clone's missing object is otherwise
        # fetched from its promisor remote, `ext::` running a command (red-team rt31)
        GIT_ALLOW_PROTOCOL="none",
        GIT_NO_LAZY_FETCH="1",
    )
    env[_EMPTY_ENV], env[_FALSE_ENV] = "", "false"
    env.pop("GIT_EXTERNAL_DIFF", None)
    if extra:
        env.update(extra)
    return env


def _run(
    argv: list[str], env: dict[str, str], timeout: float, data: bytes | None, contain: str = ""
) -> subprocess.CompletedProcess[bytes] | None:
    """``argv`` with the system's git (never a ``git`` a project folder on PATH holds);
    ``contain``: in that project's boundary when the repository is not the project's."""
    from agentreflex.core.util.sysprog import system_program

    program = system_program(argv[0], env.get("PATH", os.defpath))
    if program is None:
        return None  # no git of the system's: as if git were missing
    argv = [program, *argv[1:]]
    cwd = argv[argv.index("-C") + 1] if "-C" in argv else os.getcwd()
    if contain and _below(cwd, contain):
        inside = _inside(argv, contain, env)
        if inside is None:
            return None  # a boundary that should hold and can't be had: git is not run
        argv = inside
    try:
        return spawn(argv, env, timeout, data)
    except subprocess.TimeoutExpired:
        # a FIFO where git reads (an ignore file, HEAD) waits forever: once more with them covered
        from agentreflex.core.worktree import gitfifos

        return gitfifos.rerun(argv, env, timeout, data, cwd)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None


def spawn(
    argv: list[str], env: dict[str, str], timeout: float, data: bytes | None
) -> subprocess.CompletedProcess[bytes]:
    """One bounded run of ``argv``, output captured; raises as ``subprocess.run`` does.

    Never past the thread's deadline (the work tree's look, :mod:`~agentreflex.core.util.deadline`):
    a git cut short by it raises :class:`~agentreflex.core.util.deadline.OutOfTime`, not a
    timeout a caller would read as git failing.
    """
    from agentreflex.core.util import deadline

    try:
        return subprocess.run(
            argv,
            input=data,
            capture_output=True,
            env=env,
            timeout=deadline.left(timeout),
            check=False,
            stdin=None if data is not None else subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        deadline.check()
        raise


def work_tree_top(path: str) -> str:
    """The nearest folder at or above ``path`` holding a ``.git``, or "": the one git's own
    discovery stops at (the one definition; ``testrun`` asks it too).

    A ``.git`` link leading nowhere is skipped, as git skips it and goes on up (its
    ``read_gitfile`` fails to stat it): taken for the top, ``ln -s /nowhere sub/.git``
    had the guard read the project's index against ``sub``, every file read as deleted,
    and the snapshot before a discard held an empty tree while the question said it
    "saved the uncommitted work" (red-team rt49).  A ``.git`` git refuses (an empty file,
    ``gitdir: /nowhere``) still stops it, as it stops git."""
    here = os.path.normpath(path)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return ""
        here = parent


def _below(cwd: str, project: str) -> bool:
    """Whether the work tree holding ``cwd`` is one the agent may have made: its top below
    ``project`` or apart from it (``/tmp/x``), not the project's own or one above it,
    whose config the boundary holds read-only."""
    top = work_tree_top(os.path.realpath(cwd))
    if not top:
        return False  # no work tree: git fails on its own
    root = os.path.realpath(project)
    return not (root == top or root.startswith(top.rstrip(os.sep) + os.sep))


def _inside(argv: list[str], project: str, env: dict[str, str]) -> list[str] | None:
    """``argv`` in ``project``'s boundary; itself where this machine contains nothing (no
    bwrap, or a kernel that refuses it: then no command of the agent's is contained
    either); None when the boundary can't be planned."""
    from agentreflex.core.contain import boundary
    from agentreflex.core.contain.engine import engine_refused

    engine = boundary.engine_path()
    if engine is None or engine_refused(engine, env):
        return argv
    try:
        return boundary.run_argv(argv, project, env)
    except (boundary.PolicyError, OSError, ValueError):
        return None


def filter_overrides(cwd: str, env: Mapping[str, str] | None = None) -> list[str] | None:
    """``-c`` pairs that blank every filter driver the repository names (None: git failed)."""
    listing = _run(
        ["git", "-C", cwd, "config", "-z", "--get-regexp", _FILTER_KEYS],
        base_env(env),
        TIMEOUT_S,
        None,
    )
    if listing is None or listing.returncode not in (0, 1):
        return None
    out: list[str] = []
    # -z: each entry is KEY, a newline, the value, a NUL (a key holds no newline; a subsection
    # may hold a space or any other line end str.splitlines would cut at)
    entries = listing.stdout.decode("utf-8", "surrogateescape").split("\0")
    names = {e.partition("\n")[0].rsplit(".", 1)[0] for e in entries if e}
    for name in sorted(names):
        for part in ("clean", "smudge", "process"):
            out.append(f"--config-env={name}.{part}={_EMPTY_ENV}")
        out.append(f"--config-env={name}.required={_FALSE_ENV}")
    return out


def git(
    cwd: str,
    args: list[str],
    *,
    env: Mapping[str, str] | None = None,
    timeout: float = TIMEOUT_S,
    data: bytes | None = None,
    filters: list[str] | None = None,
) -> subprocess.CompletedProcess[bytes] | None:
    """``git -C cwd ARGS`` made harmless; ``filters`` from :func:`filter_overrides`."""
    argv = ["git", "--no-pager", "-C", cwd]
    for item in _SAFE_CONFIG:
        argv += ["-c", item]
    argv += [*(filters or []), *args]
    reads = any(a in _READS_FILES for a in args[:2])  # after --literal-pathspecs, say
    return _run(argv, base_env(env), timeout, data, gitboundary.current() if reads else "")
