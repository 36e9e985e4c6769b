"""Offline judge latency per battery: what a hook pays when no key is set.

Builds a realistic session (goal, a constraint, 40 actions with failures,
edits and test runs, evidence), then asks each battery through the real
``Judge2`` + ``OfflineBackend`` path (state builder, request validation,
heuristics, answer splitting) many times and prints median / p95 / max per
call in milliseconds, plus the size of the state text.

    uv run --frozen python tools/judge2_bench.py [--runs 500]
"""

from __future__ import annotations

import argparse
import statistics
import time

from agentreflex.core.state.model import ActionRecord, SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, post_tool, pre_tool, stop
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend
from agentreflex.judge2.statetext import build_state


def realistic_state() -> SessionState:
    st = SessionState(
        session_id="bench", goal="Fix the login flow so expired sessions redirect to /login"
    )
    st.notes["constraints"] = [{"text": "do not modify tests"}, {"text": "never push to main"}]
    for seq in range(1, 41):
        kind = ("shell", "edit", "read", "shell")[seq % 4]
        verification = kind == "shell" and seq % 8 == 0
        ok = seq % 5 != 0
        rec = ActionRecord(
            seq=seq,
            ts=float(seq),
            tool="Bash" if kind == "shell" else kind.title(),
            kind=kind,
            summary=(
                "pytest -q tests/test_login.py"
                if verification
                else f"step {seq} on src/login_{seq % 3}.py"
            ),
            fingerprint=f"fp{seq % 7}",
            outcome="success" if ok else "failure",
            exit_code=0 if ok else 1,
            paths=[f"src/login_{seq % 3}.py"],
            verification=verification,
            mutation=kind == "edit",
            error_signature="" if ok else "AssertionError: expected 302",
        )
        st.actions.append(rec)
        if not ok:
            st.failures.append(rec)
            st.counters.last_failure_seq = seq
        if verification:
            st.verifications.append(rec)
            st.counters.last_verification_seq = seq
            st.counters.last_verification_ok = ok
        if rec.mutation and ok:
            st.counters.last_mutation_seq = seq
        st.evidence.append(f"output {seq}: 3 passed, 1 failed in 0.{seq}s")
    st.seq = 40
    return st


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    state = realistic_state()
    judge = Judge2(OfflineBackend())
    events = {
        s.PRE_TOOL: pre_tool(
            "Edit", {"file_path": "src/login_1.py", "old_string": "a", "new_string": "b"}
        ),
        s.POST_TOOL: post_tool(
            "Bash", {"command": "pytest -q"}, ok=False, error="1 failed", exit_code=1
        ),
        s.COMPLETION: stop("Fixed the redirect. All tests pass."),
    }
    print(f"offline judge, {args.runs} calls per battery (ms per call)")
    print(f"{'battery':<12}{'questions':>10}{'state chars':>13}{'median':>9}{'p95':>9}{'max':>9}")
    for battery, event in events.items():
        ctx = make_context(event, state=state, judge=judge)
        times: list[float] = []
        for _ in range(args.runs):
            start = time.perf_counter()
            answer = judge.ask(battery, ctx)
            times.append((time.perf_counter() - start) * 1000.0)
            assert not answer.degraded, answer.error
        times.sort()
        chars = len(build_state(state, event, battery))
        n = len(answer.probabilities) + len(answer.choices)
        p95 = times[int(len(times) * 0.95) - 1]
        print(
            f"{battery:<12}{n:>10}{chars:>13}{statistics.median(times):>9.3f}{p95:>9.3f}{times[-1]:>9.3f}"
        )


if __name__ == "__main__":
    main()
