"""Loops that vary the command a little each attempt while failing the same way.

The exact-repeat floor counts the same work, not the same bytes: a leading
pause (``sleep 2;``, a growing back-off), ``time`` or ``timeout N`` change
nothing the command does, so the third such attempt failing with the same error
is the third identical attempt.  The near-repeat warning also sees through
fresh temporary names (mktemp's ``/tmp/tmp.XXXXXXXXXX``, a UUID).  A retry after
a real change, or one that fails differently, still goes through.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from agentreflex.core.decision import Verdict
from runaway_testkit import Driver, codes

# npm's own message for a registry it cannot reach (https://docs.npmjs.com/common-errors)
NET = "npm ERR! code ETIMEDOUT\nnpm ERR! network request to https://registry.npmjs.org/left-pad failed"
BUILD = "error[E0425]: cannot find value `x` in this scope\n --> src/main.rs:3:5"


@pytest.mark.parametrize(
    "attempts",
    [
        ["npm install", "sleep 2; npm install", "sleep 5 && npm install"],
        ["cargo build", "time cargo build", "timeout 120 cargo build"],
        ["sleep 1; cargo build", "sleep 2; cargo build", "sleep 3; cargo build"],
        ["true && cargo build", ": ; cargo build", "time -p cargo build"],
    ],
)
def test_a_pause_or_timer_before_the_same_failing_command_is_the_same_attempt(
    make_driver: Callable[..., Driver], attempts: list[str]
) -> None:
    d = make_driver()
    err = NET if "npm" in attempts[0] else BUILD
    for command in attempts[:2]:
        assert d.bash(command, ok=False, error=err).verdict is Verdict.ALLOW
    third = d.bash(attempts[2], ok=False, error=err)
    assert third.verdict is Verdict.BLOCK, codes(third)
    assert "RUNAWAY-LOOP-EXACT" in codes(third)


def test_a_retry_after_a_change_or_failing_differently_goes_through(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    d.bash("npm install", ok=False, error=NET)
    d.bash("sleep 5; npm install", ok=False, error=NET)
    d.bash("npm config set registry https://registry.npmmirror.com", ok=True)
    assert d.bash("sleep 5; npm install", ok=False, error=NET).verdict is Verdict.ALLOW
    d2 = make_driver(session_id="s2")
    d2.bash("cargo build", ok=False, error=BUILD)
    d2.bash("sleep 1; cargo build", ok=False, error="error: linker `cc` not found")
    assert d2.bash("time cargo build", ok=False, error=BUILD).verdict is Verdict.ALLOW


def test_a_fresh_temporary_name_each_attempt_is_a_near_repeat(
    make_driver: Callable[..., Driver],
) -> None:
    d = make_driver()
    err = "ModuleNotFoundError: No module named 'app'"
    d.bash("python /tmp/tmp.Qx7bYw2KpL/run.py --out /tmp/tmp.Qx7bYw2KpL/o", ok=False, error=err)
    d.bash("python /tmp/tmp.Hh3nBvZ9aT/run.py --out /tmp/tmp.Hh3nBvZ9aT/o", ok=False, error=err)
    third = d.bash(
        "python /tmp/tmp.Mm1cXr8sDe/run.py --out /tmp/tmp.Mm1cXr8sDe/o", ok=False, error=err
    )
    assert "RUNAWAY-LOOP-NEAR-REPEAT" in codes(third)
