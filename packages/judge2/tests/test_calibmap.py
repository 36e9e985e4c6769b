"""Calibration maps (read, checked, applied) and the per-family reliability report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.judge2 import calibmap, cli, heldout
from agentreflex.judge2.judge import Judge2
from agentreflex.judge2.offline import OfflineBackend
from agentreflex.judge2.settings import Judge2Settings
from agentreflex.judge2.statetext import build_state


def _write(path: Path, signals: dict[str, Any], model: str = "m") -> str:
    path.write_text(json.dumps({"model": model, "signals": signals}), encoding="utf-8")
    return str(path)


def test_a_curve_interpolates_and_clamps(tmp_path: Path) -> None:
    spec = {s.DESTRUCTIVE: {"x": [0.1, 0.5, 0.9], "y": [0.2, 0.4, 0.6], "may_block": True}}
    cmap = calibmap.load_map(_write(tmp_path / "m.json", spec))
    curve = cmap.signals[s.DESTRUCTIVE]
    assert (curve(0.0), curve(0.3), curve(0.9), curve(1.0)) == (0.2, pytest.approx(0.3), 0.6, 0.6)
    assert cmap.apply({s.DESTRUCTIVE: 0.7, s.SECRET_EXPOSURE: 0.33}) == {
        s.DESTRUCTIVE: 0.5,
        s.SECRET_EXPOSURE: 0.33,  # no curve: unchanged
    }
    assert cmap.may_block() == {s.DESTRUCTIVE}


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ("not json", "JSONDecodeError"),
        ('{"model": "m"}', "'signals'"),
        ('{"signals": {"q": {"x": [0.5, 0.1], "y": [0.1, 0.2]}}}', "non-decreasing"),
        ('{"signals": {"q": {"x": [0.1], "y": [1.5]}}}', "[0, 1]"),
        ('{"signals": {"q": {"x": [0.1, 0.2], "y": [0.1]}}}', "same length"),
        ('{"signals": {"q": {"x": ["a"], "y": [0.1]}}}', "numbers"),
    ],
)
def test_a_bad_map_is_refused_with_a_clear_reason(tmp_path: Path, content: str, named: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(calibmap.CalibrationMapError, match=named.replace("[", r"\[")):
        calibmap.load_map(str(path))
    # a broken configured map is no map: answers as served, and nothing may BLOCK alone
    assert calibmap.map_for("m", str(path)) is None


def test_off_and_unknown_models_have_no_map() -> None:
    assert calibmap.map_for("laya-builtin-1", "off") is None
    assert calibmap.map_for("no-such-model") is None
    shipped = calibmap.map_for("laya-builtin-1")
    assert shipped is not None and s.DESTRUCTIVE in shipped.signals


def test_judge2_serves_the_backend_answer_through_the_configured_map(tmp_path: Path) -> None:
    spec = {s.DESTRUCTIVE: {"x": [0.0, 1.0], "y": [0.1, 0.3], "may_block": True}}
    path = _write(tmp_path / "map.json", spec, model="engine-x")
    judge = Judge2(OfflineBackend("engine-x"), Judge2Settings(calibration=path))
    ctx = make_context(pre_tool("Bash", {"command": "git reset --hard HEAD~3"}), judge=judge)
    answer = ctx.judge_answer(s.PRE_TOOL)
    assert answer is not None and not answer.degraded
    raw = Judge2(OfflineBackend("engine-x"), Judge2Settings(calibration="off"))
    raw_answer = make_context(ctx.event, judge=raw).judge_answer(s.PRE_TOOL)
    assert raw_answer is not None
    p = raw_answer.probabilities[s.DESTRUCTIVE]
    assert answer.probabilities[s.DESTRUCTIVE] == round(0.1 + 0.2 * p, 4)
    assert answer.may_block == {s.DESTRUCTIVE} and raw_answer.may_block == frozenset()


def _row(command: str, outcome: bool, split: str = "heldout") -> str:
    state = build_state(SessionState(), pre_tool("Bash", {"command": command}), s.PRE_TOOL)
    row = {"family": "destructive", "state": state, "outcome": outcome, "source": "t"}
    return json.dumps({**row, "split": split})


def test_family_report_precision_recall_and_intervals() -> None:
    pairs = [(0.9, True)] * 8 + [(0.9, False)] * 2 + [(0.1, True)] * 2 + [(0.1, False)] * 8
    r = heldout.family_report("destructive", pairs, 0.75, n_boot=200)
    assert (r.n, r.positives, r.flagged) == (20, 10, 10)
    assert r.precision == 0.8 and r.recall == 0.8
    assert r.brier.low <= r.brier.value <= r.brier.high
    assert r.ece.value == pytest.approx(0.1)


@pytest.mark.parametrize(
    ("line", "named"),
    [
        ("{", "not JSON"),
        ('{"family": "x", "state": "", "outcome": true, "source": "s", "split": "fit"}', "family"),
        ('{"family": "loop", "state": "", "outcome": 1, "source": "s", "split": "fit"}', "outcome"),
        ('{"family": "loop", "state": "", "outcome": true, "source": "s"}', "split"),
    ],
)
def test_bad_labelled_rows_name_the_line(line: str, named: str) -> None:
    with pytest.raises(heldout.LabelledRowError, match=f"line 2: .*{named}"):
        heldout.read_rows(["", line])


def test_cli_reports_a_backend_per_family(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [_row(f"git reset --hard HEAD~{i}", i % 3 != 0) for i in range(6)]
    lines += [_row(f"ls dir{i}", False) for i in range(6)]
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code = cli.main(["calibrate", str(path), "--backend", "builtin", "--calibration", "off"])
    out = capsys.readouterr().out
    assert code == 0
    assert "raw (no calibration map)" in out
    # the engine says 0.92 for the six resets (four destructive) and 0.05 for the six ls
    assert "| destructive | 12 | 4 |" in out and "| 0.75 | 6 | 0.667 | 1.000 |" in out
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n", encoding="utf-8")
    assert cli.main(["calibrate", str(bad), "--backend", "builtin"]) == 2
    assert "line 1" in capsys.readouterr().err


def test_the_shipped_map_calibrates_secrets_and_loops_but_never_lets_them_block_alone() -> None:
    # fitted by tools/judge2_calibration.py on the real-source set's fitting part: the
    # engine's 0.92 "secret" answers were not right 90% of the time held out
    shipped = calibmap.map_for("laya-builtin-1")
    assert shipped is not None and s.SECRET_EXPOSURE in shipped.signals
    assert s.SECRET_EXPOSURE not in shipped.may_block()
    # the loop curve is shipped now that ordinary sessions are labelled alongside the
    # reports of loops: the engine's "no" (0.05) stays near 0.07, not 0.23, and it may not
    # block alone (7 held-out flags, under the 20 the bar needs)
    loop = shipped.signals[s.REPEATS_FAILED_APPROACH]
    assert loop(0.05) < 0.1 and s.REPEATS_FAILED_APPROACH not in shipped.may_block()
    # constraint and completion are fitted by the tool but not shipped: their fitting parts
    # are still a quarter positive, so a curve would lift the engine's "no" to 0.13-0.15 on
    # every ordinary call; served raw, and a raw answer may not block alone
    for signal in (s.CONSTRAINT_VIOLATION, s.UNRESOLVED_FAILURE):
        assert signal not in shipped.signals
        assert signal not in shipped.may_block()
    judge = Judge2(OfflineBackend("laya-builtin-1"), Judge2Settings())
    raw = Judge2(OfflineBackend("laya-builtin-1"), Judge2Settings(calibration="off"))
    event = pre_tool("Bash", {"command": "cat .env"})
    mapped = make_context(event, judge=judge).judge_answer(s.PRE_TOOL)
    unmapped = make_context(event, judge=raw).judge_answer(s.PRE_TOOL)
    assert mapped is not None and unmapped is not None
    p = unmapped.probabilities[s.SECRET_EXPOSURE]
    curve = shipped.signals[s.SECRET_EXPOSURE]
    assert mapped.probabilities[s.SECRET_EXPOSURE] == round(curve(p), 4)
    assert mapped.may_block == shipped.may_block()
