"""``agentreflex config check`` on sections the runaway and guard packages declare.

Moved from ``packages/core/tests/test_config_check.py`` (core alone does not know
``[budgets]`` or ``[reasoning_guard]``).
"""

from __future__ import annotations

from pathlib import Path

from agentreflex.core.testing import config_check_cli as _cli

BAD = """\
mode = "enforced"

[loop]
hard_repeat_count = 1

[judge]
api_key = "sk-not-here"

[reasoning_guard.backfill]
mode = "sometimes"

[budgets]
warn_fraction = 2
"""


def test_cli_lists_every_problem_with_file_line_and_key(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BAD)
    done = _cli(str(path), cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"{path}:4: loop.hard_repeat_count: 1 is not an integer from 2 to 1000",
        f"{path}:7: judge.api_key: keys are never read from files; set JEV_API_KEY",
        f"{path}:10: reasoning_guard.backfill.mode: 'sometimes' is not one of recent, live, full",
        f"{path}:13: budgets.warn_fraction: 2 is not a number from 0.01 to 1.0",
    ]
