"""Import discipline of a hook process, with every reflex package installed.

A hook is a new process per tool call on most hosts, so what it imports is
paid on every call (issue 3). These modules cost a hook call from 1.6 ms
(``json``; core's ``fastjson`` drives the same C scanner) and 3 ms
(``hashlib`` loading OpenSSL) to 300 ms (``pydantic``) on this project's
machines and an ordinary call needs none of them: the test fails the day one
of them creeps back onto the path. ``tools/hook_imports.py`` shows what a call
imports instead; ``tools/bench_hook.py`` measures the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

NEVER = (
    "pydantic",
    "httpx",
    "aiohttp",
    "rich",
    "dataclasses",
    "inspect",
    "typing",
    "tomllib",
    "json",
    "shlex",
    "importlib.metadata",
    "importlib.resources",
    "pathlib",
    "tempfile",
    "_hashlib",
    "ipaddress",
    "urllib.parse",
    "agentreflex.guard.engine",
    "sqlglot",  # the gate's SQL parser: only for SQL a database client is given (issue 30)
    # the report and the OTLP export (issue 35): commands and the daemon only
    "opentelemetry",
    "google",
    "requests",
    "matplotlib",
    "agentreflex.core.otlp",
    "agentreflex.core.report",
)


def _payload(event: str, project: Path) -> dict[str, object]:
    body: dict[str, object] = {
        "session_id": "imports",
        "transcript_path": str(project / "none.jsonl"),
        "cwd": str(project),
        "hook_event_name": event,
    }
    if event in ("PreToolUse", "PostToolUse"):
        command = "git status && npm test -- --watch=false"
        body.update(tool_name="Bash", tool_input={"command": command}, tool_use_id="toolu_1")
    if event == "PostToolUse":
        body["tool_response"] = {"stdout": "ok", "stderr": "", "interrupted": False}
    if event == "UserPromptSubmit":
        body["prompt"] = "add a --verbose flag to the cli"
    if event == "Stop":
        body.update(stop_hook_active=False, last_assistant_message="I added the flag.")
    return body


def _imported(event: str, tmp_path: Path) -> set[str]:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("REFLEX_", "AGENTREFLEX_"))}
    env.update(
        HOME=str(tmp_path),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        AGENTREFLEX_DAEMON="off",
        JEV_MODE="off",
    )
    hook = [sys.executable, "-X", "importtime", "-m", "agentreflex.core.cli", "hook"]
    data = json.dumps(_payload(event, project)).encode()
    for _ in range(2):  # the first call writes the entry-point cache, as any earlier call has
        done = subprocess.run(
            [*hook, "claude-code", event], input=data, env=env, capture_output=True, check=False
        )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
    names = set()
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    assert "agentreflex.core.hook.runtime" in names  # the log is real
    return names


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"])
def test_an_ordinary_hook_call_imports_nothing_heavy(event: str, tmp_path: Path) -> None:
    imported = _imported(event, tmp_path)
    heavy = sorted(n for n in imported if n in NEVER or n.split(".")[0] in NEVER)
    assert heavy == [], f"a {event} hook imported {heavy}"


def test_a_hook_with_an_otlp_export_configured_imports_no_exporter(tmp_path: Path) -> None:
    """``[export] otlp`` is the daemon's business: a one-shot hook never loads the SDK."""
    config = tmp_path / "config" / "agentreflex" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[export]\notlp = "http://127.0.0.1:4318"\n')
    imported = _imported("PreToolUse", tmp_path)
    heavy = sorted(n for n in imported if n in NEVER or n.split(".")[0] in NEVER)
    assert heavy == [], f"a hook with an export configured imported {heavy}"
