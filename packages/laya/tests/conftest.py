"""A real laya server on 127.0.0.1 (its own event loop on a thread) for every test that needs one."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from agentreflex.core.systemone.heuristic.engine import BuiltinEngine
from agentreflex.laya.engine import Engine
from agentreflex.laya.server import Server, ServerConfig, start


@dataclass
class Running:
    server: Server
    base_url: str
    port: int


class Loop:
    """An event loop on a daemon thread; ``run`` executes a coroutine there and waits."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=30)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


@pytest.fixture
def serve() -> Iterator[Callable[..., Running]]:
    """Start servers with any config and engine; all are stopped at the end of the test."""
    loop = Loop()
    runners: list[Any] = []

    def _start(engine: Engine | None = None, **config: Any) -> Running:
        config.setdefault("port", 0)
        server = Server(engine or BuiltinEngine(), ServerConfig(**config))
        runner = loop.run(start(server))
        runners.append(runner)
        port = runner.addresses[0][1]
        return Running(server, f"http://127.0.0.1:{port}", port)

    try:
        yield _start
    finally:
        for runner in runners:
            loop.run(runner.cleanup())
        loop.close()
