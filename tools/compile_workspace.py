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
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def targets() -> list[Path]:
    """Every directory whose modules a hook from this workspace may import."""
    dirs = sorted((ROOT / "packages").glob("*/src"))
    for key in ("purelib", "platlib"):
        site = Path(sysconfig.get_paths()[key])
        if site.is_dir() and site not in dirs:
            dirs.append(site)
    return dirs


def compile_all(dirs: list[Path], quiet: bool = True) -> bool:
    """Compile each directory; False when a source file does not compile."""
    ok = True
    for folder in dirs:
        ok = compileall.compile_dir(str(folder), quiet=2 if quiet else 0, workers=0) and ok
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="list what is compiled")
    args = parser.parse_args(argv)
    dirs = targets()
    ok = compile_all(dirs, quiet=not args.verbose)
    print(f"bytecode {'written' if ok else 'INCOMPLETE'} for {len(dirs)} folders", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
