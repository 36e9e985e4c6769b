"""A project's process namespace that can't be had (contain/pidns.py): remembered, and said.

red-team rt49: where the holder could not be started (a kernel that refuses user
namespaces to bwrap, a bwrap that fails), every contained command tried again,
each paying for a bwrap that fails (up to seconds), and neither ``doctor`` nor
``status`` said that commands then run in the user's pid namespace.  Now the
failure is kept in the user's state folder (read-only inside the boundary) for
:data:`pidns.RETRY_SECONDS`, and both say what it means.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from agentreflex.core.contain import pidns


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state")}


@pytest.fixture
def failing(tmp_path: Path) -> tuple[str, Path]:
    """A bwrap that fails as one refused a user namespace does, counting its runs."""
    count = tmp_path / "runs"
    engine = tmp_path / "bwrap"
    engine.write_text(
        f"#!/bin/sh\necho run >> {count}\n"
        "echo 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    engine.chmod(0o755)
    return str(engine), count


def test_a_holder_that_cannot_start_is_not_tried_again_by_every_command(
    tmp_path: Path, env: dict[str, str], failing: tuple[str, Path]
) -> None:
    engine, count = failing
    project = str(tmp_path / "proj")
    for _ in range(3):
        assert pidns.holder(engine, [], project, env) is None
    assert count.read_text().count("run") == 1


def test_the_failure_is_tried_again_after_a_while(
    tmp_path: Path, env: dict[str, str], failing: tuple[str, Path]
) -> None:
    engine, count = failing
    project = str(tmp_path / "proj")
    assert pidns.holder(engine, [], project, env) is None
    (record,) = Path(env["XDG_STATE_HOME"], "agentreflex", "contain").glob("pidns-*.fail")
    old = time.time() - pidns.RETRY_SECONDS - 1
    os.utime(record, (old, old))
    assert pidns.holder(engine, [], project, env) is None
    assert count.read_text().count("run") == 2


def test_doctor_and_status_say_commands_run_in_the_users_pid_namespace(
    tmp_path: Path, env: dict[str, str], failing: tuple[str, Path]
) -> None:
    engine, _ = failing
    project = str(tmp_path / "proj")
    assert pidns.fallback(project, env) == ""  # never tried: nothing to say
    pidns.holder(engine, [], project, env)
    said = pidns.fallback(project, env)
    assert "your pid namespace" in said
    assert "signal your other processes" in said


def test_the_cli_says_it_in_doctor_and_status(
    tmp_path: Path,
    env: dict[str, str],
    failing: tuple[str, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agentreflex.core.cli import doctor, status

    project = tmp_path / "proj"
    project.mkdir()
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("REFLEX_MODE", "enforced")
    monkeypatch.setenv("AGENTREFLEX_STATE_DIR", str(tmp_path / "pstate"))
    report = status.collect(str(project))
    pidns.holder(failing[0], [], report["project"], env)
    shown = status.render(status.collect(str(project)))
    assert "containment pid namespace: " in shown and "signal your other processes" in shown
    said: list[str] = []
    doctor._containment_checks(
        report["project"], True, lambda *a: said.append(" ".join(map(str, a)))
    )
    assert any("pid namespace" in s and "your pid namespace" in s for s in said), said
