"""A lane over its budget is skipped; when every lane is, the client gets a 429 in its shape."""

import asyncio

import aiohttp
from agentreflex.router.app import make_app
from agentreflex.routing import parse_policy
from aiohttp.test_utils import TestServer
from router_upstreams import Upstream
from router_world import message


def test_budgets_skip_then_refuse() -> None:
    async def main() -> None:
        a = Upstream("anthropic")
        await a.server.start_server()
        policy = parse_policy(f"""
default_lane = "a"
[lanes.a]
provider = "anthropic"
api = "anthropic"
base_url = "{a.base_url}"
model = "a-model"
budget_usd = 0.00001
price_in_per_mtok = 1.0
""")
        router = TestServer(make_app(policy, {}), host="127.0.0.1")
        await router.start_server()
        url = f"http://127.0.0.1:{router.port}"
        async with aiohttp.ClientSession() as client:
            async with client.post(url + "/v1/messages", json=message()) as first:
                assert first.status == 200  # 11 input tokens at $1 per million: $0.000011 spent
            async with client.post(url + "/v1/messages", json=message()) as second:
                assert second.status == 429
                reply = await second.json()
                assert (
                    reply["error"]["type"] == "rate_limit_error"
                    and "over its budget" in reply["error"]["message"]
                )
            async with client.post(url + "/v1/chat/completions", json={"messages": []}) as third:
                assert third.status == 429 and "error" in await third.json()
        assert len(a.requests) == 1
        await router.close()
        await a.server.close()

    asyncio.run(main())


def test_an_oversized_request_gets_a_413_in_the_apis_shape() -> None:
    async def main() -> None:
        a = Upstream("anthropic")
        await a.server.start_server()
        policy = parse_policy(
            f'default_lane = "a"\n[lanes.a]\nprovider = "x"\napi = "anthropic"\n'
            f'base_url = "{a.base_url}"\nmodel = "m"\n'
        )
        router = TestServer(make_app(policy, {}, max_body=4096), host="127.0.0.1")
        await router.start_server()
        url = f"http://127.0.0.1:{router.port}"
        async with aiohttp.ClientSession() as client:
            big = message("x" * 10_000)
            async with client.post(url + "/v1/messages", json=big) as reply:
                assert reply.status == 413
                body = await reply.json()
                assert body["type"] == "error" and body["error"]["type"] == "request_too_large"
            async with client.post(url + "/v1/chat/completions", json=big) as reply:
                assert (
                    reply.status == 413
                    and "over 4096 bytes" in (await reply.json())["error"]["message"]
                )
            async with client.post(url + "/v1/messages", json=message()) as reply:
                assert reply.status == 200
        assert len(a.requests) == 1
        await router.close()
        await a.server.close()

    asyncio.run(main())
