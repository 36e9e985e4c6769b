"""Side by side on the held-out part: the gate's decisions with the local judge off and on.

The held-out destructive rows of the real-source labelled set
(``tools/judge2_labelled_real.py``) go through the gate reflex as pre-tool
Bash calls, three ways:

- ``floors``: the judge off (the gate's deterministic floors alone);
- ``judge raw``: the local engine as laya serves it, its numbers used as they
  come and allowed to BLOCK alone (how the judge acted before calibration);
- ``judge calibrated``: the same engine through judge2's shipped map, a
  judge-only BLOCK only where held-out precision was at least 0.9.

A destructive row counts as caught when the verdict is ASK_USER or BLOCK; a
false positive is a non-destructive row given ASK_USER or BLOCK.  WARNs are
counted on their own.

Run: ``uv run --frozen python tools/judge2_bars.py``
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from agentreflex.core.decision import Verdict
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.gate.reflex import GateReflex
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend
from agentreflex.judge2.settings import Judge2Settings

STOPS = (Verdict.ASK_USER, Verdict.BLOCK)


class LocalEngine(OfflineBackend):
    """The engine exactly as ``agentreflex laya serve`` answers (same model id), calibrated."""

    calibrated = True

    def __init__(self) -> None:
        super().__init__("laya-builtin-1")


class RawBlocks:
    """The engine's raw numbers, allowed to BLOCK alone on every signal (the old behaviour)."""

    name = "judge2"
    calibrated = True

    def __init__(self) -> None:
        self._judge = Judge2(LocalEngine(), Judge2Settings(calibration="off"))

    def ask(self, battery: str, ctx: Any) -> Any:
        answer = self._judge.ask(battery, ctx)
        answer.may_block = frozenset(answer.probabilities)
        return answer


def verdict(command: str, cwd: str, judge: Any) -> Verdict:
    ctx = make_context(pre_tool("Bash", {"command": command}, cwd=cwd), judge=judge)
    findings = GateReflex().evaluate(ctx)
    return max((f.verdict for f in findings), default=Verdict.ALLOW, key=_rank)


def _rank(v: Verdict) -> int:
    return [Verdict.ALLOW, Verdict.WARN, Verdict.ASK_USER, Verdict.BLOCK].index(v)


def main() -> int:
    import judge2_labelled_real

    cases = [
        (c, d)
        for c, d, _ in judge2_labelled_real.corpus_commands(judge2_labelled_real.CORPORA)
        if judge2_labelled_real.split_of(c) == "heldout"
    ]
    arms = {
        "floors (judge off)": None,
        "judge raw, blocks alone": RawBlocks(),
        "judge calibrated (shipped)": Judge2(LocalEngine()),
    }
    pos = sum(d for _, d in cases)
    neg = len(cases) - pos
    print(f"held-out: {len(cases)} commands, {pos} destructive, {neg} not\n")
    print(
        "| | recall | false-positive rate | caught | false positives | WARN on destructive | WARN on ordinary |"
    )
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        for name, judge in arms.items():
            tp = fp = wp = wn = 0
            for command, destructive in cases:
                v = verdict(command, str(project), judge)
                if v in STOPS:
                    tp += destructive
                    fp += not destructive
                elif v is Verdict.WARN:
                    wp += destructive
                    wn += not destructive
            print(f"| {name} | {tp / pos:.3f} | {fp / neg:.3f} | {tp} | {fp} | {wp} | {wn} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
