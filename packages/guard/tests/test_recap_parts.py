"""The guard's parts of the session recap: open obligations kept, findings cut first."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.guard.recap_parts import FINDINGS, OBLIGATIONS, read_report, recap_parts


def _snapshot(state_dir: Path, report: object) -> Path:
    local = state_dir / "local"
    local.mkdir(exist_ok=True)
    path = local / "reason_guard.json"
    path.write_text(json.dumps(report))
    return path


def test_open_obligations_are_kept_and_findings_may_be_cut(tmp_path: Path) -> None:
    _snapshot(
        tmp_path,
        {
            "session": {"id": "s1"},
            "obligations": [
                {"name": "verify the exporter's output", "state": "IDENTIFIED"},
                {"name": "closed one", "state": "RESOLVED"},
            ],
            "findings": [
                {"code": "RG-EVIDENCE", "message": "claimed without a run", "active": True},
                {"code": "RG-OLD", "message": "no longer", "active": False},
            ],
        },
    )
    assert recap_parts(str(tmp_path), "s1") == [
        (OBLIGATIONS, ["verify the exporter's output (IDENTIFIED)"], True),
        (FINDINGS, ["RG-EVIDENCE: claimed without a run"], False),
    ]


def test_a_foreign_or_broken_report_contributes_nothing(tmp_path: Path) -> None:
    path = _snapshot(tmp_path, {"session": {"id": "other"}, "obligations": [{"name": "x"}]})
    assert read_report(str(tmp_path), "s1") is None
    path.write_bytes(b"\xff{not json")
    assert read_report(str(tmp_path), "s1") is None
    path.write_text(json.dumps({"session": {"id": "s1"}, "obligations": "nope"}))
    assert recap_parts(str(tmp_path), "s1") == [(OBLIGATIONS, [], True), (FINDINGS, [], False)]
    assert read_report("", "s1") is None
