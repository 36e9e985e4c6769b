"""Anthropic in, Anthropic lane: events pass through unchanged; keys, models, status."""

import json

from router_world import KEYS, World, message, run


def test_a_stream_passes_through_event_by_event_with_the_lanes_key_and_model() -> None:
    async def check(w: World) -> None:
        status, _, raw = await w.post(
            "/v1/messages?beta=true",
            message(stream=True),
            **{"x-api-key": "client-key", "anthropic-beta": "b1"},
        )
        assert status == 200
        assert raw == b"".join(w.a.anthropic_events("ok"))  # byte for byte
        sent = w.a.requests[0]
        assert sent["path"] == "/v1/messages?beta=true"
        assert sent["headers"]["x-api-key"] == KEYS["A_KEY"]  # the lane's key, not the client's
        assert sent["headers"]["anthropic-beta"] == "b1"
        assert sent["body"]["model"] == "a-model"
        state = await w.get("/status")
        last = state["recent"][0]
        assert (last["lane"], last["served_by"], last["status"]) == ("a", "a", 200)
        assert last["reason"] == "no rule matched: default lane"
        assert "MATCH default: no rule matched; default lane 'a'" in last["considered"]
        assert (last["input_tokens"], last["output_tokens"]) == (21, 9)
        assert last["ttfb_ms"] is not None and last["latency_ms"] >= last["ttfb_ms"]
        assert state["lanes"]["a"]["requests"] == 1
        assert state["lanes"]["a"]["cost_usd"] == 21.0  # 21 tokens at $1M per million
        assert KEYS["A_KEY"] not in json.dumps(state)

    run(check)


def test_a_whole_reply_and_the_client_key_when_the_lane_names_none() -> None:
    async def check(w: World) -> None:
        status, reply, _ = await w.post("/v1/messages", message(), **{"x-api-key": "client-key"})
        assert status == 200 and reply["content"][0]["text"] == "Hello from A"
        assert w.a.requests[0]["headers"]["x-api-key"] == KEYS["A_KEY"]

    run(check)

    async def no_key(w: World) -> None:
        status, reply, _ = await w.post("/v1/messages", message(), **{"x-api-key": "client-key"})
        # lane a's key variable is unset: a is unusable, o takes it (translated)
        assert status == 200 and reply["content"][0]["text"] == "Hello from O"
        state = await w.get("/status")
        assert state["recent"][0]["attempts"] == ["a: the key variable A_KEY is not set"]

    run(no_key, env={"O_KEY": "k"})


def test_upstream_connections_are_kept_alive_and_reused() -> None:
    async def check(w: World) -> None:
        for _ in range(3):
            await w.post("/v1/messages", message())
        assert len(w.a.ports) == 3 and len(set(w.a.ports)) == 1

    run(check)


def test_models_count_tokens_and_status_endpoints() -> None:
    async def check(w: World) -> None:
        models = await w.get("/v1/models")
        assert [m["id"] for m in models["data"]] == ["a-model", "o-model", "r-model"]
        status, counted, _ = await w.post("/v1/messages/count_tokens", message("x" * 400))
        assert status == 200 and 100 <= counted["input_tokens"] <= 110
        assert w.a.requests == []  # counting never spends a request

    run(check)


def test_an_upstream_client_error_is_passed_on_not_retried() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["400"]
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 400 and reply == {"error": {"message": "scripted 400"}}
        assert w.o.requests == []

    run(check)


def test_responses_endpoint_streams_to_a_responses_lane() -> None:
    async def check(w: World) -> None:
        body = {"model": "gpt", "input": "hi", "stream": True}
        status, _, raw = await w.post("/v1/responses", body)
        assert status == 200 and raw == b"".join(w.r.events("ok"))
        assert w.r.requests[0]["body"]["model"] == "r-model"
        assert w.r.requests[0]["headers"]["Authorization"] == f"Bearer {KEYS['O_KEY']}"
        status, reply, _ = await w.post("/v1/responses", {"model": "gpt", "input": "hi"})
        assert status == 200 and reply["usage"] == {"input_tokens": 3, "output_tokens": 4}
        state = await w.get("/status")
        assert state["lanes"]["r"]["input_tokens"] == 6

    run(check)


def test_an_upstream_echoing_the_lanes_key_does_not_hand_it_to_the_client() -> None:
    async def check(w: World) -> None:
        for path, body in (
            ("/v1/messages", message()),
            ("/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}]}),
        ):
            w.a.plan = ["echo-key"]
            status, _reply, raw = await w.post(path, body)
            assert status == 401
            assert KEYS["A_KEY"].encode() not in raw and b"[REDACTED]" in raw, raw

    run(check)


def test_an_error_event_echoing_the_lanes_key_mid_stream_does_not_hand_it_to_the_client() -> None:
    """The streaming path scrubs what the whole-reply path scrubs: passed through
    (each API to its own lane) or translated (a chat client on the Anthropic lane)."""

    async def check(w: World) -> None:
        chat = {"messages": [{"role": "user", "content": "hi"}], "stream": True}
        chat_o = {"messages": [{"role": "user", "content": "hi [lane:o]"}], "stream": True}
        for path, body, upstream, key, passed_on in (
            ("/v1/messages", message(stream=True), w.a, "A_KEY", True),
            ("/v1/chat/completions", chat_o, w.o, "O_KEY", True),
            ("/v1/responses", {"model": "gpt", "input": "hi", "stream": True}, w.r, "O_KEY", True),
            # translated: the error comes before the first byte, so the next lane answers
            ("/v1/chat/completions", chat, w.a, "A_KEY", False),
        ):
            upstream.plan = ["echo-key-stream"]
            status, _reply, raw = await w.post(path, body)
            assert status == 200, raw
            assert KEYS[key].encode() not in raw, (path, raw)
            assert (b"[REDACTED]" in raw) == passed_on, (path, raw)
            assert KEYS[key] not in json.dumps(await w.get("/status"))

    run(check)
