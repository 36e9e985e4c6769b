"""Every labelled corpus case (tuned sets and the adopted held-out sets) gets its expected decision.

A held-out set is first measured unseen with ``tools/gate_corpus.py``; once
its first-run figures are recorded in the README and its misses are fixed,
it is *adopted* here and every case becomes a regression test.  A newer
``holdout<N>`` folder that has not been adopted yet is only checked for
well-formedness, so the gate is never tuned against it by accident.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from agentreflex.gate.check import check_command

CORPUS = Path(__file__).parent / "corpus"
CWD, HOME = "/home/user/project", "/home/user"
TUNED = {"bypass_attempts", "false_positives", "edge_cases", "true_positives"}
ADOPTED_HOLDOUTS = {"holdout", "holdout2", "holdout3"}


def _cases(sets: set[str] | None = None) -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        if sets is not None and path.parent.name not in sets:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if line.strip():
                out.append((f"{path.parent.name}:{n}", json.loads(line)))
    return out


CASES = _cases(TUNED | ADOPTED_HOLDOUTS)


def test_corpus_is_large_enough_and_well_formed() -> None:
    tuned = [c for name, c in CASES if not name.startswith("holdout")]
    assert len(tuned) >= 400
    holdout2 = [c for name, c in CASES if name.startswith("holdout2:")]
    assert len(holdout2) >= 250
    holdout3 = [c for name, c in CASES if name.startswith("holdout3:")]
    assert len(holdout3) >= 240
    folders = {p.parent.name for p in CORPUS.glob("*/*.jsonl")}
    assert folders >= TUNED | ADOPTED_HOLDOUTS
    pending = folders - TUNED - ADOPTED_HOLDOUTS
    assert all(re.fullmatch(r"holdout\d+", name) for name in pending), pending
    for _, case in _cases():
        assert case["expected"] in ("ALLOW", "WARN", "ASK_USER", "BLOCK")
        assert case["category"] and "command" in case


@pytest.mark.parametrize(("case_id", "case"), CASES, ids=[c[0] for c in CASES])
def test_case(case_id: str, case: dict[str, str]) -> None:
    verdict, proposals = check_command(case["command"], cwd=CWD, home=HOME, project=CWD)
    assert verdict == case["expected"], (case["note"], [(p.code, p.message) for p in proposals])
    # what a host shows: no marker of a run-time value, as a control character, in a reason
    # (rt72's git push URL rule named the address with its markers in it)
    shown = [p.message for p in proposals if any(m in p.message for m in "\x00\x01\x02\x03")]
    assert not shown, shown
