"""Issue #35: decisions and findings exported as OpenTelemetry log records over OTLP/HTTP.

A real collector on 127.0.0.1 (tools/otlp_collector.py) decodes every request
with the official protobuf definitions (opentelemetry-proto).  It receives
every decision of replayed sessions, with the semantic-convention and
``agentreflex.*`` attributes and none of the secrets, from the one-shot
``agentreflex export`` and live from the daemon (``[export] otlp`` in the user's
config) answering real hook processes.  With the collector failing (500), down
or slow, hooks still get their answers and the counters say what was dropped.
A project's config cannot choose where decisions go.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import recorded_session
from otlp_collector import Collector
from recorded_session import Recorded

DECISION = "agentreflex.decision"
FINDING = "agentreflex.finding"


def _decisions(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r["event_name"] == DECISION]


def _wait(predicate: Callable[[], bool], seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.fixture(scope="module")
def rec(tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    return recorded_session.recorded(tmp_path_factory.mktemp("recorded"), with_secrets=True)


def test_export_sends_every_decision_with_attributes_and_no_secret(rec: Recorded) -> None:
    with Collector() as collector:
        done = rec.run("export", "--otlp", collector.url)
        assert done.returncode == 0, done.stderr
        got = list(collector.records)
        raw = b"".join(collector.raw)
    expected = [r for r in rec.rows if r.get("decision")]
    decisions = _decisions(got)
    assert len(decisions) == len(expected) > 200
    assert f"sent {len(got)} log record(s)" in done.stdout
    # every decision of every session, in the session's order, with its verdict
    for session in rec.sessions:
        mine = [d for d in decisions if d["attributes"]["session.id"] == session]
        assert [d["attributes"]["agentreflex.event"] for d in mine] == [
            r["event"] for r in rec.by_session[session] if r.get("decision")
        ]
    labels = sorted(d["attributes"]["agentreflex.label"] for d in decisions)
    assert labels == sorted(r["label"] for r in expected)
    first = decisions[0]
    assert first["resource"]["service.name"] == "agentreflex"
    assert first["resource"]["service.version"]  # agentreflex-core's
    assert first["resource"]["host.name"] == socket.gethostname()
    assert first["attributes"]["gen_ai.conversation.id"] == first["attributes"]["session.id"]
    assert first["attributes"]["gen_ai.agent.name"] == "claude-code"
    blocked = [d for d in decisions if d["attributes"]["agentreflex.label"] == "BLOCK"]
    codes = {d["attributes"].get("agentreflex.code") for d in blocked}
    assert {"GATE-RM-ROOT", "GATE-GIT-FORCE-PUSH", "GATE-DB-DESTROY"} <= codes
    rm = next(d for d in blocked if d["attributes"]["agentreflex.code"] == "GATE-RM-ROOT")
    assert rm["attributes"]["gen_ai.tool.name"] == "Bash"
    assert rm["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert rm["attributes"]["gen_ai.tool.call.id"] == "toolu_2"
    assert rm["severity_text"] == "ERROR" and rm["attributes"]["agentreflex.reason"]
    findings = [r for r in got if r["event_name"] == FINDING]
    assert any(f["attributes"]["agentreflex.code"] == "GATE-RM-ROOT" for f in findings)
    would = [d for d in decisions if d["attributes"]["agentreflex.label"] == "WOULD_BLOCK"]
    assert would and all(d["attributes"]["agentreflex.verdict"] == "ALLOW" for d in would)
    # none of the secrets, anywhere in what was sent
    leaked = [s for _t, s in recorded_session.secrets() if s.encode() in raw]
    assert leaked == []
    assert raw.count(b"[REDACTED]") > 100


def test_export_bad_input_is_a_clear_error(rec: Recorded) -> None:
    for url, says in (
        ("ftp://127.0.0.1/x", "not an http(s) URL"),
        ("http://user:pw@127.0.0.1:4318", "OTEL_EXPORTER_OTLP_HEADERS"),
    ):
        done = rec.run("export", "--otlp", url)
        assert done.returncode == 64 and says in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    nothing = rec.run("export")
    assert nothing.returncode == 64 and "[export] otlp" in nothing.stderr


def test_export_to_a_collector_that_is_down_counts_what_was_dropped(rec: Recorded) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = rec.run("export", "--otlp", f"http://127.0.0.1:{port}", "--session", "shadow-session-1")
    assert done.returncode == 1
    assert "sent 0 log record(s)" in done.stdout
    dropped = int(done.stdout.split("dropped ")[1].split()[0])
    rows = rec.by_session["shadow-session-1"]
    findings = sum(1 for r in rows for f in r["findings"] if f["verdict"] != "ALLOW")
    assert dropped == len(rows) + findings


# ------------------------------------------------------------------ the daemon, live


class Live:
    """A temporary user with ``[export] otlp`` configured, a daemon, and real hook processes."""

    def __init__(self, root: Path, url: str, queue: int = 4096) -> None:
        self.rec = recorded_session.world(root)
        config = self.rec.home / ".config" / "agentreflex" / "config.toml"
        config.parent.mkdir(parents=True)
        config.write_text(
            'mode = "enforced"\ndisabled_reflexes = ["runaway"]\n'
            f'[export]\notlp = "{url}"\nqueue = {queue}\n'
        )
        self.env = dict(self.rec.env, AGENTREFLEX_SOCKET=str(root / "d" / "daemon.sock"))
        self.env.pop("AGENTREFLEX_DAEMON")
        self.counters = self.rec.home / ".local" / "state" / "agentreflex" / "otlp-export.json"
        self.daemon: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        (Path(self.env["AGENTREFLEX_SOCKET"]).parent).mkdir(mode=0o700)
        self.daemon = subprocess.Popen(
            [recorded_session.AGENTREFLEX, "serve", "--idle", "120"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )
        assert _wait(lambda: os.path.exists(self.env["AGENTREFLEX_SOCKET"]), 30)

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.terminate()
            self.daemon.wait(30)

    def hooks(
        self, session: str, alone: tuple[int, ...] = ()
    ) -> list[tuple[float, dict[str, Any]]]:
        """The scenario's payloads as real hook processes: (seconds, host answer) each.

        The calls numbered in ``alone`` evaluate in-process (no daemon), as a hook
        does when the daemon is busy or does not answer in time.
        """
        out = []
        for i, payload in enumerate(recorded_session.scenario(session, self.rec.project)):
            env = dict(self.env, AGENTREFLEX_DAEMON="off") if i in alone else self.env
            start = time.perf_counter()
            done = subprocess.run(
                [recorded_session.AGENTREFLEX, "hook", "claude-code", payload["hook_event_name"]],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env=env,
                cwd=self.rec.project,
                timeout=60,
                check=False,
            )
            assert "Traceback" not in done.stderr, done.stderr
            answer = json.loads(done.stdout) if done.stdout.strip() else {}
            out.append((time.perf_counter() - start, answer))
        return out

    def read_counters(self) -> dict[str, Any]:
        try:
            return dict(json.loads(self.counters.read_text()))
        except (OSError, ValueError):
            return {}


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Callable[..., Live]]:
    made: list[Live] = []

    def make(url: str, queue: int = 4096) -> Live:
        item = Live(tmp_path / f"live{len(made)}", url, queue)
        made.append(item)
        item.start()
        return item

    yield make
    for item in made:
        item.stop()


def _accounted(counts: dict[str, Any]) -> int:
    """Decisions the export took in or dropped at once (queued, full, intake)."""
    return int(
        counts.get("queued", 0) + counts.get("dropped_full", 0) + counts.get("dropped_intake", 0)
    )


def _all_failed(counts: dict[str, Any], n: int) -> bool:
    """At least ``n`` records taken in, and every one of them dropped after its retries."""
    queued = int(counts.get("queued", 0))
    return queued >= n and counts.get("dropped_failed") == queued


def _denied(answer: dict[str, Any]) -> bool:
    return answer.get("hookSpecificOutput", {}).get("permissionDecision") == "deny"


def test_daemon_sends_each_decision_it_answers(live: Callable[..., Live]) -> None:
    """Every decision of the session, including two a hook made without the daemon."""
    with Collector() as collector:
        world = live(collector.url)
        answers = world.hooks("live-session-1", alone=(2, 5))
        n = len(answers)
        assert _wait(lambda: len(_decisions(collector.records)) >= n, 30)
        decisions = _decisions(collector.records)
    assert len(decisions) == n
    assert sorted(d["attributes"]["agentreflex.record"] for d in decisions) == list(range(1, n + 1))
    assert {d["attributes"]["session.id"] for d in decisions} == {"live-session-1"}
    events = [d["attributes"]["agentreflex.event"] for d in decisions]
    assert events.count("pre_tool") == 6 and "stop" in events
    assert world.read_counters()["sent"] >= n
    # how the project was protected, for the team's security lead
    settings = decisions[0]["attributes"]
    assert settings["agentreflex.mode"] == "enforced"
    assert settings["agentreflex.disabled_reflexes"] == ["runaway"]


@pytest.mark.parametrize("behaviour", ["fail", "down", "slow"])
def test_a_broken_collector_never_holds_up_a_hook(
    live: Callable[..., Live], behaviour: str
) -> None:
    """Hooks answer (and block) as usual; the counters say what was dropped."""
    with Collector("fail" if behaviour == "fail" else "slow", delay=8.0) as collector:
        url = collector.url
        if behaviour == "down":
            collector.server.server_close()  # nothing listens there any more
        world = live(url, queue=2 if behaviour == "slow" else 4096)
        answers = world.hooks("broken-session-1")
        # the hooks decided as always: rm -rf /, the force-push and DROP TABLE denied
        assert sum(_denied(a) for _s, a in answers) == 3
        if behaviour == "slow":
            # two fit in the queue, one is being sent: the rest are dropped at once
            n = len(answers)
            assert _wait(lambda: _accounted(world.read_counters()) >= n, 60)
            assert world.read_counters()["dropped_full"] > 0
        else:
            n = len(answers)
            assert _wait(lambda: _all_failed(world.read_counters(), n), 90)
            counts = world.read_counters()
            assert counts["sent"] == 0 and counts["dropped_failed"] >= n
            if behaviour == "fail":
                assert counts["retries"] >= 3 and collector.posts >= 4
    status = subprocess.run(
        [recorded_session.AGENTREFLEX, "export", "--status"],
        env=world.env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert status.returncode == 0 and '"dropped_' in status.stdout


def test_a_project_config_cannot_choose_the_endpoint(tmp_path: Path) -> None:
    from agentreflex.core.otlp import live as live_export

    rec = recorded_session.world(tmp_path / "w")
    project_config = rec.project / ".agentreflex" / "config.toml"
    project_config.parent.mkdir()
    project_config.write_text('[export]\notlp = "http://127.0.0.1:9/steal"\n')
    env = dict(rec.env)
    url, _size = live_export.endpoint(str(rec.project), env)
    assert url == ""
    # and with the user's own endpoint, the project cannot change it either
    user = rec.home / ".config" / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[export]\notlp = "http://127.0.0.1:4318"\n')
    live_export._URLS.clear()
    url, _size = live_export.endpoint(str(rec.project), env)
    assert url == "http://127.0.0.1:4318"
    done = rec.run("status")
    assert "export" in done.stdout  # withheld, waiting for `agentreflex trust`
