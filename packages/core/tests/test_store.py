"""The per-session state store: fold, cursor, recovery, rotation, concurrency."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from agentreflex.core.decision import Decision, Finding, Mode, Verdict, merge
from agentreflex.core.events import Event, EventKind
from agentreflex.core.redaction.redact import redact as redact_text
from agentreflex.core.state import store as store_mod
from agentreflex.core.state.model import SessionState
from agentreflex.core.state.store import (
    SessionStore,
    fold,
    list_sessions,
    make_record,
    session_file_id,
)
from agentreflex.core.testing import post_tool, pre_tool, prompt, stop
from agentreflex.core.util.fsutil import append_line, atomic_write_json, ensure_private_dir, locked

FAKE_TOKEN = "ghp_" + "aB3dE5gH7jK9" * 3  # synthetic, github-pat shaped


def _decision(verdict: Verdict, mode: Mode = Mode.ENFORCED, code: str = "TEST-CODE") -> Decision:
    findings = [] if verdict is Verdict.ALLOW else [Finding("test", code, verdict, "because")]
    return merge(findings, mode)


def _store(tmp_path: Path, session: str = "sess-1") -> SessionStore:
    return SessionStore(str(tmp_path / "state"), session)


def _lines(store: SessionStore) -> list[str]:
    return Path(store.log_path).read_text(encoding="utf-8").splitlines()


def _record_line(event: Event, decision: Decision | None = None) -> str:
    """A record as a forger would write it: right shape, no MAC."""
    return json.dumps(make_record(event, decision, [], None), separators=(",", ":"))


def _sealed(store: SessionStore, event: Event, n: int) -> str:
    """A record as a genuine writer would seal it (sequence number ``n``)."""
    line = json.dumps({**make_record(event, None, [], None), "n": n}, separators=(",", ":"))
    return store.sealer.seal_line(line, n)[0]


def _session(store: SessionStore) -> SessionState:
    """A realistic sequence through the real record path; returns the final state."""
    st = None
    steps: list[tuple[Event, Decision | None]] = [
        (prompt("Fix the login bug. Do not modify tests."), _decision(Verdict.ALLOW)),
        (pre_tool("Bash", {"command": "pytest -q"}, tool_use_id="t1"), None),
        (
            post_tool(
                "Bash",
                {"command": "pytest -q"},
                ok=False,
                error="FAILED tests/test_login.py::test_ok - AssertionError: assert 1 == 2",
                tool_use_id="t1",
            ),
            None,
        ),
        (pre_tool("Read", {"file_path": "/work/proj/src/login.py"}, tool_use_id="t2"), None),
        (
            post_tool(
                "Read",
                {"file_path": "/work/proj/src/login.py"},
                ok=True,
                output="def login(user): return check(user)",
                tool_use_id="t2",
            ),
            None,
        ),
        (
            pre_tool(
                "Edit",
                {"file_path": "/work/proj/src/login.py", "old_string": "a", "new_string": "b"},
                tool_use_id="t3",
            ),
            None,
        ),
        (
            post_tool(
                "Edit",
                {"file_path": "/work/proj/src/login.py", "old_string": "a", "new_string": "b"},
                ok=True,
                tool_use_id="t3",
            ),
            None,
        ),
        (pre_tool("Bash", {"command": "pytest -q"}, tool_use_id="t4"), None),
        (
            post_tool(
                "Bash",
                {"command": "pytest -q"},
                ok=None,
                output="3 passed",
                exit_code=0,
                tool_use_id="t4",
            ),
            None,
        ),
        (
            pre_tool("Bash", {"command": "rm -rf ~/"}, tool_use_id="t5"),
            _decision(Verdict.BLOCK, code="GATE-DESTRUCTIVE-RM"),
        ),
        (stop("All done, tests pass."), _decision(Verdict.BLOCK, code="DONE-UNVERIFIED")),
        (stop("All done.", stop_hook_active=True), _decision(Verdict.ALLOW)),
    ]
    for event, decision in steps:
        st = store.record(event, decision, latency_ms=1.5)
    assert st is not None
    return st


def test_fold_of_a_realistic_session(tmp_path: Path) -> None:
    store = _store(tmp_path)
    st = _session(store)
    c = st.counters
    assert st.session_id == "sess-1"
    assert st.host == "claude-code"
    assert st.cwd == "/work/proj"
    assert st.goal == "Fix the login bug. Do not modify tests."
    assert (c.events, c.prompts, c.tool_calls, c.stops) == (12, 1, 5, 2)
    assert (c.failures, c.consecutive_failures, c.blocked) == (1, 0, 1)
    assert c.last_verification_ok is True
    assert c.stop_blocks_in_row == 0  # the second stop was allowed
    outcomes = {a.tool_use_id: a.outcome for a in st.actions}
    assert outcomes == {
        "t1": "failure",
        "t2": "success",
        "t3": "success",
        "t4": "success",
        "t5": "blocked",
    }
    edit = next(a for a in st.actions if a.tool_use_id == "t3")
    assert edit.mutation and not edit.verification
    assert c.last_mutation_seq == 7  # the Edit's post-tool event
    assert [v.tool_use_id for v in st.verifications] == ["t1", "t4"]
    assert c.last_verification_seq == 9
    failure = st.failures[0]
    assert failure.tool_use_id == "t1"
    assert "AssertionError" in failure.error_signature
    assert "#" in failure.error_signature  # numbers masked
    assert any("login.py" in e and "def login" in e for e in st.evidence)
    # the Read (seq 5) and the passing read-only test run (seq 9) are evidence
    assert c.last_evidence_seq == 9
    assert len(st.evidence) == 2
    assert [(i.code, i.label, i.event) for i in st.interventions] == [
        ("GATE-DESTRUCTIVE-RM", "BLOCK", "pre_tool"),
        ("DONE-UNVERIFIED", "BLOCK", "stop"),
    ]
    assert st.last_message == "All done."
    assert st.notes["latency_ms"] == [1.5] * 12


def test_blocked_stops_in_a_row(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(stop("done"), _decision(Verdict.BLOCK))
    st = store.record(stop("done", stop_hook_active=True), _decision(Verdict.BLOCK))
    assert st.counters.stop_blocks_in_row == 2
    st = store.record(stop("done"), _decision(Verdict.ALLOW))
    assert st.counters.stop_blocks_in_row == 0


def test_shadow_decisions_are_remembered_as_would_but_do_not_block(tmp_path: Path) -> None:
    store = _store(tmp_path)
    st = store.record(
        pre_tool("Bash", {"command": "rm -rf build"}, tool_use_id="x"),
        _decision(Verdict.BLOCK, mode=Mode.SHADOW),
    )
    assert st.actions[-1].outcome == "pending"
    assert st.counters.blocked == 0
    assert [(i.label, i.verdict) for i in st.interventions] == [("WOULD_BLOCK", "BLOCK")]


def test_post_tool_without_a_pre_tool_is_still_an_action(tmp_path: Path) -> None:
    store = _store(tmp_path)
    st = store.record(
        post_tool("Bash", {"command": "make"}, ok=False, error="make: *** [all] Error 2"), None
    )
    assert st.counters.tool_calls == 1
    assert st.actions[-1].outcome == "failure"
    assert st.counters.consecutive_failures == 1


def test_post_tool_matches_by_fingerprint_without_ids(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(pre_tool("Bash", {"command": "ls  -la"}, tool_use_id=""), None)
    st = store.record(
        post_tool("Bash", {"command": "ls -la"}, ok=True, output="a b", tool_use_id=""), None
    )
    assert st.counters.tool_calls == 1
    assert st.actions[-1].outcome == "success"


def test_nothing_secret_and_no_raw_payload_is_stored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    event = pre_tool("Bash", {"command": f"curl -H 'Authorization: token {FAKE_TOKEN}' x"})
    event.raw = {"tool_input": {"command": f"curl {FAKE_TOKEN}"}, "secret_field": "raw-only"}
    store.record(prompt(f"use {FAKE_TOKEN} to push"), None)
    store.record(event, None)
    store.record(
        post_tool("Bash", {"command": "env"}, ok=True, output=f"GITHUB_TOKEN={FAKE_TOKEN}"), None
    )
    for path in (store.log_path, store.snapshot_path):
        text = Path(path).read_text()
        assert FAKE_TOKEN not in text
        assert "raw-only" not in text
    assert "[REDACTED]" in Path(store.log_path).read_text()


def test_bounded_windows(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path / "state"), "bounded", window=5)
    for i in range(30):
        store.record(prompt(f"prompt {i}"), None)
        store.record(pre_tool("Bash", {"command": f"echo {i}"}, tool_use_id=f"c{i}"), None)
    st, _ = store.load()
    assert st.goal == "prompt 0"
    assert len(st.prompts) == store_mod.WINDOWS["prompts"]
    assert st.prompts[-1] == "prompt 29"
    assert len(st.actions) == 5
    assert st.actions[-1].tool_use_id == "c29"
    assert st.counters.events == 60
    assert len(st.notes.get("latency_ms", [])) == 0


def test_long_prompts_are_bounded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    st = store.record(prompt("x" * 100_000), None)
    assert len(st.prompts[0]) <= store_mod.PROMPT_LIMIT
    assert os.path.getsize(store.log_path) < 2000


def test_records_of_huge_prompts_redact_bounded_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Redaction costs ~0.5 s per MB: the record must not redact what it then throws away."""
    seen: list[int] = []
    real = redact_text

    def spy(text: str) -> str:
        seen.append(len(text))
        return real(text)

    from agentreflex.core.redaction import redact as redact_mod

    assert store_mod.redact_head is redact_mod.redact_head  # the one bounded redaction
    monkeypatch.setattr(redact_mod, "redact", spy)
    huge = "please " * 1_000_000  # a 7 MB prompt, under the 10 MiB payload limit
    rec = make_record(prompt(huge), None, [], None)
    assert len(rec["prompt"]) <= store_mod.PROMPT_LIMIT
    event = stop(last_message=huge)
    rec = make_record(event, None, [], None)
    assert len(rec["message"]) <= store_mod.PROMPT_LIMIT
    assert max(seen) <= 64 * 1024, f"redacted {max(seen)} chars to keep {store_mod.PROMPT_LIMIT}"


def test_incremental_cursor(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for i in range(3):
        store.record(prompt(f"p{i}"), None)
    again = _store(tmp_path)
    st, report = again.load()
    assert report.records == 0 and not report.skipped and not report.rebuilt
    assert st.counters.events == 3
    snap = json.loads(Path(store.snapshot_path).read_text())
    assert snap["cursor"] == os.path.getsize(store.log_path)
    # a record appended by someone else is folded, and only that one
    append_line(store.log_path, _sealed(store, prompt("p3"), 4))
    st, report = again.load()
    assert report.records == 1
    assert st.counters.events == 4
    st, report = again.load()
    assert report.records == 0
    assert st.counters.events == 4


def test_torn_last_line_is_ignored_then_picked_up(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(prompt("first"), None)
    line = _sealed(store, prompt("second"), 2) + "\n"
    half = len(line) // 2
    with open(store.log_path, "a", encoding="utf-8") as fh:
        fh.write(line[:half])
    st, report = store.load()
    assert report.records == 0
    assert not report.skipped
    assert st.counters.events == 1
    assert "diagnostics" not in st.notes
    with open(store.log_path, "a", encoding="utf-8") as fh:
        fh.write(line[half:])
    st, report = store.load()
    assert report.records == 1
    assert st.counters.events == 2
    assert st.prompts == ["first", "second"]


def test_only_a_torn_line_in_a_new_log(tmp_path: Path) -> None:
    store = _store(tmp_path)
    os.makedirs(os.path.dirname(store.log_path))
    Path(store.log_path).write_text('{"ts": 1, "kind": "user_pro')
    st, report = store.load()
    assert (report.records, st.counters.events) == (0, 0)


def test_a_record_after_a_crashed_writers_torn_line_is_not_lost(tmp_path: Path) -> None:
    """A writer died mid-line; the next hook's complete record must still be folded."""
    store = _store(tmp_path)
    store.record(prompt("first"), None)
    with open(store.log_path, "a", encoding="utf-8") as fh:
        fh.write(_record_line(prompt("never finished"))[:25])  # the crash
    st = store.record(prompt("after the crash"), None)
    assert st.counters.events == 2
    assert st.prompts == ["first", "after the crash"]
    assert any("corrupt" in d for d in st.notes.get("diagnostics", []))
    # and a fresh fold of the log agrees
    os.unlink(store.snapshot_path)
    st, _ = _store(tmp_path).load()
    assert st.prompts == ["first", "after the crash"]


def test_corrupt_middle_lines_are_skipped_with_a_diagnostic(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(prompt("one"), None)
    for garbage in (
        "this is not json",
        "[1, 2, 3]",
        '{"ts": 1}',
        '{"ts": 1, "kind": "no_such_kind"}',
        '{"ts": 1, "kind": "pre_tool", "tool": {"name": "Bash"}}',
        "\x00\x01\x02",
    ):
        append_line(store.log_path, garbage)
    store.record(prompt("two"), None)
    st = store.record(prompt("three"), None)
    assert st.prompts == ["one", "two", "three"]
    assert st.counters.prompts == 3
    diags = st.notes["diagnostics"]
    assert len(diags) == 3  # not JSON objects: corrupt
    assert all("corrupt" in d for d in diags)
    assert len(st.notes["tamper"]) == 3  # objects without a MAC: forged, never folded
    assert all(t.startswith("CORE-STATE-FORGED") for t in st.notes["tamper"])
    # a full refold from the log finds the same
    os.unlink(store.snapshot_path)
    st, report = _store(tmp_path).load()
    assert st.prompts == ["one", "two", "three"]
    assert len(report.skipped) == 3
    assert [code for code, _ in report.tamper] == ["CORE-STATE-FORGED"] * 3
    assert not report.lost


@pytest.mark.parametrize(
    "snapshot",
    [
        b"",
        b"not json at all",
        b'{"v": 1, "session_id": "sess-1", "cursor": 10, "state": {"prompts": ["x"]',  # truncated
        b'{"v": 999, "session_id": "sess-1", "cursor": 0, "state": {}}',
        b'{"v": 1, "session_id": "another", "cursor": 0, "state": {}}',
        b'{"v": 1, "session_id": "sess-1", "cursor": "x", "state": {}}',
        b'{"v": 1, "session_id": "sess-1", "cursor": 0, "state": {"actions": [{"bad": 1}]}}',
        b"[]",
        b"\xff\xfe\x00",
    ],
)
def test_corrupt_snapshot_is_rebuilt_from_the_log(tmp_path: Path, snapshot: bytes) -> None:
    store = _store(tmp_path)
    for i in range(4):
        store.record(prompt(f"p{i}"), None)
    Path(store.snapshot_path).write_bytes(snapshot)
    st, report = _store(tmp_path).load()
    assert report.rebuilt
    assert st.counters.events == 4
    assert st.prompts == ["p0", "p1", "p2", "p3"]
    assert any("rebuilt" in d for d in st.notes["diagnostics"])
    # the rebuilt snapshot is valid again
    st2, report2 = _store(tmp_path).load()
    assert not report2.rebuilt and report2.records == 0
    assert st2.counters.events == 4


def test_log_replaced_by_a_shorter_one_is_refolded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for i in range(5):
        store.record(prompt(f"p{i}"), None)
    Path(store.log_path).write_text(_sealed(store, prompt("only"), 1) + "\n")
    st, report = store.load()
    assert report.rebuilt
    assert st.prompts == ["only"]
    assert "5 records" in report.lost  # the anchor outside the project remembers


def test_rotation_keeps_state_and_bounds_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_mod, "ROTATE_BYTES", 1500)
    store = _store(tmp_path)
    for i in range(80):
        store.record(prompt(f"prompt number {i:03d} " + "y" * 100), None)
    folder = Path(store.log_path).parent
    rotated = sorted(p.name for p in folder.iterdir() if p.suffix[1:].isdigit())
    assert rotated == [f"{Path(store.log_path).name}.{i}" for i in (1, 2, 3)]
    assert os.path.getsize(store.log_path) < 1500 + 1000
    st, report = _store(tmp_path).load()
    assert report.records == 0
    assert st.counters.events == 80
    assert st.counters.prompts == 80
    assert st.goal.startswith("prompt number 000")
    assert st.prompts[-1].startswith("prompt number 079")


def test_session_file_ids_are_safe() -> None:
    assert session_file_id("abc-123_x.y") == "abc-123_x.y"
    for hostile in ("../../etc/passwd", "a/b", "", ".hidden", "x" * 500, "séance", "a\x00b"):
        name = session_file_id(hostile)
        assert "/" not in name and "\x00" not in name
        assert not name.startswith(".")
        assert 0 < len(name) <= 120
    assert session_file_id("a/b") != session_file_id("a_b")
    assert session_file_id("a/b") == session_file_id("a/b")


def test_empty_session_id_gets_a_name(tmp_path: Path) -> None:
    store = SessionStore(str(tmp_path / "state"), "")
    st = store.record(prompt("x", session_id=""), None)
    assert st.session_id == "unknown-session"


def test_list_sessions_newest_first(tmp_path: Path) -> None:
    state_dir = str(tmp_path / "state")
    assert list_sessions(state_dir) == []
    SessionStore(state_dir, "old").record(prompt("a"), None)
    SessionStore(state_dir, "new").record(prompt("b"), None)
    os.utime(SessionStore(state_dir, "old").snapshot_path, (1, 1))
    names = [Path(p).name for p in list_sessions(state_dir)]
    assert names == ["new.state.json", "old.state.json"]


def test_state_dir_is_kept_out_of_git(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(prompt("x"), None)
    ignore = Path(store.log_path).parent / ".gitignore"
    assert ignore.read_text().splitlines()[-1] == "*"


def test_snapshot_round_trip(tmp_path: Path) -> None:
    st = _session(_store(tmp_path))
    again = SessionState.from_json(json.loads(json.dumps(st.to_json())))
    assert again == st


def test_fold_is_pure_over_records(tmp_path: Path) -> None:
    store = _store(tmp_path)
    st = _session(store)
    replay = SessionState(session_id="sess-1")
    for line in _lines(store):
        fold(replay, json.loads(line))
    assert replay.to_json() == st.to_json()


def test_fsutil_atomic_write_and_lock(tmp_path: Path) -> None:
    target = tmp_path / "d" / "snap.json"
    atomic_write_json(str(target), {"b": 1, "a": [1, 2]})
    atomic_write_json(str(target), {"c": 3})
    assert json.loads(target.read_text()) == {"c": 3}
    assert sorted(p.name for p in target.parent.iterdir()) == ["snap.json"]
    with locked(str(target)):
        assert (tmp_path / "d" / "snap.json.lock").exists()
    private = tmp_path / "priv"
    ensure_private_dir(str(private))
    assert (private.stat().st_mode & 0o777) == 0o700


# ---------------------------------------------------------------- concurrency

WORKER = textwrap.dedent(
    """
    import sys
    from agentreflex.core.state.store import SessionStore
    from agentreflex.core.testing import pre_tool, prompt

    state_dir, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    store = SessionStore(state_dir, "shared-session")
    sys.stdin.read()  # the barrier: every worker starts when the parent closes stdin
    for i in range(count):
        tag = f"w{worker:02d}-i{i:04d}"
        if i % 2 == 0:
            event = prompt(tag + " " + "p" * 400, session_id="shared-session")
        elif i % 10 != 1:
            event = pre_tool("Bash", {"command": f"echo {tag}"}, session_id="shared-session",
                             tool_use_id=tag)
        else:
            # a patch touching 20 long paths: a record of ~6 KB, over PIPE_BUF
            files = [f"src/{tag}/{j:02d}/" + "d" * 260 + ".py" for j in range(20)]
            body = "*** Begin Patch\\n" + "".join(
                f"*** Update File: {f}\\n@@\\n-a\\n+b\\n" for f in files
            ) + "*** End Patch\\n"
            event = pre_tool("apply_patch", {"command": body}, session_id="shared-session",
                             tool_use_id=tag)
        store.record(event, None)
    """
)


def test_eight_processes_append_concurrently_without_loss_or_interleaving(
    tmp_path: Path,
) -> None:
    workers, count = 8, 500
    state_dir = str(tmp_path / "state")
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    errs = [tmp_path / f"worker-{w}.err" for w in range(workers)]
    procs = []
    for w in range(workers):
        with errs[w].open("wb") as err:
            procs.append(
                subprocess.Popen(
                    [sys.executable, str(script), state_dir, str(w), str(count)],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.DEVNULL,
                    stderr=err,
                    env=env,
                )
            )
    for p in procs:
        assert p.stdin is not None
        p.stdin.close()  # go
    for w, p in enumerate(procs):
        assert p.wait(timeout=240) == 0, errs[w].read_text()

    store = SessionStore(state_dir, "shared-session")
    raw = Path(store.log_path).read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == workers * count
    seen: dict[int, list[int]] = {w: [] for w in range(workers)}
    big = 0
    for line in lines:
        big += len(line) > 4096
        rec = json.loads(line)  # every line is one complete record
        assert isinstance(rec, dict)
        if rec["kind"] == EventKind.USER_PROMPT.value:
            tag = rec["prompt"].split()[0]
        else:
            tag = rec["tool"]["id"]
            assert tag in rec["tool"]["summary"]
            assert all(tag in p for p in rec["tool"]["paths"])  # no foreign bytes inside
        w, i = tag.split("-")
        seen[int(w[1:])].append(int(i[1:]))
    assert big == workers * count // 10
    for w in range(workers):
        assert seen[w] == list(range(count)), f"worker {w} lost or reordered records"

    st, report = store.load()
    assert not report.skipped
    assert st.counters.events == workers * count
    assert st.counters.prompts == workers * count // 2
    assert st.counters.tool_calls == workers * count // 2
    assert "diagnostics" not in st.notes
    snap = json.loads(Path(store.snapshot_path).read_text())
    assert snap["cursor"] == len(raw)
    # every record sealed with the next sequence number: no false tamper report
    assert [json.loads(line)["n"] for line in lines] == list(range(1, workers * count + 1))
    assert not report.tamper and not report.lost
    assert "tamper" not in st.notes and "state_lost" not in st.notes
    assert snap["n"] == workers * count
    # and a full refold from the log agrees, with nothing reported
    os.unlink(store.snapshot_path)
    st, report = SessionStore(state_dir, "shared-session").load()
    assert st.counters.events == workers * count
    assert not report.tamper and not report.lost


def test_an_oversized_record_drops_its_notes_and_says_so(tmp_path: Path) -> None:
    """A reflex note can't make one log line unbounded; the record itself survives."""
    from agentreflex.core.reflex import Note
    from agentreflex.core.state.store import MAX_RECORD_BYTES

    store = _store(tmp_path)
    huge = Note("gate", "constraints", {"text": "x" * (MAX_RECORD_BYTES * 2)})
    st = store.record(prompt("hello"), None, [huge])
    line = Path(store.log_path).read_text().splitlines()[-1]
    assert len(line.encode()) <= MAX_RECORD_BYTES
    assert st.counters.events == 1
    assert "constraints" not in st.notes
    assert any("record too large" in d for d in st.notes["diagnostics"])


def test_the_log_is_fsynced_and_the_snapshot_only_at_rotation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The log is the record (fsynced per event); a snapshot is rebuilt from it when lost."""
    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    store = _store(tmp_path)
    assert store.sealer  # the per-user key is created (and fsynced) once, before this
    monkeypatch.setattr(os, "fsync", fsync)
    store.record(prompt("first"), None)
    assert [Path(p).name for p in synced] == [Path(store.log_path).name]
    monkeypatch.setattr(store_mod, "ROTATE_BYTES", 1)
    synced.clear()
    store.record(prompt("second"), None)  # rotates first
    names = [Path(p).name for p in synced]
    assert names[0].startswith(Path(store.snapshot_path).name + ".tmp-")  # durable at rotation
    assert names[1:] == [Path(store.log_path).name]


def test_a_snapshot_lost_to_a_power_cut_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for i in range(3):
        store.record(prompt(f"p{i}"), None)
    Path(store.snapshot_path).write_bytes(b"")  # what a crash can leave of an unsynced rename
    st, report = _store(tmp_path).load()
    assert report.rebuilt and st.prompts == ["p0", "p1", "p2"]
