"""Issue #23, done when: no raw secret in anything agentreflex writes, no look-alike masked.

Secrets: three generated from every rule's own regex (each generated gitleaks
rule and each of core's own, ``tools/secrets_eval.py``) plus every command
shape of the issue.  They go through every sink of the real pipeline, real
``agentreflex hook claude-code EVENT`` processes with every installed reflex:
prompts, Bash commands, Write and Edit content, tool outputs and tool errors,
Stop messages, WebFetch and MCP inputs, and a transcript the guard reads.  The
judge is configured to a loopback HTTP server (a loopback judge needs no key)
that captures every request.  Then every file under the temporary HOME (the
user's config, state and cache dirs), the project (``.agentreflex/``) and
TMPDIR, every hook's stdout and stderr, every captured judge request, the
``agentreflex report`` page and every request ``agentreflex export`` sends to a
real OTLP/HTTP collector on 127.0.0.1 are searched for each raw secret: none
may be found.

Look-alikes (git SHAs, UUIDs, digests, integrity strings, image digests, paths,
versions, URLs without a password, placeholders, prose) go through the same
sinks in a project of their own: none may be masked in the stored state.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import secrets_eval
from otlp_collector import Collector

AGENTREFLEX = str(Path(sys.executable).with_name("agentreflex"))
SESSION = "5b0d7a52-1c3e-4f7a-9d2b-8e6f4a3c2b10"
BATCH = 4  # secret texts per hook call: short enough to stay inside every stored window


def _secrets() -> list[tuple[str, str, str]]:
    """(family, text, raw secret): 3 per rule family, then every command shape."""
    out = []
    for rid, items in secrets_eval.rule_positives(per_rule=3).items():
        out += [(rid, text, secret) for text, secret in items]
    out += [("command-shape", text, secret) for text, secret in secrets_eval.COMMAND_SHAPES]
    return out


# ------------------------------------------------------------------ the judge


class _Judge(BaseHTTPRequestHandler):
    captured: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.captured.append(bytes(self.headers) + raw)
        try:
            questions = json.loads(raw)["questions"]
        except (ValueError, KeyError, TypeError):
            questions = {}
        body = json.dumps(_answers(questions)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass


def _answers(questions: dict[str, Any]) -> dict[str, Any]:
    """A valid System One answer: every question answered permissively."""
    answers: dict[str, Any] = {}
    for qid, q in questions.items():
        if q["type"] == "noul":
            answers[qid] = {"type": "noul", "noul": 0.1}
        elif q["type"] == "choice":
            labels = list(q["criteria"])
            probs = {label: 0.0 for label in labels}
            probs[labels[0]] = 1.0
            answers[qid] = {
                "type": "choice",
                "choice": labels[0],
                "probabilities": probs,
                "confidence": 0.3,
            }
        else:
            n = len(q["criteria"])
            answers[qid] = {"type": "score", "probabilities": {str(i): 1 / n for i in range(n)}}
    return {"model": "jev-test", "answers": answers, "usage": {"input_tokens": 1}}


@pytest.fixture
def judge() -> Iterator[tuple[str, list[bytes]]]:
    captured: ClassVar[list[bytes]] = []
    handler = type("Judge", (_Judge,), {"captured": captured})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", captured
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------ the pipeline


class World:
    """A temporary HOME (XDG dirs inside), a git project, TMPDIR, and a transcript."""

    def __init__(self, root: Path, judge_url: str, name: str) -> None:
        self.root = root / name
        self.home = self.root / "home"
        self.project = self.root / "project"
        self.tmp = self.root / "tmp"
        for path in (self.home, self.project, self.tmp):
            path.mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        slug = str(self.project).replace("/", "-")
        self.transcript = self.home / ".claude" / "projects" / slug / f"{SESSION}.jsonl"
        self.transcript.parent.mkdir(parents=True)
        self.transcript.write_text("")
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "TMPDIR": str(self.tmp),
            "AGENTREFLEX_DAEMON": "off",
            "REFLEX_MODE": "enforced",
            "JEV_MODE": "jev",
            "JEV_BASE_URL": judge_url,
        }
        self.outputs: list[str] = []
        self.calls = 0

    def hook(self, event: str, **fields: Any) -> None:
        payload = {
            "session_id": SESSION,
            "cwd": str(self.project),
            "hook_event_name": event,
            "transcript_path": str(self.transcript),
            "stop_hook_active": False,
            **fields,
        }
        self.calls += 1
        done = subprocess.run(
            [AGENTREFLEX, "hook", "claude-code", event],
            input=json.dumps(payload),
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.project,
            timeout=120,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        self.outputs += [done.stdout, done.stderr]

    def say(self, text: str) -> None:
        """The assistant writes ``text`` into the transcript the guard reads."""
        message = {"role": "assistant", "model": "m", "content": [{"type": "text", "text": text}]}
        line = {"type": "assistant", "sessionId": SESSION, "message": message}
        with self.transcript.open("a") as fh:
            fh.write(json.dumps(line) + "\n")

    def push(self, index: int, text: str) -> None:
        """``text`` through one sink, chosen by ``index``, so every sink sees every family."""
        tid = f"toolu_{index:06d}"
        sink = index % 10
        if sink == 0:
            self.hook("UserPromptSubmit", prompt=text)
        elif sink == 1:
            self.hook("PreToolUse", tool_name="Bash", tool_input={"command": text}, tool_use_id=tid)
        elif sink == 2:
            self.hook(
                "PreToolUse",
                tool_name="Write",
                tool_input={"file_path": str(self.project / "app.py"), "content": text},
                tool_use_id=tid,
            )
        elif sink == 3:
            edit = {"file_path": str(self.project / "a.py"), "old_string": "x", "new_string": text}
            self.hook("PreToolUse", tool_name="Edit", tool_input=edit, tool_use_id=tid)
        elif sink == 4:
            self.hook(
                "PostToolUse",
                tool_name="Bash",
                tool_input={"command": "make test"},
                tool_response={"stdout": text, "stderr": text, "interrupted": False},
                tool_use_id=tid,
            )
        elif sink == 5:
            self.hook(
                "PostToolUseFailure",
                tool_name="Bash",
                tool_input={"command": "make deploy"},
                error=text,
                tool_use_id=tid,
            )
        elif sink == 6:
            self.hook("Stop", last_assistant_message=text)
        elif sink == 7:
            fetch = {"url": "https://example.com/docs", "prompt": text}
            self.hook("PreToolUse", tool_name="WebFetch", tool_input=fetch, tool_use_id=tid)
        elif sink == 8:
            # and as an argv list, each word an item of its own (an exec tool's command)
            mcp = {"query": text, "options": {"note": text}, "argv": text.split(" ")}
            self.hook("PreToolUse", tool_name="mcp__db__query", tool_input=mcp, tool_use_id=tid)
        else:
            self.say(text)
            self.hook("Stop", last_assistant_message="Done: all tests pass.")

    def readers(self) -> list[bytes]:
        """What the readers of the store write: the report page (a file under the
        project) and every request of ``agentreflex export`` to a real OTLP/HTTP
        collector on 127.0.0.1 (tools/otlp_collector.py)."""
        report = self.project / "report.html"
        done = self.run("report", "-o", str(report))
        assert done.returncode == 0 and report.is_file(), done.stderr
        with Collector() as collector:
            done = self.run("export", "--otlp", collector.url)
            assert done.returncode == 0, done.stderr
            assert collector.raw, "the collector got nothing"
            return list(collector.raw)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [AGENTREFLEX, *args],
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.project,
            timeout=300,
            check=False,
        )
        assert "Traceback" not in done.stderr, done.stderr
        self.outputs += [done.stdout, done.stderr]
        return done

    def written(self, judge_requests: list[bytes]) -> dict[str, str]:
        """Every file agentreflex wrote, every hook output and judge request, as text."""
        found: dict[str, str] = {}
        for path in self.root.rglob("*"):
            if path == self.transcript or not path.is_file() or ".git" in path.parts:
                continue
            found[str(path.relative_to(self.root))] = path.read_bytes().decode("utf-8", "replace")
        for i, out in enumerate(self.outputs):
            found[f"<hook output {i}>"] = out
        for i, raw in enumerate(judge_requests):
            found[f"<judge request {i}>"] = raw.decode("utf-8", "replace")
        return found


def _batches(texts: list[str]) -> list[str]:
    return ["\n".join(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)]


def _contains(blob: str, secret: str) -> bool:
    """The raw secret, or its JSON-escaped spelling."""
    escaped = json.dumps(secret)[1:-1]
    return secret in blob or escaped in blob


def test_no_raw_secret_is_written_anywhere(tmp_path: Path, judge: tuple[str, list[bytes]]) -> None:
    url, requests = judge
    secrets = _secrets()
    families = {family for family, _, _ in secrets}
    # every rule but the three whose regex the seeded walk cannot satisfy, and the shapes
    assert len(families) >= 266 and len(secrets) >= 3 * 260
    world = World(tmp_path, url, "secrets")
    texts = [text for _, text, _ in secrets]
    for index, batch in enumerate(_batches(texts)):
        world.push(index, batch)
    for index, (_, text, _) in enumerate(secrets[-len(secrets_eval.COMMAND_SHAPES) :]):
        world.push(index, text)  # every command shape through every sink, alone
    assert requests, "the loopback judge was never asked"
    exported = world.readers()
    written = world.written(requests)
    for i, raw in enumerate(exported):
        written[f"<OTLP request {i}>"] = raw.decode("utf-8", "replace")
    assert any("report.html" in name for name in written), "no report was written"
    assert any(".agentreflex" in name for name in written), "no project state was written"
    leaks = [
        (family, secret, name)
        for family, _, secret in secrets
        for name, blob in written.items()
        if _contains(blob, secret)
    ]
    assert leaks == []


def _token(text: str) -> str:
    """A look-alike's most telling word, as any store spells it (no quotes or escapes)."""
    import re

    return max(re.split(r"[\s\\\"',;]+", text), key=len)


def test_no_lookalike_is_masked_in_the_stored_state(
    tmp_path: Path, judge: tuple[str, list[bytes]]
) -> None:
    url, requests = judge
    world = World(tmp_path, url, "lookalikes")
    lookalikes = [t for items in secrets_eval.LOOKALIKES.values() for t in items]
    for index, text in enumerate(lookalikes):
        # as a command (stored in the session log) and as tool output
        world.push(1 + 10 * index, f"echo {text}")
        world.push(4 + 10 * index, text)
    stored = {n: b for n, b in world.written(requests).items() if ".agentreflex" in n}
    assert stored, "no project state was written"
    masked = {n: b.count("[REDACTED]") for n, b in stored.items() if "[REDACTED]" in b}
    assert masked == {}
    blob = "\n".join(stored.values())
    missing = [t for t in lookalikes if _token(t) not in blob and json.dumps(_token(t)) not in blob]
    assert missing == []
