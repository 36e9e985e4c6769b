"""What the server asks of an engine, and how one is picked by name.

An engine turns validated questions about one or more states into answers in
wire form (``{"type": "noul", "noul": p}`` and so on).  ``blocking`` engines
(a real model's forward pass) run on a worker thread; the built-in rules are
cheap enough to run on the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

Answers = dict[str, dict[str, Any]]


class Engine(Protocol):
    name: str
    model_id: str
    blocking: bool

    def answer_batch(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        """One answers mapping per state, keyed by the caller's question ids."""
        ...


class EngineError(Exception):
    """An engine cannot be built (missing extra, bad checkpoint).  ``str()`` is safe to print."""


def make_engine(kind: str, model_path: str | None = None) -> Engine:
    """``builtin`` or ``model`` (the latter needs ``agentreflex-laya[model]`` and a path)."""
    if kind == "builtin":
        from agentreflex.core.systemone.heuristic.engine import BuiltinEngine

        return BuiltinEngine()
    if kind == "model":
        if not model_path:
            raise EngineError(
                "--engine model needs --model PATH (a local Laya checkpoint directory)"
            )
        from agentreflex.laya.model_engine import ModelEngine

        return ModelEngine.load(model_path)
    raise EngineError(f"unknown engine {kind!r}; known: builtin, model")
