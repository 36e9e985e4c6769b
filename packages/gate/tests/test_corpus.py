"""Every labelled corpus case (tuned sets and the held-out set) gets its expected decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.gate.check import check_command

CORPUS = Path(__file__).parent / "corpus"
CWD, HOME = "/home/user/project", "/home/user"


def _cases() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                out.append((f"{path.parent.name}:{n}", json.loads(line)))
    return out


CASES = _cases()


def test_corpus_is_large_enough_and_well_formed() -> None:
    tuned = [c for name, c in CASES if not name.startswith("holdout")]
    assert len(tuned) >= 400
    assert {name.split(":")[0] for name, _ in CASES} == {
        "bypass_attempts",
        "false_positives",
        "edge_cases",
        "true_positives",
        "holdout",
    }
    for _, case in CASES:
        assert case["expected"] in ("ALLOW", "WARN", "ASK_USER", "BLOCK")
        assert case["category"] and "command" in case


@pytest.mark.parametrize(("case_id", "case"), CASES, ids=[c[0] for c in CASES])
def test_case(case_id: str, case: dict[str, str]) -> None:
    verdict, proposals = check_command(case["command"], cwd=CWD, home=HOME, project=CWD)
    assert verdict == case["expected"], (case["note"], [(p.code, p.message) for p in proposals])
