"""Open a local page in Debian's headless Chromium and say what happened, over DevTools.

Used by the report's browser test and by ``tools/report_screenshot.py``.  It
starts ``/usr/bin/chromium`` (installing Debian's package with apt-get when it
is missing and we are root, as on a fresh CI machine) with a private profile
and ``--remote-debugging-port=0`` on 127.0.0.1, then drives one page through
the Chrome DevTools Protocol with aiohttp's WebSocket client:

* every network request the page makes (``Network.requestWillBeSent``);
* every console error, uncaught exception and browser log error (a blocked
  load or a CSP violation is a ``Log.entryAdded`` error);
* the accessibility tree (``Accessibility.getFullAXTree``), to find things
  by role and name as a person with a screen reader would;
* a full-page PNG screenshot.

Usage: python tools/headless_chromium.py FILE.html OUT.png   (or --ensure: install only)
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
)


def ensure_chromium() -> str:
    """The Chromium binary; installed from Debian's packages when missing and we are root."""
    if os.path.exists(CHROMIUM):
        return CHROMIUM
    sudo: list[str] = []
    if os.geteuid() != 0:
        if not shutil.which("sudo"):
            raise RuntimeError(f"{CHROMIUM} is missing: run `apt-get install -y chromium` as root")
        sudo = ["sudo", "-n", "env", "DEBIAN_FRONTEND=noninteractive"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True, env=env, timeout=900)
    subprocess.run(
        [*sudo, "apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, timeout=1800
    )
    return CHROMIUM


@dataclass
class PageReport:
    """What the page did while it loaded."""

    url: str
    requests: list[str] = field(default_factory=list)  # URLs other than the page itself
    errors: list[str] = field(default_factory=list)  # console errors, exceptions, log errors
    ax_nodes: list[tuple[str, str]] = field(default_factory=list)  # (role, name)
    text: str = ""
    png: bytes = b""

    def has(self, role: str, name: str) -> bool:
        return any(r == role and name in n for r, n in self.ax_nodes)


class _Cdp:
    """One DevTools WebSocket: commands by id, events collected as they come."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        async for msg in self.ws:
            data = json.loads(msg.data)
            if "id" in data and data["id"] in self.waiting:
                self.waiting.pop(data["id"]).set_result(data)
            else:
                self.events.append(data)

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.ws.send_str(json.dumps({"id": self.next_id, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 30)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})  # type: ignore[no-any-return]

    async def wait_for(self, method: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if any(e.get("method") == method for e in self.events):
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(f"no {method} within {seconds} s")


def _port(profile: str, proc: subprocess.Popen[bytes], seconds: float = 60) -> int:
    path = os.path.join(profile, "DevToolsActivePort")
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chromium exited with {proc.returncode}")
        with contextlib.suppress(OSError, ValueError), open(path) as fh:
            return int(fh.readline().strip())
        time.sleep(0.1)
    raise TimeoutError("chromium did not open its DevTools port")


async def _drive(port: int, url: str, width: int) -> PageReport:
    import aiohttp

    async with aiohttp.ClientSession() as http:
        async with http.put(f"http://127.0.0.1:{port}/json/new?about:blank") as resp:
            target = await resp.json()
        async with http.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
            cdp = _Cdp(ws)
            for domain in ("Page", "Network", "Runtime", "Log"):
                await cdp.send(f"{domain}.enable")
            await cdp.send(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=900,
                deviceScaleFactor=1,
                mobile=False,
            )
            await cdp.send("Page.navigate", url=url)
            await cdp.wait_for("Page.loadEventFired", 30)
            await asyncio.sleep(0.3)  # late console messages
            report = PageReport(url=url)
            report.ax_nodes = _ax_nodes(await cdp.send("Accessibility.getFullAXTree"))
            text = await cdp.send(
                "Runtime.evaluate", expression="document.body.innerText", returnByValue=True
            )
            report.text = str(text["result"].get("value", ""))
            shot = await cdp.send(
                "Page.captureScreenshot", format="png", captureBeyondViewport=True
            )
            report.png = base64.b64decode(shot["data"])
            _events(cdp.events, report)
            cdp.reader.cancel()
            return report


def _ax_nodes(tree: dict[str, Any]) -> list[tuple[str, str]]:
    out = []
    for node in tree.get("nodes", []):
        role = (node.get("role") or {}).get("value", "")
        name = (node.get("name") or {}).get("value", "")
        out.append((str(role), str(name)))
    return out


def _events(events: list[dict[str, Any]], report: PageReport) -> None:
    for e in events:
        method, params = e.get("method", ""), e.get("params", {})
        if method == "Network.requestWillBeSent":
            req_url = params["request"]["url"]
            if req_url != report.url:
                report.requests.append(req_url)
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            report.errors.append(json.dumps(params.get("args", []))[:500])
        elif method == "Runtime.exceptionThrown":
            report.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Log.entryAdded" and params["entry"].get("level") == "error":
            report.errors.append(params["entry"].get("text", "")[:500])


def open_page(path: str, width: int = 1100) -> PageReport:
    """Load ``path`` (a local file) in headless Chromium and report what happened."""
    binary = ensure_chromium()
    url = Path(path).resolve().as_uri()
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    proc = subprocess.Popen(
        [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return asyncio.run(_drive(_port(profile, proc), url, width))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def main(argv: list[str]) -> int:
    if argv == ["--ensure"]:
        print(ensure_chromium())
        return 0
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    report = open_page(argv[0])
    Path(argv[1]).write_bytes(report.png)
    print(json.dumps({"requests": report.requests, "errors": report.errors}, indent=2))
    return 0 if not report.requests and not report.errors else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
