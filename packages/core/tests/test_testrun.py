"""core.testrun: the one answer to "is this a test run, and is its exit status its own?"."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.core import testrun
from agentreflex.core.testrun import FAKE, MASKED, NONE, RUN, assess, summary


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("pytest -q", RUN),
        ("uv run --frozen pytest -x", RUN),
        ("timeout 60 env CI=1 pytest", RUN),
        ("npx vitest run", RUN),
        (".venv/bin/pytest -q", RUN),
        ("node_modules/.bin/jest", RUN),
        ("./gradlew test", RUN),
        ("pytest -n 4", RUN),  # xdist's -n is not make's dry run
        ("pytest && echo done", RUN),
        ("pytest; pytest -x", RUN),  # the last runner's status stands
        ("set -euo pipefail\npytest | tee log", RUN),
        ("pytest | head -1", MASKED),
        ("pytest 2>&1 | tail -5", MASKED),
        ("pytest || true", MASKED),
        ("pytest; true", MASKED),
        ("pytest & wait", MASKED),
        ("false || pytest", MASKED),
        ("./pytest -q", FAKE),
        ("bin/pytest", FAKE),
        ("pytest(){ echo 3 passed; }; pytest", FAKE),
        ("function pytest { echo ok; }; pytest", FAKE),
        ("alias pytest='echo 3 passed'; pytest", FAKE),
        ("pytest --collect-only", NONE),
        ("make -n test", NONE),
        ("pip install pytest", NONE),
        ("echo pytest", NONE),
    ],
)
def test_commands(tmp_path: Path, command: str, verdict: str) -> None:
    assert assess(command, str(tmp_path)).verdict == verdict


def test_python_m_prefers_a_local_module(tmp_path: Path) -> None:
    assert assess("python -m pytest", str(tmp_path)).verdict == RUN
    (tmp_path / "pytest").mkdir()
    found = assess("python3 -m pytest", str(tmp_path))
    assert found.verdict == FAKE and "shadows" in found.reason


def test_make_and_package_scripts_are_read_to_their_commands(tmp_path: Path) -> None:
    sub = tmp_path / "app"
    sub.mkdir()
    (sub / "Makefile").write_text(
        "X := 1\ntest: build\n\t@echo 3 passed\ncheck:\n\t-uv run pytest\n"
    )
    assert assess("cd app && make test", str(tmp_path)).verdict == FAKE
    assert assess("make -C app check", str(tmp_path)).verdict == RUN
    assert assess("make test", str(tmp_path)).verdict == FAKE  # no Makefile here
    (sub / "package.json").write_text('{"scripts": {"test": "jest", "test:e2e": "echo ok"}}')
    assert assess("cd app && npm test", str(tmp_path)).verdict == RUN
    assert assess("cd app && npm run test:e2e", str(tmp_path)).verdict == FAKE
    (sub / "package.json").write_text("{not json")
    assert assess("cd app && yarn test", str(tmp_path)).verdict == FAKE


def test_make_variables_are_expanded(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "PYTHON ?= python3\nVENV := .venv\ntest:\n\t$(PYTHON) -m pytest\n"
        "check:\n\t${VENV}/bin/pytest -q\nall:\n\t$(MAKE) test\nfake:\n\t$(ECHO) 3 passed\n"
    )
    assert assess("make test", str(tmp_path)).verdict == RUN
    assert assess("make check", str(tmp_path)).verdict == RUN
    assert assess("make all", str(tmp_path)).verdict == NONE  # `all` is not a test target
    assert assess("make -C . test", str(tmp_path)).verdict == RUN


def test_a_script_that_calls_itself_stops(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test:\n\tmake test\n")
    assert assess("make test", str(tmp_path)).verdict == FAKE


def test_without_a_working_directory_targets_are_taken_at_their_word() -> None:
    assert assess("make test").verdict == RUN
    assert testrun.is_test_run("npm test")
    assert not testrun.is_test_run("npm test | head")


@pytest.mark.parametrize(
    ("output", "result"),
    [
        ("===== 1 failed, 3 passed in 0.4s =====", "failed"),
        ("3 passed in 0.01s", "passed"),
        ("collected 0 items\n== no tests ran ==", "none"),
        ("Ran 4 tests in 0.001s\n\nOK", "passed"),
        ("FAILED (failures=1)", "failed"),
        ("# tests 2\n# pass 1\n# fail 1", "failed"),
        ("# tests 2\n# pass 2\n# fail 0", "passed"),
        ("\u2139 tests 1\n\u2139 pass 1\n\u2139 fail 0", "passed"),
        ("# tests 0\n# pass 0\n# fail 0", "none"),
        ("test result: ok. 5 passed; 0 failed", "passed"),
        ("Tests:       1 failed, 2 passed, 3 total", "failed"),
        ("ok  \texample.com/m\t0.01s", "passed"),
        ("F.", ""),
    ],
)
def test_summary(output: str, result: str) -> None:
    assert summary(output) == result
