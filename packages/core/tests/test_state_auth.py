"""Tamper-evident session state: the key, sealed lines, the anchor, and what the store believes.

The tests that need a sibling reflex package run where it is installed:
``tests/core_with_reflexes/test_state_auth.py``.
"""

from __future__ import annotations

import hmac
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.state.auth import KeyUnavailable, load_key
from agentreflex.core.state.store import SessionStore, make_record
from agentreflex.core.state.userdirs import key_path
from agentreflex.core.testing import post_tool, pre_tool, prompt
from agentreflex.core.testing import project_hook as _hook
from agentreflex.core.util.digest import hmac_sha256
from hypothesis import given, settings
from hypothesis import strategies as st


@settings(max_examples=300, deadline=None)
@given(key=st.binary(max_size=200), msg=st.binary(max_size=3000))
def test_hmac_sha256_equals_the_standard_library(key: bytes, msg: bytes) -> None:
    assert hmac_sha256(key, msg) == hmac.new(key, msg, "sha256").digest()


def test_the_key_is_created_private_once() -> None:
    key = load_key()
    path = key_path()
    assert len(key) == 32
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
    assert load_key() == key
    assert not [n for n in os.listdir(os.path.dirname(path)) if n.startswith("key.new")]


def test_racing_creators_all_get_the_same_key(tmp_path: Path) -> None:
    code = "import sys; from agentreflex.core.state.auth import load_key; sys.stdin.read(); print(load_key().hex())"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=dict(os.environ),
        )
        for _ in range(8)
    ]
    outs = [p.communicate("")[0].strip() for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1 and len(outs[0]) == 64
    assert bytes.fromhex(outs[0]) == load_key()


@pytest.mark.parametrize("damage", ["directory", "short"])
def test_an_unusable_key_is_a_clear_error(damage: str) -> None:
    path = Path(key_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    if damage == "directory":
        path.mkdir()
    else:
        path.write_bytes(b"abc")
    with pytest.raises(KeyUnavailable, match="state key"):
        load_key()
    with pytest.raises(OSError, match="state key"):
        SessionStore(str(Path(key_path()).parent / "s"), "x").load()


# ------------------------------------------------------------ the store


def _store(tmp_path: Path, session: str = "sess-1", where: str = "state") -> SessionStore:
    return SessionStore(str(tmp_path / where), session)


def _verified(store: SessionStore) -> None:
    """A session that edited a file and then ran its tests, which failed."""
    store.record(prompt("fix the bug", session_id=store.session_id), None)
    edit = {"file_path": "a.py", "content": "x"}
    sid = store.session_id
    store.record(post_tool("Write", edit, True, session_id=sid, tool_use_id="t1"), None)
    run = {"command": "pytest -q"}
    store.record(post_tool("Bash", run, False, "1 failed", session_id=sid, tool_use_id="t2"), None)


def _passing_line(n: int = 4) -> str:
    passed = post_tool("Bash", {"command": "pytest -q"}, True, "5 passed", tool_use_id="t9")
    rec = make_record(passed, None, [], None)
    rec["n"] = n
    return json.dumps(rec, separators=(",", ":"))


def _append(store: SessionStore, line: str) -> None:
    with open(store.log_path, "a", encoding="utf-8") as fh:  # what `echo >>` does
        fh.write(line + "\n")


def _believes_a_pass(store: SessionStore) -> bool:
    st, _ = SessionStore(store.state_dir, store.session_id).load()
    return any(v.outcome == "success" for v in st.verifications) or bool(
        st.counters.last_verification_ok
    )


def test_a_genuine_session_reports_nothing(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _verified(store)
    st, report = _store(tmp_path).load()
    assert st.counters.events == 3 and st.counters.last_verification_ok is False
    assert not report.tamper and not report.lost and "tamper" not in st.notes


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda s: _passing_line(), id="no-mac"),
        pytest.param(lambda s: _passing_line()[:-1] + ',"mac":"' + "0" * 64 + '"}', id="bad-mac"),
        pytest.param(
            lambda s: s.sealer.seal_line(_passing_line(), 4)[0].replace("5 passed", "6 passed"),
            id="edited",
        ),
    ],
)
def test_a_forged_line_is_ignored_and_reported_once(tmp_path: Path, forge: object) -> None:
    store = _store(tmp_path)
    _verified(store)
    _append(store, forge(store))  # type: ignore[operator]
    st, report = _store(tmp_path).load()
    assert [c for c, _ in report.tamper] == ["CORE-STATE-FORGED"]
    assert st.counters.last_verification_ok is False and st.counters.events == 3
    assert st.notes["tamper"][0].startswith("CORE-STATE-FORGED")
    _, again = _store(tmp_path).load()
    assert not again.tamper  # reported once
    # the next genuine record still goes through, nothing stored is lost
    st = store.record(prompt("next", session_id="sess-1"), None)
    assert st.counters.events == 4
    assert not _believes_a_pass(store)


def test_a_line_copied_from_another_session_is_ignored(tmp_path: Path) -> None:
    other = _store(tmp_path, "sess-2")
    other.record(prompt("p", session_id="sess-2"), None)
    other.record(post_tool("Bash", {"command": "pytest"}, True, "ok", session_id="sess-2"), None)
    store = _store(tmp_path)
    _verified(store)
    passing = Path(other.log_path).read_text().splitlines()[1]
    _append(store, passing.replace('"n":2', '"n":4'))
    _append(store, passing)
    _, report = _store(tmp_path).load()
    assert [c for c, _ in report.tamper] == ["CORE-STATE-FORGED", "CORE-STATE-REPLAYED"] or [
        c for c, _ in report.tamper
    ] == ["CORE-STATE-FORGED"] * 2
    assert not _believes_a_pass(store)


def test_a_line_copied_from_another_project_is_ignored(tmp_path: Path) -> None:
    other = _store(tmp_path, "sess-1", where="other-project")
    _verified(other)
    other.record(post_tool("Bash", {"command": "pytest"}, True, "ok", session_id="sess-1"), None)
    store = _store(tmp_path)
    _verified(store)
    _append(store, Path(other.log_path).read_text().splitlines()[3])  # n=4, same session id
    _, report = _store(tmp_path).load()
    assert [c for c, _ in report.tamper] == ["CORE-STATE-FORGED"]
    assert not _believes_a_pass(store)


def test_a_replayed_line_is_ignored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.record(post_tool("Bash", {"command": "pytest"}, True, "ok", session_id="sess-1"), None)
    store.record(post_tool("Bash", {"command": "pytest"}, False, "x", session_id="sess-1"), None)
    first = Path(store.log_path).read_text().splitlines()[0]
    _append(store, first)
    st, report = _store(tmp_path).load()
    assert [c for c, _ in report.tamper] == ["CORE-STATE-REPLAYED"]
    assert st.counters.last_verification_ok is False


def test_a_forged_snapshot_is_rebuilt_from_the_log(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _verified(store)
    snap = json.loads(Path(store.snapshot_path).read_text())
    snap["state"]["counters"]["last_verification_ok"] = True
    Path(store.snapshot_path).write_text(json.dumps(snap))
    st, report = _store(tmp_path).load()
    assert report.rebuilt and [c for c, _ in report.tamper] == ["CORE-STATE-SNAPSHOT"]
    assert st.counters.last_verification_ok is False and st.counters.events == 3


@pytest.mark.parametrize("how", ["delete-log", "delete-dir", "truncate", "drop-last"])
def test_a_deleted_or_truncated_log_is_lost_history(tmp_path: Path, how: str) -> None:
    store = _store(tmp_path)
    _verified(store)
    log = Path(store.log_path)
    if how == "delete-log":
        log.unlink()
    elif how == "delete-dir":
        subprocess.run(["rm", "-rf", store.state_dir], check=True)
    elif how == "truncate":
        log.write_bytes(b"")
    else:
        log.write_text("".join(log.read_text().splitlines(keepends=True)[:-1]))
    st, report = _store(tmp_path).load()
    assert "anchor" in report.lost
    assert st.notes["state_lost"]
    # it stays lost through later events, and through a refold, until acknowledged
    st = store.record(prompt("more", session_id="sess-1"), None)
    assert st.notes["state_lost"]
    os.unlink(store.snapshot_path)
    st, report = _store(tmp_path).load()
    assert st.notes["state_lost"] and "missing" in report.lost
    st = _store(tmp_path).acknowledge()
    assert "state_lost" not in st.notes
    st, report = _store(tmp_path).load()
    assert "state_lost" not in st.notes and not report.lost
    os.unlink(store.snapshot_path)
    st, _ = _store(tmp_path).load()
    assert "state_lost" not in st.notes  # the acknowledgement is itself a sealed record


def test_a_log_made_unreadable_cannot_be_loaded_and_the_anchor_says_so(tmp_path: Path) -> None:
    store = _store(tmp_path)
    _verified(store)
    os.chmod(store.log_path, 0)
    with pytest.raises(PermissionError):
        _store(tmp_path).load()
    assert _store(tmp_path).anchored() == 3
    st = _store(tmp_path).acknowledge()  # set aside, not deleted
    assert Path(store.log_path + ".unreadable").exists()
    assert "state_lost" not in st.notes


def test_a_new_session_has_no_anchor(tmp_path: Path) -> None:
    assert _store(tmp_path).anchored() == 0


def test_files_are_private_and_loose_modes_are_tightened(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o755)
    os.chmod(state, 0o755)
    store = _store(tmp_path)
    store.record(pre_tool("Bash", {"command": "ls"}, session_id="sess-1"), None)
    assert stat.S_IMODE(state.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(store.log_path).parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(store.log_path).stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(store.snapshot_path).stat().st_mode) == 0o600
    os.chmod(store.log_path, 0o644)
    store.load()
    assert stat.S_IMODE(Path(store.log_path).stat().st_mode) == 0o600


# ------------------------------------------------------------ the hook path


def test_lost_history_does_not_block_when_the_done_reflex_is_switched_off(
    tmp_path: Path,
) -> None:
    from agentreflex.core.state.userdirs import user_config_path

    _hook(tmp_path, "UserPromptSubmit", prompt="hi")
    os.unlink(SessionStore(str(tmp_path / "proj" / ".agentreflex"), "s-hook").log_path)
    Path(user_config_path()).parent.mkdir(parents=True, exist_ok=True)
    Path(user_config_path()).write_text('disabled_reflexes = ["done"]\n')  # the user's choice
    stdout, _ = _hook(tmp_path, "Stop", stop_hook_active=False)
    assert "block" not in stdout
