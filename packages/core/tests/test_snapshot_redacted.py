"""An undo snapshot's record of the command it was taken before holds no secret."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from agentreflex.core.worktree import observe, snapshot

# GitHub's token shape (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats)
TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


@pytest.mark.parametrize("pad", [0, 470])
def test_a_snapshot_never_stores_the_commands_secret(tmp_path: Path, pad: int) -> None:
    """take() stored the command cut to 500 characters and never redacted in the
    snapshot's meta.json (and `agentreflex undo --list` printed it): a token in it was
    written whole, or by its head where the cut divided it."""
    top = tmp_path / "proj"
    top.mkdir()
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t"}
    env.update(GIT_AUTHOR_EMAIL="t@x", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@x")
    (top / "a.py").write_text("a = 1\n")
    subprocess.run("git init -q && git add -A && git commit -qm i", shell=True, cwd=top, env=env)
    (top / "a.py").write_text("a = 2\n")
    repo = observe.find_repo(str(top))
    assert repo is not None
    command = f"GITHUB_TOKEN={'c' * pad} {TOKEN} git reset --hard"
    snap = snapshot.take(repo, command, "s")
    assert snap is not None
    metas = [p.read_text() for p in tmp_path.rglob("meta.json")]
    assert metas and all("git reset --hard" in m or pad for m in metas)
    assert not any("ghp_" in m for m in metas), metas
    assert "ghp_" not in snap.command
