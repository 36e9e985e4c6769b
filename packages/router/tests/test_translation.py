"""Anthropic clients on an OpenAI-chat lane and OpenAI clients on an Anthropic lane."""

from router_world import World, events, run


def background(**extra: object) -> dict[str, object]:
    return {
        "model": "claude-haiku-4-5",
        "max_tokens": 200000,
        "system": [{"type": "text", "text": "Generate a concise title for this coding session."}],
        "messages": [{"role": "user", "content": "fix the login bug"}],
        **extra,
    }


def test_a_background_request_goes_to_the_openai_lane_as_chat_and_streams_back_as_anthropic() -> (
    None
):
    async def check(w: World) -> None:
        status, _, raw = await w.post("/v1/messages", background(stream=True))
        assert status == 200
        sent = w.o.requests[0]["body"]
        assert (
            sent["model"] == "o-model"
            and sent["max_tokens"] == 4096
            and sent["reasoning_effort"] == "low"
        )
        assert sent["messages"][0] == {
            "role": "system",
            "content": "Generate a concise title for this coding session.",
        }
        assert sent["stream_options"] == {"include_usage": True}
        got = events(raw)
        names = [n for n, _ in got]
        assert names == [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
        text = "".join(p["delta"]["text"] for n, p in got if n == "content_block_delta")
        assert text == "Hello from O"
        assert got[5][1]["delta"]["stop_reason"] == "end_turn"
        assert got[5][1]["usage"]["output_tokens"] == 5
        last = (await w.get("/status"))["recent"][0]
        assert last["lane"] == "o" and last["reason"].startswith(
            "rule 'background': no tools offered"
        )

    run(check)


def test_tools_and_tool_results_survive_translation_both_ways() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["tool", "tool"]
        body = background(
            system="You are helpful. [lane:o]",
            tools=[{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}],
            tool_choice={"type": "any"},
            messages=[
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "list"},
                        {
                            "type": "image",
                            "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"},
                        },
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "hm"},
                        {"type": "text", "text": "ok"},
                        {
                            "type": "tool_use",
                            "id": "toolu_9",
                            "name": "Bash",
                            "input": {"command": "pwd"},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "toolu_9",
                            "content": [{"type": "text", "text": "/tmp"}],
                            "is_error": True,
                        }
                    ],
                },
            ],
        )
        status, reply, _ = await w.post("/v1/messages", body)
        assert status == 200
        sent = w.o.requests[0]["body"]
        assert sent["tools"] == [
            {
                "type": "function",
                "function": {
                    "name": "Bash",
                    "parameters": {"type": "object"},
                    "description": "run",
                },
            }
        ]
        assert sent["tool_choice"] == "required"
        assert sent["messages"][1]["content"][1] == {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64,AAAA"},
        }
        assert sent["messages"][2]["tool_calls"][0]["function"] == {
            "name": "Bash",
            "arguments": '{"command": "pwd"}',
        }
        assert sent["messages"][3] == {
            "role": "tool",
            "tool_call_id": "toolu_9",
            "content": "Error: /tmp",
        }
        assert reply["stop_reason"] == "tool_use"
        assert reply["content"] == [
            {"type": "tool_use", "id": "call_1", "name": "Bash", "input": {"command": "ls -la"}}
        ]
        assert reply["usage"] == {"input_tokens": 13, "output_tokens": 5}
        status, _, raw = await w.post("/v1/messages", {**body, "stream": True})
        got = events(raw)
        start = [p for n, p in got if n == "content_block_start"]
        assert start[-1]["content_block"] == {
            "type": "tool_use",
            "id": "call_1",
            "name": "Bash",
            "input": {},
        }
        partial = "".join(
            p["delta"].get("partial_json", "") for n, p in got if n == "content_block_delta"
        )
        assert partial == '{"command": "ls -la"}'
        assert next(p for n, p in got if n == "message_delta")["delta"]["stop_reason"] == "tool_use"

    run(check)


def test_an_openai_client_on_the_anthropic_lane() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["tool", "tool"]
        body = {
            "model": "gpt-4",
            "messages": [
                {"role": "system", "content": "be brief"},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "hi"},
                        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "Bash", "arguments": '{"command":"ls"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                {"role": "tool", "tool_call_id": "c2", "content": "b.txt"},
            ],
            "tools": [
                {"type": "function", "function": {"name": "Bash", "parameters": {"type": "object"}}}
            ],
            "stop": "END",
        }
        status, reply, _ = await w.post("/v1/chat/completions", body)
        assert status == 200
        sent = w.a.requests[0]["body"]
        assert (
            sent["system"] == "be brief"
            and sent["max_tokens"] == 8192
            and sent["stop_sequences"] == ["END"]
        )
        assert sent["messages"][0]["content"][1] == {
            "type": "image",
            "source": {"type": "url", "url": "https://x/y.png"},
        }
        assert sent["messages"][1]["content"][0]["input"] == {"command": "ls"}
        assert [b["tool_use_id"] for b in sent["messages"][2]["content"]] == [
            "c1",
            "c2",
        ]  # merged: one user turn
        assert reply["choices"][0]["finish_reason"] == "tool_calls"
        assert reply["choices"][0]["message"]["tool_calls"][0]["function"] == {
            "name": "Bash",
            "arguments": '{"command": "ls"}',
        }
        assert reply["usage"]["total_tokens"] == 18
        status, _, raw = await w.post("/v1/chat/completions", {**body, "stream": True})
        got = events(raw)
        assert got[-1] == ("", "[DONE]")
        chunks = [p for _, p in got[:-1]]
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        assert text == "Hello from A"
        args = "".join(
            tc["function"].get("arguments", "")
            for c in chunks
            if c["choices"]
            for tc in c["choices"][0]["delta"].get("tool_calls", [])
        )
        assert args == '{"command": "ls"}'
        assert chunks[-1]["usage"] == {
            "prompt_tokens": 21,
            "completion_tokens": 9,
            "total_tokens": 30,
        }

    run(check)
