"""Side by side: ``agentreflex laya serve --engine model`` against laya's own ``laya.serve``.

The same tiny checkpoint (tools/laya_tiny_checkpoint.py) behind both servers,
both on 127.0.0.1 with the same concurrency limit (64) and body timeout
(2 s), laya.serve in its strict Jev mode.  Then the same load (judge2's real
batteries, ``--clients`` keep-alive clients, ``--requests`` in all) and the
same faults against each, one server at a time: latency percentiles,
throughput, RSS, and the status every fault got.  Needs the model extra and
laya's ``serve`` extra (fastapi, uvicorn).

Each server is run ``--repeats`` times (default 3), alternating which goes
first; the table gives the median and the range of each figure, and each
fault's statuses (one value when every run agreed).

Run: ``nice -n 10 python tools/laya_side_by_side.py [--requests N] [--clients C]
[--repeats R] [--json]`` in an environment with ``agentreflex-laya[model]`` and
``laya[serve]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

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


def start(name: str, ckpt: Path, log: IO[bytes]) -> tuple[subprocess.Popen[bytes], str, str, str]:
    """(process, base URL, model name to send, health path).  The server's log goes to
    ``log``, a file: a pipe nobody reads fills up (64 KiB) under the faults' warnings and
    then blocks the server in write(), which looks like a hang."""
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
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log, env=env)
    base = f"http://{HOST}:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise SystemExit(f"{name} exited: {log.read().decode(errors='replace')[-2000:]}")
        try:
            with socket.create_connection((HOST, port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.2)
    return proc, base, model, health


async def burst(base: str, body: bytes) -> dict[str, Any]:
    """Hold every slot with a slow body, burst 4x the limit, then check recovery: 20 requests
    at once after the holders left, each with 10 s to be answered."""
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
        after = bench._count(list(await asyncio.gather(*(one() for _ in range(20)))))
    return {"during": during, "after_release": after}


async def measure(
    base: str, pid: int, bodies: list[bytes], args: argparse.Namespace
) -> dict[str, Any]:
    port = int(base.rsplit(":", 1)[1])
    load = bench.Load(
        base,
        bodies,
        args.requests,
        time.monotonic() + args.max_seconds,
        generator=args.generator,
        clients=args.clients,
    )
    rss: list[tuple[float, int, int]] = []
    stop = asyncio.Event()
    sampler = asyncio.create_task(bench.sample_rss(pid, rss, load, stop))
    # one warm-up request outside the figures (first forward pass, lazy imports)
    warm = bench.Load(base, bodies, 4, time.monotonic() + 60, generator=args.generator)
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
    parser.add_argument("--repeats", type=int, default=3, help="runs per server (median, range)")
    parser.add_argument("--generator", choices=("raw", "aiohttp"), default="raw")
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, Any]]] = {"agentreflex": [], "laya.serve": []}
    loadavg = [Path("/proc/loadavg").read_text().split()[:3]]
    with tempfile.TemporaryDirectory(prefix="laya-sbs-") as tmp:
        ckpt = build_tiny_checkpoint(Path(tmp))
        for repeat in range(args.repeats):
            order = list(runs) if repeat % 2 == 0 else list(reversed(runs))  # neither always first
            for name in order:
                runs[name].append(_one_run(name, ckpt, args))
                print(f"{name} #{repeat + 1}: {json.dumps(runs[name][-1])}", file=sys.stderr)
    loadavg.append(Path("/proc/loadavg").read_text().split()[:3])
    header = (
        f"{args.repeats} runs per server, alternating; {args.requests} requests from "
        f"{args.clients} clients each ({args.generator} generator); load average before "
        f"{' '.join(loadavg[0])}, after {' '.join(loadavg[1])}; figures: median [min-max]"
    )
    if args.json:
        print(json.dumps({"runs": runs, "loadavg": loadavg}, indent=2))
    else:
        print(header + "\n\n" + _table(runs))
    return 0


def _one_run(name: str, ckpt: Path, args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryFile() as log:
        return _measured(name, ckpt, args, log)


def _measured(name: str, ckpt: Path, args: argparse.Namespace, log: IO[bytes]) -> dict[str, Any]:
    proc, base, model, _health = start(name, ckpt, log)
    try:
        bounded = asyncio.wait_for(
            measure(base, proc.pid, bench.payloads(model), args), args.max_seconds + 120
        )
        result: dict[str, Any] = bench.run_on("auto", bounded)
        return result
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


def _spread(values: list[float]) -> str:
    """Median and range: ``145 [131-150]``, or the one value."""
    med = statistics.median(values)
    fmt = "{:g}".format
    if len(values) == 1 or min(values) == max(values):
        return fmt(med)
    return f"{fmt(med)} [{fmt(min(values))}-{fmt(max(values))}]"


def _same_or_each(values: list[Any]) -> str:
    """One value when every run agrees, else each run's in order."""
    texts = [json.dumps(v, sort_keys=True) if not isinstance(v, str) else v for v in values]
    return texts[0] if len(set(texts)) == 1 else " / ".join(texts)


def _table(runs: dict[str, list[dict[str, Any]]]) -> str:
    rows = ["| | " + " | ".join(runs) + " |", "|---|" + "---|" * len(runs)]

    def row(label: str, f: Any) -> None:
        rows.append(f"| {label} | " + " | ".join(str(f(rs)) for rs in runs.values()) + " |")

    def errors(rs: list[dict[str, Any]]) -> str:
        total: dict[str, int] = {}
        for r in rs:
            for status, n in r["errors"].items():
                total[status] = total.get(status, 0) + n
        return f"{sum(r['requests'] for r in rs)} / {sum(total.values())} {total or ''}".strip()

    row("requests / errors (all runs)", errors)
    row("throughput req/s", lambda rs: _spread([r["throughput_rps"] for r in rs]))
    for q in ("p50", "p95", "p99", "max"):
        row(f"latency {q} ms", lambda rs, q=q: _spread([r["latency_ms"][q] for r in rs]))
    for key in ("start", "end", "max"):
        row(f"RSS {key} MB", lambda rs, k=key: _spread([r["rss_mb"][k] for r in rs]))
    for fault in (
        "malformed",
        "wrong_type",
        "oversize",
        "invalid_utf8",
        "disconnect",
        "slow_loris",
    ):
        row(f"fault: {fault}", lambda rs, f=fault: _same_or_each([r["faults"].get(f) for r in rs]))
    row("burst over a full limit", lambda rs: _same_or_each([r["burst"]["during"] for r in rs]))
    row("after the burst", lambda rs: _same_or_each([r["burst"]["after_release"] for r in rs]))
    return "\n".join(rows)


if __name__ == "__main__":
    raise SystemExit(main())
