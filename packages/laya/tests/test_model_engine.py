"""The model engine's own code paths that need no torch.

Loading a real checkpoint needs ``agentreflex-laya[model]`` (torch); see the
README for why that is not exercised here.  What is tested: a directory that
is not a checkpoint is refused before anything is imported, a missing extra
is one clear error, and laya's answers are cut down to the strict wire.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from agentreflex.core.systemone.wire import parse_response
from agentreflex.laya.engine import EngineError, make_engine
from agentreflex.laya.model_engine import strict_answer


def test_a_directory_without_a_checkpoint_is_refused(tmp_path: Path) -> None:
    with pytest.raises(EngineError, match="not a Laya checkpoint"):
        make_engine("model", str(tmp_path))


@pytest.mark.skipif(importlib.util.find_spec("laya") is not None, reason="laya is installed here")
def test_missing_extra_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "rl_agent_config.json").write_text("{}")
    with pytest.raises(EngineError, match=r"agentreflex-laya\[model\]"):
        make_engine("model", str(tmp_path))


def test_unknown_engine() -> None:
    with pytest.raises(EngineError, match="known: builtin, model"):
        make_engine("gpu", None)


def test_laya_answers_are_cut_to_the_strict_wire() -> None:
    questions = {
        "n": {"type": "noul", "instructions": "x", "criteria": {"true": "", "false": ""}},
        "c": {"type": "choice", "instructions": "x", "criteria": {"a": "", "b": ""}},
        "s": {"type": "score", "instructions": "x", "criteria": ["lo", "hi"]},
    }
    laya_answers = {
        "n": {"type": "noul", "noul": 0.81, "confidence": 0.6, "action": "yes"},
        "c": {
            "type": "choice",
            "choice": "b",
            "probabilities": {"a": 0.3, "b": 0.7},
            "confidence": 0.12,
            "answer_confidence": 0.7,
        },
        "s": {"type": "score", "probabilities": {"0": 0.25, "1": 0.75}},
    }
    answers = {qid: strict_answer(laya_answers[qid], q) for qid, q in questions.items()}
    assert answers["n"] == {"type": "noul", "noul": 0.81}
    assert answers["c"] == {
        "type": "choice",
        "probabilities": {"a": 0.3, "b": 0.7},
        "choice": "b",
        "confidence": 0.12,
    }
    assert answers["s"]["score"] == 0.75
    parse_response({"model": "m", "answers": answers}, questions)  # type: ignore[arg-type]


def test_builtin_engine_by_name() -> None:
    engine = make_engine("builtin", None)
    assert (engine.name, engine.model_id, engine.blocking) == ("builtin", "laya-builtin-1", False)
