"""Deletes that reach home or the user's dotfiles by a route their words hide.

Issue #28 lists moves that got through a fresh build, among them: "home
deleted through a symlink made in the same command (`ln -s ~ x && rm -rf
x/`), `CDPATH=$HOME cd .ssh && rm -rf ./*`, `tar --remove-files`, `rsync
--remove-source-files ~/`, an interpreter that `chdir`s and then deletes
relative paths".  Containment stops them where a boundary holds; these tests
hold the gate, the fallback where none does, to the class: a symlink on disk
or made earlier in the command is followed, ``cd`` goes where ``CDPATH``
sends it, archivers and syncs that delete their sources are ``rm -r`` of them,
and code's ``os.chdir`` moves its relative paths.  Real files on disk.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.gate.check import check_command


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    proj = home / "proj"
    for folder in (proj / ".git", proj / "build" / "out", proj / "docs" / "_build", home / ".ssh"):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("key\n")
    (proj / "homelink").symlink_to(home)
    return {"home": home, "proj": proj}


def _verdict(world: dict[str, Path], command: str) -> str:
    home, proj = world["home"], world["proj"]
    verdict, _ = check_command(
        command, cwd=str(proj), home=str(home), project=str(proj), budget_s=5.0
    )
    return verdict


CAUGHT = [
    "ln -s ~ x && rm -rf x/",
    'ln -sfn "$HOME" x; rm -rf x/*',
    "ln -s ~ x && find x/ -delete",
    "rm -rf homelink/*",
    "rm -rf homelink/.ssh",
    "CDPATH=$HOME cd .ssh && rm -rf ./*",
    "export CDPATH=~; cd .ssh; rm -rf *",
    "tar -cf /tmp/a.tar --remove-files ~/.ssh",
    "tar --remove-files -czf /tmp/a.tgz ~",
    "rsync -a --remove-source-files ~/ /tmp/dump/",
    "zip -rm /tmp/a.zip ~/.ssh",
    "python3 -c \"import os, shutil; os.chdir(os.path.expanduser('~')); shutil.rmtree('.ssh')\"",
    # the same in the other interpreters a one-liner can use
    "node -e \"process.chdir(require('os').homedir()); require('fs').rmSync('.ssh',{recursive:true})\"",
    "node -e \"process.chdir(process.env.HOME); require('fs').rmSync('.ssh',{recursive:true})\"",
    "perl -e 'chdir $ENV{HOME}; system(\"rm -rf .ssh\")'",
    "perl -e 'chdir; system(\"rm -rf .ssh\")'",
    "ruby -e 'Dir.chdir(Dir.home); FileUtils.rm_rf(\".ssh\")'",
    'php -r \'chdir(getenv("HOME")); system("rm -rf .ssh");\'',
]


@pytest.mark.parametrize("command", CAUGHT)
def test_a_delete_through_a_hidden_route_is_stopped(world: dict[str, Path], command: str) -> None:
    assert _verdict(world, command) in ("ASK_USER", "BLOCK"), command


ORDINARY = [
    "ln -s build/out latest && rm -rf latest/",
    "cd docs && rm -rf _build/*",
    "tar -czf /tmp/out.tgz build",
    "tar -cf /tmp/a.tar --remove-files build",
    "rsync -a --remove-source-files build/out/ /tmp/dump/",
    "python3 -c \"import os, shutil; os.chdir('build'); shutil.rmtree('out')\"",
    "node -e \"process.chdir('build'); require('fs').rmSync('out',{recursive:true})\"",
    'perl -e \'chdir "build"; system("make")\'',
    'ruby -e \'Dir.chdir("build"); FileUtils.rm_rf("out")\'',
    "CDPATH=/nonexistent cd build && rm -rf ./*",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_the_same_routes_inside_the_project_stay_allowed(
    world: dict[str, Path], command: str
) -> None:
    assert _verdict(world, command) in ("ALLOW", "WARN"), command


def test_a_project_under_a_symlinked_home_is_still_the_project(tmp_path: Path) -> None:
    """Links are compared with the project and home as the OS sees them."""
    real = tmp_path / "data" / "u"
    (real / "proj" / "build").mkdir(parents=True)
    (real / "proj" / ".git").mkdir()
    (tmp_path / "home").symlink_to(real)
    home, proj = tmp_path / "home", tmp_path / "home" / "proj"
    for command in ("rm -rf build/*", "rm -rf build/"):
        verdict, _ = check_command(
            command, cwd=str(proj), home=str(home), project=str(proj), budget_s=5.0
        )
        assert verdict in ("ALLOW", "WARN"), command
