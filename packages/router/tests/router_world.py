"""A router in front of two scripted upstreams, all on 127.0.0.1, in one event loop."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from agentreflex.router.app import make_app
from agentreflex.routing import parse_policy
from aiohttp.test_utils import TestServer
from router_upstreams import Upstream

KEYS = {"A_KEY": "sk-ant-secret-A-0123456789", "O_KEY": "sk-openai-secret-O-0123456789"}


def policy_text(a: Upstream, o: Upstream, r: Upstream, timeout: float = 0.5) -> str:
    return f"""
default_lane = "a"

[lanes.a]
provider = "anthropic"
api = "anthropic"
base_url = "{a.base_url}"
model = "a-model"
key_env = "A_KEY"
fallbacks = ["o"]
first_byte_timeout_s = {timeout}
price_in_per_mtok = 1000000.0

[lanes.o]
provider = "openai"
api = "openai-chat"
base_url = "{o.base_url}"
model = "o-model"
key_env = "O_KEY"
effort = "low"
max_tokens = 4096
first_byte_timeout_s = {timeout}

[lanes.r]
provider = "openai"
api = "openai-responses"
base_url = "{r.base_url}"
model = "r-model"
key_env = "O_KEY"

[ladder]
lanes = ["a", "o"]
after_failures = 2

[[rules]]
name = "background"
lane = "o"
when = {{ background = true }}

[[rules]]
name = "responses"
lane = "r"
when = {{ api = "openai-responses" }}
"""


@dataclass
class World:
    a: Upstream
    o: Upstream
    r: Upstream
    url: str
    client: aiohttp.ClientSession
    policy_text: str

    async def post(self, path: str, body: Any, **headers: str) -> tuple[int, Any, bytes]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **headers}  # what every real client sends
        async with self.client.post(self.url + path, data=data, headers=sent) as response:
            raw = await response.read()
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
            return response.status, parsed, raw

    async def get(self, path: str) -> Any:
        async with self.client.get(self.url + path) as response:
            return await response.json()


@asynccontextmanager
async def world(
    timeout: float = 0.5, env: dict[str, str] | None = None, record_dir: Path | None = None
) -> AsyncIterator[World]:
    a, o, r = Upstream("anthropic"), Upstream("openai-chat"), Upstream("openai-responses")
    for upstream in (a, o, r):
        await upstream.server.start_server()
    text = policy_text(a, o, r, timeout)
    app = make_app(parse_policy(text), KEYS if env is None else env, record_dir=record_dir)
    router = TestServer(app, host="127.0.0.1")
    await router.start_server()
    client = aiohttp.ClientSession()
    try:
        yield World(a, o, r, f"http://127.0.0.1:{router.port}", client, text)
    finally:
        await client.close()
        await router.close()
        for upstream in (a, o, r):
            await upstream.server.close()


def run(test: Callable[[World], Awaitable[None]], **kwargs: Any) -> None:
    async def main() -> None:
        async with world(**kwargs) as w:
            await test(w)

    asyncio.run(main())


def events(raw: bytes) -> list[tuple[str, Any]]:
    """An SSE body as (event name, parsed data) pairs."""
    out = []
    for block in raw.decode().split("\n\n"):
        if not block.strip():
            continue
        name, data = "", ""
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
        out.append((name, data if data == "[DONE]" else json.loads(data)))
    return out


def message(text: str = "hello", **extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-opus-5-5",
        "max_tokens": 100,
        "messages": [{"role": "user", "content": text}],
        **extra,
    }
