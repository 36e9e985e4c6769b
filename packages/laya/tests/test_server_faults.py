"""Faults over raw sockets: slow bodies, vanished clients, a burst over the limit.

The point of each test is twofold: the faulty client gets the right status,
and the server keeps its admission count honest and keeps answering others.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import httpx
import pytest

BODY = json.dumps(
    {
        "state": "PROPOSED ACTION: Bash (shell): ls",
        "questions": {"q": {"type": "noul", "instructions": "Is it destructive?"}},
    }
).encode()


def partial_request(port: int, send: bytes = BODY[:10], length: int = len(BODY)) -> socket.socket:
    """A connection that sent its headers and only part of its body."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    head = (
        "POST /v1/systemone HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    )
    sock.sendall(head.encode() + send)
    return sock


def read_status(sock: socket.socket) -> int:
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data else 0


def wait_for(predicate: Any, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def in_flight(base: str) -> int:
    return int(httpx.get(base + "/healthz").json()["in_flight"])


def ok(base: str) -> bool:
    resp = httpx.post(
        base + "/v1/systemone", content=BODY, headers={"Content-Type": "application/json"}
    )
    return resp.status_code == 200


def test_slow_body_gets_408_and_frees_its_slot(serve: Any) -> None:
    srv = serve(body_timeout_s=0.3)
    sock = partial_request(srv.port)
    try:
        assert ok(srv.base_url)  # others are served while the slow one dawdles
        assert read_status(sock) == 408
    finally:
        sock.close()
    assert wait_for(lambda: in_flight(srv.base_url) == 0)


def test_client_that_disconnects_mid_body_leaks_nothing(serve: Any) -> None:
    srv = serve(body_timeout_s=5.0)
    socks = [partial_request(srv.port) for _ in range(5)]
    assert wait_for(lambda: in_flight(srv.base_url) == 5)
    for sock in socks:
        sock.close()
    assert wait_for(lambda: in_flight(srv.base_url) == 0)
    assert ok(srv.base_url)


def test_client_that_disconnects_after_sending_everything(serve: Any) -> None:
    srv = serve()
    for _ in range(5):
        sock = partial_request(srv.port, send=BODY)
        sock.close()
    assert wait_for(lambda: in_flight(srv.base_url) == 0)
    assert ok(srv.base_url)


@pytest.mark.parametrize("status", [429, 503])
def test_burst_over_the_limit_is_refused_with_retry_after(serve: Any, status: int) -> None:
    srv = serve(max_concurrent=2, overload_status=status, body_timeout_s=5.0)
    held = [partial_request(srv.port) for _ in range(2)]
    try:
        assert wait_for(lambda: in_flight(srv.base_url) == 2)
        resp = httpx.post(
            srv.base_url + "/v1/systemone",
            content=BODY,
            headers={"Content-Type": "application/json"},
        )
        assert resp.status_code == status
        assert resp.headers["Retry-After"] == "1"
        assert resp.json()["error"]["code"] == "overloaded"
        assert httpx.get(srv.base_url + "/healthz").status_code == 200  # health is never refused
    finally:
        for sock in held:
            sock.close()
    assert wait_for(lambda: in_flight(srv.base_url) == 0)
    assert ok(srv.base_url)


def test_many_concurrent_clients_all_answered(serve: Any) -> None:
    import concurrent.futures

    srv = serve(max_concurrent=64)
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda _: ok(srv.base_url), range(200)))
    assert all(results)
    assert httpx.get(srv.base_url + "/healthz").json()["served"] == 200
