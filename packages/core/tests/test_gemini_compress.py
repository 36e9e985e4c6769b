"""Gemini CLI's PreCompress told apart: a compression that will run from one that will not.

Gemini CLI 0.61 fires ``PreCompress`` (trigger ``auto``) before every model request,
then compresses only when the last prompt's token count reaches
``model.compressionThreshold x tokenLimit(model)`` (google-gemini/gemini-cli#18083).
The session files here are written as its ``ChatRecordingService`` writes them (one
JSON record a line: the metadata header, each message, a message again when its tokens
or tool calls are added, ``$set`` updates, ``$rewindTo``); the settings as its
``loadSettings`` reads them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.events import EventKind
from agentreflex.core.hosts import gemini_compress as gc
from agentreflex.core.hosts.gemini import GeminiAdapter
from agentreflex.core.testing import gemini_payload as gem

SESSION = "a539dec8-48a8-45a3-bc8d-2d4ea24ca489"
HALF = 524_288  # 0.5 x 1,048,576: the default threshold for every Gemini model


def header() -> dict[str, Any]:
    return {
        "sessionId": SESSION,
        "projectHash": "2f4f3f2141efaca8427f67ce24264d122d0c50d427388f5c9c4ae9f8094704ea",
        "startTime": "2026-12-04T03:39:11.355Z",
        "lastUpdated": "2026-12-04T03:39:11.355Z",
        "kind": "main",
    }


def user(text: str, uid: str = "u1") -> dict[str, Any]:
    return {"id": uid, "timestamp": "t", "type": "user", "content": [{"text": text}]}


def gemini(
    tokens: int | None, model: str = "gemini-2.5-pro", mid: str = "g1", **more: Any
) -> dict[str, Any]:
    counts = None
    if tokens is not None:
        counts = {"input": tokens, "output": 5, "cached": 0, "thoughts": 0, "tool": 0}
        counts["total"] = tokens + 5
    return {
        "id": mid,
        "timestamp": "t",
        "type": "gemini",
        "content": "Working on it.",
        "thoughts": [],
        "tokens": counts,
        "model": model,
        **more,
    }


def stamp() -> dict[str, Any]:
    return {"$set": {"lastUpdated": "2026-12-04T03:39:11.433Z"}}


def session_file(home: Path, *records: Any, raw: bytes = b"") -> Path:
    """The session file where Gemini keeps it, with ``records`` (then ``raw`` bytes)."""
    chats = home / ".gemini" / "tmp" / "proj" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / f"session-2026-12-04T03-39-{SESSION[:8]}.jsonl"
    lines = [json.dumps(r, separators=(",", ":")) for r in (header(), *records)]
    path.write_bytes(("\n".join(lines) + "\n").encode() + raw)
    return path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".gemini").mkdir(parents=True)
    system = tmp_path / "etc" / "gemini-cli"
    system.mkdir(parents=True)
    return {"HOME": str(home), "GEMINI_CLI_SYSTEM_SETTINGS_PATH": str(system / "settings.json")}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "proj"
    folder.mkdir()
    return folder


def settings(folder: Path, value: Any, raw: str | None = None, name: str = "settings.json") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    text = raw if raw is not None else json.dumps({"model": {"compressionThreshold": value}})
    (folder / name).write_text(text)


def home(env: dict[str, str]) -> Path:
    return Path(env["HOME"])


# ---------------------------------------------------------------- the count and the limit


def test_below_half_the_limit_is_no_compression_and_at_it_one(
    env: dict[str, str], project: Path
) -> None:
    turn = [user("fix it"), stamp()]
    below = session_file(home(env), *turn, gemini(HALF - 1), stamp())
    assert gc.will_compress(str(below), str(project), env) is False
    at = session_file(home(env), *turn, gemini(HALF), stamp())
    assert gc.will_compress(str(at), str(project), env) is True


def test_the_last_gemini_message_counts_not_an_earlier_larger_one(
    env: dict[str, str], project: Path
) -> None:
    """A message is written again when its tool calls are added, and the user's
    function response follows it: the last ``gemini`` record holds the count."""
    call = {"id": "c1", "name": "run_shell_command", "args": {"command": "ls"}, "result": []}
    path = session_file(
        home(env),
        user("go"),
        gemini(HALF + 10, mid="g1"),
        gemini(1200, mid="g2"),
        stamp(),
        gemini(1200, mid="g2", toolCalls=[call]),
        user("[function response]", uid="u2"),
        stamp(),
    )
    assert gc.last_prompt(str(path)) == (1200, "gemini-2.5-pro")
    assert gc.will_compress(str(path), str(project), env) is False


def test_gemma_4_has_the_smaller_limit(env: dict[str, str], project: Path) -> None:
    count = 200_000  # over 0.5 x 256,000, far under 0.5 x 1,048,576
    gemma = session_file(home(env), gemini(count, model="gemma-4-31b-it"))
    assert gc.will_compress(str(gemma), str(project), env) is True
    flash = session_file(home(env), gemini(count, model="gemini-2.5-flash"))
    assert gc.will_compress(str(flash), str(project), env) is False


def test_a_record_gemini_holds_its_own_count_for_is_unknown(
    env: dict[str, str], project: Path
) -> None:
    """No tokens on the last message (a synthetic one), a rewind, a file with no history
    yet: what Gemini counts then is not in the file."""
    small = gemini(10, mid="g1")
    for records in ([small, gemini(None, mid="g2")], [small, {"$rewindTo": "g1"}], []):
        path = session_file(home(env), user("go"), *records)
        assert gc.last_prompt(str(path)) is None, records
        assert gc.will_compress(str(path), str(project), env) is None


def history(*messages: Any) -> dict[str, Any]:
    """Gemini's record of a history it set (resumed, compressed, masked)."""
    return {"$set": {"messages": list(messages), "lastUpdated": "t"}}


def resumed(message: dict[str, Any]) -> dict[str, Any]:
    """A message as a resumed session's history records it: no tokens, no model."""
    return {k: v for k, v in message.items() if k not in ("tokens", "model", "thoughts")}


def test_a_history_gemini_set_counts_as_its_estimate_bounded(
    env: dict[str, str], project: Path
) -> None:
    """Resumed, Gemini counts its estimate of the history it recorded, not the last
    response's count: the bound of that estimate stands for it, with the smallest limit
    (256,000) when no message names its model."""
    big = gemini(HALF + 1, mid="g1")
    after_resume = session_file(home(env), big, history(user("go"), resumed(big)), user("more"))
    count, model = gc.last_prompt(str(after_resume)) or (0, "?")
    assert model == "" and count < 1000
    assert gc.will_compress(str(after_resume), str(project), env) is False
    # 0.75 a byte of text that is not ASCII: 100,000 "é" are 150,000 tokens to Gemini
    wide = session_file(home(env), history(user("é" * 100_000), resumed(gemini(1))))
    assert gc.will_compress(str(wide), str(project), env) is True  # over 0.5 x 256,000
    named = session_file(home(env), history(user("é" * 100_000), gemini(1)))
    assert gc.will_compress(str(named), str(project), env) is False  # under 0.5 x 1,048,576
    # 100,000 ASCII characters: 25,000 tokens
    ascii_text = session_file(home(env), history(user("a" * 100_000), resumed(gemini(1))))
    assert gc.will_compress(str(ascii_text), str(project), env) is False
    # a media part is a fixed 3,000 (an image) or 25,800 (a PDF), however small
    pdf = {"inlineData": {"mimeType": "application/pdf", "data": "JVBERi0="}}
    media = {**user("see"), "content": [pdf] * 5}
    pdfs = session_file(home(env), history(media, resumed(gemini(1))))
    assert gc.will_compress(str(pdfs), str(project), env) is True
    # a failed request rolls the count back to the one before it, which the set carries
    rolled_back = session_file(home(env), history(user("go"), big))
    assert gc.will_compress(str(rolled_back), str(project), env) is True


def test_a_long_last_record_is_read_past_the_first_window(
    env: dict[str, str], project: Path
) -> None:
    output = "x" * 300_000  # a tool result recorded inside the gemini message
    call = {"id": "c1", "name": "read_file", "args": {}, "result": [{"text": output}]}
    path = session_file(home(env), gemini(HALF + 1, mid="g0"), gemini(77, toolCalls=[call]))
    assert path.stat().st_size > 1 << 16
    assert gc.last_prompt(str(path)) == (77, "gemini-2.5-pro")


def test_a_last_record_longer_than_every_window_is_unknown(env: dict[str, str]) -> None:
    call = {"id": "c1", "name": "read_file", "args": {}, "result": [{"text": "y" * (9 << 20)}]}
    path = session_file(home(env), gemini(10, mid="g0"), gemini(77, toolCalls=[call]))
    assert gc.last_prompt(str(path)) is None


def test_malformed_session_files(env: dict[str, str], tmp_path: Path) -> None:
    # a line cut where Gemini is still writing it: the whole record before it counts
    cut = session_file(home(env), gemini(42), raw=b'{"id":"g2","type":"gemini","tokens":{"inp')
    assert gc.last_prompt(str(cut)) == (42, "gemini-2.5-pro")
    for tokens in ({"input": "many"}, {"input": True}, {"input": -1}, ["input", 3], {}):
        bad = session_file(
            home(env), gemini(42, mid="g1"), {**gemini(1, mid="g2"), "tokens": tokens}
        )
        assert gc.last_prompt(str(bad)) is None, tokens
    no_model = session_file(home(env), {**gemini(42), "model": None})
    assert gc.last_prompt(str(no_model)) == (42, "")
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b'\x00\xff not json\n[1, 2]\n"gemini"\n')
    assert gc.last_prompt(str(garbage)) is None
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)  # a file that would never end: not waited on
    assert gc.last_prompt(str(fifo)) is None
    assert gc.last_prompt(str(tmp_path)) is None  # a folder
    assert gc.last_prompt(str(tmp_path / "missing.jsonl")) is None
    assert gc.last_prompt("") is None


# ---------------------------------------------------------------- the threshold


def test_the_threshold_by_gemini_settings_precedence(
    env: dict[str, str], project: Path, tmp_path: Path
) -> None:
    user_dir = home(env) / ".gemini"
    system = Path(env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"])
    ws = str(project)
    assert gc.compression_threshold(ws, env) == 0.5  # nothing set: the schema's default
    settings(system.parent, 0.3, name="system-defaults.json")
    assert gc.compression_threshold(ws, env) == 0.3  # system defaults under all
    settings(user_dir, 0.2)
    assert gc.compression_threshold(ws, env) == 0.2  # the user's over the system defaults
    settings(project / ".gemini", 0.1)
    assert gc.compression_threshold(ws, env) == 0.1  # a workspace's lower one
    settings(project / ".gemini", 0.9)
    # a higher one counts only if Gemini trusts the folder: in doubt, the lower
    assert gc.compression_threshold(ws, env) == 0.2
    settings(system.parent, 0.05)
    assert gc.compression_threshold(ws, env) == 0.05  # the system settings over all
    settings(system.parent, 0.7)
    # higher, they count only if Gemini finds their file secure: in doubt, the lower
    assert gc.compression_threshold(ws, env) == 0.2
    settings(system.parent, None, raw="{broken")
    assert gc.compression_threshold(ws, env) is None


def test_gemini_cli_home_and_a_workspace_that_is_home(env: dict[str, str], tmp_path: Path) -> None:
    other = tmp_path / "gemini-home"
    settings(other / ".gemini", 0.25)
    settings(home(env) / ".gemini", 0.4)
    moved = {**env, "GEMINI_CLI_HOME": str(other)}
    assert gc.compression_threshold("", moved) == 0.25
    # started in its home, Gemini reads no workspace settings (they are the user's)
    assert gc.compression_threshold(str(other), moved) == 0.25
    assert gc.compression_threshold(str(home(env)), env) == 0.4


def test_settings_with_comments_are_read_as_gemini_strips_them(
    env: dict[str, str], project: Path
) -> None:
    text = '{\n  // tuned\n  "model": {"compressionThreshold": 0.15,},\n}\n'
    settings(home(env) / ".gemini", None, raw=text)
    assert gc.compression_threshold(str(project), env) == 0.15


@pytest.mark.parametrize(
    "raw",
    [
        "{not json",
        "[1, 2]",
        '{"model": "pro"}',
        '{"model": {"compressionThreshold": "0.3"}}',
        '{"model": {"compressionThreshold": 0}}',  # 0: a remote experiment's value
        '{"model": {"compressionThreshold": true}}',
        '{"model": {"compressionThreshold": null}}',
    ],
)
def test_a_threshold_not_known_for_sure_is_unknown(
    env: dict[str, str], project: Path, raw: str
) -> None:
    settings(home(env) / ".gemini", None, raw=raw)
    assert gc.compression_threshold(str(project), env) is None
    path = session_file(home(env), gemini(10))
    assert gc.will_compress(str(path), str(project), env) is None


def test_other_settings_leave_the_default(env: dict[str, str], project: Path) -> None:
    settings(home(env) / ".gemini", None, raw='{"model": {"name": "gemini-2.5-pro"}}')
    settings(project / ".gemini", None, raw='{"tools": {"allowed": []}}')
    assert gc.compression_threshold(str(project), env) == 0.5


def test_a_lower_threshold_makes_a_small_count_a_compression(
    env: dict[str, str], project: Path
) -> None:
    path = session_file(home(env), gemini(110_000))
    assert gc.will_compress(str(path), str(project), env) is False
    settings(home(env) / ".gemini", 0.1)
    assert gc.will_compress(str(path), str(project), env) is True


# ---------------------------------------------------------------- the adapter


def test_the_adapter_marks_an_auto_precompress_below_the_threshold(
    env: dict[str, str], project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    adapter = GeminiAdapter()
    small = session_file(home(env), user("go"), gemini(900))

    def compress(trigger: Any, path: Path | str) -> bool:
        payload = gem("PreCompress", trigger=trigger, transcript_path=str(path), cwd=str(project))
        event = adapter.parse(payload)
        assert event.kind is EventKind.PRE_COMPACT
        return event.compacts

    assert compress("auto", small) is False
    assert compress("manual", small) is True  # /compress always compresses
    assert compress(None, small) is True  # a trigger not known
    assert compress("auto", home(env) / "nowhere.jsonl") is True  # unknown: as before
    large = session_file(home(env), user("go"), gemini(HALF))
    assert compress("auto", large) is True
    settings(project / ".gemini", 0.0005)  # the project's lower threshold: 524 tokens
    assert compress("auto", session_file(home(env), gemini(900))) is True
    assert adapter.parse(gem("BeforeAgent", prompt="p")).compacts is True
