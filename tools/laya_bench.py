"""Load and fault benchmark for ``agentreflex laya serve`` (loopback only, bounded).

Starts the server as its own process on 127.0.0.1, then:

1. **load**: ``--clients`` concurrent keep-alive clients send judge2's real
   pre-tool, post-tool and completion requests (state text from judge2's
   builder) until ``--requests`` are answered; client-side latency
   p50/p95/p99, throughput, errors, the server's RSS sampled every 0.5 s;
2. **faults**, with the same load running: malformed JSON, a wrong content
   type, oversize bodies, slow-loris bodies, clients that vanish mid-body,
   and a burst of simultaneous requests over the concurrency limit.  The
   well-behaved clients must see no error, the faulty ones the right status,
   and the server's in-flight count must return to zero.

Everything is bounded: ``--requests`` (default 20,000) and ``--max-seconds``
(default 600).  Targets (issue 18): built-in p95 < 5 ms with 32 clients on 2
cores, no error, RSS flat within ±10% over 100,000 requests.

The load generator (``--generator``) is ``raw`` by default: pre-encoded
requests over keep-alive connections on an ``asyncio.Protocol``, reading only
the status line and ``Content-Length`` (like wrk), so on a 2-core machine the
generator takes as little CPU from the server as it can; ``aiohttp`` uses an
``aiohttp.ClientSession`` per client instead (about three times the
generator's CPU).  Both run on uvloop when it is installed (``--generator-loop``);
the server runs with ``--loop`` from ``--server-loop``.  The report gives the
CPU time per request of the server and of the generator (from /proc and
``time.process_time``): on a shared machine it is far steadier than wall time,
and each process's share of a core says whether the server was busy or kept
waiting for a CPU.

Run: ``nice -n 10 uv run python tools/laya_bench.py [--requests N] [--clients C]
[--rate R] [--generator raw|aiohttp] [--no-faults] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

HOST = "127.0.0.1"
REQUEST_TIMEOUT_S = 30.0


def payloads(model: str = "jev-latest") -> list[bytes]:
    """judge2's own requests: its batteries, its state builder, a few kinds of session."""
    from agentreflex.core.state.model import ActionRecord, SessionState
    from agentreflex.core.systemone import signals as s
    from agentreflex.core.testing import post_tool, pre_tool, stop
    from agentreflex.judge2.questions import battery
    from agentreflex.judge2.statetext import build_state

    st = SessionState(session_id="bench", host="claude-code", goal="fix the failing parser tests")
    for i, (summary, ok) in enumerate([("Read src/parser.py", True), ("pytest -q", False)], 1):
        st.actions.append(
            ActionRecord(
                seq=i,
                ts=float(i),
                tool="Bash",
                kind="shell",
                summary=summary,
                fingerprint=summary,
                outcome="success" if ok else "failure",
                exit_code=0 if ok else 1,
                verification="pytest" in summary,
            )
        )
    st.seq = 2
    cases = [
        (s.PRE_TOOL, pre_tool("Bash", {"command": "rm -rf build/"})),
        (s.PRE_TOOL, pre_tool("Bash", {"command": "pytest -q tests/test_parser.py"})),
        (s.POST_TOOL, post_tool("Bash", {"command": "pytest -q"}, False, error="AssertionError")),
        (s.COMPLETION, stop("Fixed the parser; all tests pass.")),
    ]
    out = []
    for which, event in cases:
        body = {
            "model": model,
            "state": build_state(st, event, which),
            "questions": battery(which),
        }
        out.append(json.dumps(body).encode())
    return out


def rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_s(pid: int) -> float:
    """A process's CPU time so far (user + system), from /proc: far steadier than wall time
    on a shared machine, so A/B comparisons use it."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_server(args: argparse.Namespace) -> tuple[subprocess.Popen[str], str, str]:
    """(the server process, its base URL, the event loop it says it runs on)."""
    exe = Path(sys.executable).parent / "agentreflex"
    cmd = [
        str(exe),
        "laya",
        "serve",
        "--host",
        HOST,
        "--port",
        "0",
        "--max-concurrent",
        str(args.max_concurrent),
        "--body-timeout",
        str(args.body_timeout),
        *(["--loop", args.server_loop] if args.server_loop != "auto" else []),
    ]
    env = {**os.environ, "AGENTREFLEX_DAEMON": "off"}
    if args.server_src:  # another checkout's agentreflex.laya, for before/after comparisons
        env["PYTHONPATH"] = os.pathsep.join([args.server_src, env.get("PYTHONPATH", "")])
    env.pop("AGENTREFLEX_LAYA_TOKEN", None)
    # stderr to a file, not a pipe: a pipe nobody reads fills up and then blocks the server
    log = tempfile.TemporaryFile()  # noqa: SIM115  # lives as long as the server
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if " on http://" not in line:
        proc.kill()
        log.seek(0)
        raise SystemExit(f"server did not start: {line!r} {log.read().decode(errors='replace')}")
    loop = "uvloop" if ", uvloop," in line else "asyncio"
    return proc, line.rsplit(" on ", 1)[1].strip().removesuffix("/v1/systemone"), loop


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Load:
    """``total`` requests from keep-alive clients; each client is one coroutine and one
    connection.  Two generators:

    - ``raw`` (the default): pre-encoded request bytes written to an ``asyncio.Protocol``,
      and of the reply only the status line, ``Content-Length``, ``Connection`` and
      ``Server-Timing`` are looked at, like wrk does, so the generator's own CPU stays small
      next to the server's on a 2-core machine;
    - ``aiohttp``: an ``aiohttp.ClientSession`` per client, the way a Python caller would
      talk to the server (it costs the generator about three times the CPU of ``raw``).
    """

    def __init__(
        self,
        base: str,
        bodies: list[bytes],
        total: int,
        deadline: float,
        interval: float = 0.0,
        generator: str = "raw",
        clients: int = 32,
    ) -> None:
        self.base, self.bodies, self.total, self.deadline = base, bodies, total, deadline
        self.interval = interval  # seconds between one client's sends (0: as fast as answered)
        self.generator, self.clients = generator, clients
        self.sent = 0
        self.latencies: list[float] = []
        self.server_ms: list[float] = []  # the server's own time (Server-Timing)
        self.errors: dict[str, int] = {}
        self.requests = [
            (
                f"POST /v1/systemone HTTP/1.1\r\nHost: {HOST}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(b)}\r\n\r\n"
            ).encode()
            + b
            for b in bodies
        ]

    async def client(self, port: int, n: int) -> None:
        if self.generator == "aiohttp":
            await self._aiohttp_client(n)
        else:
            await self._raw_client(port, n)

    def _next(self) -> int | None:
        """The index of the next request to send, or None when the run is over."""
        if self.sent >= self.total or time.monotonic() >= self.deadline:
            return None
        self.sent += 1
        return self.sent - 1

    def _record(self, t0: float, status: int | str, timing: float | None) -> None:
        self.latencies.append((time.perf_counter() - t0) * 1000.0)
        if timing is not None:
            self.server_ms.append(timing)
        if status != 200:
            self.errors[str(status)] = self.errors.get(str(status), 0) + 1

    async def _pace(self, next_at: float) -> float:
        if not self.interval:
            return next_at
        await asyncio.sleep(max(0.0, next_at - time.monotonic()))
        return next_at + self.interval

    async def _raw_client(self, port: int, n: int) -> None:
        loop = asyncio.get_running_loop()
        next_at = time.monotonic() + self.interval * n / self.clients
        conn: _RawConnection | None = None
        while (i := self._next()) is not None:
            next_at = await self._pace(next_at)
            t0 = time.perf_counter()
            try:
                if conn is None or conn.closed:
                    _transport, conn = await loop.create_connection(_RawConnection, HOST, port)
                status, timing, close = await conn.exchange(self.requests[i % len(self.requests)])
            except (OSError, TimeoutError, ValueError) as exc:
                status, timing, close = type(exc).__name__, None, True  # type: ignore[assignment]
            self._record(t0, status, timing)
            if close and conn is not None:
                conn.close()  # a fresh connection for the next request
                conn = None
        if conn is not None:
            conn.close()

    async def _aiohttp_client(self, n: int) -> None:
        next_at = time.monotonic() + self.interval * n / self.clients
        headers = {"Content-Type": "application/json"}
        timeout = aiohttp.ClientTimeout(total=REQUEST_TIMEOUT_S)
        connector = aiohttp.TCPConnector(limit=1)
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            while (i := self._next()) is not None:
                next_at = await self._pace(next_at)
                t0 = time.perf_counter()
                try:
                    async with session.post(
                        self.base + "/v1/systemone",
                        data=self.bodies[i % len(self.bodies)],
                        headers=headers,
                    ) as resp:
                        await resp.read()
                        status, timing = resp.status, _server_ms(resp.headers.get("Server-Timing"))
                except (aiohttp.ClientError, OSError, TimeoutError) as exc:
                    status, timing = type(exc).__name__, None  # type: ignore[assignment]
                self._record(t0, status, timing)


def _server_ms(header: str | bytes | None) -> float | None:
    """The server's own time from ``Server-Timing: engine;dur=0.042``."""
    if not header:
        return None
    text = header.decode("latin-1") if isinstance(header, bytes) else header
    _, found, dur = text.partition("dur=")
    return float(dur) if found else None


class _RawConnection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection that sends ready-made bytes and reads replies by
    ``Content-Length`` alone (the server always sends one)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[int, float | None, bool]] | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if self.waiter is not None and not self.waiter.done():
            reply = self._reply()
            if reply is not None:
                self.waiter.set_result(reply)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionResetError("the server closed the connection"))

    async def exchange(self, request: bytes) -> tuple[int, float | None, bool]:
        """Send one request; (status, the server's own ms, whether the server will close)."""
        assert self.transport is not None
        loop = asyncio.get_running_loop()
        self.waiter = loop.create_future()
        self.transport.write(request)
        timer = loop.call_later(REQUEST_TIMEOUT_S, self._time_out)
        try:
            return await self.waiter
        finally:
            timer.cancel()

    def _time_out(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(TimeoutError("no reply within the timeout"))

    def _reply(self) -> tuple[int, float | None, bool] | None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end]).lower()
        length = 0
        timing = None
        close = False
        for line in head.split(b"\r\n")[1:]:
            if line.startswith(b"content-length:"):
                length = int(line[15:])
            elif line.startswith(b"server-timing:"):
                timing = _server_ms(line[14:])
            elif line.startswith(b"connection:"):
                close = b"close" in line
        if len(self.buffer) < end + 4 + length:
            return None
        del self.buffer[: end + 4 + length]
        return int(head[9:12]), timing, close

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


async def sample_rss(
    pid: int, out: list[tuple[float, int, int]], load: Load, stop: asyncio.Event
) -> None:
    t0 = time.monotonic()
    while not stop.is_set():
        out.append((round(time.monotonic() - t0, 2), load.sent, rss_kb(pid)))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


async def raw(port: int, head: str, body: bytes, close_after: float | None = None) -> int:
    """One raw HTTP exchange; ``close_after`` vanishes mid-body instead of reading a reply."""
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(head.encode() + body)
        await writer.drain()
        if close_after is not None:
            await asyncio.sleep(close_after)
            return 0
        line = await asyncio.wait_for(reader.readline(), REQUEST_TIMEOUT_S)
        return int(line.split()[1]) if line else 0
    except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError, IndexError):
        return -1  # no usable reply
    finally:
        writer.close()


def head(length: int, ctype: str = "application/json") -> str:
    return (
        f"POST /v1/systemone HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: {ctype}\r\n"
        f"Content-Length: {length}\r\nConnection: close\r\n\r\n"
    )


async def faults(base: str, body: bytes, max_concurrent: int) -> dict[str, Any]:
    port = int(base.rsplit(":", 1)[1])
    got: dict[str, list[int]] = {}

    async def record(name: str, coro: Any) -> None:
        got.setdefault(name, []).append(await coro)

    jobs = []
    for _ in range(20):
        jobs.append(record("malformed", raw(port, head(9), b"{not json")))
        jobs.append(record("wrong_type", raw(port, head(len(body), "text/plain"), body)))
        jobs.append(record("oversize", raw(port, head(5 << 20), b"{" * 1000)))
        jobs.append(record("invalid_utf8", raw(port, head(5), b'"\xff\xfe"}')))
        jobs.append(record("disconnect", raw(port, head(len(body)), body[:50], close_after=0.05)))
    for _ in range(5):
        jobs.append(record("slow_loris", raw(port, head(len(body)), body[:20])))
    await asyncio.gather(*jobs)
    return {"statuses": {k: _count(v) for k, v in got.items()}}


async def in_flight(base: str) -> int:
    async with aiohttp.ClientSession() as session, session.get(base + "/healthz") as r:
        return int((await r.json())["in_flight"])


async def burst_over_limit(base: str, body: bytes, max_concurrent: int) -> dict[str, Any]:
    """Fill every slot with slow bodies, burst 4x the limit, release, check recovery."""
    port = int(base.rsplit(":", 1)[1])
    holders = []
    for _ in range(max_concurrent):
        _reader, writer = await asyncio.open_connection(HOST, port)
        writer.write(head(len(body)).encode() + body[:20])
        await writer.drain()
        holders.append(writer)
    while await in_flight(base) < max_concurrent:
        await asyncio.sleep(0.01)
    connector = aiohttp.TCPConnector(limit=max_concurrent * 4)
    async with aiohttp.ClientSession(connector=connector) as session:

        async def one() -> int:
            async with session.post(
                base + "/v1/systemone", data=body, headers={"Content-Type": "application/json"}
            ) as r:
                await r.read()
                return r.status

        during = _count(list(await asyncio.gather(*(one() for _ in range(max_concurrent * 4)))))
        for writer in holders:
            writer.close()
        while await in_flight(base) > 0:
            await asyncio.sleep(0.01)
        after = _count([await one() for _ in range(20)])
    return {"during": during, "after_release": after, "in_flight_after": await in_flight(base)}


def _count(values: list[int]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[str(v)] = out.get(str(v), 0) + 1
    return out


async def run(args: argparse.Namespace, base: str, pid: int, server_loop: str) -> dict[str, Any]:
    bodies = payloads()
    deadline = time.monotonic() + args.max_seconds
    rss: list[tuple[float, int, int]] = []
    interval = args.clients / args.rate if args.rate else 0.0
    load = Load(base, bodies, args.requests, deadline, interval, args.generator, args.clients)
    loadavg_before = Path("/proc/loadavg").read_text().split()[:3]
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_rss(pid, rss, load, stop))
    port = int(base.rsplit(":", 1)[1])
    t0 = time.perf_counter()
    server_cpu0, client_cpu0 = cpu_s(pid), time.process_time()
    clients = [asyncio.create_task(load.client(port, i)) for i in range(args.clients)]
    fault_report: dict[str, Any] | None = None
    if args.faults:
        await asyncio.sleep(min(2.0, args.max_seconds / 10))
        fault_report = await faults(base, bodies[0], args.max_concurrent)
    await asyncio.gather(*clients)
    elapsed = time.perf_counter() - t0
    server_cpu, client_cpu = cpu_s(pid) - server_cpu0, time.process_time() - client_cpu0
    stop.set()
    await sampler
    if fault_report is not None:
        fault_report["burst"] = await burst_over_limit(base, bodies[0], args.max_concurrent)
    lat = load.latencies
    warm = [r for r in rss if r[1] >= len(lat) * 0.1] or rss
    rss_values = [r[2] for r in warm]
    return {
        "requests": len(lat),
        "clients": args.clients,
        "rate": args.rate or "closed loop",
        "generator": args.generator,
        "event_loops": {"server": server_loop, "generator": _loop_name()},
        "seconds": round(elapsed, 2),
        "throughput_rps": round(len(lat) / elapsed, 1),
        "latency_ms": {
            "p50": round(pct(lat, 0.50), 3),
            "p95": round(pct(lat, 0.95), 3),
            "p99": round(pct(lat, 0.99), 3),
            "max": round(max(lat), 3),
            "mean": round(statistics.fmean(lat), 3),
        },
        "server_ms": {
            "p50": round(pct(load.server_ms, 0.50), 3),
            "p95": round(pct(load.server_ms, 0.95), 3),
            "p99": round(pct(load.server_ms, 0.99), 3),
        },
        "cpu_us_per_request": {
            "server": round(1e6 * server_cpu / max(1, len(lat)), 1),
            "load_generator": round(1e6 * client_cpu / max(1, len(lat)), 1),
        },
        # share of one core each process had over the run: a closed-loop server well under
        # 100% was kept waiting for a CPU (other work on the machine), not busy with requests
        "cpu_busy_pct": {
            "server": round(100 * server_cpu / elapsed, 1),
            "load_generator": round(100 * client_cpu / elapsed, 1),
        },
        "loadavg_before": loadavg_before,
        "loadavg_after": Path("/proc/loadavg").read_text().split()[:3],
        "errors": load.errors,
        "rss_kb": {
            "after_warmup": rss_values[0],
            "end": rss_values[-1],
            "min": min(rss_values),
            "max": max(rss_values),
            "drift_pct": round(100.0 * (rss_values[-1] - rss_values[0]) / rss_values[0], 2),
        },
        "rss_series": rss[:: max(1, len(rss) // 20)],
        "faults": fault_report,
    }


def _loop_name() -> str:
    loop = asyncio.get_running_loop()
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run_on(kind: str, main: Any) -> Any:
    """Run the generator on uvloop (``auto``: when installed) or on asyncio's own loop."""
    if kind != "asyncio":
        try:
            import uvloop
        except ImportError:
            if kind == "uvloop":
                raise SystemExit("--generator-loop uvloop: uvloop is not installed") from None
        else:
            return uvloop.run(main)
    return asyncio.run(main)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="laya serve: load and faults (loopback only)")
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--max-concurrent", type=int, default=64)
    parser.add_argument("--body-timeout", type=float, default=2.0)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="total requests/s, spread over the clients (0: closed loop, flat out)",
    )
    parser.add_argument(
        "--generator",
        choices=("raw", "aiohttp"),
        default="raw",
        help="raw: pre-encoded requests, replies read by Content-Length (cheap, like wrk); "
        "aiohttp: an aiohttp ClientSession per client",
    )
    parser.add_argument("--server-loop", choices=("auto", "uvloop", "asyncio"), default="auto")
    parser.add_argument(
        "--server-src",
        help="run the server from this packages/laya/src (e.g. an older commit's, "
        "from git archive) to compare before and after",
    )
    parser.add_argument("--generator-loop", choices=("auto", "uvloop", "asyncio"), default="auto")
    parser.add_argument("--no-faults", dest="faults", action="store_false")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not 1 <= args.requests <= 1_000_000 or not 1 <= args.clients <= 512:
        parser.error("--requests 1..1,000,000 and --clients 1..512")
    proc, base, server_loop = start_server(args)
    try:
        report = run_on(args.generator_loop, run(args, base, proc.pid, server_loop))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=10)
    report["cpus"] = os.cpu_count()
    print(json.dumps(report, indent=2) if args.json else summary(report))
    return 0


def summary(report: dict[str, Any]) -> str:
    lat, srv = report["latency_ms"], report["server_ms"]
    cpu, busy, r = report["cpu_us_per_request"], report["cpu_busy_pct"], report["rss_kb"]
    loops = report["event_loops"]
    lines = [
        f"{report['requests']} requests, {report['clients']} clients ({report['rate']}), "
        f"{report['seconds']} s, {report['throughput_rps']} req/s",
        f"load generator: {report['generator']} on {loops['generator']}; server on "
        f"{loops['server']}; {report['cpus']} CPUs; load average before "
        f"{' '.join(report['loadavg_before'])}, after {' '.join(report['loadavg_after'])}",
        f"latency ms (client side): p50 {lat['p50']}  p95 {lat['p95']}  p99 {lat['p99']}  "
        f"max {lat['max']}",
        f"server's own time ms (validate + engine): p50 {srv['p50']}  p95 {srv['p95']}  "
        f"p99 {srv['p99']}",
        f"CPU time per request: server {cpu['server']} us, load generator "
        f"{cpu['load_generator']} us (busy {busy['server']}% and {busy['load_generator']}% "
        "of one core over the run)",
        f"errors: {report['errors'] or 'none'}",
        f"RSS KiB: {r['after_warmup']} after warm-up -> {r['end']} at the end "
        f"(min {r['min']}, max {r['max']}, drift {r['drift_pct']}%)",
    ]
    if report["faults"]:
        lines.append("faults: " + json.dumps(report["faults"]))
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
