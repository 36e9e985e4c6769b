"""The real Claude Code pointed at the agentreflex router (``ANTHROPIC_BASE_URL``).

One run, offline, all on 127.0.0.1: the router in front of an Anthropic-style fake
model (which answers its first request with 529) and an OpenAI-chat-style fake model.
The policy sends sub-agents to the OpenAI lane and long contexts to the large lane.
The run proves: the 529 falls back to the next lane; the sub-agent's requests are
routed by Claude Code's own sub-agent marker and translated to chat completions; the
sub-agent's tool call crosses the translation and really executes; a long-context
request goes to the large lane; and ``/status`` gives each decision's reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, ClaudeProject
from hostharness.fakemodel import bash, say, tool
from hostharness.routerjail import run_routed

pytestmark = pytest.mark.integration

PROOF = "routed-through-openai"
# Claude Code 2.1.328's main-loop requests start near 11k estimated tokens (Bash output
# is cut to a short preview); reading a 60 kB file takes the conversation past this.
LONG_CONTEXT = 20000


def records(outcome: dict[str, Any]) -> list[dict[str, Any]]:
    recent: list[dict[str, Any]] = outcome["status"]["recent"]
    return list(reversed(recent))  # oldest first


def test_claude_code_through_the_router(claude_project: ClaudeProject) -> None:
    project = claude_project
    project.with_plugin = False
    big = project.write(
        "notes.txt", "".join(f"line {n:05d} of the long notes file\n" for n in range(1500))
    )
    main_script = [
        tool(
            "Agent",
            description="write proof",
            prompt="Write the proof file.",
            subagent_type="general-purpose",
        ),
        tool("Read", file_path=str(big)),
        say("All done."),
    ]
    subagent_script = [bash(f"echo {PROOF} > proof.txt"), say("proof written")]
    argv = [
        str(project.claude),
        "-p",
        "Delegate the proof, then count.",
        "--dangerously-skip-permissions",
        "--output-format",
        "json",
    ]
    step = {"argv": argv, "cwd": str(project.project), "env": project.env(), "timeout": 240}
    # the second run compacts the same session: Claude Code's summary (background) request
    compact_argv = [str(project.claude), "-p", "/compact", "--continue", *argv[3:]]
    compact = {
        "argv": compact_argv,
        "cwd": str(project.project),
        "env": project.env(),
        "timeout": 120,
    }
    outcome = run_routed(
        [step, compact],
        main_script,
        subagent_script,
        project.root / "jail",
        AGENTREFLEX_SCRIPT,
        LONG_CONTEXT,
        timeout=400,
    )
    done = outcome["steps"][0]
    log = outcome["router_log"][-3000:]
    assert done["rc"] == 0, f"{done['stdout'][-2000:]}\n{done['stderr'][-2000:]}\n{log}"
    decisions = records(outcome)
    summary = "\n".join(
        f"{d['lane']} ~{d['estimated_input_tokens']} <- {d['reason']} | {d['attempts']} | {d['served_by']}"
        for d in decisions
    )

    # the sub-agent's tool call crossed Anthropic -> chat -> Anthropic and really ran
    assert (project.project / "proof.txt").read_text().strip() == PROOF, summary
    chat = [r["body"] for r in outcome["chat_requests"] if r["method"] == "POST"]
    assert chat and all(b["model"] == "fast-model" for b in chat)
    tool_messages = [m for b in chat for m in b["messages"] if m.get("role") == "tool"]
    assert tool_messages, "the Bash result never reached the OpenAI lane as a tool message"

    # the first request met a 529 and fell back, and status says so
    first = decisions[0]
    assert first["attempts"] == ["main: HTTP 529"] and first["served_by"] == "main-retry", summary
    assert outcome["anthropic_requests"][0]["body"] == {"answered": 529}

    # sub-agent requests were routed by the sub-agent rule, with its reason
    sub = [d for d in decisions if d["lane"] == "fast" and "sub-agent" in d["reason"]]
    assert sub and all("rule 'sub-agent': system block" in d["reason"] for d in sub), summary
    assert all(d["served_by"] == "fast" and d["status"] == 200 for d in sub), summary

    # the long conversation went to the large lane; its explanation names the threshold
    large = [d for d in decisions if d["lane"] == "large"]
    assert large, summary
    assert f">= {LONG_CONTEXT}" in large[0]["reason"]
    models = {r["body"].get("model") for r in outcome["anthropic_requests"] if "model" in r["body"]}
    assert {"main-retry-model", "large-model"} <= models, models

    # the compaction (a background request, although it offers every tool) went to the fast lane
    compacted = outcome["steps"][1]
    assert compacted["rc"] == 0, compacted["stderr"][-2000:]
    background = [d for d in decisions if d["reason"].startswith("rule 'background'")]
    assert background and all(d["lane"] == "fast" and d["status"] == 200 for d in background), (
        summary
    )
    assert "asks for a summary of the conversation and forbids tools" in background[0]["reason"]

    # every decision lists every rule it considered
    for d in decisions:
        assert d["considered"], d
    assert outcome["status"]["lanes"]["fast"]["requests"] == len(sub) + len(background)
    assert "sk-fake-openai-key" not in log and "sk-fake-openai-key" not in str(outcome["status"])


def test_router_policy_file_for_the_scenario_is_valid(tmp_path: Path) -> None:
    from agentreflex.routing import parse_policy
    from hostharness.routerjail import policy

    parsed = parse_policy(policy("http://127.0.0.1:1", "http://127.0.0.1:2/v1", LONG_CONTEXT))
    assert [r.name for r in parsed.rules] == [
        "responses-client",
        "background",
        "sub-agent",
        "long-context",
    ]
