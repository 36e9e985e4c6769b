"""``tools/release.py``: bump one package, check that changed packages were bumped.

Each test makes a real git repository in a temporary folder holding a small
workspace of the same shape as this one (a meta-package root, ``core``, and
``gate`` requiring ``agentreflex-core>=0.1,<0.2``) and runs the tool as a
process, as a developer or CI would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOL = Path(__file__).resolve().parents[1] / "tools" / "release.py"
ENV = dict(
    os.environ,
    GIT_AUTHOR_NAME="t",
    GIT_AUTHOR_EMAIL="t@example.invalid",
    GIT_COMMITTER_NAME="t",
    GIT_COMMITTER_EMAIL="t@example.invalid",
    GIT_CONFIG_GLOBAL=os.devnull,
)


def pyproject(name: str, version: str, deps: list[str], extras: str = "") -> str:
    listed = ", ".join(f'"{d}"' for d in deps)
    return (
        f'[project]\nname = "{name}"\nversion = "{version}"\ndependencies = [{listed}]\n'
        f"{extras}\n[tool.hatch.build.targets.wheel]\npackages = []\n"
        f'[tool.other]\nversion = "do-not-touch"\n'
    )


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=repo, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name, deps in (("core", []), ("gate", ["agentreflex-core>=0.1,<0.2"])):
        folder = root / "packages" / name
        (folder / "src").mkdir(parents=True)
        (folder / "pyproject.toml").write_text(pyproject(f"agentreflex-{name}", "0.1.0", deps))
        (folder / "src" / "mod.py").write_text("X = 1\n")
    meta = '[project.optional-dependencies]\ngate = ["agentreflex-gate>=0.1,<0.2"]\n'
    (root / "pyproject.toml").write_text(
        pyproject("agentreflex", "0.1.0", ["agentreflex-core>=0.1,<0.2"], meta)
    )
    (root / "README.md").write_text("# ws\n")
    git(root, "init", "-q", "-b", "main")
    commit(root, "first")
    return root


def release(repo: Path, *args: str) -> tuple[int, str]:
    proc = subprocess.run(
        [sys.executable, str(TOOL), "--root", str(repo), *args],
        capture_output=True,
        text=True,
        env=ENV,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout + proc.stderr


def test_bump_patch_rewrites_the_one_version_and_writes_the_changelog(repo: Path) -> None:
    (repo / "packages/gate/src/mod.py").write_text("X = 2\n")
    commit(repo, "gate: X is 2")
    code, out = release(repo, "bump", "gate", "patch")
    assert code == 0, out
    assert "agentreflex-gate: 0.1.0 -> 0.1.1" in out
    assert "every dependent's range admits it" in out
    text = (repo / "packages/gate/pyproject.toml").read_text()
    assert 'version = "0.1.1"' in text
    assert 'version = "do-not-touch"' in text  # only [project]'s version
    log = (repo / "packages/gate/CHANGELOG.md").read_text()
    assert log.startswith("# Changelog of agentreflex-gate")
    assert "## 0.1.1 (" in log
    assert "- gate: X is 2" in log  # the commit subjects since the baseline
    assert not (repo / "packages/core/CHANGELOG.md").exists()


def test_a_second_bump_puts_its_entry_on_top(repo: Path) -> None:
    assert release(repo, "bump", "core", "patch", "-m", "first fix")[0] == 0
    assert release(repo, "bump", "agentreflex-core", "0.1.5", "-m", "second fix")[0] == 0
    log = (repo / "packages/core/CHANGELOG.md").read_text()
    assert log.index("## 0.1.5") < log.index("## 0.1.1")
    assert "- second fix" in log
    assert log.count("# Changelog of") == 1


def test_a_minor_bump_of_core_names_the_ranges_to_widen(repo: Path) -> None:
    code, out = release(repo, "bump", "core", "minor", "-m", "new API")
    assert code == 1
    assert 'version = "0.2.0"' in (repo / "packages/core/pyproject.toml").read_text()
    assert (
        "agentreflex-gate (packages/gate/pyproject.toml) requires agentreflex-core<0.2,>=0.1, "
        "which does not admit 0.2.0: widen it to agentreflex-core>=0.1,<0.3"
    ) in out
    assert "agentreflex (pyproject.toml) requires agentreflex-core" in out


def test_bump_refuses_what_it_cannot_do(repo: Path) -> None:
    code, out = release(repo, "bump", "nosuch", "patch")
    assert code == 2 and "no package 'nosuch'" in out
    code, out = release(repo, "bump", "gate", "0.0.9")
    assert code == 2 and "not greater than the current 0.1.0" in out
    code, out = release(repo, "bump", "gate", "bigger")
    assert code == 2 and "neither major/minor/patch nor a version" in out


def test_check_bumped_with_one_commit_and_no_tags_has_no_baseline(repo: Path) -> None:
    code, out = release(repo, "check-bumped")
    assert code == 0
    assert "nothing to compare against" in out


def test_check_bumped_against_the_last_tag(repo: Path) -> None:
    git(repo, "tag", "v0.1.0")
    (repo / "packages/gate/src/mod.py").write_text("X = 3\n")
    commit(repo, "gate: X is 3")
    code, out = release(repo, "check-bumped")
    assert code == 1
    assert "comparing with the last tag, v0.1.0" in out
    assert "FAIL agentreflex-gate: 1 file(s) changed (e.g. packages/gate/src/mod.py)" in out
    assert "ok   agentreflex-core 0.1.0 (unchanged)" in out
    assert release(repo, "bump", "gate", "patch")[0] == 0
    code, out = release(repo, "check-bumped")
    assert code == 0, out
    assert "ok   agentreflex-gate 0.1.0 -> 0.1.1" in out


def test_a_changelog_alone_needs_no_bump(repo: Path) -> None:
    git(repo, "tag", "v0.1.0")
    (repo / "packages/core/CHANGELOG.md").write_text("# notes\n")
    assert release(repo, "check-bumped")[0] == 0


def test_the_meta_package_is_its_pyproject_and_readme(repo: Path) -> None:
    git(repo, "tag", "v0.1.0")
    (repo / "README.md").write_text("# ws, now with install instructions\n")
    code, out = release(repo, "check-bumped")
    assert code == 1
    assert "FAIL agentreflex: 1 file(s) changed (e.g. README.md)" in out


def test_check_bumped_without_tags_uses_the_previous_version_of_main(repo: Path) -> None:
    (repo / "packages/core/src/mod.py").write_text("X = 4\n")
    commit(repo, "core: X is 4")
    code, out = release(repo, "check-bumped")
    assert code == 1
    assert "the previous version of main, HEAD~1" in out
    assert "FAIL agentreflex-core" in out


def test_check_bumped_on_a_branch_uses_mains_merge_base(repo: Path) -> None:
    git(repo, "checkout", "-qb", "feature")
    (repo / "packages/gate/src/mod.py").write_text("X = 5\n")
    commit(repo, "gate: X is 5")
    (repo / "packages/gate/src/more.py").write_text("Y = 1\n")
    commit(repo, "gate: Y")
    code, out = release(repo, "check-bumped")
    assert code == 1
    assert "main's merge base with HEAD" in out
    assert "FAIL agentreflex-gate: 2 file(s) changed" in out


def test_check_bumped_since_a_ref(repo: Path) -> None:
    first = git(repo, "rev-parse", "HEAD").strip()
    (repo / "packages/gate/src/mod.py").write_text("X = 6\n")
    commit(repo, "gate: X is 6")
    git(repo, "tag", "later")
    assert release(repo, "check-bumped")[0] == 0  # nothing since the tag
    code, out = release(repo, "check-bumped", "--since", first)
    assert code == 1 and "FAIL agentreflex-gate" in out
    code, out = release(repo, "check-bumped", "--since", "nosuchref")
    assert code == 2 and "--since nosuchref: no such commit" in out


def test_a_new_package_needs_no_bump(repo: Path) -> None:
    git(repo, "tag", "v0.1.0")
    folder = repo / "packages" / "guard"
    folder.mkdir()
    (folder / "pyproject.toml").write_text(pyproject("agentreflex-guard", "0.1.0", []))
    code, out = release(repo, "check-bumped")
    assert code == 0, out
    assert "agentreflex-guard 0.1.0 (new)" in out
