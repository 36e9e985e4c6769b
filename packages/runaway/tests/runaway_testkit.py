"""A small session driver: events through core's real evaluate + store, runaway alone.

Each call loads the session state from core's store (as a hook process
would), evaluates only the runaway reflex through ``runtime.evaluate`` (so a
raising floor is turned into core's fail-closed block), then records the
event, the decision and the reflex's notes.  A fresh driver on the same state
dir behaves like a restarted daemon.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from unittest import mock

from agentreflex.core.config.settings import Config
from agentreflex.core.decision import Decision, Finding
from agentreflex.core.events import Event
from agentreflex.core.hook import runtime
from agentreflex.core.reflex import Judge, JudgeAnswer, ReflexContext
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import SessionStore
from agentreflex.core.testing import make_config, post_tool, pre_tool, prompt
from agentreflex.runaway.reflex import RunawayReflex


class FixedJudge:
    """A judge that answers every battery with fixed probabilities (or raises)."""

    name = "fixed"

    def __init__(
        self,
        answers: dict[str, dict[str, float]],
        fail: bool = False,
        may_block: frozenset[str] = frozenset(),
    ) -> None:
        self.answers = answers
        self.fail = fail
        self.may_block = may_block  # signals shown on held-out data to block alone
        self.asked: list[str] = []

    def ask(self, battery: str, ctx: ReflexContext) -> JudgeAnswer:
        self.asked.append(battery)
        if self.fail:
            raise TimeoutError("judge timed out")
        return JudgeAnswer(
            probabilities=dict(self.answers.get(battery, {})),
            backend="fixed",
            may_block=self.may_block,
        )


class Driver:
    """Feeds one session's events through evaluate + store, like the hook path."""

    def __init__(
        self,
        state_dir: Path,
        cwd: Path,
        mode: str = "enforced",
        env: dict[str, str] | None = None,
        sections: dict[str, dict[str, Any]] | None = None,
        judge: Judge | None = None,
        session_id: str = "s1",
    ) -> None:
        self.cfg: Config = make_config(mode, env=env)
        self.cfg.state_dir = str(state_dir)
        self.cfg.sections.update(sections or {})
        self.cwd = str(cwd)
        self.session_id = session_id
        self.judge = judge
        if judge is not None:  # a calibrated judge stands in for the Jev API
            self.cfg.judge.mode = "jev"
        self.clock = 1_000_000.0
        self.reflex = RunawayReflex()
        self.store = SessionStore(str(state_dir), session_id, self.cfg.recent_action_window)
        self.last: Decision | None = None
        self._ids = 0

    # --- events ---------------------------------------------------------

    def run(self, event: Event) -> Decision:
        self.clock += 5.0
        event.timestamp = self.clock
        state, _ = self.store.load()
        plugins = runtime.Plugins(reflexes=[self.reflex])
        if self.judge is None:
            decision, ctx = runtime.evaluate(event, state, self.cfg, plugins)
        else:
            # core builds the judge from installed entry points; hand it ours instead
            plugins.judges = [("fixed", "unused")]
            judge = self.judge
            with mock.patch.object(runtime, "_judge_factory", lambda _p, _c: judge):
                decision, ctx = runtime.evaluate(event, state, self.cfg, plugins)
        self.store.record(event, decision, ctx.notes)
        self.last = decision
        return decision

    def _id(self) -> str:
        self._ids += 1
        return f"toolu_{self._ids}"

    def call(
        self,
        name: str,
        tool_input: dict[str, Any],
        ok: bool | None = True,
        output: str = "",
        error: str = "",
        exit_code: int | None = None,
    ) -> tuple[Decision, Decision | None]:
        """Pre-tool then, unless it was blocked, the post-tool with the given outcome."""
        tid = self._id()
        kw = {"session_id": self.session_id, "tool_use_id": tid}
        before = self.run(pre_tool(name, tool_input, cwd=self.cwd, **kw))
        if before.verdict.value == "BLOCK":
            return before, None
        after = self.run(
            post_tool(
                name,
                tool_input,
                ok,
                output=output,
                error=error,
                cwd=self.cwd,
                exit_code=exit_code,
                **kw,
            )
        )
        return before, after

    def bash(self, command: str, ok: bool = True, output: str = "", error: str = "") -> Decision:
        return self.call("Bash", {"command": command, "description": "x"}, ok, output, error)[0]

    def prompt(self, text: str) -> Decision:
        return self.run(prompt(text, cwd=self.cwd, session_id=self.session_id))

    def state(self) -> SessionState:
        return self.store.load()[0]


def runaway_findings(decision: Decision | None) -> list[Finding]:
    return [] if decision is None else [f for f in decision.findings if f.reflex == "runaway"]


def codes(decision: Decision | None) -> list[str]:
    return [f.code for f in runaway_findings(decision)]
