"""Shared fixtures: a session-state builder and a local aiohttp server playing Jev."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from agentreflex.core.state.model import ActionRecord, SessionState
from aiohttp import web


class SessionBuilder:
    """Builds a SessionState the way the store would fold a session's events."""

    def __init__(self, goal: str = "") -> None:
        self.state = SessionState(session_id="test-session", host="claude-code", goal=goal)

    def run(
        self,
        summary: str,
        ok: bool = True,
        kind: str = "shell",
        exit_code: int | None = None,
        mutation: bool = False,
        verification: bool = False,
        paths: tuple[str, ...] = (),
        error: str = "",
    ) -> SessionBuilder:
        st = self.state
        st.seq += 1
        c = st.counters
        record = ActionRecord(
            seq=st.seq,
            ts=float(st.seq),
            tool="Bash" if kind == "shell" else kind.title(),
            kind=kind,
            summary=summary,
            fingerprint=f"fp:{kind}:{summary}",
            outcome="success" if ok else "failure",
            error_signature=error,
            exit_code=exit_code if exit_code is not None else (0 if ok else 1),
            paths=list(paths),
            verification=verification,
            mutation=mutation,
        )
        st.actions.append(record)
        c.tool_calls += 1
        if not ok:
            st.failures.append(record)
            c.failures += 1
            c.last_failure_seq = st.seq
        if verification:
            st.verifications.append(record)
            c.last_verification_seq = st.seq
            c.last_verification_ok = ok
        if mutation and ok:
            c.last_mutation_seq = st.seq
        return self

    def edit(self, path: str) -> SessionBuilder:
        return self.run(f"Edit {path}", kind="edit", mutation=True, paths=(path,), exit_code=None)

    def test(self, ok: bool = True, command: str = "pytest -q", output: str = "") -> SessionBuilder:
        self.run(command, ok=ok, verification=True, exit_code=0 if ok else 1)
        if output:
            self.evidence(output)
        return self

    def evidence(self, text: str) -> SessionBuilder:
        self.state.evidence.append(text)
        self.state.counters.last_evidence_seq = self.state.seq
        return self

    def constraint(self, text: str) -> SessionBuilder:
        self.state.notes.setdefault("constraints", []).append({"text": text})
        return self


@pytest.fixture
def session() -> Callable[..., SessionBuilder]:
    return SessionBuilder


# --- the fake Jev server ---------------------------------------------------


def answer_all(questions: dict[str, Any], p: float = 0.42) -> dict[str, Any]:
    """A valid System One response to ``questions``, every noul at ``p``."""
    answers: dict[str, Any] = {}
    for qid, q in questions.items():
        if q["type"] == "noul":
            answers[qid] = {"type": "noul", "noul": p}
        elif q["type"] == "choice":
            labels = list(q["criteria"])
            probs = {label: round(1 / len(labels), 6) for label in labels}
            probs[labels[0]] = round(1 - sum(probs[label] for label in labels[1:]), 6)
            answers[qid] = {
                "type": "choice",
                "choice": labels[0],
                "probabilities": probs,
                "confidence": 0.3,
            }
        else:
            n = len(q["criteria"])
            answers[qid] = {"type": "score", "probabilities": {str(i): 1 / n for i in range(n)}}
    return {
        "model": "jev-test",
        "answers": answers,
        "usage": {"input_tokens": 10, "output_tokens": 0},
    }


@dataclass
class Reply:
    """One scripted reply.  ``body`` may be a callable of the request JSON."""

    status: int = 200
    body: Any = None
    text: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass
class FakeJev:
    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    script: list[Reply] = field(default_factory=list)
    p: float = 0.42
    reply = Reply
    answer_all = staticmethod(answer_all)

    def then(self, *replies: Reply) -> FakeJev:
        self.script.extend(replies)
        return self

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raw = await request.text()
        body = json.loads(raw)
        self.requests.append(
            {"path": request.path, "headers": dict(request.headers), "body": body, "raw": raw}
        )
        reply = self.script.pop(0) if self.script else Reply()
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.text is not None:
            return web.Response(status=reply.status, text=reply.text, headers=reply.headers)
        data = reply.body(body) if callable(reply.body) else reply.body
        if data is None:
            data = answer_all(body["questions"], self.p)
        return web.Response(
            status=reply.status,
            text=json.dumps(data),
            content_type="application/json",
            headers=reply.headers,
        )


@pytest.fixture
def jev() -> Iterator[FakeJev]:
    fake = FakeJev()
    app = web.Application()
    app.router.add_post("/v1/systemone", fake.handle)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    runner = web.AppRunner(app, handler_cancellation=True, shutdown_timeout=1.0)
    asyncio.run_coroutine_threadsafe(runner.setup(), loop).result()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    asyncio.run_coroutine_threadsafe(site.start(), loop).result()
    port = runner.addresses[0][1]
    fake.base_url = f"http://127.0.0.1:{port}"
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(runner.cleanup(), loop).result()
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()
