"""The batteries use core's canonical ids and valid, explained questions."""

from __future__ import annotations

import pytest
from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.wire import build_request, parse_questions
from agentreflex.judge2.fallback import FALLBACK
from agentreflex.judge2.questions import BATTERIES, battery


def test_batteries_match_core_signal_ids_in_order() -> None:
    assert {name: tuple(qs) for name, qs in BATTERIES.items()} == s.BATTERIES
    assert [len(BATTERIES[b]) for b in (s.PRE_TOOL, s.POST_TOOL, s.COMPLETION)] == [8, 6, 5]


def test_every_question_has_criteria_and_is_valid_on_the_wire() -> None:
    for name, questions in BATTERIES.items():
        assert parse_questions(questions) == questions
        build_request("jev-latest", "state", questions)
        for q in questions.values():
            assert q["type"] == "noul"
            assert q["instructions"].endswith("?")
            assert q["criteria"]["true"] and q["criteria"]["false"], name


def test_fallback_covers_every_question_permissively() -> None:
    for name, ids in s.BATTERIES.items():
        assert set(FALLBACK[name]) == set(ids)
    assert FALLBACK[s.PRE_TOOL][s.DESTRUCTIVE] == 0.0
    assert FALLBACK[s.PRE_TOOL][s.GOAL_ALIGNMENT] == 1.0
    assert FALLBACK[s.COMPLETION][s.UNRESOLVED_FAILURE] == 0.0


def test_unknown_battery_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="pre_tool"):
        battery("nope")
