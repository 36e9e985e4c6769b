"""Upstream JSON of the wrong shape: translation never crashes the router.

The property tests feed arbitrary JSON to every translator and require that it
either succeeds or raises one of ``MALFORMED`` (which the router turns into a
fallback before the first byte, or the API's error event after it). The router
test sends such an event through a real stream.
"""

import contextlib
from typing import Any

from agentreflex.router import responses, translate
from agentreflex.router.app import MALFORMED
from hypothesis import given, settings
from hypothesis import strategies as st
from router_world import World, events, message, run

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(
    [
        "choices",
        "delta",
        "message",
        "content",
        "tool_calls",
        "function",
        "arguments",
        "usage",
        "prompt_tokens",
        "completion_tokens",
        "type",
        "index",
        "content_block",
        "text",
        "partial_json",
        "input_tokens",
        "output_tokens",
        "finish_reason",
        "stop_reason",
        "messages",
        "tools",
        "system",
        "role",
        "tool_use_id",
        "source",
        "image_url",
        "input_schema",
        "tool_choice",
        "max_tokens",
        "input",
        "instructions",
        "call_id",
        "name",
        "output",
        "max_output_tokens",
    ]
)
SHAPED = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=25,
)
BODIES = st.dictionaries(KEYS, SHAPED, max_size=6) | st.dictionaries(
    st.text(max_size=5), JSON, max_size=3
)


def survives(call: Any) -> None:
    with contextlib.suppress(MALFORMED):
        call()


@settings(max_examples=300, deadline=None)
@given(BODIES)
def test_every_translator_survives_any_json_object(body: dict[str, Any]) -> None:
    survives(lambda: translate.anthropic_to_chat(body, "m", 100))
    survives(lambda: translate.chat_to_anthropic(body, "m", 100))
    survives(lambda: translate.chat_to_anthropic_message(body, "m"))
    survives(lambda: translate.anthropic_to_chat_reply(body, "m"))
    to_anthropic = translate.ChatToAnthropicStream("m")
    survives(lambda: to_anthropic.feed(body))
    survives(to_anthropic.finish)
    survives(lambda: responses.responses_to_chat(body, "m", 100))
    survives(lambda: responses.chat_to_responses_reply(body, "m", frozenset({"x"})))
    to_responses = responses.ChatToResponsesStream("m", frozenset({"x"}))
    survives(lambda: to_responses.feed(body))
    survives(to_responses.finish)
    to_chat = translate.AnthropicToChatStream("m")
    for name in ("message_start", "content_block_start", "content_block_delta", "message_delta"):
        survives(lambda name=name: to_chat.feed(name, body))


def test_a_malformed_chunk_mid_translation_ends_the_stream_with_an_error_event() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["malformed"]
        status, _, raw = await w.post("/v1/messages", message("[lane:o] hi", stream=True))
        assert status == 200
        got = events(raw)
        assert got[0][0] == "message_start" and got[-1][0] == "error"
        assert "malformed upstream event" in got[-1][1]["error"]["message"]
        state = await w.get("/status")
        assert "malformed upstream event" in state["recent"][0]["error"]

    run(check)
