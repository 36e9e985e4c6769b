"""The warm daemon starts the local judge (``agentreflex laya serve``) when asked to.

With ``AGENTREFLEX_LAYA_AUTOSTART=1`` and a loopback ``JEV_BASE_URL`` in the
daemon's own environment (the user's shell, never a project's files), the
daemon starts the laya server at that address when nothing answers there,
and stops it when the daemon exits: judgments need no second terminal, no
key and no network.  Anything else leaves the judge alone: a remote URL is
never started, and a server that already answers is used as it is.

The server is the subcommand a package declares as its ``local_judge``
(agentreflex-laya: ``laya serve``), run as ``python -m agentreflex.core.cli
WORDS --host H --port P`` from the daemon's own interpreter; what it prints
goes to the daemon's log.
"""

from __future__ import annotations

import subprocess
import sys
import time

from agentreflex.core.config.settings import is_loopback_url
from agentreflex.core.util.ownpython import isolated

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

AUTOSTART = "AGENTREFLEX_LAYA_AUTOSTART"
START_SECONDS = 15.0
STOP_SECONDS = 5.0


def wanted(env: Mapping[str, str]) -> str:
    """The loopback judge URL the daemon should serve, or ``""``."""
    if env.get(AUTOSTART, "").strip().lower() not in ("1", "true", "yes", "on"):
        return ""
    url = env.get("JEV_BASE_URL", "").strip()
    return url if url and is_loopback_url(url) else ""


def host_port(url: str) -> tuple[str, int]:
    """``("127.0.0.1", 8787)`` from ``http://127.0.0.1:8787`` (port 80 when none is given)."""
    rest = url.split("://", 1)[-1].split("/", 1)[0]
    if rest.startswith("["):  # [::1]:8787
        host, _, port = rest[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = rest.partition(":")
    return host, int(port) if port.isdigit() else 80


def answers(url: str, timeout: float = 0.5) -> bool:
    """Whether a judge answers ``GET /healthz`` at ``url``."""
    import http.client

    host, port = host_port(url)
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def start(
    env: Mapping[str, str], stopping: Callable[[], bool] = lambda: False
) -> subprocess.Popen[bytes] | None:
    """Start the local judge when ``env`` asks for it and none answers; None otherwise.

    Never raises: a judge that cannot start is said in the daemon's log, and
    judgments fall back as they do whenever the judge is down.  ``stopping``
    says the daemon was told to stop meanwhile: the judge is stopped too.
    """
    url = wanted(env)
    if not url or answers(url):
        return None
    served = declared()
    if not served:
        print(
            "agentreflex serve: no installed package serves a local judge "
            "(pip install 'agentreflex-core[local-judge]')",
            file=sys.stderr,
        )
        return None
    host, port = host_port(url)
    argv = isolated(sys.executable, "-m", "agentreflex.core.cli", *served)
    argv += ["--host", host, "--port", str(port)]
    try:
        proc = subprocess.Popen(argv, cwd="/", stdin=subprocess.DEVNULL, close_fds=True)
    except OSError as exc:
        print(f"agentreflex serve: cannot start the local judge: {exc}", file=sys.stderr)
        return None
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if stopping():
            stop(proc)
            return None
        if answers(url):
            print(f"agentreflex serve: local judge started at {url}", file=sys.stderr)
            return proc
        if proc.poll() is not None:
            print(
                f"agentreflex serve: the local judge (agentreflex {' '.join(served)}) "
                f"exited ({proc.returncode})",
                file=sys.stderr,
            )
            return None
        time.sleep(0.1)
    print(f"agentreflex serve: the local judge did not answer at {url}", file=sys.stderr)
    stop(proc)
    return None


def declared() -> list[str]:
    """The first declared local judge's subcommand words, or ``[]``."""
    from agentreflex.core.registry import LOCAL_JUDGES, entries

    for _package, words in entries(LOCAL_JUDGES):
        return str(words).split()
    return []


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """Stop a judge this daemon started (and only that one)."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=STOP_SECONDS)
