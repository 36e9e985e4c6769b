"""The done reflex on built session states: evidence first, then probabilities, one-shot valve."""

from __future__ import annotations

from typing import Any

from agentreflex.core.decision import Mode, Verdict, merge
from agentreflex.core.events import EventKind
from agentreflex.core.reflex import JudgeAnswer, ReflexContext
from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_config, make_context, pre_tool, stop
from agentreflex.judge2.done.reflex import DoneReflex
from agentreflex.judge2.fallback import fallback_signals
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend


class StubJudge:
    """A judge returning fixed numbers, to exercise the probability half."""

    name = "stub"

    def __init__(self, answer: JudgeAnswer) -> None:
        self.answer = answer
        self.calls = 0

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        self.calls += 1
        return self.answer


class BrokenJudge:
    name = "broken"

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        raise RuntimeError("judge exploded")


def run(state: SessionState, message: str = "", judge: Any = None, **kw: Any) -> list[Any]:
    ctx = make_context(stop(message, **kw), state=state, judge=judge)
    return DoneReflex().evaluate(ctx)


def test_registers_for_stops_only() -> None:
    reflex = DoneReflex()
    assert reflex.events == {EventKind.STOP, EventKind.SUBAGENT_STOP}
    assert reflex.floor is False
    ctx = make_context(pre_tool("Bash", {"command": "ls"}))
    assert reflex.evaluate(ctx) == []


def test_a_session_without_changes_or_claims_may_stop(session: Any) -> None:
    state = session("explain the code").run("cat README.md", kind="read").state
    assert run(state, "The module parses config files.") == []


def test_changes_without_a_test_run_block_with_the_files_named(session: Any) -> None:
    state = session("fix the parser").edit("src/parser.py").edit("src/lexer.py").state
    [finding] = run(state, "I updated the parser.")
    assert finding.verdict is Verdict.BLOCK
    assert finding.code == "DONE-UNVERIFIED"
    assert finding.title == "DONE REFLEX"
    assert "no test run is recorded" in finding.message
    assert "src/parser.py, src/lexer.py" in finding.message
    assert finding.signals[s.VERIFICATION_INSUFFICIENT] >= 0.70
    assert finding.threshold == 0.70


def test_passing_tests_after_the_last_change_allow_the_stop(session: Any) -> None:
    state = (
        session("fix the parser").edit("src/parser.py").test(True, output="12 passed in 0.3s").state
    )
    assert run(state, 'Fixed the parser; all tests pass ("12 passed").') == []


def test_a_change_after_the_last_passing_run_blocks(session: Any) -> None:
    state = session().edit("a.py").test(True).edit("b.py").state
    [finding] = run(state, "Done.")
    assert finding.code == "DONE-UNVERIFIED"
    assert "since the last test run (b.py)" in finding.message
    assert "a.py" not in finding.detail["missing"][0]


def test_a_failed_last_run_blocks_naming_the_command(session: Any) -> None:
    state = (
        session()
        .edit("a.py")
        .run(
            "pytest tests/test_a.py",
            ok=False,
            verification=True,
            exit_code=1,
            error="AssertionError: 3 != 4",
        )
        .state
    )
    [finding] = run(state, "Implemented the feature.")
    assert finding.code == "DONE-TESTS-FAILED"
    assert (
        "the last test run failed: `pytest tests/test_a.py` (exit 1): AssertionError"
        in finding.message
    )


def test_an_unresolved_command_failure_blocks_until_it_succeeds(session: Any) -> None:
    builder = (
        session()
        .edit("src/app.ts")
        .test(True)
        .run("npm run build", ok=False, exit_code=2, error="TS2304: Cannot find name")
    )
    [finding] = run(builder.state, "Build pipeline is set up.")
    assert finding.code == "DONE-UNRESOLVED-FAILURE"
    assert "a failure was never shown fixed: `npm run build` (exit 2)" in finding.message
    builder.run("npm run build", ok=True)
    assert run(builder.state, "Build pipeline is set up.") == []


def test_a_passing_test_run_resolves_earlier_failures(session: Any) -> None:
    state = session().run("python scripts/check.py", ok=False).edit("a.py").test(True).state
    assert run(state, "Done.") == []


def test_probe_commands_that_exit_non_zero_are_not_failures(session: Any) -> None:
    state = session().run("grep -rn TODO src", ok=False).run("git diff --quiet", ok=False).state
    assert run(state, "There are no TODOs left.") == []


def test_claim_of_passing_tests_without_a_run_blocks(session: Any) -> None:
    state = session().run("cat setup.cfg", kind="read").state
    [finding] = run(state, "All tests pass now.")
    assert finding.code == "DONE-CLAIM-UNSUPPORTED"
    assert (
        'the claim "All tests pass now." has no evidence: no test run is recorded'
        in finding.message
    )


def test_quoted_output_absent_from_evidence_is_fabricated(session: Any) -> None:
    state = session().edit("a.py").test(True, output="===== 5 passed in 0.12s =====").state
    [finding] = run(state, 'Verified: pytest reports "12 passed".')
    assert finding.code == "DONE-CLAIM-FABRICATED"
    assert 'the quoted output "12 passed" appears in no recorded output' in finding.message


def test_quoted_output_found_in_evidence_is_fine(session: Any) -> None:
    state = session().edit("a.py").test(True, output="===== 5 passed in 0.12s =====").state
    assert run(state, 'Verified: pytest reports "5 passed".') == []


def test_valve_never_blocks_twice_in_a_row(session: Any) -> None:
    state = session().edit("a.py").state
    [finding] = run(state, "Done.", stop_hook_active=True)
    assert finding.code == "DONE-VALVE-OPEN"
    assert finding.verdict is Verdict.WARN and finding.enforce is False
    assert "Not blocking twice in a row" in finding.message
    assert merge([finding], Mode.ENFORCED).verdict is Verdict.ALLOW

    state.counters.stop_blocks_in_row = 1
    [finding] = run(state, "Done.")
    assert finding.code == "DONE-VALVE-OPEN" and finding.enforce is False


def test_a_broken_or_degraded_judge_never_disarms_the_floors(session: Any) -> None:
    state = session().edit("a.py").state
    ctx = make_context(stop("Done."), state=state, judge=BrokenJudge())
    [finding] = DoneReflex().evaluate(ctx)
    assert finding.verdict is Verdict.BLOCK
    assert any("judge exploded" in d for d in ctx.degraded)

    degraded = JudgeAnswer(fallback_signals(s.COMPLETION), "jev", degraded=True, error="HTTP 503")
    ctx = make_context(stop("Done."), state=state, judge=StubJudge(degraded))
    [finding] = DoneReflex().evaluate(ctx)
    assert finding.verdict is Verdict.BLOCK
    assert finding.detail["judge"] == "jev (degraded)"
    assert any("HTTP 503" in d for d in ctx.degraded)


def test_a_degraded_judge_alone_never_blocks(session: Any) -> None:
    state = session().edit("a.py").test(True).state
    degraded = JudgeAnswer(fallback_signals(s.COMPLETION), "jev", degraded=True, error="timeout")
    assert run(state, "Done.", judge=StubJudge(degraded)) == []


def test_judge_probability_above_threshold_blocks_a_clean_record(session: Any) -> None:
    state = session().edit("a.py").test(True).state
    probs = fallback_signals(s.COMPLETION) | {s.UNRESOLVED_FAILURE: 0.8}
    trusted = JudgeAnswer(probs, "stub", may_block=frozenset({s.UNRESOLVED_FAILURE}))
    [finding] = run(state, "Done.", judge=StubJudge(trusted))
    assert finding.code == "DONE-UNRESOLVED-FAILURE" and finding.verdict is Verdict.BLOCK
    assert "the judge thinks a failure is still unresolved" in finding.message
    assert finding.signals[s.UNRESOLVED_FAILURE] == 0.8


def test_a_judge_below_the_precision_bar_can_only_warn_on_a_stop(session: Any) -> None:
    # over the threshold, but this signal's judge-only blocks were not shown right 90% of
    # the time on held-out data (no may_block): the judge alone can only WARN
    state = session().edit("a.py").test(True).state
    probs = fallback_signals(s.COMPLETION) | {s.UNRESOLVED_FAILURE: 0.99}
    [finding] = run(state, "Done.", judge=StubJudge(JudgeAnswer(probs, "stub")))
    assert finding.code == "DONE-UNRESOLVED-FAILURE" and finding.verdict is Verdict.WARN
    # the record's own facts still block, whatever the judge is trusted with
    failed = session().edit("a.py").test(False).state
    [floor] = run(failed, "Done.", judge=StubJudge(JudgeAnswer(probs, "stub")))
    assert floor.verdict is Verdict.BLOCK


def test_judge_below_threshold_does_not_block(session: Any) -> None:
    state = session().edit("a.py").test(True).state
    probs = fallback_signals(s.COMPLETION) | {
        s.UNRESOLVED_FAILURE: 0.69,
        s.MORE_VERIFICATION_HELPFUL: 0.89,
    }
    assert run(state, "Done.", judge=StubJudge(JudgeAnswer(probs, "stub"))) == []


def test_judge_contradicting_an_open_claim_blocks(session: Any) -> None:
    state = session().run("python repro.py", ok=True).state
    choices = {"claim_1": {"supported": 0.1, "contradicted": 0.8, "insufficient": 0.1}}
    answer = JudgeAnswer(fallback_signals(s.COMPLETION), "stub", choices=choices)
    [finding] = run(state, "Fixed the race in the scheduler.", judge=StubJudge(answer))
    assert finding.code == "DONE-CLAIM-UNSUPPORTED"
    assert "judge: contradicted (0.80)" in finding.message


def test_thresholds_come_from_the_config(session: Any) -> None:
    state = session().edit("a.py").state
    cfg = make_config(env={"REFLEX_THRESH_VERIFICATION_INSUFFICIENT_BLOCK": "0.99"})
    ctx = make_context(stop("Done."), state=state, config=cfg)
    assert DoneReflex().evaluate(ctx) == []


def test_the_judge_is_asked_once_per_stop(session: Any) -> None:
    judge = StubJudge(JudgeAnswer(fallback_signals(s.COMPLETION), "stub"))
    run(session().edit("a.py").state, "Done.", judge=judge)
    assert judge.calls == 1


def test_with_the_offline_judge_the_whole_path_agrees(session: Any) -> None:
    offline = Judge2(OfflineBackend())
    done_state = session("fix bug").edit("a.py").test(True, output="3 passed").state
    assert run(done_state, "Fixed the bug; all tests pass.", judge=offline) == []
    open_state = session("fix bug").edit("a.py").state
    [finding] = run(open_state, "Fixed the bug.", judge=offline)
    assert finding.verdict is Verdict.BLOCK
    assert finding.detail["judge"] == "offline"


def test_subagent_stop_is_judged_too(session: Any) -> None:
    state = session().edit("a.py").state
    event = stop("Done.")
    event.kind = EventKind.SUBAGENT_STOP
    [finding] = DoneReflex().evaluate(make_context(event, state=state))
    assert finding.verdict is Verdict.BLOCK


def test_enforced_merge_blocks_and_shadow_reports(session: Any) -> None:
    state = session().edit("a.py").state
    findings = run(state, "Done.")
    assert merge(findings, Mode.ENFORCED).verdict is Verdict.BLOCK
    shadow = merge(findings, Mode.SHADOW)
    assert shadow.verdict is Verdict.ALLOW and shadow.label == "WOULD_BLOCK"


def test_a_question_session_with_a_failing_probe_may_stop(session: Any) -> None:
    """Nothing changed: a failing build or test run is the answer, not unfinished work."""
    state = (
        session("why does the build fail?")
        .run("npm run build", ok=False, exit_code=2, error="TS2304: Cannot find name")
        .test(False)
        .state
    )
    message = "The build fails because `foo` is undeclared in src/app.ts; it still fails."
    assert run(state, message) == []
    assert run(state, "All tests pass.")[0].code == "DONE-CLAIM-UNSUPPORTED"
    # a calibrated judge rightly says the failure is unresolved, and is trusted to block on
    # it: the session changed nothing, so its stop is still not held for that
    probs = fallback_signals(s.COMPLETION) | {s.UNRESOLVED_FAILURE: 0.99}
    judge = StubJudge(JudgeAnswer(probs, "stub", may_block=frozenset({s.UNRESOLVED_FAILURE})))
    assert run(state, message, judge=judge) == []
    # once it has changed a file, the same answer holds the stop
    changed = session("fix the build").edit("src/app.ts").test(True).state
    [finding] = run(changed, "Fixed.", judge=judge)
    assert finding.code == "DONE-UNRESOLVED-FAILURE" and finding.verdict is Verdict.BLOCK


def test_documentation_only_changes_need_no_test_run(session: Any) -> None:
    assert run(session().edit("README.md").edit("docs/guide.rst").state, "Updated the docs.") == []
    [finding] = run(session().edit("README.md").edit("src/app.py").state, "Updated.")
    assert finding.code == "DONE-UNVERIFIED"
    assert "evidence that counts: a passing run of a real test framework" in finding.message


def test_documentation_exemption_is_configurable(session: Any) -> None:
    state = session().edit("README.md").state
    cfg = make_config("enforced")
    cfg.sections["judge2"] = {"untested_ok": []}
    ctx = make_context(stop("Updated the README."), state=state, config=cfg)
    [finding] = DoneReflex().evaluate(ctx)
    assert finding.code == "DONE-UNVERIFIED"


def test_the_documented_default_is_the_one_used() -> None:
    from agentreflex.core.config.schema import ConfigFile
    from agentreflex.judge2.done.evidence import DOC_PATTERNS

    schema = ConfigFile.model_json_schema()["$defs"]["Judge2"]["properties"]
    assert tuple(schema["untested_ok"]["default"]) == DOC_PATTERNS
