"""Scripts a command runs are read from disk (bounded) and judged as if inline (issue 22 item 1).

Real files in a temporary project: a script written by one tool call and run
by the next is judged by what it does; a file that cannot be read is said so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.gate.check import check_command
from agentreflex.gate.code import scripts


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


@pytest.mark.parametrize(
    "command",
    [
        'make -f /dev/stdin <<< "all:; git clean -fdx"',
        "make -f /dev/stdin <<EOF\nall:\n\tgit clean -fdx\nEOF",
        "make -C . -f - all <<'EOF'\nall:\n\tgit clean -fdx\nEOF",
        # tree-sitter-bash drops a lone ``-`` right before ``<<``: the walker takes it back
        "make -f - <<EOF\nall:\n\tgit clean -fdx\nEOF",
        "make -f - <<-EOF\nall:\n\tgit clean -fdx\nEOF",
        "bash - <<EOF\ngit clean -fdx\nEOF",
    ],
)
def test_a_makefile_fed_on_stdin_is_read(proj: Path, command: str) -> None:
    """The heredoc is the Makefile: its recipe is judged like one on disk."""
    assert _check(command, proj) == ("BLOCK", ["GATE-GIT-CLEAN"])


def test_words_the_grammar_drops_are_taken_back_only_when_plain(proj: Path) -> None:
    assert _check("make -f - <<EOF\nall:\n\techo hi\nEOF", proj) == ("ALLOW", [])
    assert _check("cat - <<EOF\nhi\nEOF", proj) == ("ALLOW", [])


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


def test_pytest_reads_the_conftest_files_it_would_import(tmp_path: Path) -> None:
    """conftest.py of the rootdir, of the folders above a test path and below it (item 1)."""
    root = tmp_path / "proj"
    (root / "tests" / "unit").mkdir(parents=True)
    (root / "tests" / "unit" / "conftest.py").write_text("import shutil\nshutil.rmtree('/etc')\n")
    (root / "tests" / "test_a.py").write_text("def test_a():\n    pass\n")
    for command in ("pytest", "pytest -q tests", "pytest --collect-only", "pytest tests/unit"):
        verdict, codes = _check(command, root)
        assert verdict == "BLOCK" and "GATE-RM-SYSTEM" in codes, command
    (root / "tests" / "unit" / "conftest.py").write_text(
        "import pytest\n\n@pytest.fixture\ndef x():\n    return 1\n"
    )
    assert _check("pytest -q", root) == ("ALLOW", [])


def test_pytest_conftest_search_is_bounded_and_skips_environments(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / ".venv" / "lib").mkdir(parents=True)
    (root / ".venv" / "lib" / "conftest.py").write_text("import os\nos.system('rm -rf ~')\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "conftest.py").write_text("x = 1\n")
    for i in range(scripts.MAX_CONFTESTS + 4):
        (root / f"t{i:02d}").mkdir()
        (root / f"t{i:02d}" / "conftest.py").write_text("x = 1\n")
    found = scripts.conftest_files([], str(root))
    assert len(found) == scripts.MAX_CONFTESTS
    assert not any(".venv" in f or "node_modules" in f for f in found)
    assert _check("pytest", root)[0] == "ALLOW"


def test_pip_install_of_a_local_project_reads_its_setup_py(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "sub").mkdir(parents=True)
    (root / "setup.py").write_text("import os\nos.system('git reset --hard')\n")
    (root / "sub" / "setup.py").write_text("from setuptools import setup\nsetup(name='x')\n")
    for command in ("pip install -e .", "pip install .", "pip3 install -e '.[dev]'"):
        verdict, codes = _check(command, root)
        assert verdict == "BLOCK" and "GATE-GIT-RESET-HARD" in codes, command
    assert _check("pip install -e ./sub", root) == ("ALLOW", [])
    assert _check("pip install requests", root) == ("ALLOW", [])
    assert scripts.setup_files(["install", "-r", "./req.txt"], str(root)) == []


def test_plain_make_and_npm_test_read_their_files_past_the_pre_filter(proj: Path) -> None:
    """Commands the pre-filter once let through on their words alone (item 1)."""
    (proj / "Makefile").write_text("all:\n\tgit reset --hard\n")
    assert _check("make", proj) == ("BLOCK", ["GATE-GIT-RESET-HARD"])
    (proj / "package.json").write_text(json.dumps({"scripts": {"test": "git push -f origin main"}}))
    assert _check("npm test", proj) == ("BLOCK", ["GATE-GIT-FORCE-PUSH"])
    assert _check("ls -la", proj) == ("ALLOW", [])


def test_node_running_a_script_file_reads_it_past_the_pre_filter(proj: Path) -> None:
    (proj / "tidy.js").write_text("require('child_process').execSync('git reset --hard')\n")
    verdict, codes = _check("node tidy.js", proj)
    assert verdict == "BLOCK" and "GATE-GIT-RESET-HARD" in codes
    assert _check("node --version", proj) == ("ALLOW", [])


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("python -m pytest -q", "GATE-RM-SYSTEM"),
        ("uv run pytest", "GATE-RM-SYSTEM"),
        ("python3 -m pip install -e .", "GATE-GIT-RESET-HARD"),
        ("uv pip install -e .", "GATE-GIT-RESET-HARD"),
    ],
)
def test_pytest_and_pip_are_read_however_they_are_spelled(
    tmp_path: Path, command: str, rule: str
) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "conftest.py").write_text("import shutil\nshutil.rmtree('/etc')\n")
    (root / "setup.py").write_text("import os\nos.system('git reset --hard')\n")
    verdict, codes = _check(command, root)
    assert verdict == "BLOCK" and rule in codes


def test_python_entry_names_the_tool_and_its_arguments() -> None:
    from agentreflex.gate.rules.programs import python_entry

    assert python_entry(["/usr/bin/pytest", "-q"]) == ("pytest", ["-q"])
    assert python_entry(["python3.12", "-m", "pip", "install", "."]) == ("pip", ["install", "."])
    assert python_entry(["uv", "pip", "install", "-e", "."]) == ("pip", ["install", "-e", "."])
    assert python_entry(["pip", "list"]) is None
    assert python_entry(["python", "-m", "http.server"]) is None
