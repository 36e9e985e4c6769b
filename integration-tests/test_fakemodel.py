"""The scripted fake model answers by conversation position, so retries are safe."""

from __future__ import annotations

from typing import Any

from hostharness.fakemodel import (
    END_OF_SCRIPT_TEXT,
    SIDE_REPLY_TEXT,
    Script,
    assistant_turns,
    bash,
    say,
    sse_events,
)

TOOLS = [{"name": "Bash"}, {"name": "Read"}]


def test_turn_follows_the_conversation() -> None:
    script = Script([bash("ls"), say("done")])
    first = {"tools": TOOLS, "messages": [{"role": "user", "content": "go"}]}
    assert script.reply_for(first) == bash("ls")
    assert script.reply_for(first) == bash("ls")  # a retry gets the same turn
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "thinking"},
        {"role": "assistant", "content": [{"type": "tool_use"}]},
        {"role": "system", "content": "note"},
        {"role": "user", "content": [{"type": "tool_result"}]},
    ]
    assert assistant_turns(messages) == 1
    assert script.reply_for({"tools": TOOLS, "messages": messages}) == say("done")
    messages += [{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}]
    assert script.reply_for({"tools": TOOLS, "messages": messages}) == say(END_OF_SCRIPT_TEXT)


def test_side_requests_do_not_advance_the_script() -> None:
    script = Script([bash("ls")])
    assert script.reply_for({"messages": [{"role": "user", "content": "title?"}]}) == say(
        SIDE_REPLY_TEXT
    )


def test_stream_carries_text_then_tool_call() -> None:
    events = list(sse_events(bash("ls", text="Checking."), "msg_1", "toolu_1"))
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-1] == "message_stop"
    starts = [
        data["content_block"]["type"] for name, data in events if name == "content_block_start"
    ]
    assert starts == ["text", "tool_use"]
    delta = next(data for name, data in events if name == "message_delta")
    assert delta["delta"]["stop_reason"] == "tool_use"
