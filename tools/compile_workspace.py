"""Write the bytecode a hook from this workspace needs: ``uv run python tools/compile_workspace.py``.

Why a step of its own: ``uv sync`` installs the workspace's packages as
editable copies whose sources stay in ``packages/*/src``, and uv's
``compile-bytecode`` only compiles ``site-packages``, never an editable
project's sources. Python would write the bytecode itself on first import,
but not where ``PYTHONDONTWRITEBYTECODE=1`` is set (as on this project's
machines): there every hook process from the workspace compiles ~100 modules
again (~78 ms a call instead of ~26 ms, issue 20).

Setting ``[tool.uv] compile-bytecode = true`` in the workspace instead was
tried and rejected: uv then recompiles the whole of ``site-packages`` on every
``uv run`` (astral-sh/uv#12202, ~200 ms and a stderr line each time) and still
leaves the editable sources uncompiled.

This compiles both, once: the interpreter's ``site-packages`` (the
dependencies a hook imports, such as tree-sitter) and every package's ``src``.
It is idempotent (up-to-date bytecode is left alone) and safe to run after
every ``uv sync``; an edited module simply falls back to being compiled in
memory until the next run. Bytecode checks the source's mtime, so stale
bytecode is never used.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def our_sources() -> list[Path]:
    """Every package's ``src``: these must compile, or the workspace is broken."""
    return sorted((ROOT / "packages").glob("*/src"))


def third_party() -> list[Path]:
    """The interpreter's ``site-packages``: compiled where it can be, never a failure.

    Some distributions ship files that do not compile on purpose (templates, test
    data for other Python versions; the torch extra brings several), and that is
    not ours to fix: they are reported, not failed on.
    """
    dirs: list[Path] = []
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if site.is_dir() and site not in dirs:
            dirs.append(site)
    return dirs


def targets() -> list[Path]:
    """Every directory whose modules a hook from this workspace may import."""
    return our_sources() + [d for d in third_party() if d not in our_sources()]


def compile_all(dirs: list[Path], quiet: bool = True) -> bool:
    """Compile each directory; False when a source file does not compile."""
    ok = True
    for folder in dirs:
        ok = compileall.compile_dir(str(folder), quiet=2 if quiet else 0, workers=0) and ok
    return ok


def uncompiled(dirs: list[Path]) -> list[Path]:
    """The ``.py`` files under ``dirs`` that have no bytecode (those that did not compile)."""
    return [
        path
        for folder in dirs
        for path in sorted(folder.rglob("*.py"))
        if path.is_file() and not Path(importlib.util.cache_from_source(str(path))).exists()
    ]


def run(ours: list[Path], theirs: list[Path], verbose: bool = False) -> int:
    """Compile ``ours`` strictly and ``theirs`` as far as they go; 1 only if ours fail."""
    ours_ok = compile_all(ours, quiet=not verbose)
    theirs_ok = compile_all(theirs, quiet=not verbose)
    left = [] if theirs_ok else uncompiled(theirs)
    if not ours_ok:
        for path in uncompiled(ours):
            print(f"does not compile: {path}", file=sys.stderr)
    for path in left[:10]:
        print(f"third-party file does not compile (left as it is): {path}", file=sys.stderr)
    if len(left) > 10:
        print(f"... and {len(left) - 10} more third-party files", file=sys.stderr)
    state = "written" if ours_ok else "INCOMPLETE"
    print(
        f"bytecode {state} for {len(ours) + len(theirs)} folders"
        + (f"; {len(left)} third-party files do not compile" if left else ""),
        file=sys.stderr,
    )
    return 0 if ours_ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list what is compiled")
    args = parser.parse_args(argv)
    ours = our_sources()
    return run(ours, [d for d in third_party() if d not in ours], verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
