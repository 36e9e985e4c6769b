"""The real Codex CLI (OpenAI Responses API) through the agentreflex router to an OpenAI-chat lane.

Codex sends Responses requests; the router's policy sends them to a chat-completions
lane (a scripted fake on loopback), translating both ways. The freeform
``apply_patch`` tool crosses as a function with one ``input`` string and comes back
as a ``custom_tool_call``: Codex applies the patch, then runs ``exec_command``, and
the file exists with the patched content.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostharness.claude import AGENTREFLEX_SCRIPT, HostUnavailableError
from hostharness.codex import CodexProject, install_codex
from hostharness.fakemodel import say, tool
from hostharness.routerjail import run_routed

pytestmark = pytest.mark.integration

PATCH = "*** Begin Patch\n*** Add File: proof.txt\n+patched-through-the-router\n*** End Patch\n"


def test_codex_through_the_router_to_a_chat_lane(tmp_path: Path) -> None:
    try:
        codex = install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex CLI is not available: {exc}")
    project = CodexProject(tmp_path, codex)
    try:
        script = [
            tool("apply_patch", input=PATCH),
            tool("exec_command", cmd="cat proof.txt >> seen.txt"),
            say("Patched and checked."),
        ]
        step = {
            "argv": project.exec_argv("Add the proof file."),
            "cwd": str(project.project),
            "env": project.env(),
            "timeout": 180,
        }
        outcome = run_routed(
            [step], [], script, tmp_path / "jail", AGENTREFLEX_SCRIPT, 10**9, timeout=300
        )
    finally:
        project.cleanup()
    done = outcome["steps"][0]
    decisions = list(reversed(outcome["status"]["recent"]))
    summary = "\n".join(f"{d['api']} {d['lane']} {d['status']} {d['error']}" for d in decisions)
    assert done["rc"] == 0, f"{done['stdout'][-2000:]}\n{done['stderr'][-3000:]}\n{summary}"
    assert (project.project / "proof.txt").read_text() == "patched-through-the-router\n"
    assert (project.project / "seen.txt").read_text() == "patched-through-the-router\n"
    chat = [r["body"] for r in outcome["chat_requests"] if r["method"] == "POST"]
    tools = {t["function"]["name"]: t["function"] for b in chat for t in b.get("tools") or []}
    assert tools["apply_patch"]["parameters"]["required"] == ["input"]
    assert all(d["api"] == "openai-responses" for d in decisions), summary
    main = [d for d in decisions if "responses-client" in d["reason"]]
    assert len(main) >= 3 and all(d["served_by"] == "fast" and d["status"] == 200 for d in main)
