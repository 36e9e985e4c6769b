"""Upstream failures: fall back before the first byte, end the stream cleanly after it."""

import asyncio
import json

from router_world import World, events, message, run


async def last(w: World) -> dict[str, object]:
    state = await w.get("/status")
    record: dict[str, object] = state["recent"][0]
    return record


def test_a_529_falls_back_to_the_next_lane_and_status_says_so() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["529"]
        status, _, raw = await w.post("/v1/messages", message(stream=True))
        assert status == 200
        assert (
            "".join(p["delta"]["text"] for n, p in events(raw) if n == "content_block_delta")
            == "Hello from O"
        )
        record = await last(w)
        assert record["attempts"] == ["a: HTTP 529"] and record["served_by"] == "o"
        assert (await w.get("/status"))["lanes"]["a"]["failures"] == 1

    run(check)


def test_429_and_5xx_fall_back_too_for_whole_replies() -> None:
    async def check(w: World) -> None:
        for code in ("429", "500", "503"):
            w.a.plan = [code]
            status, reply, _ = await w.post("/v1/messages", message())
            assert status == 200 and reply["content"][0]["text"] == "Hello from O", code

    run(check)


def test_a_stall_before_the_first_byte_falls_back() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["stall"]
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 200 and reply["content"][0]["text"] == "Hello from O"
        assert (await last(w))["attempts"] == ["a: timed out before answering"]

    run(check, timeout=0.3)


def test_garbage_before_the_first_byte_falls_back() -> None:
    async def check(w: World) -> None:
        w.a.plan = ["garbage", "garbage"]
        status, _, raw = await w.post("/v1/messages", message(stream=True))
        assert status == 200 and events(raw)[-1][0] == "message_stop"
        assert (await last(w))["attempts"] == [
            "a: not an event-stream line: 'this is not an event stream'"
        ]
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 200 and reply["content"][0]["text"] == "Hello from O"
        assert (await last(w))["attempts"] == ["a: unusable reply: JSONDecodeError"]

    run(check)


def test_after_the_first_byte_a_broken_stream_ends_with_the_apis_error_event() -> None:
    async def check(w: World) -> None:
        for step, why in (
            ("cut", "disconnected mid-stream"),
            ("garbage_mid", "invalid JSON"),
            ("stall_mid", "stalled for 0.3 s"),
            ("short", "closed the stream before its end"),
        ):
            w.a.plan = [step]
            status, _, raw = await w.post("/v1/messages", message(stream=True))
            assert status == 200, step
            got = events(raw)
            assert [n for n, _ in got] == ["message_start", "content_block_start", "error"], step
            assert got[-1][1]["type"] == "error" and got[-1][1]["error"]["type"] == "api_error"
            assert why in got[-1][1]["error"]["message"], (step, got[-1])
            record = await last(w)
            assert why in str(record["error"]) and record["served_by"] == "a"
            assert w.o.requests == []  # no fallback after the first byte
        # the router is fine afterwards
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 200 and reply["content"][0]["text"] == "Hello from A"

    run(check, timeout=0.3)


def test_an_openai_stream_broken_midway_ends_with_an_openai_error() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["cut"]
        status, _, raw = await w.post(
            "/v1/chat/completions",
            {
                "model": "x",
                "messages": [{"role": "user", "content": "hi [lane:o]"}],
                "stream": True,
            },
        )
        assert status == 200
        got = events(raw)
        assert "error" in got[-1][1] and "disconnected mid-stream" in got[-1][1]["error"]["message"]

    run(check)


def test_when_every_lane_fails_the_client_gets_a_502_in_its_shape() -> None:
    async def check(w: World) -> None:
        w.a.plan, w.o.plan = ["529"], ["500"]
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 502
        assert reply["type"] == "error" and reply["error"]["type"] == "api_error"
        assert "every lane failed; last: o: HTTP 500" in reply["error"]["message"]
        record = await last(w)
        assert record["attempts"] == ["a: HTTP 529", "o: HTTP 500"]

    run(check)


def test_repeated_failures_in_a_session_are_counted_for_the_ladder() -> None:
    async def check(w: World) -> None:
        w.a.plan, w.o.plan = ["529", "529"], ["500", "500"]
        body = message(metadata={"user_id": '{"session_id": "s-1"}'})
        for _ in range(2):
            assert (await w.post("/v1/messages", body))[0] == 502
        status, reply, _ = await w.post("/v1/messages", body)
        assert status == 200 and reply["content"][0]["text"] == "Hello from O"
        record = await last(w)
        assert record["lane"] == "o" and "ladder: 2 failures in this session: 'a' -> 'o'" in str(
            record["reason"]
        )
        assert record["attempts"] == []
        # another session is not affected
        status, reply, _ = await w.post(
            "/v1/messages", message(metadata={"user_id": '{"session_id": "s-2"}'})
        )
        assert reply["content"][0]["text"] == "Hello from A"

    run(check)


def test_a_dead_upstream_falls_back() -> None:
    async def check(w: World) -> None:
        await w.a.server.close()
        status, reply, _ = await w.post("/v1/messages", message())
        assert status == 200 and reply["content"][0]["text"] == "Hello from O"
        assert str((await last(w))["attempts"][0]).startswith("a: connection failed")

    run(check)


def test_malformed_requests_get_each_apis_own_error_shape() -> None:
    async def check(w: World) -> None:
        status, reply, _ = await w.post("/v1/messages", b"{not json")
        assert status == 400 and reply["type"] == "error"
        assert reply["error"]["type"] == "invalid_request_error"
        status, reply, _ = await w.post("/v1/messages", b"\xff\xfe")
        assert status == 400 and reply["type"] == "error"
        status, reply, _ = await w.post("/v1/messages", [1, 2])
        assert status == 400 and "JSON object" in reply["error"]["message"]
        status, reply, _ = await w.post("/v1/messages", {"model": "x"})
        assert status == 400 and "messages" in reply["error"]["message"]
        status, reply, _ = await w.post("/v1/chat/completions", b"nope")
        assert (
            status == 400
            and set(reply) == {"error"}
            and reply["error"]["type"] == "invalid_request_error"
        )
        status, reply, _ = await w.post("/v1/responses", {"input": 5})
        assert status == 400 and "error" in reply
        status, reply, _ = await w.post("/v1/messages/count_tokens", b"[")
        assert status == 400 and reply["type"] == "error"
        assert w.a.requests == [] and w.o.requests == []

    run(check)


def test_a_chat_stream_ending_with_finish_reason_but_no_done_is_complete() -> None:
    async def check(w: World) -> None:
        w.o.plan = ["nodone", "nodone"]
        status, _, raw = await w.post("/v1/messages", message("[lane:o] hi", stream=True))
        got = events(raw)
        assert status == 200 and [n for n, _ in got][-2:] == ["message_delta", "message_stop"]
        chat = {"model": "x", "messages": [{"role": "user", "content": "[lane:o]"}], "stream": True}
        status, _, raw = await w.post("/v1/chat/completions", chat)
        assert status == 200 and events(raw)[-1] == ("", "[DONE]")
        assert (await last(w))["error"] is None

    run(check)


def test_a_client_that_goes_away_mid_stream_is_not_blamed_on_the_lane() -> None:
    async def check(w: World) -> None:
        body = message(stream=True, metadata={"user_id": '{"session_id": "gone"}'})
        for _ in range(2):  # twice: the ladder would climb after two failures
            w.a.plan = ["big:30000000"]
            response = await w.client.post(w.url + "/v1/messages", json=body)
            assert response.status == 200
            await response.content.readany()
            response.close()  # the client hangs up after the first bytes
            for _ in range(100):
                record = await last(w)
                if record["status"]:
                    break
                await asyncio.sleep(0.05)
            assert (record["status"], record["error"]) == (499, "client disconnected")
        state = await w.get("/status")
        assert state["lanes"]["a"]["failures"] == 0
        # the session's failure count is untouched: its next request is not escalated
        status, _, _ = await w.post("/v1/messages", message(metadata=body["metadata"]))
        assert status == 200 and (await last(w))["lane"] == "a"

    run(check)


# GitHub's token shape (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats)
_TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


def test_a_broken_streams_reason_never_keeps_a_secret_or_its_head() -> None:
    """An upstream event that is not JSON was named by its first 80 characters, never
    redacted, in the error event sent to the client, the status and the log: a secret in
    it was kept whole, or by its head where the cut divided it."""

    async def check(w: World) -> None:
        for pad in (0, 50, 60):
            w.a.plan = [f"secret_mid:{'p' * pad} token={_TOKEN}"]
            status, _, raw = await w.post("/v1/messages", message(stream=True))
            assert status == 200
            got = events(raw)
            assert got[-1][0] == "error" and "invalid JSON" in got[-1][1]["error"]["message"]
            record = await last(w)
            shown = json.dumps(got) + json.dumps(record)
            assert "ghp_" not in shown, (pad, shown)

    run(check, timeout=0.3)
