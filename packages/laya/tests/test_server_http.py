"""The wire contract and every error status, against a real server over real HTTP."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from agentreflex.core.systemone.wire import parse_response
from agentreflex.laya.server import BindRefused, check_bind, is_loopback_host

URL = "/v1/systemone"


def noul_q(text: str = "Is it destructive?") -> dict[str, Any]:
    return {"type": "noul", "instructions": text, "criteria": {"true": "yes", "false": "no"}}


def body(state: str = "GOAL: fix the build", **questions: Any) -> dict[str, Any]:
    return {"model": "jev-latest", "state": state, "questions": questions or {"q": noul_q()}}


def post(base: str, data: Any, path: str = URL, **kw: Any) -> httpx.Response:
    return httpx.post(base + path, json=data, timeout=10, **kw)


def test_answers_every_question_under_the_callers_ids(serve: Any) -> None:
    srv = serve()
    questions = {
        "destructive_irreversible": noul_q(),
        "pick": {
            "type": "choice",
            "instructions": "Which?",
            "criteria": {"a": "A", "b": "B", "c": "C"},
        },
        "rate": {"type": "score", "instructions": "How good?", "criteria": ["bad", "ok", "good"]},
    }
    state = "GOAL: clean up\nPROPOSED ACTION: Bash (shell): rm -rf build/ ~/"
    resp = post(srv.base_url, body(state, **questions))
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("application/json")
    data = resp.json()
    assert data["model"] == "laya-builtin-1"  # the alias jev-latest resolved
    parsed = parse_response(data, questions)  # the client's own strict reading accepts it
    assert parsed.answers["destructive_irreversible"].noul > 0.9  # type: ignore[union-attr]
    assert set(data["answers"]["pick"]["probabilities"]) == {"a", "b", "c"}
    assert data["answers"]["rate"]["score"] == 1.0
    assert data["usage"]["input_tokens"] > 0


def test_batch_answers_each_state_in_order(serve: Any) -> None:
    srv = serve()
    states = [
        "PROPOSED ACTION: Bash (shell): ls",
        "PROPOSED ACTION: Bash (shell): git reset --hard",
    ]
    resp = post(
        srv.base_url,
        {"states": states, "questions": {"destructive_irreversible": noul_q()}},
        "/v1/systemone/batch",
    )
    assert resp.status_code == 200
    results = resp.json()["results"]
    assert [r["answers"]["destructive_irreversible"]["noul"] for r in results] == [0.05, 0.92]
    assert resp.json()["total_usage"]["input_tokens"] == sum(
        r["usage"]["input_tokens"] for r in results
    )


def test_models_and_healthz(serve: Any) -> None:
    srv = serve()
    models = httpx.get(srv.base_url + "/v1/models").json()
    assert models["data"][0]["id"] == "laya-builtin-1"
    assert "jev-latest" in models["data"][0]["aliases"]
    health = httpx.get(srv.base_url + "/healthz").json()
    assert health["status"] == "ok" and health["engine"] == "builtin"


def test_unknown_model_is_404_naming_what_exists(serve: Any) -> None:
    srv = serve()
    resp = post(srv.base_url, {**body(), "model": "gpt-9"})
    assert resp.status_code == 404
    assert "laya-builtin-1" in resp.json()["error"]["message"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"state": "x", "questions": {}}, "questions"),
        ({"questions": {"q": noul_q()}}, "state"),
        ({"state": 3, "questions": {"q": noul_q()}}, "state"),
        ({**body(), "temperature": 0.2}, "temperature"),
        (body(q={"type": "noul", "instructions": "  "}), "questions.q.instructions"),
        (body(q={"type": "maybe", "instructions": "x"}), "questions.q"),
        (
            body(q={"type": "score", "instructions": "x", "criteria": ["only"]}),
            "questions.q.criteria",
        ),
        (
            body(q={"type": "score", "instructions": "x", "criteria": [str(i) for i in range(11)]}),
            "questions.q.criteria",
        ),
        (
            body(
                q={
                    "type": "choice",
                    "instructions": "x",
                    "criteria": {str(i): "" for i in range(256)},
                }
            ),
            "questions.q.criteria",
        ),
        (
            body(q={**noul_q(), "criteria": {"true": "a", "maybe": "b"}}),
            "questions.q.criteria.maybe",
        ),
        ([1, 2], "(body)"),
    ],
)
def test_contract_violations_are_422_naming_the_field(serve: Any, data: Any, field: str) -> None:
    srv = serve()
    resp = post(srv.base_url, data)
    assert resp.status_code == 422, resp.text
    error = resp.json()["error"]
    assert error["code"] == "invalid_request"
    assert field in [f["field"] for f in error["fields"]]


def test_choice_with_255_options_and_score_with_10_levels_are_accepted(serve: Any) -> None:
    srv = serve()
    data = body(
        c={"type": "choice", "instructions": "x", "criteria": {f"o{i}": "" for i in range(255)}},
        s={"type": "score", "instructions": "x", "criteria": [str(i) for i in range(10)]},
    )
    resp = post(srv.base_url, data)
    assert resp.status_code == 200
    assert len(resp.json()["answers"]["c"]["probabilities"]) == 255


@pytest.mark.parametrize(
    "raw", [b"{not json", b"", b'{"state": "\xff\xfe", "questions": {}}', b'{"state": "\\ud800"}']
)
def test_bad_json_or_bad_utf8_is_400(serve: Any, raw: bytes) -> None:
    srv = serve()
    resp = httpx.post(srv.base_url + URL, content=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 400
    assert resp.json()["error"]["code"] == "invalid_json"


@pytest.mark.parametrize(
    "ctype",
    ["text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin-1", ""],
)
def test_wrong_content_type_is_415(serve: Any, ctype: str) -> None:
    srv = serve()
    headers = {"Content-Type": ctype} if ctype else {}
    resp = httpx.post(srv.base_url + URL, content=json.dumps(body()).encode(), headers=headers)
    assert resp.status_code == 415


def test_json_with_utf8_charset_is_accepted(serve: Any) -> None:
    srv = serve()
    resp = httpx.post(
        srv.base_url + URL,
        content=json.dumps(body()).encode(),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert resp.status_code == 200


def test_body_over_the_limit_is_413_declared_or_streamed(serve: Any) -> None:
    srv = serve(max_body_bytes=4096)
    big = body("x" * 10_000)
    assert post(srv.base_url, big).status_code == 413

    def chunks() -> Any:  # no Content-Length: the limit must hold while streaming
        payload = json.dumps(big).encode()
        for i in range(0, len(payload), 1000):
            yield payload[i : i + 1000]

    resp = httpx.post(
        srv.base_url + URL, content=chunks(), headers={"Content-Type": "application/json"}
    )
    assert resp.status_code == 413
    assert post(srv.base_url, body()).status_code == 200  # and the server still answers


def test_token_required_when_configured(serve: Any) -> None:
    srv = serve(token="s3cret-token")
    assert post(srv.base_url, body()).status_code == 401
    wrong = post(srv.base_url, body(), headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert "s3cret" not in wrong.text
    assert httpx.get(srv.base_url + "/v1/models").status_code == 401
    ok = post(srv.base_url, body(), headers={"Authorization": "Bearer s3cret-token"})
    assert ok.status_code == 200
    assert httpx.get(srv.base_url + "/healthz").status_code == 200  # liveness stays open


def test_wrong_method_and_unknown_route_are_json(serve: Any) -> None:
    srv = serve()
    resp = httpx.get(srv.base_url + URL)
    assert resp.status_code == 405 and resp.json()["error"]["code"] == "method_not_allowed"
    assert resp.headers["Allow"] == "POST"
    resp = httpx.post(srv.base_url + "/healthz", json={})
    assert resp.status_code == 405 and resp.headers["Allow"] == "GET,HEAD"
    resp = httpx.get(srv.base_url + "/v2/whatever")
    assert resp.status_code == 404 and resp.json()["error"]["code"] == "not_found"
    resp = httpx.get(srv.base_url + URL + "/")  # exact paths only
    assert resp.status_code == 404 and resp.json()["error"]["code"] == "not_found"
    head = httpx.head(srv.base_url + "/healthz")
    assert head.status_code == 200 and head.content == b""


def test_non_loopback_bind_needs_a_token(serve: Any) -> None:
    assert (
        is_loopback_host("127.0.0.1") and is_loopback_host("::1") and is_loopback_host("localhost")
    )
    assert not is_loopback_host("0.0.0.0") and not is_loopback_host("192.168.1.4")
    with pytest.raises(BindRefused, match="not loopback"):
        check_bind("0.0.0.0", "")
    check_bind("0.0.0.0", "a-token")  # allowed with a token
    with pytest.raises(BindRefused):
        serve(host="0.0.0.0")
