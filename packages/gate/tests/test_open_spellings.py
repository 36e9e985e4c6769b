"""Spellings of dangerous operations the gate still allows (red-team rounds rt39, rt40).

Each case is a real spelling with its source; each is an expected failure
(strict), so a fix that catches it turns the test red until the mark is
removed and the case moves into the corpus.
"""

from __future__ import annotations

import pytest
from agentreflex.gate.check import check_command

CWD, HOME = "/home/user/project", "/home/user"

OPEN: list[object] = []  # each round's open spellings; empty when all are stopped


@pytest.mark.parametrize("command", OPEN)
def test_open_spelling_is_stopped(command: str) -> None:
    verdict, _ = check_command(command, cwd=CWD, home=HOME, project=CWD)
    assert verdict != "ALLOW"
