"""A newline inside double quotes is part of the word (red-team rt35).

tree-sitter leaves it out of every part of the string, and the gate joined the parts:
``bash -c "echo hi<newline>rm -rf ~/x"`` was read as ``echo hirm -rf ~/x``, so the
``rm`` a shell runs there was never judged; ``apply_patch <<'EOF'`` inside
``bash -lc "..."`` (the form Codex applies itself) lost its here-document.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .conftest import Checked


@pytest.mark.parametrize(
    "command",
    [
        'bash -c "echo hi\nrm -rf ~/notes"',
        'sh -c "cd /tmp\nrm -rf ~"',
        'eval "true\nrm -rf ~/notes"',
    ],
)
def test_a_command_after_a_quoted_newline_is_judged(
    gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict != "ALLOW", (command, codes)
    assert any(code.startswith("GATE-RM") for code in codes), (command, codes)


def test_a_quoted_newline_stays_in_an_ordinary_word(gate_check: Callable[[str], Checked]) -> None:
    assert gate_check('git commit -m "subject\n\nbody"') == ("ALLOW", set())
