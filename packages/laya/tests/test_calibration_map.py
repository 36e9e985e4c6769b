"""A calibration map fitted by the tool on a small labelled file is what judge2 then serves.

Real parts: the fitting tool run on a JSONL file, the map written as data, a laya
server on 127.0.0.1, and judge2 configured (user config) to use that map.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from agentreflex.core.config.settings import load_config
from agentreflex.core.state.model import SessionState
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.judge2.calibmap import load_map
from agentreflex.judge2.judge import make_judge
from agentreflex.judge2.statetext import build_state

TOOLS = Path(__file__).resolve().parents[3] / "tools"


def _tool(name: str) -> ModuleType:
    sys.path.insert(0, str(TOOLS))
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row(command: str, outcome: bool) -> dict[str, Any]:
    state = build_state(SessionState(), pre_tool("Bash", {"command": command}), s.PRE_TOOL)
    return {
        "family": "destructive",
        "question": s.DESTRUCTIVE,
        "battery": s.PRE_TOOL,
        "state": state,
        "outcome": outcome,
        "source": "test",
        "split": "fit",
    }


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for key in ("JEV_API_KEY", "JEV_MODE", "JEV_MODEL", "JEV_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("AGENTREFLEX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENTREFLEX_SOCKET", str(tmp_path / "no-daemon.sock"))
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    return root


def test_served_probabilities_come_out_through_a_fitted_map(
    serve: Any, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the engine says 0.92 for a hard reset; on this file such commands were destructive 21 of
    # 30 times, and its 0.05 commands 3 of 30 times (60 rows: the tool fits from 50, 10 positive)
    rows = [_row(f"git reset --hard HEAD~{i}", i < 21) for i in range(30)]
    rows += [_row(f"ls src/module{i}", i < 3) for i in range(30)]
    labelled = tmp_path / "small.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    map_path = tmp_path / "map.json"
    tool = _tool("judge2_calibration")
    assert tool.main(["--labelled", str(labelled), "--out", str(map_path), "--boot", "20"]) == 0
    curve = load_map(str(map_path)).signals[s.DESTRUCTIVE]
    assert (curve(0.92), curve(0.05)) == (0.7, 0.1)
    assert not curve.may_block  # nothing held out: no precision shown, no judge-only BLOCK

    config_dir = Path(str(tmp_path / "home" / ".config" / "agentreflex"))
    config_dir.mkdir(parents=True)
    (config_dir / "config.toml").write_text(
        f'[judge2]\ncalibration = "{map_path}"\n', encoding="utf-8"
    )
    srv = serve()
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url)
    config = load_config(str(project))
    judge = make_judge(config)
    assert judge is not None
    ctx = make_context(
        pre_tool("Bash", {"command": "git reset --hard HEAD~3"}),
        config=config,
        judge=judge,
        state_dir=config.state_dir,
    )
    answer = ctx.judge_answer(s.PRE_TOOL)
    assert answer is not None and not answer.degraded, answer
    assert answer.probabilities[s.DESTRUCTIVE] == 0.7  # the engine said 0.92
    assert answer.may_block == frozenset()
    assert srv.server.served == 1


def test_the_real_source_cases_cite_their_source_and_split_once() -> None:
    tool = _tool("judge2_labelled_real")
    rows = list(tool.case_rows())
    # an issue thread or pull request, or a public page (a post that shows the session)
    assert rows and all(r["source"].startswith("https://") for r in rows)
    assert sum(r["source"].startswith("https://github.com/") for r in rows) > 0.9 * len(rows)
    # a proposed call, or for a completion case the stop's final message
    assert all(
        ("FINAL MESSAGE" if r["battery"] == s.COMPLETION else "PROPOSED ACTION") in r["state"]
        for r in rows
    )
    again = [r["split"] for r in tool.case_rows()]
    assert [r["split"] for r in rows] == again  # the same every time
    shares = [tool.split_of(f"command {i}") == "heldout" for i in range(2000)]
    assert 0.27 < sum(shares) / len(shares) < 0.33


def test_with_the_local_judge_on_a_judge_only_block_is_a_warn_and_floors_still_block(
    serve: Any, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.core.decision import Verdict
    from agentreflex.gate.reflex import GateReflex

    srv = serve()
    monkeypatch.setenv("JEV_BASE_URL", srv.base_url)  # the README's setup: laya serve, no key
    config = load_config(str(project))

    def verdicts(command: str) -> set[Verdict]:
        judge = make_judge(config)
        event = pre_tool("Bash", {"command": command}, cwd=str(project))
        ctx = make_context(event, config=config, judge=judge, state_dir=config.state_dir)
        return {f.verdict for f in GateReflex().evaluate(ctx)}

    # dcg's own allow case (tests/corpus/canonical.toml): the engine says 0.92 destructive,
    # right 71% of the time on held-out data, so alone it may only WARN
    assert verdicts('echo "git reset --hard"') == {Verdict.WARN}
    assert Verdict.BLOCK in verdicts("git reset --hard HEAD~3")  # the floor, by the max rule
    assert srv.server.served >= 2


def test_too_few_rows_or_positives_fit_no_map(tmp_path: Path) -> None:
    """A family with fewer than 50 fitting rows, or fewer than 10 positive, is served raw."""
    tool = _tool("judge2_calibration")
    few = [_row(f"git reset --hard HEAD~{i}", i < 14) for i in range(20)]
    few += [_row(f"ls src/module{i}", i < 2) for i in range(20)]
    rare = [_row(f"git reset --hard HEAD~{i}", i < 4) for i in range(30)]
    rare += [_row(f"ls src/module{i}", i < 4) for i in range(30)]
    for name, rows in (("few", few), ("rare", rare)):
        labelled = tmp_path / f"{name}.jsonl"
        labelled.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        out = tmp_path / f"{name}-map.json"
        assert tool.main(["--labelled", str(labelled), "--out", str(out), "--boot", "20"]) == 0
        assert s.DESTRUCTIVE not in load_map(str(out)).signals, name
