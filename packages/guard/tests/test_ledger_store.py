"""The ledger write serialises only the changed session, and writes the same bytes as before.

``_store`` copies every other session's bytes from the file as read, which
is only right because the file is compact JSON with sorted keys: these tests
hold the written bytes to ``json.dumps(ledger.to_json(), sort_keys=True)``,
the walker that finds the sessions to ``json.loads``, and the snapshot check
it allows to the full parse and check it skips.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any

import pytest
from agentreflex.guard import ledger as L
from agentreflex.guard import quiet
from agentreflex.guard.report import finalize, new_report
from hypothesis import given, settings
from hypothesis import strategies as st


def canonical(value: Any) -> bytes:
    """What the ledger was written as before: core's atomic_write_json."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def report(session_id: str, at: float, **extra: Any) -> dict[str, Any]:
    rep = new_report(session_id, "claude", at)
    rep["updated_at"] = at
    rep.update(extra)
    finalize(rep)
    return rep


def write_ledger(path: str, sessions: list[dict[str, Any]], **envelope: Any) -> None:
    doc = {"schema": 1, "host": "claude", "active_session": "", "updated_at": 1.0}
    doc.update(envelope, sessions=sessions)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as fh:
        fh.write(canonical(doc))


def paths(state_dir: str) -> tuple[str, str]:
    local = os.path.join(state_dir, "local")
    return os.path.join(local, "claude_reasoning_guard.json"), os.path.join(local, L.SNAPSHOT)


def touch(state_dir: str, session_id: str, now: float) -> bytes:
    """One update of ``session_id``; returns the ledger bytes written."""

    def work(rep: dict[str, Any], problems: list[str]) -> None:
        rep["text_digests"].append(f"sha256:{now}")

    L.update(state_dir, "claude-code", session_id, now, work)
    with open(paths(state_dir)[0], "rb") as fh:
        return fh.read()


def test_an_update_writes_what_serialising_the_whole_ledger_wrote(tmp_path: Any) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    ledger_path, snapshot = paths(state_dir)
    olds = [
        report(f"s{i}", 10.0 + i, mode="on", text_digests=[f"d{i}", "é\u2028"]) for i in range(5)
    ]
    write_ledger(ledger_path, olds, active_session="s4", updated_at=14.0)
    for n, sid in enumerate(["s2", "new", "s2", "s0", "new"]):
        written = touch(state_dir, sid, 100.0 + n)
        loaded = L.load_ledger(ledger_path, "claude", 0.0)
        assert written == canonical(json.loads(written))  # what serialising it all gives
        assert json.loads(written)["updated_at"] == 100.0 + n
        assert loaded.active_session == sid
        with open(snapshot, "rb") as fh:
            assert fh.read() == canonical(loaded.session(sid))
    # the sessions no event touched are the ones that were read
    untouched = {r["session"]["id"]: r for r in olds if r["session"]["id"] in ("s1", "s3", "s4")}
    kept = L.load_ledger(ledger_path, "claude", 0.0)
    for sid, original in untouched.items():
        assert kept.session(sid) == original


def test_only_the_changed_session_is_serialised(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    ledger_path, _snapshot = paths(state_dir)
    write_ledger(ledger_path, [report(f"s{i}", 10.0 + i) for i in range(4)], active_session="s3")
    serialised: list[str] = []
    real = L._dumps

    def spy(value: Any) -> str:
        if isinstance(value, dict) and "session" in value:
            serialised.append(value["session"]["id"])
        return real(value)

    monkeypatch.setattr(L, "_dumps", spy)
    written = touch(state_dir, "s1", 50.0)
    assert serialised == ["s1"]
    assert written == canonical(json.loads(written))


def test_every_session_is_serialised_again_when_the_file_is_not_compact(tmp_path: Any) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    ledger_path, _snapshot = paths(state_dir)
    doc = {"schema": 1, "host": "claude", "active_session": "a", "updated_at": 1.0}
    doc["sessions"] = [report("a", 1.0), report("b", 2.0)]
    os.makedirs(os.path.dirname(ledger_path))
    with open(ledger_path, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=2)  # a hand-formatted ledger
    written = touch(state_dir, "a", 5.0)
    assert written == canonical(json.loads(written))
    assert b"\n" not in written


def test_a_migrated_session_is_serialised_not_copied(tmp_path: Any) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    ledger_path, _snapshot = paths(state_dir)
    legacy = {"schema_version": "2.0", "session_id": "old", "obligations": [], "findings": []}
    write_ledger(ledger_path, [legacy, report("b", 2.0)], active_session="b")
    written = touch(state_dir, "b", 5.0)
    loaded = L.load_ledger(ledger_path, "claude", 0.0)
    assert written == canonical(json.loads(written))
    assert loaded.session("old") is not None
    assert loaded.session("old")["schema_version"] == "3.0"  # type: ignore[index]


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=8, alphabet=st.characters(max_codepoint=0x2100)),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, database=None)
@given(
    st.lists(json_values, max_size=4),
    st.dictionaries(st.sampled_from(["schema", "host", "zz", "a"]), json_values, max_size=3),
)
def test_the_walker_reads_a_compact_ledger_as_json_loads_does(
    sessions: list[Any], envelope: dict[str, Any]
) -> None:
    data = canonical({**envelope, "sessions": sessions})
    walked = L._walk_compact(data)
    assert walked is not None
    obj, spans = walked
    assert obj == json.loads(data)
    assert [data[a:b] for a, b in spans] == [canonical(s) for s in sessions]


@pytest.mark.parametrize(
    "data",
    [
        b'{"sessions":[{"a":1}] }',  # whitespace
        b'{"sessions":[{"a":1}]}\n',  # a trailing newline
        b'{"sessions":[{"a":1}],"sessions":[]}',  # a duplicate key: the last one counts
        b'{"sessions":[{"a":1},]}',  # not JSON
        b'{"sessions":[{"a":"\xc3\xa9"}]}',  # not ASCII
        b'\xef\xbb\xbf{"sessions":[]}',  # a byte order mark
        b'{"sessions":[1 ,2]}',
        b"{}",
        b"[]",
        b'{"sessions":[{"a":1}]}{"x":2}',
    ],
)
def test_anything_else_is_left_to_json_loads(data: bytes) -> None:
    assert L._walk_compact(data) is None


def test_a_snapshot_that_is_a_copy_of_a_ledger_session_needs_no_check(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    ledger_path, snapshot = paths(state_dir)
    touch(state_dir, "a", 1.0)
    checked: list[Any] = []
    real = L.check_report

    def counting(obj: Any) -> str | None:
        checked.append(obj)
        return real(obj)

    monkeypatch.setattr(L, "check_report", counting)
    touch(state_dir, "a", 2.0)
    assert len(checked) == 1  # the ledger's session, not the snapshot again
    # a snapshot that is not such a copy is still read and checked
    with open(snapshot, "rb") as fh:
        doc = json.loads(fh.read())
    doc["session"]["id"] = "other"
    with open(snapshot, "w", encoding="utf-8") as fh:
        json.dump(doc, fh)
    checked.clear()
    touch(state_dir, "a", 3.0)
    assert len(checked) == 2
    bad = copy.deepcopy(doc)
    bad["obligations"] = "many"
    with open(snapshot, "w", encoding="utf-8") as fh:
        json.dump(bad, fh)
    touch(state_dir, "a", 4.0)
    assert os.path.exists(snapshot + ".corrupt")
    recovered = L.load_ledger(ledger_path, "claude", 0.0).session("a")
    assert recovered is not None
    assert recovered["diagnostics"][-1]["message"].startswith("recovered: ")


def test_the_quiet_hint_is_replaced_whole(tmp_path: Any) -> None:
    state_dir = str(tmp_path / ".agentreflex")
    touch(state_dir, "a", 1.0)
    rep = L.load_ledger(paths(state_dir)[0], "claude", 0.0).session("a")
    assert rep is not None
    hint = os.path.join(state_dir, "local", "claude_guard_quiet.json")
    for n in range(3):
        rep["text_digests"] = [f"d{n}"]
        quiet.remember(state_dir, "claude-code", "a", rep)
        with open(hint, encoding="utf-8") as fh:
            assert json.load(fh)["texts"] == [f"d{n}"]
    hint_files = [n for n in os.listdir(os.path.join(state_dir, "local")) if "quiet" in n]
    assert hint_files == ["claude_guard_quiet.json"]  # and no temporary file left
