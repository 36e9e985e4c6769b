"""The guard's ledger is sealed outside the project: an edit or a deletion is not believed.

An obligation the agent could clear by editing ``.agentreflex/local/*.json``
(or by deleting it) must not silently vanish: the ledger no longer matches
the seal agentreflex keeps in the user's state dir, so it is set aside and,
in ``on`` mode, the next protected boundary fails closed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentreflex.core.decision import Verdict
from agentreflex.core.testing import pre_tool, prompt
from agentreflex.guard import ledger as L
from guard_testkit import Runner, codes


def _path(state_dir: str) -> str:
    return L.ledger_path(state_dir, "claude")


def test_a_ledger_written_by_agentreflex_loads_without_problems(
    run_on: Runner, state_dir: str
) -> None:
    run_on(prompt("hi"))
    run_on(pre_tool("Read", {"file_path": "/x"}))
    assert L.load_ledger(_path(state_dir), "claude", 0.0).problems == []
    assert run_on(pre_tool("Read", {"file_path": "/y"})) == []


def test_an_edited_ledger_is_set_aside_and_fails_closed_once(
    run_on: Runner, state_dir: str
) -> None:
    run_on(prompt("hi"))
    path = _path(state_dir)
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    doc["sessions"][0]["updated_at"] += 1  # any change by hand (clearing an obligation, say)
    edited = json.dumps(doc, separators=(",", ":"), sort_keys=True)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(edited)
    loaded = L.load_ledger(path, "claude", 0.0)
    assert loaded.problems and "GUARD-LEDGER-TAMPERED" in loaded.problems[0]
    assert Path(path + ".corrupt").read_text(encoding="utf-8") == edited  # kept for review
    found = run_on(pre_tool("Read", {"file_path": "/x"}))
    assert codes(found) == ["RG-STATE-RECOVERED-001"]
    assert found[0].verdict is Verdict.BLOCK and found[0].enforce


def test_a_deleted_ledger_is_reported_not_silently_fresh(run_on: Runner, state_dir: str) -> None:
    run_on(prompt("hi"))
    os.unlink(_path(state_dir))
    found = run_on(pre_tool("Read", {"file_path": "/x"}))
    assert codes(found) == ["RG-STATE-RECOVERED-001"] and found[0].enforce
    assert run_on(pre_tool("Read", {"file_path": "/y"})) == []  # once; sealed again
