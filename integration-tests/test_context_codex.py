"""The session recap inside the real Codex CLI (0.169.0), driven offline by the harness.

``codex exec`` then ``codex exec resume --last`` in one project: the resumed
session's SessionStart carries the recap, and the model's next request holds it
(as a developer message) with the user's constraint in their own words.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hostharness.claude import HostUnavailableError, request_text
from hostharness.codex import CodexProject, install_codex, offered_tools, run_in_jail
from hostharness.fakemodel import say

pytestmark = pytest.mark.integration

CONSTRAINT = "Do not touch the public API in api.py."
RECAP = "agentreflex session recap"


@pytest.fixture
def codex(tmp_path: Path) -> Iterator[CodexProject]:
    try:
        binary = install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex is not available, so the recap cannot be proven in it: {exc}")
    project = CodexProject(tmp_path, binary)
    yield project
    project.cleanup()


def _step(project: CodexProject, prompt: str, *before: str) -> dict[str, Any]:
    """``codex exec`` kept on disk (no ``--ephemeral``), so the next one can resume it."""
    argv = project.exec_argv(prompt)
    argv.remove("--ephemeral")
    at = argv.index("exec") + 1
    return {
        "argv": [*argv[:at], *before, *argv[at:]],
        "cwd": str(project.project),
        "env": project.env(),
        "timeout": 120,
    }


def test_a_resumed_session_gets_the_recap_with_the_constraint(codex: CodexProject) -> None:
    assert "hooks trusted in" in codex.install()
    steps = [
        _step(codex, f"Fix the parser bug. {CONSTRAINT}"),
        _step(codex, "Now run the tests.", "resume", "--last"),
    ]
    out = run_in_jail(steps, [say("Looking."), say("Done.")], codex.root / "jail", timeout=300)
    assert [s["rc"] for s in out["steps"]] == [0, 0], out["steps"]
    mains = [
        r["body"]
        for r in out["requests"]
        if r["method"] == "POST" and isinstance(r["body"], dict) and offered_tools(r["body"])
    ]
    assert len(mains) == 2, json.dumps(out["steps"])[-3000:]
    assert RECAP not in request_text(mains[0])  # a first prompt alone: nothing to recall
    second = request_text(mains[1])
    assert RECAP in second
    recap = second[second.index(RECAP) :]
    assert CONSTRAINT in recap.split("Now run the tests.")[0]
