"""The model engine on a real, tiny, randomly initialised Laya checkpoint.

Needs the ``model`` extra (laya, torch, transformers): the ``laya-model`` tox
environment installs it and requires these tests; anywhere else without the
extra they are not collected (``conftest.py``).  The checkpoint is built by ``tools/laya_tiny_checkpoint.py``, written with laya's own
``laya.train.save_checkpoint`` to a temp dir, and loaded back through
``laya.load`` by the engine: the real code path, no weights downloaded.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentreflex.core.systemone.wire import parse_response
from agentreflex.laya.engine import make_engine

ROOT = Path(__file__).resolve().parents[4]


def build_tiny_checkpoint(path: Path) -> Path:
    spec = importlib.util.spec_from_file_location(
        "laya_tiny", ROOT / "tools/laya_tiny_checkpoint.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built: Path = module.build_tiny_checkpoint(path)
    return built


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_checkpoint(tmp_path_factory.mktemp("ckpt"))


QUESTIONS: dict[str, Any] = {
    "destructive_irreversible": {
        "type": "noul",
        "instructions": "is it destructive",
        "criteria": {"true": "yes", "false": "no"},
    },
    "pick": {
        "type": "choice",
        "instructions": "does the action break a constraint",
        "criteria": {"yes": "it does", "no": "it does not"},
    },
    "rate": {"type": "score", "instructions": "is it done", "criteria": ["no", "yes", "done"]},
}


def test_engine_loads_through_laya_and_answers_the_strict_wire(checkpoint: Path) -> None:
    engine = make_engine("model", str(checkpoint))
    assert engine.model_id == "laya-local:tiny-laya" and engine.blocking
    from agentreflex.laya.models import SystemOneRequest

    req = SystemOneRequest.model_validate({"state": "goal fix the parser", "questions": QUESTIONS})
    [answers] = engine.answer_batch([req.state], req.questions)
    parse_response(
        {"model": engine.model_id, "answers": answers}, QUESTIONS
    )  # strict client reading
    assert set(answers["destructive_irreversible"]) == {"type", "noul"}


def test_server_with_the_model_engine_batches_concurrent_requests(
    serve: Any, checkpoint: Path
) -> None:
    engine = make_engine("model", str(checkpoint))
    srv = serve(engine)

    def post(i: int) -> httpx.Response:
        body = {"state": f"proposed action bash rm rf build {i}", "questions": QUESTIONS}
        return httpx.post(srv.base_url + "/v1/systemone", json=body, timeout=60)

    with concurrent.futures.ThreadPoolExecutor(12) as pool:
        replies = list(pool.map(post, range(12)))
    assert all(r.status_code == 200 for r in replies), [r.text for r in replies]
    for r in replies:
        assert r.json()["model"] == "laya-local:tiny-laya"
        parse_response(r.json(), QUESTIONS)
    batcher = srv.server._batcher
    assert batcher is not None and batcher.passes < 12  # concurrent requests shared passes
