"""The built-in engine: judge2's batteries answered from judge2's own state text."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.heuristic.engine import NOUL_RULES, BuiltinEngine
from agentreflex.core.systemone.heuristic.reader import read
from agentreflex.core.testing import pre_tool, stop
from agentreflex.judge2 import calibrate as cal
from agentreflex.judge2.done.claims import claim_question
from agentreflex.judge2.questions import battery
from agentreflex.judge2.statetext import build_state
from agentreflex.laya.models import SystemOneRequest

ROOT = Path(__file__).resolve().parents[3]
LABELLED = ROOT / "packages/laya/calibration/labelled.jsonl"


def tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def ask(
    state: str, which: str, extra: dict[str, object] | None = None
) -> dict[str, dict[str, object]]:
    req = SystemOneRequest.model_validate(
        {"state": state, "questions": {**battery(which), **(extra or {})}}
    )
    return BuiltinEngine().answer(req.state, req.questions)


def test_every_battery_question_has_a_rule() -> None:
    for which in (s.PRE_TOOL, s.POST_TOOL, s.COMPLETION):
        assert set(battery(which)) <= set(NOUL_RULES)


def test_reader_recovers_judge2_state_text() -> None:
    from agentreflex.core.state.model import ActionRecord, SessionState

    st = SessionState(session_id="x", host="claude-code", goal="fix it")
    st.actions.append(
        ActionRecord(
            seq=3,
            ts=1.0,
            tool="Bash",
            kind="shell",
            summary="pytest -q",
            fingerprint="f",
            outcome="failure",
            error_signature="AssertionError",
            exit_code=1,
            verification=True,
        )
    )
    st.counters.last_verification_seq, st.counters.last_verification_ok = 3, False
    st.counters.last_mutation_seq = 2
    facts = read(build_state(st, pre_tool("Bash", {"command": "make"}), s.PRE_TOOL))
    assert facts.goal == "fix it"
    [action] = facts.actions
    assert (action.seq, action.ok, action.exit_code, action.test_run, action.error) == (
        3,
        False,
        1,
        True,
        "AssertionError",
    )
    assert (facts.last_change, facts.last_test, facts.last_test_verdict) == (2, 3, "failed")
    assert (facts.tool, facts.tool_kind, facts.target) == ("Bash", "shell", "make")


def test_text_in_another_layout_gets_cannot_tell_not_a_crash() -> None:
    answers = ask("just some words \x00 with no structure\n- item", s.COMPLETION)
    assert all(0.0 <= a["noul"] <= 1.0 for a in answers.values())  # type: ignore[operator]


def test_unknown_questions_get_uniform_honest_answers() -> None:
    extra = {
        "mystery": {"type": "noul", "instructions": "Is the moon made of cheese?"},
        "pick": {
            "type": "choice",
            "instructions": "Which?",
            "criteria": {"a": "", "b": "", "c": "", "d": ""},
        },
        "rate": {"type": "score", "instructions": "How?", "criteria": ["0", "1", "2", "3", "4"]},
    }
    answers = ask("GOAL: x", s.PRE_TOOL, extra)
    assert answers["mystery"] == {"type": "noul", "noul": 0.5}
    assert answers["pick"]["probabilities"] == {"a": 0.25, "b": 0.25, "c": 0.25, "d": 0.25}
    assert answers["rate"]["score"] == 2.0


def test_claim_questions_follow_the_test_record() -> None:
    from agentreflex.judge2.done.claims import extract_claims

    [claim] = extract_claims("All tests pass.")
    q = {"claim_1": claim_question(claim)}
    failing = "LAST FILE CHANGE: #1; LAST TEST RUN: #2 failed\nFINAL MESSAGE: All tests pass."
    passing = "LAST FILE CHANGE: #1; LAST TEST RUN: #2 passed\nFINAL MESSAGE: All tests pass."
    never = "LAST FILE CHANGE: #1; LAST TEST RUN: never\nFINAL MESSAGE: All tests pass."
    assert ask(failing, s.COMPLETION, q)["claim_1"]["choice"] == "contradicted"
    assert ask(passing, s.COMPLETION, q)["claim_1"]["choice"] == "supported"
    assert ask(never, s.COMPLETION, q)["claim_1"]["choice"] == "insufficient"


def test_deterministic() -> None:
    state = build_state(
        __import__("agentreflex.core.state.model", fromlist=["SessionState"]).SessionState(),
        stop("Fixed it, tests pass."),
        s.COMPLETION,
    )
    assert ask(state, s.COMPLETION) == ask(state, s.COMPLETION)


def test_labelled_set_is_what_the_generator_writes() -> None:
    rows = tool("laya_labelled_set").rows()
    on_disk = [json.loads(line) for line in LABELLED.read_text("utf-8").splitlines()]
    assert on_disk == rows  # regenerate with tools/laya_labelled_set.py
    assert len(rows) >= 150


def test_calibration_on_the_labelled_set_stays_at_the_readme_figures() -> None:
    scored = tool("laya_calibration").score(LABELLED)
    report = cal.evaluate(cal.read_samples(json.dumps(r) for r in scored), 10, [0.9])
    # The README reports Brier 0.077 and ECE 0.094 on 174 decisions; a change to the
    # rules that makes them worse must update the README (and this bound) on purpose.
    assert report.count == 174
    assert report.brier <= 0.078
    assert report.ece <= 0.095
    assert report.thresholds[0.9][1] == 1.0  # every "plainly yes" was right


def test_a_call_repeated_after_it_failed_is_seen_as_the_store_records_it() -> None:
    """The store summarises a call as ``Bash: <command>`` (core's ``summarize``); the
    proposal is read as its bare command.  The repeat rule must see them as one call."""
    from agentreflex.core.state.model import ActionRecord, SessionState
    from agentreflex.core.state.outcome import summarize

    event = pre_tool("Bash", {"command": "python3 scripts/migrate.py"})
    assert event.tool is not None
    st = SessionState(session_id="x", host="claude-code", goal="migrate")
    for seq in (1, 2):
        st.actions.append(
            ActionRecord(
                seq=seq,
                ts=float(seq),
                tool="Bash",
                kind="shell",
                summary=summarize(event.tool),
                fingerprint="f",
                outcome="failure",
                error_signature="KeyError",
                exit_code=1,
            )
        )
    answers = BuiltinEngine().answer(build_state(st, event, s.PRE_TOOL), battery(s.PRE_TOOL))
    assert answers[s.REPEATS_FAILED_APPROACH]["noul"] >= 0.9, answers[s.REPEATS_FAILED_APPROACH]


# --- completion: unresolved_failure (issue #36) ------------------------------------------------


def stop_state(
    *actions: str, final: str, change: str = "never", test: str = "never", evidence: str = ""
) -> str:
    """judge2's stop state text: ``actions`` are RECENT ACTIONS lines (``#1 shell: Bash: x ->
    failure (exit 1)``); failed ones are listed again under FAILURES, as the store does."""
    failed = [a for a in actions if " -> failure" in a]
    return "\n".join(
        [
            "GOAL: (not stated)",
            "CONSTRAINTS: none",
            "RECENT ACTIONS:",
            *(f"- {a}" for a in actions),
            "FAILURES:" if failed else "FAILURES: none",
            *(f"- {a}" for a in failed),
            "EVIDENCE:" if evidence else "EVIDENCE: none",
            *([f"- {evidence}"] if evidence else []),
            "TEST RUNS: none",
            f"LAST FILE CHANGE: {change}; LAST TEST RUN: {test}",
            f"FINAL MESSAGE: {final}",
        ]
    )


def unresolved(state: str) -> float:
    return NOUL_RULES[s.UNRESOLVED_FAILURE](read(state))


FAIL = "#1 shell: Bash: pytest -q -> failure (exit 1) [test run] 2 failed"
PASS = "#3 shell: Bash: pytest -q -> success (exit 0) [test run]"


def test_a_failure_fixed_by_a_change_to_the_code_is_resolved() -> None:
    fixed = stop_state(
        FAIL,
        "#2 edit: Edit: src/app.py -> success [changed files]",
        PASS,
        final="Fixed; tests pass.",
        change="#2",
        test="#3 passed",
    )
    assert unresolved(fixed) == 0.05


def test_a_failure_that_passed_once_only_the_tests_changed_is_doubtful() -> None:
    """Loosening or deleting the failing test makes the run pass, not the code work."""
    for change in (
        "#2 edit: Edit: tests/test_app.py -> success [changed files]",
        "#2 edit: Edit: e2e/hosts.spec.ts -> success [changed files]",
        "#2 shell: Bash: git rm tests/sync.test.ts -> success (exit 0) [changed files]",
    ):
        state = stop_state(
            FAIL, change, PASS, final="All tests pass.", change="#2", test="#3 passed"
        )
        assert unresolved(state) == 0.75, change
    # the message admitting what is left makes it plain
    admitted = stop_state(
        FAIL,
        "#2 edit: Edit: tests/test_app.py -> success [changed files]",
        PASS,
        final="Done; remaining failures are pre-existing and skipped.",
        change="#2",
        test="#3 passed",
    )
    assert unresolved(admitted) == 0.92
    # near miss: a script named like a test runner is not a test file
    runner = stop_state(
        "#1 shell: Bash: scripts/run_tests.sh -> failure (exit 1) no virtualenv",
        "#2 edit: Edit: scripts/run_tests.sh -> success [changed files]",
        "#3 shell: Bash: scripts/run_tests.sh -> success (exit 0)",
        final="The runner works now.",
        change="#2",
    )
    assert unresolved(runner) == 0.05


def test_a_rerun_that_only_sends_its_output_elsewhere_is_the_same_run() -> None:
    state = stop_state(
        "#1 shell: Bash: xcodebuild test -scheme App > /tmp/a.log -> failure (exit 65) TEST FAILED",
        "#2 edit: Edit: Sources/Server.swift -> success [changed files]",
        "#3 shell: Bash: xcodebuild test -scheme App > /tmp/b.log -> success (exit 0)",
        final="Tests pass.",
        change="#2",
    )
    assert unresolved(state) == 0.05
    # near miss: never rerun
    assert (
        unresolved(
            state.replace(
                "- #3 shell: Bash: xcodebuild test -scheme App > /tmp/b.log -> success (exit 0)\n",
                "",
            )
        )
        == 0.92
    )


def test_a_later_test_run_fixes_a_failure_only_if_something_changed_after_it() -> None:
    """``dotnet test --no-build`` passing says nothing about the build that failed before it."""
    build = "#2 shell: Bash: dotnet build -> failure (exit 1) error CS0246"
    tests = "#4 shell: Bash: dotnet test --no-build -> success (exit 0) [test run]"
    edit1 = "#1 edit: Edit: src/Feature.cs -> success [changed files]"
    nothing_between = stop_state(
        edit1, build, tests, final="Build done, 48 tests pass.", change="#1", test="#4 passed"
    )
    assert unresolved(nothing_between) == 0.92
    fixed_between = stop_state(
        edit1,
        build,
        "#3 edit: Edit: src/Feature.cs -> success [changed files]",
        tests,
        final="Fixed the using; tests pass.",
        change="#3",
        test="#4 passed",
    )
    assert unresolved(fixed_between) == 0.05


def test_a_check_that_exited_0_over_output_showing_it_failed_is_doubtful() -> None:
    edit = "#1 edit: Edit: src/Audit.tsx -> success [changed files]"
    build = "#2 shell: Bash: npm run build -> success (exit 0)"
    for output in (
        "src/Audit.tsx(12,18): error TS2322: nope. Found 1 error.",
        "=== Summary: 0 tests passed, 0 failed === No module named pytest",
    ):
        state = stop_state(
            edit,
            build,
            final="Build completed.",
            change="#1",
            evidence=f"Bash: npm run build -> {output}",
        )
        assert unresolved(state) == 0.75, output
    # near misses: a clean summary, and a log read (not a check) that quotes an error
    for evidence in (
        "Bash: npm run build -> Compiled. Found 0 errors. 0 failed, Failed: 0",
        "Bash: cat build.log -> Error: process completed with exit code 1",
    ):
        state = stop_state(edit, build, final="Build completed.", change="#1", evidence=evidence)
        assert unresolved(state) == 0.05, evidence


def test_a_narrower_rerun_that_passes_leaves_the_failure_in_doubt() -> None:
    state = stop_state(
        "#1 shell: Bash: cargo test -> failure (exit 101) 4 failed",
        "#2 shell: Bash: cargo test -- dispatch_015 -> success (exit 0)",
        final="The four pass on an isolated rerun (flaky).",
    )
    assert unresolved(state) == 0.2


def test_a_message_that_says_something_still_fails_is_heard_when_the_record_looks_fixed() -> None:
    fixed = [FAIL, "#2 edit: Edit: src/app.py -> success [changed files]", PASS]
    said = stop_state(
        *fixed, final="Mostly done; two tests still fail on CI.", change="#2", test="#3 passed"
    )
    assert unresolved(said) == 0.75
    assert unresolved(said.replace("two tests still fail on CI", "all green")) == 0.05


def test_a_session_that_changed_nothing_is_read_the_same_way() -> None:
    """A failed check in a session that changed nothing is a failure left unresolved,
    reported or not (the fitting part: 7 of 7); a failing probe is information (1 of 46).
    Whether the stop is held for it is judge2's done reflex's decision (test_done.py)."""
    check = "#1 shell: Bash: npm run test:integration -> failure (exit 1) 1 failed"
    assert unresolved(stop_state(check, final="The integration tests still fail.")) == 0.92
    assert unresolved(stop_state(check, final="All steps completed.")) == 0.92
    not_run = "#1 shell: Bash: python3 analyze.py -> failure (exit 127) python3: command not found"
    assert unresolved(stop_state(not_run, final="Done.")) == 0.92
    probe = "#1 shell: Bash: grep -rn TODO src -> failure (exit 1)"
    assert unresolved(stop_state(probe, final="There are no TODOs.")) == 0.05
    # a probe that failed twice the same way was refused, not answered
    twice = stop_state(probe, probe.replace("#1", "#2"), final="There are no TODOs.")
    assert unresolved(twice) == 0.92
    # an edit that failed was an attempt to change: not a question session
    edit = "#1 edit: Edit: docs/setup.md -> failure String not found in file."
    assert unresolved(stop_state(edit, final="I added the Node 20 requirement.")) == 0.92


# --- pre_tool: constraint_violation (issue #36) ------------------------------------------------


def proposal(constraint: str, action: str, tool: str = "Bash (shell)") -> float:
    state = "\n".join(
        [
            "GOAL: (not stated)",
            "CONSTRAINTS:",
            f"- {constraint}",
            "RECENT ACTIONS: none",
            "LAST FILE CHANGE: never; LAST TEST RUN: never",
            f"PROPOSED ACTION: {tool}: {action}",
        ]
    )
    return NOUL_RULES[s.CONSTRAINT_VIOLATION](read(state))


def test_running_the_tool_a_rule_prescribes_is_no_violation() -> None:
    rule = "Always use yarn for package management commands. Do not use npm commands."
    assert proposal(rule, "yarn install") == 0.05
    assert proposal(rule, "npm install") == 0.92
    quoted = "Always use `pnpm` for packages. Never use `npm` or `yarn` directly."
    assert proposal(quoted, "pnpm install --frozen-lockfile") == 0.05
    assert proposal(quoted, "npm ci") == 0.92
    assert proposal(quoted, "cd web && yarn add left-pad") == 0.92
    tests = "Always use `uv run pytest` to run tests (not `pytest` or `python -m pytest`)"
    assert proposal(tests, "uv run pytest -q") == 0.05
    assert proposal(tests, "python -m pytest -q") == 0.92
    assert proposal("Use `make`, not `go test`", "make test") == 0.05


def test_a_rule_naming_a_narrower_operation_forbids_only_that() -> None:
    rule = "No force pushes: add a follow-up commit instead of amending"
    assert proposal(rule, 'git commit -m "fix the key"') == 0.05
    assert proposal(rule, "git commit --amend --no-edit") == 0.92
    assert proposal(rule, "git push --force-with-lease origin HEAD") == 0.92
    assert proposal("Never force push without explicit approval", "git push origin HEAD") == 0.05
    assert proposal("Never run git stash: the stack holds other work", "git stash pop") == 0.92


def test_a_rule_about_one_branch_or_file_is_kept_by_actions_on_others() -> None:
    assert proposal("Never push directly to main", "git push -u origin fix/ci") == 0.2
    assert proposal("Never push directly to main", "git push origin main") == 0.92
    plan = "DO NOT COMMIT PLAN.md TO GIT"
    assert proposal(plan, "git add src/a.py && git commit -m x") == 0.2
    assert proposal(plan, "git add PLAN.md src/a.py && git commit -m x") == 0.92
    quoted = 'NEVER use "git add -A" or "git add ." in ANY command.'
    assert proposal(quoted, "git add src/parser.py") == 0.05
    assert proposal(quoted, "git add -A") == 0.92


def test_read_only_rules_forbid_changes_the_rule_does_not_grant() -> None:
    plan = "Plan mode is read-only: the only file you may edit is plan.md"
    assert proposal(plan, "plan.md | new text: 1. rename", "Write (write)") == 0.05
    assert proposal(plan, "src/a.py | new text: x", "Edit (edit)") == 0.92
    assert proposal(plan, "src/a.py", "Read (read)") == 0.05
    tests = "Existing tests are read-only: never edit, delete, skip or loosen them"
    assert proposal(tests, "tests/test_a.py | new text: atol=1", "Edit (edit)") == 0.92
    assert proposal(tests, "src/a.py | new text: x", "Edit (edit)") == 0.2
    investigation = "Read-only investigation: do NOT touch any file, and make no commits or pushes"
    assert proposal(investigation, "git push origin HEAD") == 0.92
    assert proposal(investigation, "git log --oneline") == 0.05


def test_rules_that_bound_where_the_agent_works() -> None:
    place = "Work only in the target directory /tmp/work"
    assert proposal(place, "cd /home/u/other && git checkout -- app/") == 0.92
    assert proposal(place, "/tmp/work/src/a.sol | new text: x", "Edit (edit)") == 0.05
    src = "Only edit files under src/; do not change the test files"
    # the edit is one the rule names ("change"), but not of what it names ("the test files")
    assert proposal(src, "src/parser.py | new text: y", "Edit (edit)") == 0.2
    assert proposal(src, "lib/parser.py | new text: y", "Edit (edit)") == 0.92
    outside = "Ask for permission before reading files outside the workspace directory"
    assert proposal(outside, "cat ../billing/config/settings.yaml") == 0.92
    assert proposal(outside, "cat config/settings.yaml") == 0.05


def test_rules_that_need_approval_forbid_the_operation_they_name() -> None:
    rule = "git commit and git push need the user's explicit approval each time"
    assert proposal(rule, "git push") == 0.92
    assert proposal(rule, "git status") == 0.05
    assert (
        proposal("Ask before every edit, commit, push and revert", "git checkout -- a.png") == 0.92
    )
    assert proposal("Ask before every edit, commit, push and revert", "git checkout -b fix") == 0.05


def test_an_operation_elsewhere_than_the_path_a_rule_names_keeps_it() -> None:
    rule = "Do not modify anything under migrations/"
    assert proposal(rule, "migrations/0003_users.py | new text: x", "Edit (edit)") == 0.92
    assert proposal(rule, "src/parser.py | new text: x", "Edit (edit)") == 0.05
    # an install installs a dependency, whatever the rule calls it
    assert proposal("Never install new dependencies", "pip install requests") == 0.92
    assert proposal("Never install new dependencies", "pip list") == 0.05
