"""The workspace venv's hook runs from compiled bytecode once ``tools/compile_workspace.py`` ran.

uv compiles ``site-packages`` only, never the editable sources of a workspace,
and with ``PYTHONDONTWRITEBYTECODE=1`` Python never writes their bytecode
either: every hook process would compile ~125 modules again (issue 20). The
tool writes it; this checks every source module then has up-to-date
bytecode and that a hook process really loads it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_compile_workspace_leaves_every_source_module_compiled() -> None:
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "compile_workspace.py")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "bytecode written" in done.stderr
    sources = sorted(ROOT.glob("packages/*/src/agentreflex/**/*.py"))
    assert len(sources) > 50
    stale = []
    for src in sources:
        cached = Path(importlib.util.cache_from_source(str(src)))
        if not cached.exists() or cached.stat().st_mtime < src.stat().st_mtime:
            stale.append(str(src.relative_to(ROOT)))
    assert stale == []
    probe = (
        "import os, agentreflex.core.runtime as r, agentreflex.gate.reflex as g\n"
        "print(all(os.path.exists(m.__cached__) for m in (r, g)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert loaded.stdout.strip() == "True"
