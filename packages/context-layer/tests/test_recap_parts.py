"""The recap's parts: constraints in the user's words, the token estimate, priority truncation."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.context_layer import constraints, recap
from agentreflex.context_layer.tokens import estimate_tokens
from agentreflex.core.recap import Recap, RecapSection, render_plain
from agentreflex.core.state.model import ActionRecord, Intervention, SessionState


def test_constraint_sentences_are_verbatim_and_file_names_stay_whole() -> None:
    found = constraints.from_prompts(
        [
            "Fix the parser bug. Do not touch the public API in api.py. Thanks!",
            "Only use the standard library; keep tests/test_api.py as it is\nrun it",
        ]
    )
    assert found == [
        "Do not touch the public API in api.py.",
        "Only use the standard library",
        "keep tests/test_api.py as it is",
    ]


def test_gate_notes_inside_a_sentence_are_not_repeated() -> None:
    notes = [
        {"action": "modify", "target": "api.py", "text": "Do not touch the public API"},
        {"action": "add_dependency", "target": "dependencies", "text": "no new dependencies"},
        "junk",
        {"text": 3},
    ]
    merged = constraints.merged(["Do not touch the public API in api.py."], notes)
    assert merged == ["Do not touch the public API in api.py.", "no new dependencies"]


def test_token_estimate_needs_no_tokenizer_and_errs_high_off_ascii() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("日本語のテキスト") == 8


def _state() -> SessionState:
    st = SessionState(session_id="s1", goal="Ship the exporter. " * 3)
    st.prompts = ["Ship the exporter. Never push to main. Do not add dependencies."]
    st.failures = [
        ActionRecord(
            seq=i,
            ts=0,
            tool="Bash",
            kind="shell",
            summary=f"Bash: make t{i}",
            fingerprint=f"f{i}",
            outcome="failure",
            exit_code=2,
        )
        for i in range(1, 6)
    ]
    st.actions = list(st.failures)
    st.interventions = [
        Intervention(
            seq=9,
            ts=0,
            event="pre_tool",
            reflex="gate",
            code="GATE-DESTRUCTIVE-RM",
            verdict="BLOCK",
            label="BLOCK",
            message="rm -rf of the project was blocked",
        )
    ]
    return st


def test_everything_is_there_with_room() -> None:
    text = render_plain(recap.build(_state(), None, "", 4000))
    for needle in (
        "Never push to main.",
        "Bash: make t5 -> exit 2",
        "GATE-DESTRUCTIVE-RM",
        "Ship the exporter",
    ):
        assert needle in text


def test_a_failure_followed_by_the_same_call_succeeding_is_resolved() -> None:
    st = _state()
    st.actions.append(
        ActionRecord(
            seq=20,
            ts=0,
            tool="Bash",
            kind="shell",
            summary="Bash: make t5",
            fingerprint="f5",
            outcome="success",
        )
    )
    assert not any("t5" in line for line in recap.unresolved_failures(st))


PARTS = """
def parts(state_dir, session_id):
    kept = ["verify the exporter's output (IDENTIFIED)"] if session_id == "s1" else []
    return [("Open checks", kept, True), ("Findings", ["RG-EVIDENCE: claimed without a run"], False)]


def broken(state_dir, session_id):
    raise RuntimeError("a package's part must not break the recap")
"""


@pytest.fixture
def declared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two packages declare recap parts (one of them broken); core gathers them."""
    from agentreflex.core import registry

    (tmp_path / "demo_recap_parts.py").write_text(PARTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    table = {registry.RECAPS: [["a", "demo_recap_parts:broken"], ["b", "demo_recap_parts:parts"]]}
    monkeypatch.setattr(registry, "_MEMO", table)


def test_over_budget_constraints_and_kept_parts_go_last(tmp_path: Path, declared: None) -> None:
    full = recap.build(_state(), None, str(tmp_path), 4000)
    assert "verify the exporter's output (IDENTIFIED)" in render_plain(full)
    assert "RG-EVIDENCE" in render_plain(full)
    small = recap.build(_state(), None, str(tmp_path), 110)
    text = render_plain(small)
    assert estimate_tokens(text) <= 110
    assert "Never push to main." in text
    assert "verify the exporter's output" in text  # declared to keep
    assert "make t1" not in text and "RG-EVIDENCE" not in text  # cut first
    assert "Left out to fit" in text


def test_budget_lines_only_for_limits_the_user_set() -> None:
    class Conf:
        def section(self, name: str) -> dict[str, object]:
            return {"session_tool_calls": 50, "session_tokens": 0, "session_cost_usd": True}

    st = _state()
    st.counters.tool_calls = 40
    assert recap.budget_lines(st, Conf()) == ["tool calls: 40 of 50 (80%)"]  # type: ignore[arg-type]


def test_render_plain_skips_empty_sections() -> None:
    text = render_plain(Recap([RecapSection("A", ["x"]), RecapSection("B", [])]))
    assert "A:\n- x" in text and "B:" not in text
