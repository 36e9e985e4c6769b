"""Evidence that really ran (issue 31): real commands in scratch projects, real frameworks.

Each test builds a small project, makes a real edit, runs real shell
commands with ``bash -c`` in it (pytest from this venv, node's built-in test
runner, make, npm), records what they printed and how they exited through
the real session store, and asks the done reflex about the stop.  A command
that only looks like a test run (a ``./pytest`` file, a local ``pytest.py``,
a shell function, a make target or package script that echoes, a failing
suite piped to ``head``) is refused as evidence; a real failing run followed
by a real passing one lets the stop through.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import make_context, post_tool, prompt, stop
from agentreflex.judge2.done.reflex import DoneReflex

VENV_BIN = str(Path(sys.executable).parent)
PASSING = "from calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
FAKE_OUTPUT = 'echo "===== 3 passed in 0.01s ====="'


class Session:
    """One agent session in a scratch project: real commands, recorded by the real store."""

    def __init__(self, root: Path) -> None:
        self.proj = root / "proj"
        self.proj.mkdir()
        self.store = SessionStore(str(root / "state"), "s1")
        self.store.record(prompt("fix add", cwd=str(self.proj), session_id="s1"), None)
        self.n = 0

    def write(self, name: str, text: str, mode: int = 0o644) -> None:
        """A real file edit, recorded as the agent's Write."""
        path = self.proj / name
        path.write_text(text)
        path.chmod(mode)
        self._record("Write", {"file_path": str(path), "content": text}, True, "")

    def sh(self, command: str) -> int:
        """Run ``command`` with bash in the project, the way an agent's shell tool does."""
        env = {**os.environ, "PATH": f"{VENV_BIN}:{os.environ.get('PATH', '')}"}
        env.pop("PYTEST_ADDOPTS", None)
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=self.proj,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        output = done.stdout + done.stderr
        self._record("Bash", {"command": command}, done.returncode == 0, output, done.returncode)
        return done.returncode

    def _record(
        self, tool: str, tool_input: dict[str, str], ok: bool, out: str, code: int | None = None
    ) -> None:
        self.n += 1
        event = post_tool(
            tool,
            tool_input,
            ok,
            out if ok else "",
            error="" if ok else out,
            cwd=str(self.proj),
            session_id="s1",
            tool_use_id=f"t{self.n}",
            exit_code=code,
        )
        self.store.record(event, None)

    def state(self) -> SessionState:
        st, _ = SessionStore(self.store.state_dir, "s1").load()
        return st

    def stop_verdict(self, message: str = "Fixed add; the tests pass.") -> Verdict:
        ctx = make_context(stop(message, cwd=str(self.proj), session_id="s1"), state=self.state())
        findings = DoneReflex().evaluate(ctx)
        return findings[0].verdict if findings else Verdict.ALLOW


@pytest.fixture
def py(tmp_path: Path) -> Session:
    """A Python project whose one test fails until ``add`` is fixed."""
    s = Session(tmp_path)
    s.write("test_calc.py", PASSING)
    s.write("calc.py", "def add(a, b):\n    return a - b\n")
    return s


def fix(s: Session) -> None:
    s.write("calc.py", "def add(a, b):\n    return a + b\n")


def test_a_real_failing_run_then_a_real_passing_run_lets_the_stop_through(py: Session) -> None:
    assert py.sh("pytest -q") == 1
    assert py.stop_verdict() is Verdict.BLOCK
    fix(py)
    assert py.stop_verdict() is Verdict.BLOCK  # changed since the failing run
    assert py.sh("pytest -q") == 0
    assert py.stop_verdict() is Verdict.ALLOW


def test_a_project_file_named_pytest_is_refused(py: Session) -> None:
    fix(py)
    py.write("pytest", f"#!/bin/sh\n{FAKE_OUTPUT}\n", 0o755)
    assert py.sh("./pytest -q") == 0
    st = py.state()
    assert st.verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


def test_python_m_pytest_with_a_local_pytest_py_is_refused(py: Session) -> None:
    fix(py)
    py.write("pytest.py", 'print("===== 3 passed in 0.01s =====")\n')
    assert py.sh("python -m pytest -q") == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


def test_a_shell_function_named_pytest_is_refused(py: Session) -> None:
    fix(py)
    assert py.sh(f"pytest(){{ {FAKE_OUTPUT}; }}; pytest -q") == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


def test_an_alias_named_pytest_is_refused(py: Session) -> None:
    fix(py)
    command = f"shopt -s expand_aliases\nalias pytest='{FAKE_OUTPUT} #'\npytest -q"
    assert py.sh(command) == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_a_make_target_that_only_echoes_is_refused_and_a_real_one_counts(py: Session) -> None:
    fix(py)
    py.write("Makefile", f"test:\n\t@{FAKE_OUTPUT}\n\ncheck:\n\tpytest -q\n")
    assert py.sh("make test") == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK
    assert py.sh("make check") == 0
    assert py.stop_verdict() is Verdict.ALLOW


def test_a_failing_suite_piped_to_head_is_not_a_pass(py: Session) -> None:
    fix(py)
    py.write("test_more.py", "def test_broken():\n    assert False\n")
    assert py.sh("pytest -q 2>&1 | head -1") == 0  # head's status, not pytest's
    assert py.state().counters.last_verification_ok is not True
    assert py.stop_verdict() is Verdict.BLOCK


def test_a_piped_run_with_pipefail_counts(py: Session) -> None:
    fix(py)
    assert py.sh("set -o pipefail; pytest -q 2>&1 | tail -3") == 0
    assert py.state().counters.last_verification_ok is True
    assert py.stop_verdict() is Verdict.ALLOW


def test_or_true_and_semicolon_true_mask_the_status(py: Session) -> None:
    fix(py)
    assert py.sh("pytest -q || true") == 0
    assert py.sh("pytest -q; true") == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


NODE_TEST = (
    "const test = require('node:test');\nconst assert = require('node:assert');\n"
    "const { add } = require('./calc.js');\ntest('add', () => assert.equal(add(2, 2), 4));\n"
)


@pytest.fixture
def node(tmp_path: Path) -> Session:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    s = Session(tmp_path)
    s.write("calc.test.js", NODE_TEST)
    s.write("calc.js", "exports.add = (a, b) => a - b;\n")
    return s


def test_node_test_runner_failing_then_passing(node: Session) -> None:
    assert node.sh("node --test") != 0
    assert node.stop_verdict() is Verdict.BLOCK
    node.write("calc.js", "exports.add = (a, b) => a + b;\n")
    assert node.sh("node --test") == 0
    assert node.stop_verdict() is Verdict.ALLOW


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_test_is_read_to_its_script(node: Session) -> None:
    node.write("calc.js", "exports.add = (a, b) => a + b;\n")
    node.write("package.json", '{"scripts": {"test": "echo \\"# pass 5\\""}}')
    assert node.sh("npm test") == 0
    assert node.state().verifications == []
    assert node.stop_verdict() is Verdict.BLOCK
    node.write("package.json", '{"scripts": {"test": "node --test"}}')
    assert node.sh("npm test") == 0
    assert node.stop_verdict() is Verdict.ALLOW


def test_a_run_that_selects_no_test_is_no_evidence(py: Session) -> None:
    """pytest -k with no match exits 5 having run nothing: it is neither a pass nor a failure."""
    fix(py)
    assert py.sh("pytest -q -k nomatch") == 5
    st = py.state()
    assert st.verifications == []
    stopping = stop("Fixed add; the tests pass.", cwd=str(py.proj), session_id="s1")
    ctx = make_context(stopping, state=st)
    findings = DoneReflex().evaluate(ctx)
    assert findings and findings[0].verdict is Verdict.BLOCK
    assert "no test run is recorded" in findings[0].message
    assert "no test ran (none selected or found)" in findings[0].message
    assert "evidence that counts: a passing run" in findings[0].message


@pytest.mark.parametrize("mask", ["; exit 0", "|| true"])
def test_a_run_that_selects_no_test_and_hides_its_status_is_no_evidence(
    py: Session, mask: str
) -> None:
    fix(py)
    assert py.sh(f"pytest -q -k nomatch {mask}") == 0
    assert py.state().verifications == []
    assert py.stop_verdict() is Verdict.BLOCK


def test_a_passing_run_in_another_project_is_no_evidence_and_the_stop_says_why(
    py: Session,
) -> None:
    other = py.proj.parent / "other"
    other.mkdir()
    (other / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    fix(py)
    assert py.sh("cd ../other && pytest -q") == 0
    assert py.state().verifications == []
    stopping = stop("Fixed add; the tests pass.", cwd=str(py.proj), session_id="s1")
    findings = DoneReflex().evaluate(make_context(stopping, state=py.state()))
    assert findings and findings[0].verdict is Verdict.BLOCK
    assert "outside the project" in findings[0].message
    assert "in this project after the last change" in findings[0].message
    assert py.sh("pytest -q") == 0
    assert py.stop_verdict() is Verdict.ALLOW
