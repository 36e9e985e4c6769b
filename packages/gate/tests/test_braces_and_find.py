"""Brace expansion (where bash does it) and find-driven deletes judged alike."""

from __future__ import annotations

import pytest
from agentreflex.gate.check import check_command
from agentreflex.gate.model import UNKNOWN
from agentreflex.gate.shell import braces

CWD, HOME = "/home/user/project", "/home/user"


def _words(text: str) -> list[str]:
    return ["".join(t for t, _, _ in w) for w in braces.expand([(text, True, True)])]


@pytest.mark.parametrize(
    ("word", "words"),
    [
        ("{rm,-rf,/boot}", ["rm", "-rf", "/boot"]),
        ("a{b,c}d", ["abd", "acd"]),
        ("file{,.bak}", ["file", "file.bak"]),
        ("{a,{b,c}}", ["a", "b", "c"]),
        ("{a{b,c}", ["{ab", "{ac"]),
        ("x{1..3}", ["x1", "x2", "x3"]),
        ("{01..03}", ["01", "02", "03"]),
        ("{c..a}", ["c", "b", "a"]),
        ("{1..9..4}", ["1", "5", "9"]),
        ("{a}", ["{a}"]),
        ("{}", ["{}"]),
        ("${a,b}", ["${a,b}"]),
    ],
)
def test_brace_expansion(word: str, words: list[str]) -> None:
    assert _words(word) == words


def test_quoted_braces_and_huge_expansions() -> None:
    quoted = braces.expand([("{a", True, True), (",b", True, False), ("}", True, True)])
    assert len(quoted) == 1  # a quoted comma separates nothing
    assert _words("d{1..100000}") == ["d" + UNKNOWN]
    assert _words("{a,b}" * 10)[-1] == UNKNOWN


@pytest.mark.parametrize(
    ("command", "expected", "rule"),
    [
        ("{rm,-rf,/boot}", "BLOCK", "GATE-RM-SYSTEM"),
        ("{git,reset,--hard}", "BLOCK", "GATE-GIT-RESET-HARD"),
        ("echo hi; {git,push,--force}", "BLOCK", "GATE-GIT-FORCE-PUSH"),
        ("timeout 5 {rm,-rf,/opt}", "BLOCK", "GATE-RM-SYSTEM"),
        ("rm -rf {/tmp/x,/etc}", "BLOCK", "GATE-RM-SYSTEM"),
        ("rm -f ~/.bashrc{,.bak}", "BLOCK", "GATE-RM-DOTFILE"),
        ("{a,b", "ASK_USER", "GATE-BRACE-COMMAND"),
        ("rm -rf dir{1..100000}", "ALLOW", ""),
        ("rm -rf {src,tests}/__pycache__", "ALLOW", ""),
        ("mkdir -p src/{a,b,c}", "ALLOW", ""),
        ("rm -rf '{/etc,x}'", "ALLOW", ""),
        ("{ echo a; echo b; } > out.txt", "ALLOW", ""),
        ("./build.sh", "ALLOW", ""),
        ("mycli deploy --env dev", "ALLOW", ""),
        ("git show stash@{0}", "ALLOW", ""),
    ],
)
def test_brace_commands(command: str, expected: str, rule: str) -> None:
    verdict, proposals = check_command(command, cwd=CWD, home=HOME, project=CWD)
    assert verdict == expected, [(p.code, p.message) for p in proposals]
    if rule:
        assert rule in [p.code for p in proposals]


@pytest.mark.parametrize("root", ["~", "~/Downloads", "/", "/var/log"])
@pytest.mark.parametrize(
    "deleter",
    [
        "-delete",
        "-exec rm {} \\;",
        "-exec rm -f {} +",
        "-execdir rm {} \\;",
        "-print0 | xargs -0 rm -f",
        "| xargs rm",
    ],
)
def test_find_deletes_agree(root: str, deleter: str) -> None:
    verdict, proposals = check_command(
        f"find {root} -type f -mtime +30 {deleter}", cwd=CWD, home=HOME, project=CWD
    )
    assert verdict == "BLOCK", [(p.code, p.message) for p in proposals]


@pytest.mark.parametrize("root", [".", "build", "/tmp", "~/.cache"])
@pytest.mark.parametrize("deleter", ["-delete", "-exec rm {} \\;", "| xargs rm"])
def test_find_deletes_in_safe_trees(root: str, deleter: str) -> None:
    verdict, _ = check_command(
        f"find {root} -name '*.o' {deleter}", cwd=CWD, home=HOME, project=CWD
    )
    assert verdict == "ALLOW"


def test_a_commands_effects_are_worked_out_once_per_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the self-guard and the instructions reflex both ask, about the same Cmd objects
    from agentreflex.gate.model import Cmd
    from agentreflex.gate.shell import changes
    from agentreflex.gate.shell.paths import Where

    calls: list[str] = []
    real = changes._effects

    def counted(cmd: Cmd, where: Where) -> list[tuple[str, str, str]]:
        calls.append(cmd.text)
        return real(cmd, where)

    monkeypatch.setattr(changes, "_effects", counted)
    where = Where(cwd="/p", project="/p", home="/home/u")
    cmd = Cmd(argv=["rm", "-rf", "build"], text="rm -rf build", cwd="/p")
    first = changes.effects(cmd, where)
    first.append(("mutated by a caller", "", ""))
    assert changes.effects(cmd, where) == [("build", changes.DELETE, "/p")]
    assert calls == ["rm -rf build"]
    # an equal command that is another object, or another place, is worked out again
    twin = Cmd(argv=["rm", "-rf", "build"], text="rm -rf build", cwd="/p")
    assert changes.effects(twin, where) == changes.effects(cmd, where)
    changes.effects(cmd, Where(cwd="/q", project="/q", home="/home/u"))
    assert len(calls) == 3
