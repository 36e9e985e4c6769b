"""The state builder: concise, redacted, bounded, never the transcript."""

from __future__ import annotations

from typing import Any

from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import post_tool, pre_tool, stop
from agentreflex.judge2.statetext import MAX_CHARS, build_state


def test_sections_and_subject(session: Any) -> None:
    state = (
        session("make login work")
        .constraint("do not modify tests")
        .run("npm test", ok=False, error="TypeError: x is undefined")
        .edit("src/login.js")
        .test(True, output="4 passing")
        .state
    )
    text = build_state(state, pre_tool("Bash", {"command": "git commit -am wip"}), s.PRE_TOOL)
    assert text.startswith("GOAL: make login work")
    assert "CONSTRAINTS:\n- do not modify tests" in text
    assert "#1 shell: npm test -> failure (exit 1) TypeError: x is undefined" in text
    assert "[changed files]" in text and "[test run]" in text
    assert "EVIDENCE:\n- 4 passing" in text
    assert "LAST FILE CHANGE: #2; LAST TEST RUN: #3 passed" in text
    assert text.endswith("PROPOSED ACTION: Bash (shell): git commit -am wip")


def test_post_tool_and_completion_subjects(session: Any) -> None:
    state = session().state
    post = build_state(
        state,
        post_tool("Bash", {"command": "make"}, ok=False, error="boom", exit_code=2),
        s.POST_TOOL,
    )
    assert "LAST RESULT: failed, exit 2\nOUTPUT: boom" in post
    done = build_state(state, stop("All green."), s.COMPLETION)
    assert done.endswith("FINAL MESSAGE: All green.")


def test_secrets_are_redacted(session: Any) -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4"
    state = session(f"use token {key}").evidence(f"password={key}").state
    text = build_state(
        state, pre_tool("Bash", {"command": f"curl -H 'Authorization: Bearer {key}' x"}), s.PRE_TOOL
    )
    assert key not in text
    assert "[REDACTED]" in text


def test_bounded_whatever_the_session_size(session: Any) -> None:
    builder = session("g" * 10_000)
    for i in range(300):
        builder.run(f"cmd-{i} " + "x" * 1000, ok=i % 2 == 0).evidence("y" * 5000)
    text = build_state(
        builder.state, pre_tool("Write", {"file_path": "a", "content": "z" * 100_000}), s.PRE_TOOL
    )
    assert len(text) <= MAX_CHARS
    assert "cmd-299" in text and "cmd-100 " not in text


def test_never_the_transcript() -> None:
    event = stop("Done.", transcript_path="/home/u/.claude/projects/x.jsonl")
    event.raw = {"transcript": "SECRET-CONVERSATION-TEXT"}
    text = build_state(SessionState(), event, s.COMPLETION)
    assert "SECRET-CONVERSATION-TEXT" not in text and "x.jsonl" not in text


def test_long_tool_output_keeps_its_end() -> None:
    output = "collecting ... " + "." * 5000 + " FAILED tests/test_x.py::test_y - AssertionError"
    event = post_tool("Bash", {"command": "pytest"}, ok=False, error=output)
    text = build_state(SessionState(), event, s.POST_TOOL)
    assert text.startswith("GOAL") and "collecting" in text
    assert text.endswith("FAILED tests/test_x.py::test_y - AssertionError")
