"""tools/assemble_bundles.py: the bundles are current, and a stale one is caught."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TOOL = Path("tools") / "assemble_bundles.py"
BUNDLE = Path("plugins") / "claude-code" / "bundle"


def run_tool(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(root / TOOL), *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_committed_bundles_are_current() -> None:
    """The CI check itself: the bundle matches packages/, uv.lock and the bootstrap."""
    done = run_tool(REPO, "--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_bundle_carries_what_setup_needs() -> None:
    bundle = REPO / BUNDLE
    info = json.loads((bundle / "bundle.json").read_text())
    assert info["id"] == (bundle / "id").read_text().strip()
    folders = sorted(p.parent.name for p in (REPO / "packages").glob("*/pyproject.toml"))
    listed = [
        line
        for line in (bundle / "packages.txt").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert listed == [f"packages/{name}" for name in folders]
    assert "agentreflex-core" in info["packages"]
    for name in folders:
        assert (bundle / "packages" / name / "pyproject.toml").is_file()
    requirements = (bundle / "requirements.txt").read_text()
    assert "tree-sitter==" in requirements and "--hash=sha256:" in requirements
    assert "agentreflex" not in requirements.replace("assemble_bundles", "")
    assert not list(bundle.rglob("__pycache__"))
    # small enough for git: no file over 256 KiB
    assert max(p.stat().st_size for p in bundle.rglob("*") if p.is_file()) < 256 * 1024


@pytest.fixture
def repo_copy(tmp_path: Path) -> Path:
    """The parts of the repository the tool reads, copied so the test may break them."""
    root = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", ".venv", ".hosts", "*.pyc")
    for name in ("packages", "plugins", "tools"):
        shutil.copytree(REPO / name, root / name, ignore=ignore)
    for name in ("pyproject.toml", "uv.lock", "README.md"):
        shutil.copy2(REPO / name, root / name)
    return root


def test_check_fails_on_a_stale_bundle_and_assembling_fixes_it(repo_copy: Path) -> None:
    old_id = (repo_copy / BUNDLE / "id").read_text()
    module = (
        repo_copy / "packages" / "core" / "src" / "agentreflex" / "core" / "cli" / "__init__.py"
    )
    module.write_text(module.read_text() + "\n# changed\n")
    (repo_copy / BUNDLE / "stray.txt").write_text("not assembled\n")
    stale = run_tool(repo_copy, "--check")
    assert stale.returncode == 1
    assert "differs: packages/core/src/agentreflex/core/cli/__init__.py" in stale.stdout
    assert "differs: id" in stale.stdout
    assert "extra:   stray.txt" in stale.stdout
    assert run_tool(repo_copy).returncode == 0
    assert run_tool(repo_copy, "--check").returncode == 0
    assert (repo_copy / BUNDLE / "id").read_text() != old_id
    copied = (
        repo_copy
        / BUNDLE
        / "packages"
        / "core"
        / "src"
        / "agentreflex"
        / "core"
        / "cli"
        / "__init__.py"
    )
    assert copied.read_bytes() == module.read_bytes()
    assert not (repo_copy / BUNDLE / "stray.txt").exists()


def test_check_fails_when_the_bootstrap_changed(repo_copy: Path) -> None:
    source = repo_copy / "plugins" / "shared" / "bootstrap.py"
    source.write_text(source.read_text() + "\n# changed\n")
    stale = run_tool(repo_copy, "--check")
    assert stale.returncode == 1
    assert "differs: bootstrap.py" in stale.stdout


def test_a_sibling_missing_from_the_bundle_is_an_error(repo_copy: Path) -> None:
    """A sibling not in the bundle would be fetched from the index by name: refused."""
    pyproject = repo_copy / "packages" / "laya" / "pyproject.toml"
    text = pyproject.read_text()
    assert "\ndependencies = [" in text
    pyproject.write_text(
        text.replace("\ndependencies = [", '\ndependencies = ["agentreflex-nonesuch>=1", ', 1)
    )
    done = run_tool(repo_copy, "--check")
    assert done.returncode == 2
    assert "agentreflex-nonesuch" in done.stderr
