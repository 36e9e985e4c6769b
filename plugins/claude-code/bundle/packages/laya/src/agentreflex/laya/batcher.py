"""Coalescing concurrent requests into one forward pass.

A model's forward pass costs nearly the same for one state as for a dozen,
so requests that arrive while a pass is running wait for the next one and
share it.  There is no artificial delay: an idle server runs a lone request
at once; under load each pass takes everything queued since the last one
(grouped by identical question sets, at most ``max_states`` states a pass).
A caller that went away (its future cancelled) is skipped, never answered.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from agentreflex.laya.engine import Answers, Engine


@dataclass
class _Item:
    states: Sequence[str]
    questions: Mapping[str, Any]
    key: str
    future: asyncio.Future[list[Answers]]


def questions_key(questions: Mapping[str, Any]) -> str:
    """Two requests share a pass only if they ask exactly the same questions."""
    return json.dumps(
        {qid: q.model_dump() if hasattr(q, "model_dump") else q for qid, q in questions.items()},
        sort_keys=True,
    )


class Batcher:
    """Runs ``engine.answer_batch`` on ``executor``, one pass at a time, sharing passes."""

    def __init__(self, engine: Engine, executor: Executor, max_states: int = 64) -> None:
        self.engine = engine
        self.executor = executor
        self.max_states = max_states
        self.passes = 0
        self._pending: list[_Item] = []
        self._task: asyncio.Task[None] | None = None

    async def submit(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Answers]] = loop.create_future()
        self._pending.append(_Item(states, questions, questions_key(questions), future))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self._pending:
            items, self._pending = self._pending, []
            groups: dict[str, list[_Item]] = {}
            for item in items:
                if not item.future.done():
                    groups.setdefault(item.key, []).append(item)
            for group in groups.values():
                for chunk in _chunks(group, self.max_states):
                    await self._run(chunk)

    async def _run(self, items: list[_Item]) -> None:
        states = [state for item in items for state in item.states]
        loop = asyncio.get_running_loop()
        self.passes += 1
        try:
            results = await loop.run_in_executor(
                self.executor, self.engine.answer_batch, states, items[0].questions
            )
        except Exception as exc:
            for item in items:
                if not item.future.done():
                    item.future.set_exception(exc)
            return
        start = 0
        for item in items:
            part = results[start : start + len(item.states)]
            start += len(item.states)
            if not item.future.done():
                item.future.set_result(part)


def _chunks(items: list[_Item], max_states: int) -> list[list[_Item]]:
    """Split into passes of at most ``max_states`` states (a larger single request goes alone)."""
    out: list[list[_Item]] = []
    current: list[_Item] = []
    size = 0
    for item in items:
        if current and size + len(item.states) > max_states:
            out.append(current)
            current, size = [], 0
        current.append(item)
        size += len(item.states)
    if current:
        out.append(current)
    return out
