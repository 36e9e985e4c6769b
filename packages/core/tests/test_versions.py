"""Each package's version lives in one place and is visible at run time.

The ``version`` of ``packages/core/pyproject.toml`` is what the installed
distribution reports, and what ``agentreflex --version`` prints (a real
process of the installed command).
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from agentreflex.core.cli import versions

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def declared_version() -> str:
    return str(tomllib.loads(PYPROJECT.read_text())["project"]["version"])


def test_the_installed_version_is_the_pyproject_one() -> None:
    assert ("agentreflex-core", declared_version()) in versions.installed()


def test_only_agentreflex_distributions_are_listed() -> None:
    names = [name for name, _ in versions.installed()]
    assert names == sorted(names)
    assert all(n == "agentreflex" or n.startswith("agentreflex-") for n in names)


def test_agentreflex_version_prints_them() -> None:
    binary = Path(sys.executable).with_name("agentreflex")
    done = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    rows = dict(line.split() for line in done.stdout.splitlines())
    assert rows["agentreflex-core"] == declared_version()
    assert list(rows.items()) == versions.installed()


def test_nothing_installed_says_so() -> None:
    assert "no agentreflex distribution is installed" in versions.render([])
    assert versions.render([("agentreflex-core", "0.1.0"), ("agentreflex-gate", "0.2.0")]) == (
        "agentreflex-core  0.1.0\nagentreflex-gate  0.2.0"
    )
