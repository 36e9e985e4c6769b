"""Gemini CLI (``@google/gemini-cli``, pinned) driven offline by a scripted Gemini API.

Gemini CLI talks to ``$GOOGLE_GEMINI_BASE_URL`` (the genai SDK's base URL) with
an API key (``security.auth.selectedType = "gemini-api-key"``).  The fake here
answers ``:streamGenerateContent`` (server-sent events) and ``:generateContent``
the way the Gemini API does; a request that offers ``tools`` is the agent's main
loop and gets the next scripted turn, any other (Gemini's router and
next-speaker checks) gets a neutral JSON text.  A sub-agent's loop (``invoke_agent``)
is told apart by the tool only sub-agents are offered, ``complete_task``: with a
``subagent_script`` in the spec, its requests get that script's turns.  Each main
turn reports ``usageMetadata.promptTokenCount`` 10, or the spec's ``prompt_tokens[i]``
(how large a context Gemini then believes it holds).  ``python -m hostharness.gemini
SPEC.json`` runs inside ``unshare -n`` (see :func:`hostharness.claude.run_spec`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hostharness.claude import HOSTS_DIR, HostUnavailableError, npm_command
from hostharness.fakeserver import FakeServer, ModelHandler, sse
from hostharness.jail import bring_loopback_up

VERSION = "0.61.0"
PACKAGE = "@google/gemini-cli"
COMPLETE_TASK = "complete_task"
NEUTRAL = '{"reasoning": "scripted", "next_speaker": "user", "complexity_reasoning": "simple", "complexity_score": 1}'


def install_gemini() -> Path:
    """The pinned ``gemini`` binary under ``integration-tests/.hosts`` (installed once)."""
    prefix = HOSTS_DIR / f"gemini-{VERSION}"
    binary = prefix / "node_modules" / ".bin" / "gemini"
    if binary.exists():
        return binary
    argv = [*npm_command(), "install", "--no-audit", "--no-fund", "--prefix", str(prefix)]
    done = subprocess.run(
        [*argv, f"{PACKAGE}@{VERSION}"], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0 or not binary.exists():
        raise HostUnavailableError(f"npm install {PACKAGE}@{VERSION} failed:\n{done.stderr}")
    return binary


def call(name: str, **args: Any) -> list[dict[str, Any]]:
    """A scripted model turn that calls one tool."""
    return [{"functionCall": {"name": name, "args": args}}]


def text(words: str) -> list[dict[str, Any]]:
    return [{"text": words}]


def tool_names(body: Any) -> set[str]:
    """The function names a request offers the model."""
    if not isinstance(body, dict):
        return set()
    return {
        str(declaration.get("name"))
        for tool in body.get("tools") or []
        if isinstance(tool, dict)
        for declaration in tool.get("functionDeclarations") or []
        if isinstance(declaration, dict)
    }


def is_subagent(request: dict[str, Any]) -> bool:
    """A sub-agent's request: Gemini CLI 0.61's ``LocalAgentExecutor`` adds
    ``complete_task`` (the only way a sub-agent finishes) to the tools it offers; the
    main loop is never offered it (0.61 bundle chunk-JDPZ4CE3.js:348808)."""
    return COMPLETE_TASK in tool_names(request.get("body"))


class FakeGemini(FakeServer):
    """The Gemini API's ``models/*:generateContent`` and ``:streamGenerateContent``."""

    def __init__(
        self,
        turns: list[list[dict[str, Any]]],
        subagent_turns: list[list[dict[str, Any]]] | None = None,
        prompt_tokens: list[int] | None = None,
    ) -> None:
        super().__init__(turns)
        self.subagent_script = subagent_turns
        # the ``usageMetadata.promptTokenCount`` each main turn reports (10 past the list):
        # what Gemini compares with its compression threshold before the next request
        self.prompt_tokens = prompt_tokens or []
        self.next_turn = 0
        self.next_subagent_turn = 0

    def on_get(self, handler: ModelHandler, path: str) -> None:
        handler.send_json(404, {"error": {"code": 404, "message": "not here"}})

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        parts, prompt_tokens = text(NEUTRAL), 10
        if self.subagent_script is not None and COMPLETE_TASK in tool_names(body):
            with self._lock:
                index = self.next_subagent_turn
                self.next_subagent_turn += 1
            parts = (
                self.subagent_script[index]
                if index < len(self.subagent_script)
                else call(COMPLETE_TASK, result={"response": "Done."})
            )
        elif isinstance(body, dict) and body.get("tools"):
            with self._lock:
                index, self.next_turn = self.next_turn, self.next_turn + 1
            parts = self.script[index] if index < len(self.script) else text("Done.")
            if index < len(self.prompt_tokens):
                prompt_tokens = self.prompt_tokens[index]
        reply = {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "candidatesTokenCount": 5,
                "totalTokenCount": prompt_tokens + 5,
            },
            "modelVersion": "gemini-fake",
        }
        if path.endswith(":streamGenerateContent"):
            handler.send_events([sse(reply)])
        else:
            handler.send_json(200, reply)


def is_main(request: dict[str, Any]) -> bool:
    body = request.get("body")
    return isinstance(body, dict) and bool(body.get("tools"))


def run_step(step: dict[str, Any], base_url: str) -> dict[str, Any]:
    env = {**step["env"], "GOOGLE_GEMINI_BASE_URL": base_url}
    started = time.monotonic()
    try:
        done = subprocess.run(
            step["argv"],
            cwd=step["cwd"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=step.get("timeout", 120),
            check=False,
        )
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out, err = -999, str(exc.stdout or ""), f"timed out after {exc.timeout} s"
    return {"rc": rc, "stdout": out, "stderr": err, "wall_s": round(time.monotonic() - started, 3)}


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    fake = FakeGemini(spec["script"], spec.get("subagent_script"), spec.get("prompt_tokens"))
    fake.start()
    try:
        results = [run_step(step, fake.base_url) for step in spec["steps"]]
    finally:
        fake.stop()
    Path(spec["result"]).write_text(json.dumps({"steps": results, "requests": fake.requests}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
