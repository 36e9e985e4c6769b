"""The release benchmark's labelled set and its threshold gate (tools/reason_guard_benchmark.py)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[3]
DATA = Path(__file__).parent / "data" / "reason_guard_summaries.jsonl"


def bench() -> Any:
    spec = importlib.util.spec_from_file_location(
        "reason_guard_benchmark", ROOT / "tools" / "reason_guard_benchmark.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_labelled_set_is_large_deduplicated_and_stratified() -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
    assert len({r["text"] for r in rows}) == len(rows)
    assert len({r["id"] for r in rows}) == len(rows)
    scored = [r for r in rows if r["label"] != "ambiguous"]
    assert len(scored) >= 300
    cells = Counter((r["split"], r["stratum"], r["label"]) for r in scored)
    for split in ("dev", "holdout"):
        for stratum in ("representative", "challenge"):
            for label in ("consequential", "neutral"):
                assert cells[(split, stratum, label)] >= 10, (split, stratum, label)
    assert all(
        r["required"] == (r["label"] == "consequential" and r["stratum"] == "representative")
        for r in rows
    )


def test_the_gate_fails_on_a_set_the_classifier_gets_wrong(tmp_path: Path) -> None:
    module = bench()
    wrong = tmp_path / "wrong.jsonl"
    rows = [
        {
            "id": "a",
            "split": "dev",
            "stratum": "representative",
            "label": "consequential",
            "required": True,
            "text": "Reading the files.",
        },
        {
            "id": "b",
            "split": "holdout",
            "stratum": "representative",
            "label": "neutral",
            "required": False,
            "text": "Investigating why the retry test fails on Linux.",
        },
    ]
    wrong.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    report = module.classifier_report(module.load_samples(str(wrong)), repeats=1)
    assert report["overall"]["required_misses"] == ["a"]
    assert report["overall"]["false_obligations"] == ["b"]
    hook = {"plain": {"p95_ms": 1.0}, "structured": {"p95_ms": 2.0}, "delta_p95_ms": 1.0}
    failures = module.release({"classifier": report, "hook": hook})
    assert any("precision" in f for f in failures)
    assert any("required misses" in f for f in failures)
    assert any("specificity" in f for f in failures)


def test_the_release_set_passes_its_classifier_thresholds() -> None:
    module = bench()
    report = module.classifier_report(module.load_samples(str(DATA)), repeats=1)
    hook = {"plain": {"p95_ms": 0.0}, "structured": {"p95_ms": 0.0}, "delta_p95_ms": 0.0}
    report["latency_ms"]["p95"] = 0.0  # latency is the benchmark's business, not a test's
    assert module.release({"classifier": report, "hook": hook}) == []
