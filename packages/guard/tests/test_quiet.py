"""The check before the engine (quiet.py): it skips work, never changes a decision."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

from agentreflex.core.config.settings import Config
from agentreflex.core.decision import Finding
from agentreflex.core.events import Event
from agentreflex.core.testing import make_context, post_tool, pre_tool, prompt, stop
from agentreflex.guard import quiet
from agentreflex.guard.reflex import GuardReflex
from guard_testkit import DIRECTIVE, codes, guard_config, make_runner, marker, session

SID = "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b"
STATUS = {"command": "git status && npm test", "description": "Show status and run tests"}
TESTS_DIR = os.path.dirname(__file__)


def engine_runner(
    state_dir: str, cfg: Config, env: dict[str, str]
) -> Callable[[Event], list[Finding]]:
    """Like ``make_runner`` but always through the engine: today's behaviour, for comparison."""
    reflex = GuardReflex(env=env)

    def run(event: Event) -> list[Finding]:
        return reflex._run_engine(make_context(event, config=cfg, state_dir=state_dir), env)

    return run


def skipped(state_dir: str, event: Event, env: dict[str, str] | None = None) -> bool:
    return quiet.nothing_to_do(state_dir, event, env or {})


def test_an_ordinary_event_in_a_quiet_session_does_not_import_the_engine(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    assert run(pre_tool("Bash", STATUS, tool_use_id="t1")) == []  # the first call writes the hint
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, sys.argv[2])
        from agentreflex.core.testing import pre_tool
        from guard_testkit import guard_config, make_runner
        run = make_runner(sys.argv[1], guard_config("report"))
        event = pre_tool("Bash", {"command": sys.argv[3], "description": sys.argv[4]},
                         tool_use_id="t1")
        print(run(event), "agentreflex.guard.engine" in sys.modules)
        """
    )
    args = [sys.executable, "-c", script, state_dir, TESTS_DIR, STATUS["command"]]
    quiet_call = subprocess.run([*args, STATUS["description"]], capture_output=True, text=True)
    assert quiet_call.stdout.split() == ["[]", "False"], quiet_call.stderr
    # a new description may open a check: the engine runs
    new_text = subprocess.run([*args, "Run the tests"], capture_output=True, text=True)
    assert new_text.stdout.split() == ["[]", "True"], new_text.stderr


def test_a_session_with_an_open_obligation_gets_the_same_findings(tmp_path: Any) -> None:
    cfg = guard_config("on")
    fast = make_runner(str(tmp_path / "fast"), cfg)
    slow = engine_runner(str(tmp_path / "slow"), cfg, {})
    events: list[Callable[[], Event]] = [
        lambda: prompt("Please check first. " + marker()),
        lambda: pre_tool("Bash", STATUS, tool_use_id="t1"),
        lambda: pre_tool("Bash", STATUS, tool_use_id="t1"),
        lambda: pre_tool("Edit", {"file_path": "/p/config/routing.toml", "new_string": "x"}),
        lambda: stop("All done."),
    ]
    for make in events:
        assert not skipped(str(tmp_path / "fast"), make())  # an open check: never skipped
        assert fast(make()) == slow(make())
    assert codes(fast(stop("All done."))) == ["RG-COMPLETION-AHEAD-001", "RG-EVIDENCE-OPEN-001"]


def test_the_hint_is_removed_when_a_check_opens(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    run(pre_tool("Bash", STATUS, tool_use_id="t1"))
    hint = os.path.join(state_dir, "local", "claude_guard_quiet.json")
    assert os.path.exists(hint)
    run(prompt(marker()))
    assert not os.path.exists(hint)


def test_what_makes_the_engine_run(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    run(pre_tool("Bash", STATUS, tool_use_id="t1"))
    assert skipped(state_dir, pre_tool("Bash", STATUS, tool_use_id="t1"))
    assert skipped(state_dir, post_tool("Bash", STATUS, ok=True, tool_use_id="t1"))
    assert skipped(state_dir, prompt("fix the flaky test"))
    assert skipped(state_dir, stop(""))
    assert not skipped(state_dir, pre_tool("Bash", STATUS, tool_use_id="t2"))  # new tool id
    assert not skipped(state_dir, pre_tool("Bash", {"command": "ls", "description": "List"}))
    assert not skipped(state_dir, prompt("Go. " + marker()))
    assert not skipped(state_dir, prompt("hi", raw={"reasoning_evidence_check": DIRECTIVE}))
    assert not skipped(state_dir, stop("All done."))  # a new final message
    assert not skipped(state_dir, stop("", session_id="other"))
    assert not skipped(state_dir, stop("", host="codex"))


def test_a_file_written_by_anyone_else_makes_the_engine_run(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    run(pre_tool("Bash", STATUS, tool_use_id="t1"))
    ledger = os.path.join(state_dir, "local", "claude_reasoning_guard.json")
    with open(ledger, "w", encoding="utf-8") as fh:
        fh.write("garbage")
    event = pre_tool("Bash", STATUS, tool_use_id="t1")
    assert not skipped(state_dir, event)
    assert codes(run(event)) == ["RG-STATE-RECOVERED-001"]


def test_a_damaged_hint_makes_the_engine_run(state_dir: str) -> None:
    run = make_runner(state_dir, guard_config("report"))
    run(pre_tool("Bash", STATUS, tool_use_id="t1"))
    hint = os.path.join(state_dir, "local", "claude_guard_quiet.json")
    for content in ("{bad", "[]", json.dumps({"version": 1, "session": "test-session"})):
        with open(hint, "w", encoding="utf-8") as fh:
            fh.write(content)
        assert not skipped(state_dir, pre_tool("Bash", STATUS, tool_use_id="t1"))


def claude_env(tmp_path: Any) -> tuple[dict[str, str], str]:
    projects = tmp_path / "claude" / "projects" / "-work-proj"
    projects.mkdir(parents=True)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "HOME": str(tmp_path)}
    return env, str(projects / f"{SID}.jsonl")


def append(path: str, record: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")


def said(text: str) -> dict[str, Any]:
    message = {"role": "assistant", "model": "m", "content": [{"type": "text", "text": text}]}
    return {"type": "assistant", "sessionId": SID, "message": message}


def tool_record(tool_id: str) -> dict[str, Any]:
    block = {"type": "tool_use", "id": tool_id, "name": "Bash", "input": {"command": "ls"}}
    return {"type": "assistant", "message": {"role": "assistant", "content": [block]}}


def test_an_unchanged_transcript_is_skipped_and_a_new_marker_is_not(tmp_path: Any) -> None:
    env, path = claude_env(tmp_path)
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("on"), env=env)
    append(path, said("Looking at the repository layout."))
    run(pre_tool("Bash", STATUS, tool_use_id="t1", session_id=SID, transcript_path=path))
    event = post_tool(
        "Bash", STATUS, ok=True, tool_use_id="t1", session_id=SID, transcript_path=path
    )
    assert skipped(state_dir, event, env)
    append(path, tool_record("t2"))  # the transcript grew: read it
    assert not skipped(state_dir, event, env)
    run(event)
    assert skipped(state_dir, event, env)
    append(path, said("I will confirm the adapter first.\n" + marker()))
    assert not skipped(state_dir, event, env)
    run(event)
    assert session(state_dir)["obligations"][0]["origin"] == "transcript"


# What a later decision reads from a report; everything else there is only shown.
DECIDING = ("obligations", "text_digests", "seen_tool_ids", "mitigation_declared")
INGESTION = ("initialized", "source_identity", "cursor", "anchor")


def deciding_state(state_dir: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    folder = os.path.join(state_dir, "local")
    for name in sorted(os.listdir(folder)):
        if not name.endswith("_reasoning_guard.json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            for report in json.load(fh)["sessions"]:
                ing = report["reasoning_summary_ingestion"]
                out[name + ":" + report["session"]["id"]] = {
                    **{key: report.get(key) for key in DECIDING},
                    "recovery_pending": bool(report.get("recovery_pending")),
                    **{key: ing[key] for key in INGESTION},
                }
    return out


DESCRIPTIONS = [
    "",
    "Show status and run tests",
    "The cause was the cache.",
    "Temporary mitigation: the root cause remains unresolved.",
    "I'll check whether the failure is caused by the cache",
    "plan " + marker(),
]
COMMANDS = ["ls", "adapter-status --json", "echo x >> config/settings.toml", "pytest -q"]
FINAL = [
    "",
    "All done.",
    "Stopping here.",
    "The root cause is the stale cache.",
    "Investigating why the router fallback test fails on Linux.",
    "Resolved: The selected adapter is active; evidence: adapter-status printed active; "
    "conclusion: the adapter is active.",
]
SAID = [
    "Looking around.",
    "I will confirm the adapter first.\n" + marker(),
    "Done, the adapter is fixed.",
    "Temporary mitigation; the root cause remains unknown.",
    FINAL[-1],
]


def random_event(rng: random.Random, index: int, path: str) -> Callable[[], Event]:
    """A maker (each runner gets its own copy) of one random event, timestamped."""
    sid, host = rng.choice([(SID, "claude-code")] * 8 + [("other", "claude-code"), (SID, "codex")])
    common: dict[str, Any] = {
        "session_id": sid,
        "host": host,
        "timestamp": 1000.0 + index,
        "transcript_path": path,
    }
    kind = rng.choice(["prompt", "pre", "pre", "post", "post", "edit", "stop"])
    if kind == "prompt":
        text = rng.choice(["fix the flaky test"] * 5 + ["Please check first. " + marker()])
        raw = {"reasoning_evidence_check": DIRECTIVE} if rng.random() < 0.1 else {}
        return lambda: prompt(text, raw=raw, **common)
    if kind == "stop":
        text = rng.choice(FINAL)
        return lambda: stop(text, **common)
    tool_id = rng.choice(["t1", "t1", "t2", "t3", f"fresh{index}"])
    if kind == "edit":
        target = rng.choice(["/p/config/routing.toml", "/p/src/app.py"])
        tool_input: dict[str, Any] = {"file_path": target, "new_string": "x"}
        name = "Edit"
    else:
        tool_input = {"command": rng.choice(COMMANDS)}
        description = rng.choice(DESCRIPTIONS[:2] * 4 + DESCRIPTIONS)
        if description:
            tool_input["description"] = description
        name = "Bash"
    if kind == "pre":
        return lambda: pre_tool(name, tool_input, tool_use_id=tool_id, **common)
    ok = rng.choice([True, True, False])
    output = rng.choice(['{"active": true}', '{"active": false}', "12 passed"])
    return lambda: post_tool(name, tool_input, ok=ok, output=output, tool_use_id=tool_id, **common)


def test_skipping_never_changes_a_finding_or_a_later_decision(tmp_path: Any) -> None:
    rng = random.Random(20240603)
    skips = 0
    for run_index in range(60):
        base = tmp_path / f"run{run_index}"
        base.mkdir()
        env, path = claude_env(base)
        append(path, said("Starting."))
        cfg = guard_config(rng.choice(["on", "report"]))
        fast_dir, slow_dir = str(base / "fast"), str(base / "slow")
        fast = make_runner(fast_dir, cfg, env=env)
        slow = engine_runner(slow_dir, cfg, env)
        for index in range(14):
            roll = rng.random()
            if roll < 0.15:
                append(path, said(rng.choice(SAID[:1] * 4 + SAID)))
            elif roll < 0.25:
                append(path, tool_record(f"x{index}"))
            make = random_event(rng, index, path)
            skips += skipped(fast_dir, make(), env)
            assert fast(make()) == slow(make()), (run_index, index, make())
        assert deciding_state(fast_dir) == deciding_state(slow_dir), run_index
    assert skips > 100  # the comparison is worth something only if the fast path was taken
