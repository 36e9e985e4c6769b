"""Seed 001's demo: a buggy strategy fails twice, the third identical attempt is blocked."""

from __future__ import annotations

from collections.abc import Callable

from agentreflex.core.decision import Verdict
from runaway_testkit import Driver, codes, runaway_findings

BUGGY = "node scripts/patch-hash.js --algo=sha1"
ERROR = "Error: Cannot find module 'bcrypt'\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1145:15)"


def test_third_identical_failed_attempt_is_blocked_then_a_different_fix_goes_through(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    first = d.bash(BUGGY, ok=False, error=ERROR)
    assert first.verdict is Verdict.ALLOW
    second = d.bash(BUGGY, ok=False, error=ERROR)
    assert second.verdict is Verdict.ALLOW
    assert "RUNAWAY-LOOP-REPEAT-NEXT" in codes(d.last)  # heads-up after the 2nd failure
    third = d.bash(BUGGY, ok=False, error=ERROR)
    assert third.verdict is Verdict.BLOCK
    (finding,) = [f for f in runaway_findings(third) if f.verdict is Verdict.BLOCK]
    assert finding.code == "RUNAWAY-LOOP-EXACT"
    assert "LOOP REFLEX" in finding.title
    assert finding.signals["exact_repeat_count"] == 2
    assert "new evidence" in finding.message
    fix = d.bash("npm install bcrypt", ok=True, output="added 3 packages")
    assert fix.verdict is Verdict.ALLOW
    assert d.state().actions[-2].outcome == "blocked"
