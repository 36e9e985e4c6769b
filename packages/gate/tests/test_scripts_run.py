"""Scripts a command runs are read from disk (bounded) and judged as if inline (issue 22 item 1).

Real files in a temporary project: a script written by one tool call and run
by the next is judged by what it does; a file that cannot be read is said so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.gate import scripts
from agentreflex.gate.check import check_command


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "wipe.sh").write_text("#!/bin/sh\nset -e\nrm -rf ~\n")
    (root / "ok.sh").write_text("echo building\nmkdir -p dist\n")
    (root / "clean.py").write_text("import shutil\nshutil.rmtree('/etc')\n")
    (root / "tool").write_text("#!/usr/bin/env python3\nimport os\nos.system('git reset --hard')\n")
    (root / "self.sh").write_text("echo again\nbash self.sh\n")
    (root / "Makefile").write_text(
        "OUT = dist\n.PHONY: all clean nuke\nall: build\nbuild:\n\t@echo building\n"
        "clean:\n\trm -rf $(OUT)\nnuke: clean\n\t-rm -rf ~/.ssh\n"
    )
    (root / "package.json").write_text(
        json.dumps({"scripts": {"test": "jest", "deploy": "git push --force origin main"}})
    )
    return root


def _check(command: str, proj: Path) -> tuple[str, list[str]]:
    verdict, proposals = check_command(
        command, cwd=str(proj), home=str(proj.parent), project=str(proj)
    )
    return verdict, [p.code for p in proposals]


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("bash wipe.sh", "GATE-RM-ROOT"),
        ("./wipe.sh", "GATE-RM-ROOT"),
        ("source ./wipe.sh", "GATE-RM-ROOT"),
        ("python3 clean.py", "GATE-RM-SYSTEM"),
        ("./tool", "GATE-GIT-RESET-HARD"),
        ("cd . && make nuke", "GATE-RM-DOTFILE"),
        ("npm run deploy", "GATE-GIT-FORCE-PUSH"),
    ],
)
def test_a_script_on_disk_is_judged_by_what_it_does(proj: Path, command: str, rule: str) -> None:
    verdict, codes = _check(command, proj)
    assert verdict == "BLOCK" and rule in codes


@pytest.mark.parametrize(
    "command",
    ["bash ok.sh", "cd . && make", "cd . && make clean", "bash missing.sh", "bash self.sh"],
)
def test_harmless_or_missing_scripts_stay_allowed(proj: Path, command: str) -> None:
    assert _check(command, proj) == ("ALLOW", [])


def test_a_makefile_written_in_the_same_command_is_read(proj: Path) -> None:
    command = "printf 'all:\\n\\tgit clean -fdx\\n' > Mk && make -f Mk"
    assert _check(command, proj) == ("BLOCK", ["GATE-GIT-CLEAN"])


def test_an_unreadable_script_is_said_so(proj: Path) -> None:
    (proj / "big.sh").write_text("echo x\n" * (scripts.MAX_BYTES // 4))
    (proj / "bin.sh").write_bytes(b"\x7fELF\0\0\0")
    for name in ("big.sh", "bin.sh"):
        verdict, codes = _check(f"bash {name}", proj)
        assert (verdict, codes) == ("WARN", ["GATE-SCRIPT-UNREADABLE"])


def test_reads_are_bounded(proj: Path) -> None:
    assert scripts.read(str(proj / "nothing")) is None
    (proj / "huge").write_text("x" * (scripts.MAX_BYTES + 1))
    assert scripts.read(str(proj / "huge")) == scripts.UNREADABLE
    (proj / "bad.json").write_text("{not json")
    text, _ = scripts.package_script("npm", ["test"], str(proj), {str(proj / "package.json"): "{"})
    assert text == scripts.UNREADABLE


def test_computed_parts_of_a_script_on_disk_warn_and_the_rest_counts(proj: Path) -> None:
    (proj / "gradlew").write_text(
        "#!/bin/sh\nJAVACMD=${JAVA_HOME:+$JAVA_HOME/bin/}java\n"
        'eval "set -- $(printf \'%s\\n\' "$JAVA_OPTS" | xargs -n1)" \'"$@"\'\n'
        'exec "$JAVACMD" "$@"\n'
    )
    assert _check("./gradlew build", proj) == ("WARN", ["GATE-SCRIPT-PARTLY-CHECKED"])
    (proj / "bad.sh").write_text('eval "$SETUP"\nrm -rf ~\n')
    verdict, codes = _check("sh bad.sh", proj)
    assert verdict == "BLOCK" and "GATE-RM-ROOT" in codes and "GATE-DYNAMIC-SCRIPT" not in codes
