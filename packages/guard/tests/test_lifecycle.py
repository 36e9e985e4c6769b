"""Lifecycle, boundaries, modes and findings, driven through the reflex like a host would."""

from __future__ import annotations

import copy
import json
import os
from typing import Any

from agentreflex.core.decision import Mode, Verdict, merge
from agentreflex.core.testing import make_config, post_tool, pre_tool, prompt, stop
from agentreflex.guard import plugin
from guard_testkit import DIRECTIVE, Runner, codes, guard_config, make_runner, marker, session

ADAPTER = {"command": "adapter-status --json"}
RESOLVED = (
    "Resolved: The selected adapter is active; evidence: adapter-status reported active=true; "
    "conclusion: the adapter is active."
)


def opened(run: Runner) -> None:
    assert run(prompt("Please check before deciding. " + marker())) == []


def evidence(
    run: Runner, output: str = '{"active": true}', ok: bool = True, tid: str = "t1"
) -> None:
    run(pre_tool("Bash", ADAPTER, tool_use_id=tid))
    run(post_tool("Bash", ADAPTER, ok=ok, output=output, tool_use_id=tid))


def obligation(state_dir: str) -> dict:  # type: ignore[type-arg]
    obs = session(state_dir)["obligations"]
    assert len(obs) == 1
    return obs[0]  # type: ignore[no-any-return]


def test_explicit_obligation_walks_the_lifecycle(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    assert obligation(state_dir)["state"] == "PLANNED"
    assert obligation(state_dir)["confidence"] == "high"
    blocked = run_on(stop("Stopping here."))
    assert codes(blocked) == ["RG-EVIDENCE-OPEN-001"]
    assert blocked[0].verdict is Verdict.BLOCK and blocked[0].enforce
    run_on(pre_tool("Bash", ADAPTER, tool_use_id="t1"))
    assert obligation(state_dir)["state"] == "EXECUTED"
    run_on(post_tool("Bash", ADAPTER, ok=True, output='{"active": true}', tool_use_id="t1"))
    ob = obligation(state_dir)
    assert ob["state"] == "EVIDENCED"
    assert ob["requirements"][0]["outcomes"] == [True, True]
    assert ob["requirements"][0]["evidence_digest"].startswith("sha256:")
    reconcile = run_on(stop("Stopping."))
    assert "recorded but not yet reconciled" in reconcile[0].message
    assert run_on(stop(RESOLVED)) == []
    ob = obligation(state_dir)
    assert ob["state"] == "RESOLVED"
    assert [h["state"] for h in ob["history"]] == ["PLANNED", "EXECUTED", "EVIDENCED", "RESOLVED"]
    assert ob["resolution"]["evidence_recorded"] is True
    findings = session(state_dir)["findings"]
    assert findings and not any(f["active"] for f in findings)


def test_raw_output_is_never_stored(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    evidence(run_on, output='{"active": true, "note": "UNIQUE-OUTPUT-MARKER"}')
    with open(os.path.join(state_dir, "local", "claude_reasoning_guard.json")) as fh:
        assert "UNIQUE-OUTPUT-MARKER" not in fh.read()


def test_a_tool_call_alone_is_not_evidence(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    run_on(pre_tool("Bash", ADAPTER, tool_use_id="t1"))
    assert codes(run_on(stop("ok"))) == ["RG-EVIDENCE-OPEN-001"]


def test_failed_predicates_keep_the_check_open(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    evidence(run_on, output='{"active": false}')
    ob = obligation(state_dir)
    assert ob["state"] == "EXECUTED"
    assert ob["requirements"][0]["outcomes"] == [True, False]
    found = run_on(stop("waiting"))
    assert "1 of 2 acceptance predicates held" in found[0].message


def test_error_outcome_fails_outcome_is_success(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    evidence(run_on, output='{"active": true}', ok=False)
    assert obligation(state_dir)["requirements"][0]["outcomes"] == [False, True]


def test_tool_matches_first_shell_word_behind_wrappers(run_on: Runner, state_dir: str) -> None:
    d = copy.deepcopy(DIRECTIVE)
    d["required_evidence"][0] = {
        "type": "tool-result",
        "tool": "pytest",
        "acceptance": [
            {"predicate": "output_contains_all", "values": ["passed"]},
            {"predicate": "output_contains_none", "values": ["failed"]},
        ],
    }
    run_on(prompt(marker(d)))
    cmd = {"command": "FOO=1 uv run pytest -q tests/"}
    run_on(pre_tool("Bash", cmd, tool_use_id="p1"))
    run_on(post_tool("Bash", cmd, ok=True, output="12 passed in 0.3s", tool_use_id="p1"))
    assert obligation(state_dir)["state"] == "EVIDENCED"


def test_tool_matches_the_host_tool_name(run_on: Runner, state_dir: str) -> None:
    d = copy.deepcopy(DIRECTIVE)
    d["required_evidence"][0]["tool"] = "Read"
    d["required_evidence"][0]["acceptance"] = [{"predicate": "outcome_is", "value": "success"}]
    run_on(prompt(marker(d)))
    run_on(post_tool("Read", {"file_path": "/p/x"}, ok=True, output="text", tool_use_id="r1"))
    assert obligation(state_dir)["state"] == "EVIDENCED"


def test_unrelated_tool_does_not_execute_the_check(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    run_on(pre_tool("Bash", {"command": "echo adapter-status"}, tool_use_id="x"))
    assert obligation(state_dir)["state"] == "PLANNED"


def test_payload_object_and_json_string(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("on"))
    run(prompt("hi", raw={"reasoning_evidence_check": DIRECTIVE}))
    d = copy.deepcopy(DIRECTIVE)
    d["claim"] = "Second claim."
    run(pre_tool("Read", {"file_path": "/x"}, raw={"reasoning_evidence_check": json.dumps(d)}))
    assert {o["name"] for o in session(state_dir)["obligations"]} == {
        "The selected adapter is active.",
        "Second claim.",
    }


def test_marker_in_a_tool_description(run_on: Runner, state_dir: str) -> None:
    run_on(pre_tool("Bash", {"command": "ls", "description": "plan " + marker()}))
    assert obligation(state_dir)["origin"] == "tool_input"


def test_invalid_directive_is_diagnosed_not_obeyed(run_on: Runner, state_dir: str) -> None:
    run_on(prompt('Evidence-Check: {"version": 2}'))
    report = session(state_dir)
    assert report["obligations"] == []
    assert "invalid Evidence-Check directive (prompt)" in report["diagnostics"][-1]["message"]


def test_prompt_text_is_not_persisted(run_on: Runner, state_dir: str) -> None:
    run_on(prompt("SECRET-PROMPT-WORDS please investigate why the router fails " + marker()))
    with open(os.path.join(state_dir, "local", "claude_reasoning_guard.json")) as fh:
        assert "SECRET-PROMPT-WORDS" not in fh.read()


def test_report_mode_records_but_never_enforces(run_report: Runner, state_dir: str) -> None:
    opened(run_report)
    found = run_report(stop("All done."))
    assert codes(found) == ["RG-COMPLETION-AHEAD-001", "RG-EVIDENCE-OPEN-001"]
    assert not any(f.enforce for f in found)
    decision = merge(found, Mode.ENFORCED)
    assert decision.verdict is Verdict.ALLOW and decision.label == "WOULD_BLOCK"
    assert decision.context == []
    assert len(session(state_dir)["findings"]) == 2


def test_on_mode_blocks_through_the_merge(run_on: Runner) -> None:
    opened(run_on)
    decision = merge(run_on(stop("All done.")), Mode.ENFORCED)
    assert decision.verdict is Verdict.BLOCK and decision.label == "BLOCK"


def test_category_off_suppresses_only_that_category(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("on", completion_claims="off"))
    run(prompt(marker()))
    assert codes(run(stop("All done."))) == ["RG-EVIDENCE-OPEN-001"]


def test_category_on_under_global_report(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report", evidence_follow_through="on"))
    run(prompt(marker()))
    found = {f.code: f.enforce for f in run(stop("All done."))}
    assert found == {"RG-EVIDENCE-OPEN-001": True, "RG-COMPLETION-AHEAD-001": False}


def test_global_off_is_a_master_switch_and_preserves_the_report(state_dir: str) -> None:
    make_runner(state_dir, guard_config("report"))(prompt(marker()))
    path = os.path.join(state_dir, "local", "claude_reasoning_guard.json")
    with open(path, "rb") as fh:
        before = fh.read()
    off = make_runner(state_dir, guard_config("off", completion_claims="on"))
    assert off(stop("All done.")) == []
    with open(path, "rb") as fh:
        assert fh.read() == before


def test_global_off_writes_nothing(state_dir: str) -> None:
    assert make_runner(state_dir, guard_config("off"))(stop("x")) == []
    assert not os.path.exists(state_dir)


def test_profiles_map_to_guard_modes() -> None:
    modes = {
        p: plugin.mode(make_config(env={"AGENTREFLEX_PROFILE": p}))
        for p in ("off", "lean", "balanced", "thorough")
    }
    assert modes == {"off": "off", "lean": "off", "balanced": "report", "thorough": "on"}


def test_non_blocking_directive_never_enforces(run_on: Runner) -> None:
    d = copy.deepcopy(DIRECTIVE)
    d["blocking"] = False
    run_on(prompt(marker(d)))
    found = run_on(stop("done"))
    assert found and not any(f.enforce for f in found)


def test_heuristic_obligation_is_low_confidence_and_report_only(
    run_on: Runner, state_dir: str
) -> None:
    run_on(stop("Investigating why the router fallback test fails on Linux."))
    ob = obligation(state_dir)
    assert (ob["source"], ob["confidence"], ob["blocking"]) == ("heuristic", "low", False)
    found = run_on(stop("All done."))
    assert "RG-COMPLETION-AHEAD-001" in codes(found)
    assert not any(f.enforce for f in found)
    assert session(state_dir)["clearance"]["state"] == "conditional"


def test_heuristic_execution_needs_action_and_shared_subject(
    run_on: Runner, state_dir: str
) -> None:
    run_on(stop("I'll run the router fallback tests to see why they fail."))
    run_on(pre_tool("Bash", {"command": "pytest tests/test_cache.py"}, tool_use_id="a"))
    assert obligation(state_dir)["state"] == "PLANNED"
    run_on(pre_tool("Read", {"file_path": "/p/router/fallback.py"}, tool_use_id="b"))
    assert obligation(state_dir)["state"] == "PLANNED"
    run_on(pre_tool("Bash", {"command": "pytest tests/test_router.py"}, tool_use_id="c"))
    assert obligation(state_dir)["state"] == "EXECUTED"


def test_a_heuristic_test_check_is_not_evidenced_by_a_run_that_ran_no_test(
    run_on: Runner, state_dir: str
) -> None:
    run_on(stop("I'll run the router fallback tests to see why they fail."))
    nomatch = {"command": "pytest tests/test_router.py -k nomatch"}
    run_on(pre_tool("Bash", nomatch, tool_use_id="a"))
    run_on(post_tool("Bash", nomatch, ok=True, output="\n3 deselected in 0.01s", tool_use_id="a"))
    assert obligation(state_dir)["state"] == "EXECUTED"  # ran, but showed nothing
    assert "executed no test" in obligation(state_dir)["last_outcome"]
    real = {"command": "pytest tests/test_router.py"}
    run_on(pre_tool("Bash", real, tool_use_id="b"))
    run_on(post_tool("Bash", real, ok=False, output="1 failed, 2 passed in 0.2s", tool_use_id="b"))
    assert obligation(state_dir)["state"] == "EVIDENCED"


def test_a_heuristic_test_check_is_not_executed_by_tests_of_another_folder(
    run_on: Runner, state_dir: str, tmp_path: Any
) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    run_on(stop("I'll run the router fallback tests to see why they fail.", cwd=str(proj)))
    other = {"command": "cd /tmp/scratch && pytest tests/test_router.py"}
    run_on(pre_tool("Bash", other, tool_use_id="a", cwd=str(proj)))
    assert obligation(state_dir)["state"] == "PLANNED"
    here = {"command": "pytest tests/test_router.py"}
    run_on(pre_tool("Bash", here, tool_use_id="b", cwd=str(proj)))
    assert obligation(state_dir)["state"] == "EXECUTED"


def test_pre_tool_mutation_is_blocked_before_evidence(run_on: Runner) -> None:
    opened(run_on)
    edit = {"file_path": "/p/policies/routing.toml", "old_string": "a", "new_string": "b"}
    found = run_on(pre_tool("Edit", edit, tool_use_id="e1"))
    assert codes(found) == ["RG-MUTATION-AHEAD-001"]
    assert found[0].verdict is Verdict.BLOCK and found[0].enforce
    assert "routing.toml" in found[0].message


def test_shell_writes_to_policy_files_are_mutations(run_on: Runner) -> None:
    opened(run_on)
    cmd = {"command": "echo 'x = 1' >> config/settings.toml"}
    assert codes(run_on(pre_tool("Bash", cmd, tool_use_id="s1"))) == ["RG-MUTATION-AHEAD-001"]
    assert run_on(pre_tool("Bash", {"command": "cat config/settings.toml"}, tool_use_id="s2")) == []


def test_ordinary_edits_and_mutations_without_obligations_pass(run_on: Runner) -> None:
    edit = {"file_path": "/p/config.toml", "old_string": "a", "new_string": "b"}
    assert run_on(pre_tool("Edit", edit)) == []
    opened(run_on)
    assert run_on(pre_tool("Edit", {"file_path": "/p/src/app.py", "new_string": "b"})) == []


def test_labelled_temporary_mitigation_is_allowed_and_does_not_resolve(
    run_on: Runner, state_dir: str
) -> None:
    opened(run_on)
    edit = {
        "file_path": "/p/config/hooks.json",
        "content": "{}",
        "description": "Temporary mitigation: fail closed; the root cause remains unresolved.",
    }
    assert run_on(pre_tool("Write", edit, tool_use_id="m1")) == []
    ob = obligation(state_dir)
    assert ob["state"] == "PLANNED" and ob["mitigations"] == 1
    assert session(state_dir)["actions"][-1]["action"] == "mitigation_allowed"


def test_mitigation_resolved_line_does_not_resolve(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    run_on(
        stop(
            "Resolved: adapter; evidence: none; conclusion: temporary mitigation, root cause "
            "remains unresolved."
        )
    )
    assert obligation(state_dir)["state"] == "PLANNED"


def test_post_tool_mutation_not_seen_early_gets_a_corrective_instruction(run_on: Runner) -> None:
    opened(run_on)
    edit = {"file_path": "/p/.claude/settings.json", "content": "{}"}
    found = run_on(post_tool("Write", edit, ok=True, tool_use_id="w9"))
    assert codes(found) == ["RG-MUTATION-AHEAD-001"]
    assert found[0].context and "already ran" in found[0].context
    assert found[0].detail["corrective"] is True


def test_post_tool_after_a_judged_pre_tool_is_not_repeated(run_report: Runner) -> None:
    opened(run_report)
    edit = {"file_path": "/p/routing.yaml", "content": "x"}
    assert codes(run_report(pre_tool("Write", edit, tool_use_id="w1"))) == ["RG-MUTATION-AHEAD-001"]
    assert run_report(post_tool("Write", edit, ok=True, tool_use_id="w1")) == []


def test_causal_claim_ahead_of_evidence(run_on: Runner) -> None:
    opened(run_on)
    found = run_on(stop("The root cause is the stale cache."))
    assert "RG-CAUSAL-AHEAD-001" in codes(found)


def test_causal_claim_after_evidence_is_not_ahead(run_on: Runner) -> None:
    opened(run_on)
    evidence(run_on)
    assert "RG-CAUSAL-AHEAD-001" not in codes(run_on(stop("The root cause is the stale cache.")))


def test_causal_claim_at_a_tool_boundary_is_a_warning_with_context(run_on: Runner) -> None:
    opened(run_on)
    found = run_on(pre_tool("Bash", {"command": "ls", "description": "The cause was the cache."}))
    assert codes(found) == ["RG-CAUSAL-AHEAD-001"]
    assert found[0].verdict is Verdict.WARN and found[0].context


def test_hedged_claims_are_not_claims(run_on: Runner) -> None:
    opened(run_on)
    found = run_on(stop("It is not done yet; the root cause might be the cache."))
    assert codes(found) == ["RG-EVIDENCE-OPEN-001"]


def test_findings_coalesce_and_count_only_new_states(run_report: Runner, state_dir: str) -> None:
    opened(run_report)
    for _ in range(3):
        run_report(stop("pausing"))
    f = next(x for x in session(state_dir)["findings"] if x["code"] == "RG-EVIDENCE-OPEN-001")
    assert f["count"] == 1 and len(f["source_digests"]) == 3
    assert f["last_seen"] >= f["first_seen"]
    run_report(pre_tool("Bash", ADAPTER, tool_use_id="t1"))
    run_report(stop("pausing"))
    run_report(stop("pausing"))
    f = next(x for x in session(state_dir)["findings"] if x["code"] == "RG-EVIDENCE-OPEN-001")
    assert f["count"] == 2 and f["last_state"] == "EXECUTED"


def test_deferral_closes_but_clearance_stays_blocked(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    deferred = (
        "Deferred: The selected adapter is active; reason: the status endpoint is down; "
        "decision impact: routing stays on the old adapter; reopen when: the endpoint is back."
    )
    assert run_on(stop(deferred)) == []
    ob = obligation(state_dir)
    assert ob["state"] == "DEFERRED" and ob["deferral"]["reopen_when"] == "the endpoint is back"
    assert session(state_dir)["clearance"]["state"] == "blocked"


def test_incomplete_closing_closes_nothing(run_on: Runner, state_dir: str) -> None:
    opened(run_on)
    run_on(stop("Resolved: The selected adapter is active; evidence: ; conclusion: yes"))
    assert obligation(state_dir)["state"] == "PLANNED"


def test_resolution_without_evidence_leaves_the_check_open(run_on: Runner, state_dir: str) -> None:
    """Seed 003: RESOLVED binds evidence that exists; it is not a way around EVIDENCED."""
    opened(run_on)
    held = run_on(stop(RESOLVED))
    assert merge(held, Mode.ENFORCED).verdict is Verdict.BLOCK
    report = session(state_dir)
    ob = report["obligations"][0]
    assert ob["state"] == "PLANNED" and ob["resolution"] is None
    assert report["clearance"]["state"] == "blocked"
    [limit] = [x for x in report["clearance"]["limitations"] if "without evidence" in x]
    assert limit.startswith("resolution without evidence for " + ob["id"])
    looked = "Resolved: The selected adapter is active; evidence: looked; conclusion: ok."
    run_on(stop(looked, stop_hook_active=True))
    assert obligation(state_dir)["state"] == "PLANNED"


def test_on_mode_holds_a_stop_once_then_only_records_it(run_on: Runner, state_dir: str) -> None:
    """The done reflex's one-shot valve: a model that never resolves the check cannot
    loop forever (the real Codex asked the model 600 times without it)."""
    from agentreflex.core.state.model import SessionState
    from agentreflex.core.testing import make_context
    from agentreflex.guard.reflex import GuardReflex

    opened(run_on)
    assert merge(run_on(stop("All done.")), Mode.ENFORCED).verdict is Verdict.BLOCK
    for held_just_before in (stop("All done.", stop_hook_active=True), None):
        state = SessionState()
        event = held_just_before or stop("All done.")
        if held_just_before is None:
            state.counters.stop_blocks_in_row = 1
        found = GuardReflex(env={}).evaluate(
            make_context(event, state=state, config=guard_config("on"), state_dir=state_dir)
        )
        assert "RG-EVIDENCE-OPEN-001" in codes(found) and not any(f.enforce for f in found)
        assert merge(found, Mode.ENFORCED).verdict is Verdict.ALLOW
    assert merge(run_on(stop("All done.")), Mode.ENFORCED).verdict is Verdict.BLOCK  # still open
