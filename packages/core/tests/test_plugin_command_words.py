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


def test_run_subcommand_calls_the_named_handler_or_names_an_unknown_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from agentreflex.core.plugin import run_subcommand

    seen: list[list[str]] = []

    def status(rest: list[str]) -> int:
        seen.append(rest)
        return 7

    handlers = {"status": status}
    assert run_subcommand(["guard", "status", "--json"], "guard", "usage\n", handlers) == 7
    assert run_subcommand(["status"], "guard", "usage\n", handlers) == 7
    assert seen == [["--json"], []]
    assert run_subcommand(["guard"], "guard", "usage\n", handlers) == 2
    assert run_subcommand(["help"], "guard", "usage\n", handlers) == 0
    assert run_subcommand(["bogus", "x"], "guard", "usage\n", handlers) == 2
    out = capsys.readouterr()
    assert out.out == "usage\nusage\n"
    assert out.err == "agentreflex guard: unknown command 'bogus'\nusage\n"
    assert seen == [["--json"], []]
