"""Benchmark the agentreflex router against calling the upstream directly (and claude-code-router).

Everything runs on 127.0.0.1, each server in its own process: a fake upstream model
(aiohttp; Anthropic ``/v1/messages`` and OpenAI ``/v1/chat/completions``), the router
(``agentreflex router serve``) and, with ``--ccr DIR``, claude-code-router installed
from npm into DIR, in front of the same fake upstream. The load comes from this
process (aiohttp client, keep-alive).

Measured, per path:
- added latency per non-streaming request, p50 (path p50 minus direct p50);
- added time to first byte when streaming, p50;
- requests per second, 32 concurrent clients, non-streaming;
- the router's resident memory while one 50 MB stream passes through (peak minus idle).

Rows: ``direct`` (client to upstream), ``router`` (Anthropic in, Anthropic lane: pass
through), ``router->chat`` (Anthropic in, OpenAI-chat lane: translated, the same work
claude-code-router does), ``ccr`` (claude-code-router, Anthropic in, OpenAI-chat
provider). Usage: ``uv run python tools/bench_router.py [--ccr /path/to/npm/prefix]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

REPO = Path(__file__).resolve().parents[1]
AGENTREFLEX = Path(sys.prefix) / "bin" / "agentreflex"
BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 256,
    "messages": [{"role": "user", "content": "Say hello. " * 20}],
}


# ---- the fake upstream (run as `bench_router.py upstream --port N --stream-bytes B`) --------


def _sse(name: str | None, payload: Any) -> bytes:
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(payload)}\n\n".encode()


def upstream_app(stream_bytes: int) -> web.Application:
    text_piece = "x" * 16384 if stream_bytes > 100_000 else "Hello"
    repeats = max(1, stream_bytes // len(text_piece)) if stream_bytes > 100_000 else 3

    async def messages(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return web.json_response(
                {
                    "id": "msg_b",
                    "type": "message",
                    "role": "assistant",
                    "model": "m",
                    "content": [{"type": "text", "text": "Hello"}],
                    "stop_reason": "end_turn",
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                }
            )
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        await response.write(
            _sse(
                "message_start",
                {
                    "type": "message_start",
                    "message": {
                        "id": "msg_b",
                        "type": "message",
                        "role": "assistant",
                        "model": "m",
                        "content": [],
                        "stop_reason": None,
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 1},
                    },
                },
            )
        )
        await response.write(
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            )
        )
        delta = _sse(
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text_piece},
            },
        )
        for _ in range(repeats):
            await response.write(delta)
        await response.write(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
        await response.write(
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn"},
                    "usage": {"output_tokens": repeats},
                },
            )
        )
        await response.write(_sse("message_stop", {"type": "message_stop"}))
        await response.write_eof()
        return response

    async def chat(request: web.Request) -> web.StreamResponse:
        body = await request.json()
        if not body.get("stream"):
            return web.json_response(
                {
                    "id": "c",
                    "object": "chat.completion",
                    "model": "m",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": "Hello"},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11},
                }
            )
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)

        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            return _sse(
                None,
                {
                    "id": "c",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "m",
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                },
            )

        await response.write(chunk({"role": "assistant", "content": ""}))
        piece = chunk({"content": text_piece})
        for _ in range(repeats):
            await response.write(piece)
        await response.write(chunk({}, "stop"))
        await response.write(
            _sse(
                None,
                {
                    "id": "c",
                    "object": "chat.completion.chunk",
                    "choices": [],
                    "usage": {"prompt_tokens": 10, "completion_tokens": repeats},
                },
            )
        )
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response

    app = web.Application(client_max_size=1 << 26)
    app.router.add_post("/v1/messages", messages)
    app.router.add_post("/v1/chat/completions", chat)
    return app


@dataclass(frozen=True)
class Row:
    name: str
    url: str
    lane: str | None = None  # router lane picked by a [lane:NAME] tag
    big_url: str | None = None  # where the 50 MB stream is fetched
    big_lane: str | None = None
    pid: int | None = None  # whose memory is watched


# ---- processes ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on {port}")


def start_upstream(stream_bytes: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "upstream",
            "--port",
            str(port),
            "--stream-bytes",
            str(stream_bytes),
        ]
    )
    wait_port(port)
    return proc, port


def router_policy(small: int, big: int) -> str:
    lanes = ""
    for name, api, port in (
        ("a", "anthropic", small),
        ("chat", "openai-chat", small),
        ("big", "anthropic", big),
        ("bigchat", "openai-chat", big),
    ):
        base = f"http://127.0.0.1:{port}" + ("/v1" if api == "openai-chat" else "")
        lanes += f'\n[lanes.{name}]\nprovider = "fake"\napi = "{api}"\nbase_url = "{base}"\nmodel = "m"\n'
    return 'default_lane = "a"\n' + lanes


def start_router(policy: Path) -> tuple[subprocess.Popen[bytes], int]:
    """The router on ``policy``, which sits in a private user config folder (no approval)."""
    port = free_port()
    config_home = policy.parent.parent
    assert policy.parent.name == "agentreflex", policy
    proc = subprocess.Popen(
        [str(AGENTREFLEX), "router", "serve", "--policy", str(policy), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "XDG_CONFIG_HOME": str(config_home)},
    )
    wait_port(port)
    return proc, port


def start_ccr(prefix: Path, home: Path, upstream: int) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    config_dir = home / ".claude-code-router"
    config_dir.mkdir(parents=True, exist_ok=True)
    config = {
        "PORT": port,
        "LOG": False,
        "NON_INTERACTIVE_MODE": True,
        "API_TIMEOUT_MS": 600000,
        "Providers": [
            {
                "name": "fake",
                "api_base_url": f"http://127.0.0.1:{upstream}/v1/chat/completions",
                "api_key": "sk-bench",
                "models": ["m"],
            }
        ],
        "Router": {"default": "fake,m"},
    }
    (config_dir / "config.json").write_text(json.dumps(config))
    cli = prefix / "node_modules" / "@musistudio" / "claude-code-router" / "dist" / "cli.js"
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.Popen(
        ["node", str(cli), "start"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_port(port, 60)
    return proc, port


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and its children (claude-code-router forks a server)."""
    total = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for one in pids:
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


# ---- measurements -------------------------------------------------------------------------


async def latency(
    session: aiohttp.ClientSession, url: str, n: int, stream: bool, body: dict[str, Any]
) -> list[float]:
    payload = {**body, "stream": stream}
    times = []
    for _ in range(n):
        started = time.perf_counter()
        async with session.post(url, json=payload, headers={"x-api-key": "sk-bench"}) as response:
            if stream:
                await response.content.readany()
                times.append(time.perf_counter() - started)
                await response.read()
            else:
                await response.read()
                times.append(time.perf_counter() - started)
            if response.status != 200:
                raise RuntimeError(f"{url}: HTTP {response.status}")
    return times


async def throughput(url: str, body: dict[str, Any], seconds: float, clients: int = 32) -> float:
    done = 0
    deadline = time.perf_counter() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < deadline:
                async with session.post(
                    url, json=body, headers={"x-api-key": "sk-bench"}
                ) as response:
                    await response.read()
                    if response.status == 200:
                        done += 1

        await asyncio.gather(*(worker() for _ in range(clients)))
    return done / seconds


async def big_stream(url: str, body: dict[str, Any], pid: int) -> tuple[int, int, int]:
    """(idle RSS, peak RSS, bytes received) while one 50 MB stream passes through ``pid``."""
    idle = rss_kib(pid)
    peak = idle
    received = 0
    payload = {**body, "stream": True}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url, json=payload, headers={"x-api-key": "sk-bench"}) as response,
    ):
        last = 0.0
        async for chunk in response.content.iter_chunked(1 << 16):
            received += len(chunk)
            now = time.perf_counter()
            if now - last > 0.02:
                peak = max(peak, rss_kib(pid))
                last = now
    return idle, max(peak, rss_kib(pid)), received


def p50_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def tagged(lane: str | None) -> dict[str, Any]:
    """The benchmark body, with ``[lane:NAME]`` in the prompt when a row picks a router lane."""
    if lane is None:
        return BODY
    return {
        **BODY,
        "messages": [{"role": "user", "content": f"[lane:{lane}] " + "Say hello. " * 20}],
    }


def table(results: dict[str, Any]) -> str:
    direct = results["direct"]
    direct_chat = results["direct-chat"]
    rows = [
        "| path | p50 ms | added p50 ms | TTFB p50 ms | added TTFB ms | req/s (32 clients) | RSS idle -> peak, 50 MB stream |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        base = direct_chat if name in ("router->chat", "ccr") else direct
        added = "" if name.startswith("direct") else f"{r['p50_ms'] - base['p50_ms']:.2f}"
        added_ttfb = (
            "" if name.startswith("direct") else f"{r['ttfb_p50_ms'] - base['ttfb_p50_ms']:.2f}"
        )
        memory = (
            f"{r['rss_idle_mib']:.0f} -> {r['rss_peak_mib']:.0f} MiB ({r['stream_mb']:.0f} MB)"
            if "rss_idle_mib" in r
            else ""
        )
        rows.append(
            f"| {name} | {r['p50_ms']:.2f} | {added} | {r['ttfb_p50_ms']:.2f} | {added_ttfb} | {r['rps']:.0f} | {memory} |"
        )
    return "\n".join(rows)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("mode", nargs="?", default="bench", choices=("bench", "upstream"))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--stream-bytes", type=int, default=0)
    parser.add_argument("--n", type=int, default=300, help="sequential requests per latency figure")
    parser.add_argument(
        "--seconds", type=float, default=4.0, help="duration of each throughput run"
    )
    parser.add_argument(
        "--ccr", type=Path, help="npm prefix where @musistudio/claude-code-router is installed"
    )
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.mode == "upstream":
        web.run_app(
            upstream_app(args.stream_bytes),
            host="127.0.0.1",
            port=args.port,
            print=None,
            access_log=None,
        )
        return 0
    procs: list[subprocess.Popen[bytes]] = []
    try:
        small, small_port = start_upstream(0)
        large, big_port = start_upstream(50_000_000)
        procs += [small, large]
        work = Path(tempfile.mkdtemp(prefix="bench-router-"))
        policy = work / "config" / "agentreflex" / "routing.toml"
        policy.parent.mkdir(parents=True)
        policy.write_text(router_policy(small_port, big_port))
        router, router_port = start_router(policy)
        procs.append(router)
        r = f"http://127.0.0.1:{router_port}/v1/messages"
        rows = [
            Row("direct", f"http://127.0.0.1:{small_port}/v1/messages"),
            Row("direct-chat", f"http://127.0.0.1:{small_port}/v1/chat/completions"),
            Row("router", r, None, r, "big", router.pid),
            Row("router->chat", r, "chat", r, "bigchat", router.pid),
        ]
        if args.ccr:
            ccr, ccr_port = start_ccr(args.ccr, work / "ccr-home", small_port)
            ccr_big, ccr_big_port = start_ccr(args.ccr, work / "ccr-big-home", big_port)
            procs += [ccr, ccr_big]
            ccr_big_url = f"http://127.0.0.1:{ccr_big_port}/v1/messages"
            ccr_url = f"http://127.0.0.1:{ccr_port}/v1/messages"
            rows.append(Row("ccr", ccr_url, None, ccr_big_url, None, ccr_big.pid))
        results = asyncio.run(measure(args, rows))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(timeout=20)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


async def measure(args: argparse.Namespace, rows: list[Row]) -> dict[str, Any]:
    """Latencies interleaved (one request per row in turn, so load from other processes
    on the machine falls on every row alike); throughput and memory row by row."""
    results: dict[str, Any] = {row.name: {} for row in rows}
    async with aiohttp.ClientSession() as session:
        for row in rows:  # warm up: connections, caches, JIT
            await latency(session, row.url, 20, False, tagged(row.lane))
            await latency(session, row.url, 5, True, tagged(row.lane))
        for stream, key in ((False, "p50_ms"), (True, "ttfb_p50_ms")):
            samples: dict[str, list[float]] = {row.name: [] for row in rows}
            for _ in range(args.n):
                for row in rows:
                    samples[row.name] += await latency(
                        session, row.url, 1, stream, tagged(row.lane)
                    )
            for row in rows:
                results[row.name][key] = p50_ms(samples[row.name])
    for row in rows:
        results[row.name]["rps"] = await throughput(row.url, tagged(row.lane), args.seconds)
        if row.big_url is not None and row.pid is not None:
            idle, peak, received = await big_stream(row.big_url, tagged(row.big_lane), row.pid)
            results[row.name].update(
                rss_idle_mib=idle / 1024, rss_peak_mib=peak / 1024, stream_mb=received / 1e6
            )
    return results


if __name__ == "__main__":
    sys.exit(main())
