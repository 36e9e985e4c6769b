"""`agentreflex report` and `agentreflex export`, in-process, over a real sealed state store.

The end-to-end tests (real replay and hook processes, headless Chromium, the
daemon) are tests/test_report.py and tests/test_otlp_export.py; these drive
the same commands in this process so every branch is exercised and measured:
sessions written through ``SessionStore.record`` with shadow, enforced and
report-only findings, latency, a snapshot record and notes.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core import testing
from agentreflex.core.decision import Finding, Mode, Verdict, merge
from agentreflex.core.hook import daemon
from agentreflex.core.hook.runtime import HookOutcome
from agentreflex.core.otlp import command as export_command
from agentreflex.core.otlp import live, records, sink
from agentreflex.core.report import collect
from agentreflex.core.report import command as report_command
from agentreflex.core.state.history import load_histories
from agentreflex.core.state.store import SessionStore

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))
from otlp_collector import Collector

SECRET = "ghp_" + "Zx9" * 12  # a GitHub token shape
RM = Finding("gate", "GATE-RM-ROOT", Verdict.BLOCK, f"deletes / (token {SECRET})")
ASK = Finding("gate", "GATE-SELF-PROTECT", Verdict.ASK_USER, "touches agentreflex's files")
LOOP = Finding("runaway", "LOOP-REPEAT", Verdict.BLOCK, "same command 3 times", enforce=False)
GUARD = Finding("guard", "RG-CAUSAL-AHEAD-001", Verdict.WARN, "claims a cause before evidence")


def _session(state_dir: Path, session: str, mode: Mode) -> None:
    store = SessionStore(str(state_dir), session)
    t0 = time.time() - 60
    steps: list[tuple[Any, list[Finding]]] = [
        (testing.prompt(f"clean up, token {SECRET}", session_id=session), []),
        (testing.pre_tool("Bash", {"command": "rm -rf /"}, session_id=session), [RM, ASK]),
        (testing.pre_tool("Bash", {"command": "make"}, session_id=session), [LOOP]),
        (testing.stop("done", session_id=session), [GUARD]),
    ]
    for i, (event, findings) in enumerate(steps):
        event.timestamp = t0 + i
        store.record(event, merge(findings, mode), latency_ms=3.0 + i)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    state_dir = tmp_path / "state"
    _session(state_dir, "shadow-1", Mode.SHADOW)
    _session(state_dir, "enforced-2", Mode.ENFORCED)
    store = SessionStore(str(state_dir), "enforced-2")
    store._append({"ts": round(time.time(), 3), "kind": "snapshot", "ref": "abc123", "files": 3})
    return state_dir


def _report(state: Path, out: Path, *args: str) -> str:
    code = report_command.main(["--state-dir", str(state), "-o", str(out), *args])
    assert code == 0
    return out.read_text()


def test_report_in_process_has_every_section_and_no_secret(state: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "\n".join(json.dumps({"probability": p / 10, "outcome": p > 4}) for p in range(11))
    )
    html = _report(state, tmp_path / "r.html", "--labels", str(labels))
    assert SECRET not in html and "[REDACTED]" in html
    assert "Session shadow-1" in html and "Session enforced-2" in html
    assert html.count("WOULD_BLOCK") >= 2  # the shadow session's rm -rf /
    assert "LOOP-REPEAT" in html  # report-only: counted with shadow
    assert "RG-CAUSAL-AHEAD-001" in html  # the guard's finding
    assert "abc123" in html  # the snapshot record
    assert "Judge reliability diagram" in html and "ECE 0.227" in html  # 2.5 / 11
    assert "Hook latency histogram" in html and "p50" in html


def test_collect_groups_blocks_and_asks(state: Path) -> None:
    histories = load_histories(str(state))
    groups = {(i.reflex, i.code, i.verdict): i for i in collect.interventions(histories)}
    rm = groups[("gate", "GATE-RM-ROOT", "BLOCK")]
    assert (rm.enforced, rm.shadow) == (1, 1)
    loop = groups[("runaway", "LOOP-REPEAT", "BLOCK")]
    assert (loop.enforced, loop.shadow) == (0, 2)
    would = collect.would_block(histories)
    assert {w["session"] for w in would} == {"shadow-1", "enforced-2"}  # report-only too
    assert [s["kind"] for s in collect.snapshots(histories)] == ["snapshot"]


def test_calibration_figures() -> None:
    cal = collect.calibration([(0.9, True), (0.9, False), (0.1, False), (0.1, False)])
    assert cal.samples == 4
    assert cal.brier == pytest.approx((0.01 + 0.81 + 0.01 + 0.01) / 4)
    assert cal.ece == pytest.approx(0.5 * abs(0.9 - 0.5) + 0.5 * 0.1)


def test_report_bad_labels_and_dates(state: Path, tmp_path: Path) -> None:
    labels = tmp_path / "labels.jsonl"
    labels.write_text("not json\n")
    html = _report(state, tmp_path / "r.html", "--labels", str(labels))
    assert "line 1 is not a labelled answer" in html
    assert report_command.main(["--since", "yesterday-ish"]) == report_command.EXIT_USAGE
    assert report_command.parse_since("2d", now=1_000_000.0) == 1_000_000.0 - 2 * 86400
    assert report_command.parse_since("2026-12-01T00:00:00+01:00") == 1796079600.0
    later = _report(state, tmp_path / "later.html", "--since", "2999-01-01")
    assert "No session recorded" in later
    out = tmp_path / "missing-dir" / "r.html"
    assert report_command.main(["--state-dir", str(state), "-o", str(out)]) == 73


def test_report_without_matplotlib_exits_with_the_hint(
    state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code = report_command.main(["--state-dir", str(state), "-o", str(tmp_path / "r.html")])
    assert code == report_command.EXIT_UNAVAILABLE
    assert "pip install 'agentreflex-core[report]'" in capsys.readouterr().err


def test_a_forged_line_is_counted_not_shown(state: Path) -> None:
    log = state / "sessions" / "shadow-1.jsonl"
    with log.open("a") as fh:
        fh.write('{"ts": 1, "kind": "pre_tool", "n": 77, "mac": "00"}\nnot json\n')
    (history,) = load_histories(str(state), session="shadow-1")
    assert (history.unverified, history.unreadable) == (1, 1)
    assert len(history.records) == 4


# ---------------------------------------------------------------------- export


def test_log_items_attributes() -> None:
    rec = {
        "ts": 12.5,
        "kind": "pre_tool",
        "host": "claude-code",
        "cwd": "/p",
        "n": 3,
        "ms": 4.0,
        "tool": {"name": "Bash", "kind": "shell", "id": "toolu_1", "summary": "Bash: rm -rf /"},
        "decision": {
            "verdict": "ALLOW",
            "proposed": "BLOCK",
            "label": "WOULD_BLOCK",
            "findings": [RM.to_json(), {"reflex": "x", "code": "OK", "verdict": "ALLOW"}],
        },
    }
    items = records.log_items(rec, "s-1")
    assert [i.event_name for i in items] == [records.DECISION_EVENT, records.FINDING_EVENT]
    decision = items[0]
    assert decision.time_ns == 12_500_000_000 and decision.severity_text == "ERROR"
    assert decision.attributes["gen_ai.tool.call.id"] == "toolu_1"
    assert decision.attributes["agentreflex.code"] == "GATE-RM-ROOT"
    assert decision.attributes["agentreflex.latency_ms"] == 4.0
    assert SECRET not in json.dumps([i.attributes for i in items]) + items[1].body
    assert records.log_items({"kind": "stop"}, "s") == []


def test_check_url() -> None:
    assert sink.check_url("http://127.0.0.1:4318") == "http://127.0.0.1:4318/v1/logs"
    assert sink.check_url("https://c.example/v1/logs") == "https://c.example/v1/logs"
    for bad in ("ftp://x", "http://", "https://u:p@c.example"):
        with pytest.raises(ValueError):
            sink.check_url(bad)


def test_export_command_sends_everything(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with Collector() as collector:
        code = export_command.main(["--otlp", collector.url, "--state-dir", str(state)])
        got = list(collector.records)
    assert code == 0
    decisions = [r for r in got if r["event_name"] == records.DECISION_EVENT]
    assert len(decisions) == 8
    assert SECRET.encode() not in b"".join(collector.raw)
    assert f"sent {len(got)} log record(s)" in capsys.readouterr().out


def test_export_command_errors(
    state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert export_command.main(["--state-dir", str(state)]) == export_command.EXIT_USAGE
    assert export_command.main(["--otlp", "x://y"]) == export_command.EXIT_USAGE
    assert export_command.main(["--status"]) == 1  # nothing exported live yet
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk._logs", None)
    assert export_command.main(["--otlp", "http://127.0.0.1:1"]) == export_command.EXIT_UNAVAILABLE
    assert "agentreflex-core[otlp]" in capsys.readouterr().err


def test_a_full_queue_drops_and_counts_without_waiting() -> None:
    with Collector("slow", delay=2.0) as collector:
        target = sink.OtlpSink(collector.url, max_queue=3, batch_size=1, retries=0, timeout=0.5)
        item = records.LogItem(1, 9, "INFO", records.DECISION_EVENT, "x", {"a": 1})
        started = time.monotonic()
        dropped = sum(target.offer([item]) for _ in range(50))
        elapsed = time.monotonic() - started
        target.close()
    counts = target.counters()
    assert dropped == counts["dropped_full"] >= 40
    assert counts["queued"] + counts["dropped_full"] == 50
    assert elapsed < 1.0  # 50 offers while the only sender waits on a slow collector


def _outcome(tmp_path: Path, session: str) -> HookOutcome:
    event = testing.pre_tool("Bash", {"command": "rm -rf /"}, cwd=str(tmp_path), session_id=session)
    return HookOutcome(reply=None, event=event, decision=merge([RM], Mode.ENFORCED))  # type: ignore[arg-type]


def test_the_daemon_export_sends_after_the_reply(tmp_path: Path) -> None:
    config = Path(str(tmp_path / "home" / ".config")) / "agentreflex" / "config.toml"
    with Collector() as collector:
        config.parent.mkdir(parents=True)
        config.write_text(f'[export]\notlp = "{collector.url}"\nqueue = 10\n')
        live._URLS.clear()
        env = dict(os.environ)
        daemon._export(_outcome(tmp_path, "live-1"), {})
        deadline = time.monotonic() + 20
        while not collector.records and time.monotonic() < deadline:
            time.sleep(0.05)
        got = list(collector.records)
        live.close_all()
    assert got and got[0]["attributes"]["session.id"] == "live-1"
    assert got[0]["attributes"]["agentreflex.mode"] == "shadow"  # the default
    assert got[0]["attributes"]["agentreflex.disabled_reflexes"] == []
    assert SECRET not in json.dumps(got)
    counters = json.loads(Path(live.counters_path(env)).read_text())
    assert counters["sent"] >= 2 and counters["url"] == collector.url
    assert export_command.main(["--status"]) == 0


def test_without_an_endpoint_nothing_is_queued(tmp_path: Path) -> None:
    live._URLS.clear()
    env = dict(os.environ)
    assert live.endpoint(str(tmp_path), env) == ("", live.DEFAULT_QUEUE)
    live.forward(_outcome(tmp_path, "none-1"), env)  # no endpoint: nothing to do
    assert live._SINKS == {}
    before = live._INTAKE.qsize()
    live.offer(_outcome(tmp_path, "none-2"), env)  # known to have none: not even queued
    assert live._INTAKE.qsize() == before


def test_export_config_is_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from agentreflex.core.cli.configcheck import main as config_check

    good, bad = tmp_path / "good.toml", tmp_path / "bad.toml"
    good.write_text('[export]\notlp = "http://127.0.0.1:4318"\nqueue = 100\n')
    bad.write_text('[export]\notlp = "collector:4318"\nqueue = 0\n')
    assert config_check([str(good)], "", str(tmp_path)) == 0
    assert config_check([str(bad)], "", str(tmp_path)) == 1
    err = capsys.readouterr()
    assert "not an http(s) URL" in err.out + err.err
    # the daemon ignores a bad endpoint rather than failing on every decision
    user = tmp_path / "home" / ".config" / "agentreflex" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text('[export]\notlp = "collector:4318"\nqueue = "many"\n')
    live._URLS.clear()
    assert live.endpoint(str(tmp_path), dict(os.environ)) == ("", live.DEFAULT_QUEUE)


def test_closing_counts_what_could_not_be_sent() -> None:
    with Collector("slow", delay=3.0) as collector:
        target = sink.OtlpSink(collector.url, max_queue=100, batch_size=1, timeout=2.0)
        item = records.LogItem(1, 9, "INFO", records.DECISION_EVENT, "x", {"a": 1})
        target.offer([item] * 20)
        started = time.monotonic()
        target.close(timeout=0.5)
        elapsed = time.monotonic() - started
    counts = target.counters()
    assert elapsed < 2.0
    assert counts["sent"] == 0 and counts["dropped_failed"] >= 19


def test_a_broken_project_config_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    (project / ".agentreflex").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".agentreflex" / "config.toml").write_text("mode = 'sideways'\n")
    out = str(tmp_path / "r.html")
    assert report_command.main(["--cwd", str(project), "-o", out]) == report_command.EXIT_CONFIG
    assert export_command.main(["--cwd", str(project)]) == export_command.EXIT_CONFIG
    assert "sideways" in capsys.readouterr().err


def test_agent_written_markup_stays_text(tmp_path: Path) -> None:
    """The agent writes prompts, commands and messages: none of it may become markup."""
    state_dir = tmp_path / "state"
    store = SessionStore(str(state_dir), "markup-1")
    evil = Finding("gate", "<img src=http://127.0.0.1:9/x>", Verdict.BLOCK, "<script>x()</script>")
    event = testing.pre_tool(
        "Bash", {"command": "echo '<iframe src=//127.0.0.1:9>'"}, session_id="markup-1"
    )
    store.record(event, merge([evil], Mode.SHADOW), latency_ms=1.0)
    html = _report(state_dir, tmp_path / "r.html")
    for tag in ("<script", "<img", "<iframe"):
        assert tag not in html, tag
    assert "&lt;script&gt;x()&lt;/script&gt;" in html


def test_read_new_follows_a_live_log_once_per_record(tmp_path: Path) -> None:
    from agentreflex.core.state.history import Tail, read_new

    state_dir = str(tmp_path / "state")
    store = SessionStore(state_dir, "tail-1")

    def record(command: str) -> None:
        event = testing.pre_tool("Bash", {"command": command}, session_id="tail-1")
        store.record(event, merge([], Mode.SHADOW))

    tail = Tail()
    assert read_new(state_dir, "tail-1", tail) is None  # no log yet
    record("ls")
    record("pwd")
    first = read_new(state_dir, "tail-1", tail)
    assert [r["tool"]["summary"] for r in first or []] == ["Bash: pwd"]  # starts at the last
    assert read_new(state_dir, "tail-1", tail) == []
    record("make")
    record(f"echo {SECRET}")
    with open(store.log_path, "a") as fh:  # a forged line and a torn one
        fh.write('{"ts": 1, "kind": "pre_tool", "n": 99, "mac": "00"}\n{"ts": 2, "ki')
    new = read_new(state_dir, "tail-1", tail) or []
    assert [r["n"] for r in new] == [3, 4]
    assert SECRET not in json.dumps(new)
    tail.offset = 10**9  # the log was rotated under us: read again, nothing twice
    assert read_new(state_dir, "tail-1", tail) == []


def test_a_snapshot_the_real_hook_took_is_in_the_report(tmp_path: Path) -> None:
    """The work-tree hook records its snapshot as a note; the report lists it."""
    import subprocess

    project = tmp_path / "p"
    project.mkdir()
    git = ["git", "-C", str(project), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run([*git, "init", "-q"], check=True)
    (project / "f.txt").write_text("committed\n")
    subprocess.run([*git, "add", "f.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    (project / "f.txt").write_text("uncommitted work\n")
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    payload = {
        "session_id": "snap-1",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "sed -i s/work/gone/ f.txt"},
        "cwd": str(project),
        "tool_use_id": "t1",
    }
    env = {**os.environ, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(project)}
    env.pop("XDG_STATE_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    hook = Path(sys.executable).parent / "agentreflex"
    done = subprocess.run(
        [str(hook), "hook", "claude-code", "PreToolUse"],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=env,
        cwd=project,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    histories = load_histories(str(project / ".agentreflex"))
    rows = collect.snapshots(histories)
    assert [r["kind"] for r in rows] == ["snapshot"]
    assert '"f.txt"' in rows[0]["detail"] and '"n": 1' in rows[0]["detail"]
    assert rows[0]["undone"] == []
    (project / "f.txt").write_text("committed\n")  # discarded; the user undoes it
    from agentreflex.core.worktree import undocmd

    assert undocmd.main(["1", "--cwd", str(project)]) == 0
    assert (project / "f.txt").read_text() == "uncommitted work\n"
    rows = collect.snapshots(load_histories(str(project / ".agentreflex")))
    assert [r["paths"] for r in rows[0]["undone"]] == [["f.txt"]]
    html = _report(project / ".agentreflex", tmp_path / "r.html")
    assert "Snapshots taken and undone" in html and ": 1 file(s)" in html
    assert "<th>Undone</th>" in html


def _sections(*specs: tuple[str, str]) -> dict[str, list[list[Any]]]:
    """A registry table whose only report sections are ``specs`` ([(plugin, module:function)])."""
    from agentreflex.core import registry

    return {registry.REPORTS: [list(s) for s in specs]}


SECTIONS = """
from typing import Any


def demo_section(state_dir: str, sessions: Any, findings: list[dict[str, Any]]) -> dict[str, Any]:
    mine = [f for f in findings if f["reflex"] == "gate"]
    rows = [[f["session"], f["code"], str(sessions)] for f in mine]
    table = {"caption": "demo table", "columns": ["Session", "Code", "Asked"], "rows": rows}
    return {"title": "Demo <section>", "tables": [table], "empty": "nothing"}


def broken_section(*_args: Any) -> dict[str, Any]:
    raise RuntimeError("broken on purpose")
"""


def test_a_package_declares_its_report_section_and_core_draws_it_escaped(
    state: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Core names no package: what a declared section returns is drawn, escaped and redacted;
    one that raises is a problem line, never a broken report."""
    from agentreflex.core import registry

    (tmp_path / "demo_report_sections.py").write_text(SECTIONS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    here = "demo_report_sections"
    monkeypatch.setattr(
        registry,
        "_MEMO",
        _sections(("demo", f"{here}:demo_section"), ("bad", f"{here}:broken_section")),
    )
    html = _report(state, tmp_path / "r.html", "--session", "enforced-2")
    assert "Demo &lt;section&gt;" in html and 'aria-label="demo table"' in html
    assert "GATE-RM-ROOT" in html and "(&#x27;enforced-2&#x27;,)" in html  # the sessions asked
    assert SECRET not in html  # the finding's message is not drawn; redaction holds anyway
    assert "bad: its report section is unavailable (RuntimeError)" in html
    assert "Reasoning Guard" not in html  # not declared in this table: not drawn
