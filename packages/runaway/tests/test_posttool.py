"""Post-tool warnings from the judge's battery, against the seed's two warn thresholds."""

from __future__ import annotations

from collections.abc import Callable

from agentreflex.core.decision import Verdict
from runaway_testkit import Driver, FixedJudge, codes


def judged(blocker: float, retry: float) -> FixedJudge:
    return FixedJudge({"post_tool": {"hit_blocker": blocker, "retry_unlikely_to_help": retry}})


def test_a_likely_blocker_warns_and_reaches_the_agent(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(judge=judged(0.8, 0.0))
    d.bash("gh pr create", ok=False, error="HTTP 403: Resource not accessible by integration")
    assert d.last is not None
    assert codes(d.last) == ["RUNAWAY-POST-BLOCKER"]
    assert d.last.verdict is Verdict.WARN


def test_retry_unlikely_only_matters_after_a_failure(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(judge=judged(0.1, 0.9))
    d.bash("ls", ok=True, output="a b")
    assert codes(d.last) == []
    d.bash("npm publish", ok=False, error="E402 Payment Required")
    assert codes(d.last) == ["RUNAWAY-POST-RETRY-UNLIKELY"]


def test_below_thresholds_nothing_is_said(make_driver: Callable[..., Driver]) -> None:
    d = make_driver(judge=judged(0.74, 0.74))
    d.bash("npm publish", ok=False, error="E402 Payment Required")
    assert codes(d.last) == []


def test_thresholds_come_from_the_seed_environment_names(
    make_driver: Callable[..., Driver],
) -> None:
    env = {"REFLEX_THRESH_POST_TOOL_BLOCKER_WARN": "0.5"}
    d = make_driver(judge=judged(0.6, 0.0), env=env)
    d.bash("gh pr create", ok=False, error="HTTP 403")
    assert codes(d.last) == ["RUNAWAY-POST-BLOCKER"]
    row = d.last.to_json() if d.last else {}
    assert row["signals"] == {"hit_blocker": 0.6}
    assert row["findings"][0]["threshold"] == 0.5
