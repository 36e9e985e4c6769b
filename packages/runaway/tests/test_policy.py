"""The pure loop policy: floor and judge combined by max, compared with seed thresholds."""

from __future__ import annotations

import math

from agentreflex.runaway.policy import assess_loop

BLOCK, CEILING = 0.80, 0.30


def test_the_floor_blocks_whatever_the_judge_says() -> None:
    for judge in (
        None,
        {},
        {"repeats_failed_approach_without_new_evidence": 0.0, "expected_progress": 1.0},
    ):
        a = assess_loop(2, 3, judge, BLOCK, CEILING)
        assert a.floor_fired and a.block
        assert a.repeat == 1.0 and a.progress == 0.0


def test_the_judge_alone_blocks_only_with_low_expected_progress() -> None:
    confident = {"repeats_failed_approach_without_new_evidence": 0.85, "expected_progress": 0.2}
    assert assess_loop(0, 3, confident, BLOCK, CEILING).block
    hopeful = {"repeats_failed_approach_without_new_evidence": 0.85, "expected_progress": 0.5}
    assert not assess_loop(0, 3, hopeful, BLOCK, CEILING).block
    unsure = {"repeats_failed_approach_without_new_evidence": 0.79, "expected_progress": 0.0}
    assert not assess_loop(0, 3, unsure, BLOCK, CEILING).block


def test_without_a_judge_and_below_the_floor_nothing_blocks() -> None:
    a = assess_loop(1, 3, None, BLOCK, CEILING)
    assert not a.block and not a.judge_used


def test_unreadable_probabilities_count_as_no_signal() -> None:
    broken = {
        "repeats_failed_approach_without_new_evidence": math.nan,
        "expected_progress": math.nan,
    }
    assert not assess_loop(0, 3, broken, BLOCK, CEILING).block
    text = {"repeats_failed_approach_without_new_evidence": "high", "expected_progress": "low"}
    assert not assess_loop(0, 3, text, BLOCK, CEILING).block  # type: ignore[arg-type]
    huge = {"repeats_failed_approach_without_new_evidence": 7.0, "expected_progress": -3.0}
    a = assess_loop(0, 3, huge, BLOCK, CEILING)
    assert a.block and a.repeat == 1.0 and a.progress == 0.0
