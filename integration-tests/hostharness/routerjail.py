"""Claude Code -> agentreflex router -> two scripted upstreams, inside ``unshare -n``.

``python -m hostharness.routerjail SPEC.json`` (started by :func:`run_routed`) brings
``lo`` up and starts, all on 127.0.0.1: an Anthropic-style fake model that answers
its first request with HTTP 529 (``overloaded_error``), an OpenAI-chat-style fake
model, and ``agentreflex router serve`` with a policy whose lanes point at them.
It runs the spec's steps with ``ANTHROPIC_BASE_URL`` set to the router, then
writes the steps' outcomes, both fakes' requests and the router's ``/status``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hostharness.claude import run_spec
from hostharness.fake_openai_chat import ChatScript, FakeOpenAIChat
from hostharness.fakemodel import (
    END_OF_SCRIPT_TEXT,
    FakeAnthropic,
    Script,
    Turn,
    assistant_turns,
    say,
)
from hostharness.fakeserver import ModelHandler
from hostharness.jail import bring_loopback_up, run_step

# the shell tool that marks an agent loop's request: Claude Code's, Codex CLI's
MAIN_TOOLS = frozenset({"Bash", "exec_command"})
BASE_URL = "{BASE_URL}"  # in a step's argv: replaced by the router's OpenAI base URL
COMPACT_SUMMARY = "<analysis>short</analysis>\n<summary>Summary written by the fast lane.</summary>"


class SubagentScript(ChatScript):
    """The OpenAI-side script: a compaction request gets a summary; every other request
    offering a shell tool (Claude Code's Bash, Codex's exec_command) is a turn of the script."""

    def reply_for(self, body: dict[str, Any]) -> Turn:
        messages = body.get("messages") or []
        last = messages[-1].get("content") if messages and isinstance(messages[-1], dict) else ""
        if isinstance(last, list):
            last = " ".join(str(p.get("text", "")) for p in last if isinstance(p, dict))
        if "summary of the conversation" in str(last):
            return say(COMPACT_SUMMARY)
        tools = [
            t.get("function", {}).get("name")
            for t in body.get("tools") or []
            if isinstance(t, dict)
        ]
        if not MAIN_TOOLS.intersection(tools):
            return say("OK")
        index = assistant_turns(body.get("messages") or [])
        return self.turns[index] if index < len(self.turns) else say(END_OF_SCRIPT_TEXT)


class OverloadedOnce(FakeAnthropic):
    """The Anthropic fake, answering its first ``overloads`` message requests with 529."""

    def __init__(self, script: Script, overloads: int = 1) -> None:
        super().__init__(script)
        self.overloads = overloads

    def on_post(self, handler: ModelHandler, path: str, body: Any, number: int) -> None:
        if self.overloads > 0 and path.endswith("/v1/messages"):
            self.overloads -= 1
            self.requests[-1]["body"] = {"answered": 529}
            error = {
                "type": "error",
                "error": {"type": "overloaded_error", "message": "Overloaded"},
            }
            handler.send_json(529, error)
            return
        super().on_post(handler, path, body, number)


def policy(anthropic_url: str, chat_url: str, long_context: int) -> str:
    return f"""
default_lane = "main"

[lanes.main]
provider = "fake-anthropic"
api = "anthropic"
base_url = "{anthropic_url}"
model = "main-model"
fallbacks = ["main-retry"]

[lanes.main-retry]
provider = "fake-anthropic"
api = "anthropic"
base_url = "{anthropic_url}"
model = "main-retry-model"

[lanes.large]
provider = "fake-anthropic"
api = "anthropic"
base_url = "{anthropic_url}"
model = "large-model"

[lanes.fast]
provider = "fake-openai"
api = "openai-chat"
base_url = "{chat_url}"
model = "fast-model"
key_env = "FAKE_OPENAI_KEY"
max_tokens = 4096

[[rules]]
name = "responses-client"
lane = "fast"
when = {{ api = "openai-responses" }}

[[rules]]
name = "background"
lane = "fast"
when = {{ background = true }}

[[rules]]
name = "sub-agent"
lane = "fast"
when = {{ subagent = true }}

[[rules]]
name = "long-context"
lane = "large"
when = {{ min_input_tokens = {long_context} }}
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.load(reply)


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    anthropic = OverloadedOnce(Script([Turn.from_json(t) for t in spec["main_script"]]))
    chat = FakeOpenAIChat(SubagentScript([Turn.from_json(t) for t in spec["subagent_script"]]))
    anthropic.start()
    chat.start()
    workdir = Path(spec["result"]).parent
    # the user's own config folder: a policy elsewhere serves only once approved
    config_home = workdir / "config"
    policy_file = config_home / "agentreflex" / "routing.toml"
    policy_file.parent.mkdir(parents=True, exist_ok=True)
    policy_file.write_text(policy(anthropic.base_url, chat.base_url, spec["long_context"]))
    port = _free_port()
    router_url = f"http://127.0.0.1:{port}"
    log = (workdir / "router.log").open("w")
    router = subprocess.Popen(
        [spec["agentreflex"], "router", "serve", "--policy", str(policy_file), "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={
            **os.environ,
            "FAKE_OPENAI_KEY": "sk-fake-openai-key",
            "XDG_CONFIG_HOME": str(config_home),
        },
    )
    results: list[dict[str, Any]] = []
    status: Any = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                _get(f"{router_url}/v1/models")
                break
            except OSError:
                if time.monotonic() > deadline or router.poll() is not None:
                    raise RuntimeError("the router did not start") from None
                time.sleep(0.2)
        for step in spec["steps"]:
            argv = [a.replace(BASE_URL, f"{router_url}/v1") for a in step["argv"]]
            results.append(run_step({**step, "argv": argv}, router_url))
        status = _get(f"{router_url}/status")
    finally:
        router.terminate()
        router.wait(timeout=20)
        log.close()
        anthropic.stop()
        chat.stop()
    outcome = {
        "steps": results,
        "status": status,
        "anthropic_requests": anthropic.requests,
        "chat_requests": chat.requests,
        "router_log": (workdir / "router.log").read_text(),
    }
    Path(spec["result"]).write_text(json.dumps(outcome))
    return 0


def run_routed(
    steps: Sequence[Mapping[str, Any]],
    main_script: Sequence[Turn],
    subagent_script: Sequence[Turn],
    workdir: Path,
    agentreflex: Path,
    long_context: int,
    timeout: float,
) -> dict[str, Any]:
    """Run ``steps`` against the router in a loopback-only namespace; the outcome as a dict."""
    spec = {
        "main_script": [t.to_json() for t in main_script],
        "subagent_script": [t.to_json() for t in subagent_script],
        "steps": list(steps),
        "agentreflex": str(agentreflex),
        "long_context": long_context,
    }
    return run_spec("hostharness.routerjail", spec, workdir, timeout)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
