"""Concurrent requests to a blocking engine share forward passes."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from agentreflex.core.systemone.heuristic.engine import BuiltinEngine
from agentreflex.laya.engine import Answers

Q = {"destructive_irreversible": {"type": "noul", "instructions": "Is it destructive?"}}


class SlowPassEngine(BuiltinEngine):
    """The built-in rules behind a pass that takes 50 ms, like a small model on CPU."""

    blocking = True

    def __init__(self) -> None:
        self.pass_sizes: list[int] = []
        self.threads: set[str] = set()

    def answer_batch(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        self.pass_sizes.append(len(states))
        self.threads.add(threading.current_thread().name)
        time.sleep(0.05)
        return super().answer_batch(states, questions)


class BrokenEngine(BuiltinEngine):
    blocking = True

    def answer_batch(self, states: Sequence[str], questions: Mapping[str, Any]) -> list[Answers]:
        raise RuntimeError("/secret/weights.safetensors is corrupt")


def post(base: str, command: str, questions: Any = Q) -> httpx.Response:
    state = f"PROPOSED ACTION: Bash (shell): {command}"
    return httpx.post(
        base + "/v1/systemone", json={"state": state, "questions": questions}, timeout=20
    )


def test_concurrent_requests_are_coalesced_and_each_gets_its_own_answer(serve: Any) -> None:
    engine = SlowPassEngine()
    srv = serve(engine)
    commands = ["rm -rf /" if i % 2 else "ls" for i in range(24)]
    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        replies = list(pool.map(lambda c: post(srv.base_url, c), commands))
    probs = [r.json()["answers"]["destructive_irreversible"]["noul"] for r in replies]
    assert probs == [0.92 if i % 2 else 0.05 for i in range(24)]
    assert sum(engine.pass_sizes) == 24
    assert len(engine.pass_sizes) < 24  # passes were shared
    assert max(engine.pass_sizes) > 1
    assert engine.threads == {"laya-engine_0"}  # off the event loop, one pass at a time


def test_different_question_sets_never_share_a_pass(serve: Any) -> None:
    engine = SlowPassEngine()
    srv = serve(engine)
    other = {"secret_exposure": {"type": "noul", "instructions": "Secret?"}}
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        futures = [
            pool.submit(post, srv.base_url, "cat .env", Q if i % 2 else other) for i in range(8)
        ]
        replies = [f.result() for f in futures]
    for i, r in enumerate(replies):
        assert set(r.json()["answers"]) == set(Q if i % 2 else other)


def test_engine_failure_is_a_500_without_details(serve: Any) -> None:
    srv = serve(BrokenEngine())
    resp = post(srv.base_url, "ls")
    assert resp.status_code == 500
    assert resp.json()["error"]["code"] == "engine_failed"
    assert "secret" not in resp.text and "safetensors" not in resp.text
    assert post(srv.base_url, "ls").status_code == 500  # and the server is still up
