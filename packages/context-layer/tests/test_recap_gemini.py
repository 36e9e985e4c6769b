"""The recap on Gemini CLI: re-injected after a compression that happens, not after
each ``PreCompress``.

Gemini CLI 0.61 fires ``PreCompress`` (trigger ``auto``) before every model request
and compresses only past its threshold (google-gemini/gemini-cli#18083); its adapter
reads the session file Gemini names (``transcript_path``) to tell the two apart.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import Host

CONSTRAINT = "Do not touch the public API in api.py."
HALF = 524_288  # 0.5 x 1,048,576


def _context(reply: dict[str, object]) -> str:
    out = reply.get("hookSpecificOutput")
    return str(out.get("additionalContext", "")) if isinstance(out, dict) else ""


@pytest.fixture
def gemini(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Host:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (tmp_path / "home" / ".gemini").mkdir(parents=True)
    # the adapter reads Gemini's settings where Gemini would: this test's home only
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    monkeypatch.setenv("GEMINI_CLI_SYSTEM_SETTINGS_PATH", str(tmp_path / "etc" / "settings.json"))
    return Host(project, tmp_path / "home", host="gemini")


def record_prompt_tokens(host: Host, count: int) -> str:
    """The session file as Gemini leaves it after a response whose promptTokenCount is
    ``count``."""
    chats = host.home / ".gemini" / "tmp" / "project" / "chats"
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / "session-2026-12-04T03-39-sess-ctx.jsonl"
    tokens = {"input": count, "output": 5, "cached": 0, "thoughts": 0, "tool": 0, "total": count}
    records = [
        {"sessionId": host.session, "projectHash": "x", "startTime": "t", "kind": "main"},
        {"id": "u1", "timestamp": "t", "type": "user", "content": [{"text": "go"}]},
        {
            "id": "g1",
            "type": "gemini",
            "content": "ok",
            "tokens": tokens,
            "model": "gemini-2.5-pro",
        },
        {"$set": {"lastUpdated": "t"}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return str(path)


def test_a_precompress_below_the_threshold_keeps_the_recap_off_the_next_prompt(
    gemini: Host,
) -> None:
    small = record_prompt_tokens(gemini, 1_000)
    gemini.reply("BeforeAgent", prompt=f"Refactor the loader. {CONSTRAINT}", transcript_path=small)
    assert gemini.reply("PreCompress", trigger="auto", transcript_path=small) == {}
    assert CONSTRAINT in _context(gemini.reply("BeforeAgent", prompt="continue"))
    for prompt in ("go on", "and the docs"):
        gemini.reply("PreCompress", trigger="auto", transcript_path=small)
        assert gemini.reply("BeforeAgent", prompt=prompt, transcript_path=small) == {}
    large = record_prompt_tokens(gemini, HALF + 1)  # Gemini compresses now
    gemini.reply("PreCompress", trigger="auto", transcript_path=large)
    assert CONSTRAINT in _context(gemini.reply("BeforeAgent", prompt="next"))


def test_compress_by_hand_and_an_unreadable_session_file_re_inject(gemini: Host) -> None:
    small = record_prompt_tokens(gemini, 1_000)
    gemini.reply("BeforeAgent", prompt=f"Refactor the loader. {CONSTRAINT}")
    assert CONSTRAINT in _context(gemini.reply("BeforeAgent", prompt="continue"))
    gemini.reply("PreCompress", trigger="manual", transcript_path=small)  # /compress
    assert CONSTRAINT in _context(gemini.reply("BeforeAgent", prompt="go on"))
    gemini.reply("PreCompress", trigger="auto", transcript_path=str(gemini.home / "none.jsonl"))
    assert CONSTRAINT in _context(gemini.reply("BeforeAgent", prompt="more"))
