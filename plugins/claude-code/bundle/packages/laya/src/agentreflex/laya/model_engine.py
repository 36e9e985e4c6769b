"""The Laya model engine: a local checkpoint loaded through laya's own code.

``laya.load(path)`` builds the agent from a checkpoint directory (one holding
``rl_agent_config.json``, ``model.safetensors``, ``tokenizer/`` and
``encoder/``); ``Agent.predict_batch`` answers the same questions for several
states in one forward pass, which is what the server's
:class:`~agentreflex.laya.batcher.Batcher` feeds it.  Laya's answers carry
extra keys (``action``, ``answer_confidence``); only the strict wire fields
are passed on.  laya, torch and transformers are imported here only, when
``--engine model`` is chosen (extra ``agentreflex-laya[model]``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from agentreflex.laya.engine import Answers, EngineError

CHECKPOINT_MARKER = "rl_agent_config.json"


class ModelEngine:
    name = "model"
    blocking = True

    def __init__(self, agent: Any, model_id: str) -> None:
        self.agent = agent
        self.model_id = model_id

    @classmethod
    def load(cls, path: str, device: str | None = None) -> ModelEngine:
        """Load a local checkpoint; never downloads (a path that is not a checkpoint is refused)."""
        if not os.path.isfile(os.path.join(path, CHECKPOINT_MARKER)):
            raise EngineError(f"{path} is not a Laya checkpoint directory (no {CHECKPOINT_MARKER})")
        try:
            import laya  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            raise EngineError(
                "the model engine needs the model extra: pip install 'agentreflex-laya[model]'"
            ) from None
        agent = laya.load(os.path.abspath(path), device=device)
        name = os.path.basename(os.path.normpath(path)) or "checkpoint"
        return cls(agent, f"laya-local:{name}")

    def answer_batch(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        asked = {qid: q.model_dump() for qid, q in questions.items()}
        results = self.agent.predict_batch(list(states), asked)
        return [
            {qid: strict_answer(result["answers"][qid], asked[qid]) for qid in asked}
            for result in results
        ]


def strict_answer(answer: Mapping[str, Any], question: Mapping[str, Any]) -> dict[str, Any]:
    """Only the fields the Jev wire defines, as plain floats."""
    kind = question["type"]
    if kind == "noul":
        return {"type": "noul", "noul": float(answer["noul"])}
    probs = {str(k): float(v) for k, v in answer["probabilities"].items()}
    out: dict[str, Any] = {"type": kind, "probabilities": probs}
    if kind == "choice":
        out["choice"] = str(answer.get("choice") or max(probs, key=lambda k: probs[k]))
    else:
        out["score"] = float(answer.get("score", sum(int(k) * p for k, p in probs.items())))
    if answer.get("confidence") is not None:
        out["confidence"] = float(answer["confidence"])
    elif kind == "choice":
        out["confidence"] = max(probs.values())
    return out
