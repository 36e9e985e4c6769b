"""A Responses client (Codex CLI's API) on an OpenAI-chat lane and on an Anthropic lane."""

import json
from typing import Any

from agentreflex.router.responses import CUSTOM_PARAMETERS, chat_to_responses_reply
from router_world import World, events, run


def request(tag: str, **extra: Any) -> dict[str, Any]:
    return {
        "model": "gpt-5",
        "instructions": "be brief",
        "input": [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": f"[lane:{tag}] list"},
                    {"type": "input_image", "image_url": "data:image/png;base64,AA"},
                ],
            },
            {
                "type": "function_call",
                "call_id": "c1",
                "name": "shell",
                "arguments": '{"command": ["ls"]}',
            },
            {"type": "function_call_output", "call_id": "c1", "output": "a.txt"},
            {
                "type": "custom_tool_call",
                "call_id": "c2",
                "name": "apply_patch",
                "input": "*** Begin Patch",
            },
            {"type": "custom_tool_call_output", "call_id": "c2", "output": "done"},
        ],
        "tools": [
            {"type": "function", "name": "shell", "parameters": {"type": "object"}},
            {"type": "custom", "name": "apply_patch", "description": "edit files"},
            {"type": "web_search"},
        ],
        "max_output_tokens": 50,
        **extra,
    }


def test_a_responses_request_becomes_chat_and_its_reply_becomes_a_response() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["tool"]
        status, reply, _ = await w.post("/v1/responses", request("o"))
        assert status == 200, reply
        sent = w.o.requests[0]["body"]
        assert [m["role"] for m in sent["messages"]] == [
            "system",
            "user",
            "assistant",
            "tool",
            "assistant",
            "tool",
        ]
        assert sent["messages"][1]["content"][1] == {
            "type": "image_url",
            "image_url": {"url": "data:image/png;base64,AA"},
        }
        assert sent["messages"][4]["tool_calls"][0]["function"] == {
            "name": "apply_patch",
            "arguments": '{"input": "*** Begin Patch"}',
        }
        assert sent["messages"][5] == {"role": "tool", "tool_call_id": "c2", "content": "done"}
        assert [t["function"]["name"] for t in sent["tools"]] == [
            "shell",
            "apply_patch",
        ]  # web_search cannot cross
        assert sent["tools"][1]["function"]["parameters"] == CUSTOM_PARAMETERS
        assert sent["max_tokens"] == 50
        assert reply["object"] == "response" and reply["status"] == "completed"
        assert reply["output"] == [
            {
                "type": "function_call",
                "id": "fc_call_1",
                "call_id": "call_1",
                "name": "Bash",
                "arguments": '{"command": "ls -la"}',
                "status": "completed",
            }
        ]
        assert reply["usage"] == {"input_tokens": 13, "output_tokens": 5, "total_tokens": 18}

    run(check)


def test_a_responses_stream_from_a_chat_lane() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["tool"]
        status, _, raw = await w.post("/v1/responses", request("o", stream=True))
        assert status == 200
        got = events(raw)
        names = [n for n, _ in got]
        assert names[0] == "response.created" and names[-1] == "response.completed"
        assert all(n == p["type"] for n, p in got)
        assert [p["sequence_number"] for _, p in got] == list(range(1, len(got) + 1))
        text = "".join(p["delta"] for n, p in got if n == "response.output_text.delta")
        assert text == "Hello from O"
        done = [p["item"] for n, p in got if n == "response.output_item.done"]
        assert [i["type"] for i in done] == ["message", "function_call"]
        assert done[0]["content"][0]["text"] == "Hello from O"
        assert done[1]["arguments"] == '{"command": "ls -la"}'
        final = got[-1][1]["response"]
        assert final["output"] == done and final["usage"]["input_tokens"] == 13

    run(check)


def test_a_responses_client_on_an_anthropic_lane_streaming_and_not() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["tool", "tool"]
        status, reply, _ = await w.post("/v1/responses", request("a"))
        assert status == 200
        sent = w.a.requests[0]["body"]
        assert (
            sent["system"] == "be brief" and sent["model"] == "a-model" and sent["max_tokens"] == 50
        )
        assert sent["messages"][1]["content"][0] == {
            "type": "tool_use",
            "id": "c1",
            "name": "shell",
            "input": {"command": ["ls"]},
        }
        assert [i["type"] for i in reply["output"]] == ["message", "function_call"]
        assert reply["usage"]["input_tokens"] == 11
        status, _, raw = await w.post("/v1/responses", request("a", stream=True))
        got = events(raw)
        done = [p["item"] for n, p in got if n == "response.output_item.done"]
        assert done[0]["content"][0]["text"] == "Hello from A"
        assert json.loads(done[1]["arguments"]) == {"command": "ls"}
        assert got[-1][1]["response"]["usage"] == {
            "input_tokens": 21,
            "output_tokens": 9,
            "total_tokens": 30,
        }

    run(check)


def test_a_call_to_a_freeform_tool_comes_back_as_a_custom_tool_call() -> None:
    reply = {
        "id": "x",
        "choices": [
            {
                "message": {
                    "tool_calls": [
                        {
                            "id": "k",
                            "function": {
                                "name": "apply_patch",
                                "arguments": '{"input": "*** Begin Patch"}',
                            },
                        }
                    ]
                }
            }
        ],
    }
    out = chat_to_responses_reply(reply, "m", frozenset({"apply_patch"}))
    assert out["output"] == [
        {
            "type": "custom_tool_call",
            "id": "ctc_k",
            "call_id": "k",
            "name": "apply_patch",
            "input": "*** Begin Patch",
            "status": "completed",
        }
    ]
