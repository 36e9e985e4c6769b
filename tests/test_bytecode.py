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
from types import ModuleType

import pytest

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
        "import os, agentreflex.core.hook.runtime as r, agentreflex.gate.reflex as g\n"
        "print(all(os.path.exists(m.__cached__) for m in (r, g)))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True
    )
    assert loaded.stdout.strip() == "True"


def _compile_workspace() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "compile_workspace", ROOT / "tools" / "compile_workspace.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_third_party_files_that_do_not_compile_are_reported_not_failed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the torch extra ships: a file of another Python's syntax in site-packages."""
    tool = _compile_workspace()
    ours, theirs = tmp_path / "src", tmp_path / "site-packages"
    (ours / "pkg").mkdir(parents=True)
    (ours / "pkg" / "fine.py").write_text("VALUE = 1\n")
    (theirs / "vendor").mkdir(parents=True)
    (theirs / "vendor" / "py2_only.py").write_text('print "old"\n')
    (theirs / "vendor" / "ok.py").write_text("X = 2\n")
    assert tool.run([ours], [theirs]) == 0
    err = capsys.readouterr().err
    assert "py2_only.py" in err and "1 third-party files do not compile" in err
    assert "bytecode written" in err
    assert tool.uncompiled([theirs]) == [theirs / "vendor" / "py2_only.py"]


def test_our_own_source_that_does_not_compile_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tool = _compile_workspace()
    ours = tmp_path / "src"
    ours.mkdir()
    (ours / "broken.py").write_text("def f(:\n")
    assert tool.run([ours], []) == 1
    err = capsys.readouterr().err
    assert "INCOMPLETE" in err and "broken.py" in err
