"""Helpers a package's declared command uses: its subcommand words."""

from __future__ import annotations

import pytest


def test_command_words_with_or_without_the_name_and_the_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agentreflex.core.plugin import command_words

    assert command_words(["guard", "status", "--json"], "guard", "usage\n") == (
        "status",
        ["--json"],
    )
    assert command_words(["status"], "guard", "usage\n") == ("status", [])
    assert command_words(["guard"], "guard", "usage\n") == 2  # no subcommand: a usage error
    assert command_words(["--help"], "guard", "usage\n") == 0
    assert capsys.readouterr().out == "usage\nusage\n"
