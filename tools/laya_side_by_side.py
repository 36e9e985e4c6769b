"""Side by side: ``agentreflex laya serve --engine model`` against laya's own ``laya.serve``.

The same tiny checkpoint (tools/laya_tiny_checkpoint.py) behind both servers,
both on 127.0.0.1 with the same concurrency limit (64) and body timeout
(2 s), laya.serve in its strict Jev mode.  Then the same load (judge2's real
batteries, ``--clients`` keep-alive clients, ``--requests`` in all) and the
same faults against each, one server at a time: latency percentiles,
throughput, RSS, and the status every fault got.  Needs the model extra and
laya's ``serve`` extra (fastapi, uvicorn).

Run: ``nice -n 10 python tools/laya_side_by_side.py [--requests N] [--clients C] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import laya_bench as bench
from laya_tiny_checkpoint import build_tiny_checkpoint

HOST = bench.HOST
LIMIT = 64
BODY_TIMEOUT = 2.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def start(name: str, ckpt: Path) -> tuple[subprocess.Popen[bytes], str, str, str]:
    """(process, base URL, model name to send, health path)."""
    port = free_port()
    env = {**os.environ, "AGENTREFLEX_DAEMON": "off", "OMP_NUM_THREADS": "2"}
    if name == "agentreflex":
        exe = str(Path(sys.executable).parent / "agentreflex")
        cmd = [
            exe,
            "laya",
            "serve",
            "--engine",
            "model",
            "--model",
            str(ckpt),
            "--port",
            str(port),
            "--max-concurrent",
            str(LIMIT),
            "--body-timeout",
            str(BODY_TIMEOUT),
        ]
        model, health = "laya", "/healthz"
    else:
        cmd = [sys.executable, "-m", "laya.serve"]
        env.update(
            LAYA_HOST=HOST,
            LAYA_PORT=str(port),
            LAYA_EXTRA_MODELS=json.dumps({"tiny": str(ckpt)}),
            LAYA_MODELS="tiny",
            LAYA_DEFAULT_MODEL="tiny",
            LAYA_MAX_CONCURRENT=str(LIMIT),
            LAYA_BODY_READ_TIMEOUT=str(BODY_TIMEOUT),
            LAYA_JEV_STRICT="1",
            LAYA_LOG_LEVEL="warning",
            LAYA_THREADS="2",
        )
        model, health = "tiny", "/health"
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    base = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode()[-2000:] if proc.stderr else ""
            raise SystemExit(f"{name} exited: {err}")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.2)
    return proc, base, model, health


async def burst(base: str, body: bytes) -> dict[str, Any]:
    """Hold every slot with a slow body, burst 4x the limit, then check recovery."""
    port = int(base.rsplit(":", 1)[1])
    holders = []
    for _ in range(LIMIT):
        _reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(bench.head(len(body)).encode() + body[:20])
        await writer.drain()
        holders.append(writer)
    await asyncio.sleep(0.5)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=LIMIT * 4)) as session:

        async def one() -> int:
            try:
                async with session.post(
                    base + "/v1/systemone",
                    data=body,
                    headers={"Content-Type": "application/json"},
                    timeout=aiohttp.ClientTimeout(total=10),
                ) as r:
                    await r.read()
                    return r.status
            except (aiohttp.ClientError, TimeoutError):
                return 0

        during = bench._count(list(await asyncio.gather(*(one() for _ in range(LIMIT * 4)))))
        for writer in holders:
            writer.close()
        await asyncio.sleep(BODY_TIMEOUT + 0.5)
        after = bench._count([await one() for _ in range(20)])
    return {"during": during, "after_release": after}


async def measure(
    base: str, pid: int, bodies: list[bytes], args: argparse.Namespace
) -> dict[str, Any]:
    port = int(base.rsplit(":", 1)[1])
    load = bench.Load(base, bodies, args.requests, time.monotonic() + args.max_seconds)
    rss: list[tuple[float, int, int]] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(bench.sample_rss(pid, rss, load, stop))
    # one warm-up request outside the figures (first forward pass, lazy imports)
    warm = bench.Load(base, bodies, 4, time.monotonic() + 60)
    await warm.client(port, 0)
    t0 = time.perf_counter()
    clients = [asyncio.create_task(load.client(port, i)) for i in range(args.clients)]
    fault_statuses = (await bench.faults(base, bodies[0], LIMIT))["statuses"]
    print(f"  faults done: {fault_statuses}", file=sys.stderr, flush=True)
    await asyncio.gather(*clients)
    elapsed = time.perf_counter() - t0
    stop.set()
    await sampler
    lat = load.latencies
    rss_values = [r[2] for r in rss]
    return {
        "requests": len(lat),
        "throughput_rps": round(len(lat) / elapsed, 1),
        "latency_ms": {
            q: round(bench.pct(lat, p), 2)
            for q, p in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))
        },
        "errors": load.errors,
        "rss_mb": {
            "start": round(rss_values[0] / 1024, 1),
            "end": round(rss_values[-1] / 1024, 1),
            "max": round(max(rss_values) / 1024, 1),
        },
        "faults": fault_statuses,
        "burst": await burst(base, bodies[0]),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="agentreflex laya serve vs laya.serve")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="laya-sbs-") as tmp:
        ckpt = build_tiny_checkpoint(Path(tmp))
        for name in ("agentreflex", "laya.serve"):
            proc, base, model, _health = start(name, ckpt)
            try:
                bounded = asyncio.wait_for(
                    measure(base, proc.pid, bench.payloads(model), args), args.max_seconds + 120
                )
                results[name] = asyncio.run(bounded)
                print(f"{name}: {json.dumps(results[name])}", file=sys.stderr, flush=True)
            finally:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
    print(json.dumps(results, indent=2) if args.json else _table(results))
    return 0


def _table(results: dict[str, Any]) -> str:
    rows = ["| | " + " | ".join(results) + " |", "|---|" + "---|" * len(results)]

    def row(label: str, f: Any) -> None:
        rows.append(f"| {label} | " + " | ".join(str(f(r)) for r in results.values()) + " |")

    row(
        "requests / errors",
        lambda r: f"{r['requests']} / {sum(r['errors'].values())} {r['errors'] or ''}",
    )
    row("throughput req/s", lambda r: r["throughput_rps"])
    for q in ("p50", "p95", "p99", "max"):
        row(f"latency {q} ms", lambda r, q=q: r["latency_ms"][q])
    row(
        "RSS MB start / end / max",
        lambda r: f"{r['rss_mb']['start']} / {r['rss_mb']['end']} / {r['rss_mb']['max']}",
    )
    for fault in (
        "malformed",
        "wrong_type",
        "oversize",
        "invalid_utf8",
        "disconnect",
        "slow_loris",
    ):
        row(f"fault: {fault}", lambda r, f=fault: r["faults"].get(f))
    row("burst over a full limit", lambda r: r["burst"]["during"])
    row("after the burst", lambda r: r["burst"]["after_release"])
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
