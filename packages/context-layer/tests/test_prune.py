"""Pruning pi / omp context: superseded outputs become stubs, the last turn is never touched."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

from agentreflex.context_layer.prune import handle_context_event, prune_messages


def call(cid: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "toolCall", "id": cid, "name": name, "arguments": arguments}],
    }


def result(cid: str, name: str, text: str, error: bool = False) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": cid,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": error,
        "timestamp": 1,
    }


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text, "timestamp": 0}


BIG = "x = 1\n" * 2000


def session() -> list[dict[str, Any]]:
    return [
        user("fix the parser"),
        call("c1", "read", path="src/parser.py"),
        result("c1", "read", BIG),
        call("c2", "bash", command="pytest  -q"),
        result("c2", "bash", "F" * 5000, error=True),
        call("c3", "edit", path="src/parser.py", oldText="a", newText="b"),
        result("c3", "edit", "ok"),
        call("c4", "read", path="src/parser.py"),
        result("c4", "read", BIG + "y = 2\n"),
        call("c5", "bash", command="pytest -q"),
        result("c5", "bash", "1 passed"),
        user("now the docs"),
        call("c6", "read", path="README.md"),
        result("c6", "read", BIG),
        call("c7", "read", path="README.md"),
        result("c7", "read", BIG),
    ]


def texts(messages: list[Any]) -> dict[str, str]:
    return {m["toolCallId"]: m["content"][0]["text"] for m in messages if m["role"] == "toolResult"}


def test_superseded_reads_and_runs_become_stubs_naming_the_replacement() -> None:
    before = session()
    frozen = copy.deepcopy(before)
    after, report = prune_messages(before)
    assert before == frozen  # pure: the input is untouched
    got = texts(after)
    assert report.stubbed == ["c1", "c2"]
    assert "later read of src/parser.py (tool call c4)" in got["c1"]
    assert "later run of `pytest -q` (tool call c5)" in got["c2"]
    assert got["c4"].endswith("y = 2\n") and got["c5"] == "1 passed" and got["c3"] == "ok"
    assert report.tokens_before - report.tokens_after > 4000  # BIG and the failing run
    stub = next(m for m in after if m.get("toolCallId") == "c2")
    assert stub["isError"] is True and stub["toolName"] == "bash"  # shape kept


def test_the_last_turn_is_never_touched() -> None:
    after, _ = prune_messages(session())
    got = texts(after)
    assert got["c6"] == BIG and got["c7"] == BIG  # c6 is superseded, but in the last turn


def test_within_budget_nothing_or_only_the_oldest_goes() -> None:
    _, report = prune_messages(session(), budget_tokens=10**6)
    assert report.stubbed == []
    full = prune_messages(session())[1]
    _, report = prune_messages(session(), budget_tokens=full.tokens_before - 100)
    assert report.stubbed == ["c1"]


def test_slices_and_unknown_calls_are_left_alone() -> None:
    msgs = [
        user("go"),
        call("a", "read", path="f", offset=1, limit=10),
        result("a", "read", BIG),
        call("b", "read", path="f", offset=1, limit=10),
        result("b", "read", BIG),
        result("orphan", "read", BIG),
        {"role": "custom", "content": "hi"},
        "junk",
        user("next"),
    ]
    after, report = prune_messages(msgs)
    assert report.stubbed == [] and after == msgs


def test_malformed_events_give_an_empty_answer() -> None:
    assert handle_context_event(None) == {}
    assert handle_context_event({"messages": "nope"}) == {}
    assert handle_context_event({"type": "context", "messages": []}) == {}
    assert set(handle_context_event({"type": "context", "messages": session()})) == {"messages"}


def test_the_command_reads_an_event_and_prints_the_result() -> None:
    event = json.dumps({"type": "context", "messages": session()})
    done = subprocess.run(
        [sys.executable, "-m", "agentreflex.context_layer.cli", "prune"],
        input=event,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "superseded" in json.dumps(json.loads(done.stdout))
    bad = subprocess.run(
        [sys.executable, "-m", "agentreflex.context_layer.cli", "prune"],
        input="{not json",
        capture_output=True,
        text=True,
        check=True,
    )
    assert bad.stdout.strip() == "{}" and "nothing pruned" in bad.stderr


# GitHub's token shape (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats)
_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


def test_a_stub_never_keeps_a_secret_of_the_command_or_its_head() -> None:
    """The stub named the command cut to 200 characters, unredacted: a token the cut
    divided kept its head (``ghp_`` and four), which no rule recognises afterwards."""
    for pad in (0, 186):
        command = "echo " + "a" * pad + " " + _TOKEN + " > /dev/null"
        messages = [
            user("go"),
            call("c1", "bash", command=command),
            result("c1", "bash", "F" * 5000),
            call("c2", "bash", command=command),
            result("c2", "bash", "ok"),
            user("next"),
        ]
        stub = texts(prune_messages(messages)[0])["c1"]
        assert "superseded" in stub
        assert "ghp_" not in stub and _TOKEN[6:14] not in stub, stub
