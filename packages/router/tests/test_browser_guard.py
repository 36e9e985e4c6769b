"""What a web page can send gets a 4xx, and the upstream (a real server) sees nothing.

Cases: a page's "simple" cross-origin POST (text/plain needs no CORS preflight, so a
browser sends it; cf. the 2023 Ollama/ComfyUI DNS-rebinding reports and the llama.cpp
server's Host checks), an Origin header on JSON, and a DNS-rebound name in Host.
"""

from __future__ import annotations

from agentreflex.router.browser_guard import host_name
from router_world import World, message, run


def _untouched(w: World) -> None:
    assert w.a.requests == [] and w.o.requests == [] and w.r.requests == []


def test_a_cross_origin_text_plain_post_is_refused() -> None:
    async def check(w: World) -> None:
        status, reply, _ = await w.post(
            "/v1/messages",
            message(),
            **{"Content-Type": "text/plain", "Origin": "https://evil.example"},
        )
        assert 400 <= status < 500
        assert reply["type"] == "error"
        _untouched(w)

    run(check)


def test_a_text_plain_body_without_origin_is_refused_415() -> None:
    async def check(w: World) -> None:
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            status, _, _ = await w.post("/v1/messages", message(), **{"Content-Type": kind})
            assert status == 415, kind
        status, _, _ = await w.post(
            "/v1/chat/completions", message(), **{"Content-Type": "text/plain"}
        )
        assert status == 415
        _untouched(w)

    run(check)


def test_an_origin_header_on_json_is_refused_403() -> None:
    async def check(w: World) -> None:
        for origin in ("https://evil.example", "null", "http://127.0.0.1:8787"):
            status, _, _ = await w.post("/v1/messages", message(), Origin=origin)
            assert status == 403, origin
        _untouched(w)

    run(check)


def test_a_dns_rebound_host_is_refused_even_on_get() -> None:
    async def check(w: World) -> None:
        for host in (
            "rebind.evil.example:8787",
            "evil.example",
            "127.0.0.1.nip.io",
            "localhost.evil",
        ):
            status, _, _ = await w.post("/v1/messages", message(), Host=host)
            assert status == 421, host
            async with w.client.get(w.url + "/status", headers={"Host": host}) as response:
                assert response.status == 421, host
        _untouched(w)

    run(check)


def test_loopback_hosts_with_ports_pass() -> None:
    async def check(w: World) -> None:
        for host in ("127.0.0.1:8787", "localhost", "[::1]:8787", "LOCALHOST:1"):
            status, reply, _ = await w.post("/v1/messages", message(), Host=host)
            assert status == 200, (host, reply)
        assert len(w.a.requests) == 4

    run(check)


def test_host_name_parsing() -> None:
    assert host_name("[::1]:8787") == "::1"
    assert host_name("localhost.:80") == "localhost"
    assert host_name("127.0.0.1:x") == ""
    assert host_name("[::1") == ""
    assert host_name("") == ""
