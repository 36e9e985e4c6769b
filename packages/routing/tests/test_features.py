"""Features read from real Claude Code requests and from OpenAI-shaped bodies."""

import json
from pathlib import Path
from typing import Any

from agentreflex.routing import extract

FIXTURES = Path(__file__).parent / "fixtures"


def recorded(name: str) -> dict[str, Any]:
    body: dict[str, Any] = json.loads((FIXTURES / name).read_text())["body"]
    return body


def test_claude_codes_main_loop_is_not_a_subagent_nor_background() -> None:
    f = extract(recorded("claude_code_2.1.328_main.json"))
    assert (f.api, f.model, f.stream, f.tool_count) == ("anthropic", "claude-opus-5-5", True, 12)
    assert not f.subagent and not f.background
    assert not f.thinking  # "adaptive": the model decides; nobody asked for thinking
    assert f.session == "16c8489a-53fb-4e73-8b88-64ab6bb3608d"
    assert 5000 < f.input_tokens < 30000


def test_claude_codes_subagent_is_found_by_its_marker_in_any_system_block() -> None:
    body = recorded("claude_code_2.1.328_subagent.json")
    f = extract(body)
    assert f.subagent
    assert f.subagent_why == "system block 0 carries 'cc_is_subagent=true'"
    # the billing block moved or missing: the sub-agent prompt in a later block still counts
    body["system"] = body["system"][1:]
    f = extract(body)
    assert f.subagent and f.subagent_why.startswith("system block 1 carries 'You are an agent for")


def test_a_title_request_with_no_tools_is_background_and_with_tools_is_not() -> None:
    body = {
        "model": "claude-haiku-4-5",
        "system": [
            {"type": "text", "text": "Generate a concise, sentence-case title for this session."}
        ],
        "messages": [{"role": "user", "content": "fix the login bug"}],
    }
    f = extract(body)
    assert f.background and "Generate a concise, sentence-case title" in f.background_why
    body["tools"] = [{"name": "Bash", "input_schema": {}}]
    assert not extract(body).background
    summary = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Your task is to create a detailed summary of the conversation so far",
                    }
                ],
            }
        ]
    }
    assert extract(summary).background


def test_thinking_tags_and_openai_bodies() -> None:
    f = extract(
        {
            "model": "m",
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "messages": [{"role": "user", "content": "please [lane:large] think"}],
        }
    )
    assert f.thinking and f.tag == "large"
    chat = {
        "model": "gpt",
        "reasoning_effort": "high",
        "messages": [
            {"role": "system", "content": "x"},
            {"role": "user", "content": "hi [lane:fast]"},
        ],
        "tools": [{"type": "function", "function": {"name": "sh"}}],
        "user": "sess-1",
    }
    f = extract(chat, "openai-chat")
    assert (f.api, f.thinking, f.tag, f.tool_count, f.session) == (
        "openai-chat",
        True,
        "fast",
        1,
        "sess-1",
    )
    responses = {
        "model": "gpt",
        "input": "summarize this conversation briefly",
        "instructions": "be short",
    }
    f = extract(responses, "openai-responses")
    assert f.background and f.tool_count == 0
    assert (
        extract({"reasoning": {"effort": "minimal"}, "input": []}, "openai-responses").thinking
        is False
    )


def test_malformed_bodies_give_empty_features_not_errors() -> None:
    for body in (
        {},
        {"messages": "x", "system": 5, "tools": "no", "model": 3},
        {"messages": [None, 1, {"role": "user", "content": 7}], "tools": [1, {"name": 2}]},
        {"metadata": {"user_id": "{not json"}},
        {"metadata": {"user_id": "plain"}},
    ):
        f = extract(body)
        assert f.model == "" or isinstance(f.model, str)
        assert f.tool_count == 0 and not f.subagent
    assert extract({"metadata": {"user_id": "{not json"}}).session == "{not json"
    assert extract({}, headers={"x-claude-code-session-id": "abc"}).session == "abc"


def test_claude_codes_compaction_request_is_background_although_it_offers_tools() -> None:
    f = extract(recorded("claude_code_2.1.328_compact.json"))
    assert f.tool_count == 12 and not f.subagent
    assert f.background
    assert f.background_why == (
        "the last user message asks for a summary of the conversation and forbids tools"
    )
    # asking for a summary while tools are allowed is ordinary work
    body = recorded("claude_code_2.1.328_compact.json")
    body["messages"][-1]["content"] = "Write a summary of the conversation into NOTES.md"
    assert not extract(body).background
