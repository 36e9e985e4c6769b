"""The shipped JSON Schemas (policies/*.schema.json) are current and describe what the loader reads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from agentreflex.core.config import settings as fast

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "gen_schema.py"
SHIPPED = (
    "config.schema.json",
    "thresholds.schema.json",
    "gate/rules.schema.json",
    "gate/allow.schema.json",
)


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=120, check=False
    )


def _resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    found: dict[str, Any] = schema["definitions"][ref.rsplit("/", 1)[1]]
    return found


def test_the_shipped_schemas_are_current() -> None:
    done = _run("--check")
    assert done.returncode == 0, done.stderr


def test_check_fails_on_a_stale_schema_and_the_tool_rewrites_it(tmp_path: Path) -> None:
    done = _run("--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    for name in SHIPPED:
        assert (tmp_path / name).read_text() == (ROOT / "policies" / name).read_text()
    stale = tmp_path / "config.schema.json"
    stale.write_text(stale.read_text().replace('"enforced"', '"enforcing"'))
    done = _run("--check", "--out", str(tmp_path))
    assert done.returncode == 1
    assert str(stale) in done.stderr
    assert _run("--out", str(tmp_path)).returncode == 0
    assert _run("--check", "--out", str(tmp_path)).returncode == 0


def test_the_config_schema_names_every_key_the_loader_reads() -> None:
    schema = json.loads((ROOT / "policies" / "config.schema.json").read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    assert "$defs" not in json.dumps(schema)  # draft-07 readers resolve definitions only
    assert schema["additionalProperties"] is False
    assert set(schema["properties"]) == set(fast._TOP_KEYS) | set(fast.package_sections())
    mode = schema["properties"]["mode"]
    assert mode["enum"] == ["shadow", "enforced"]
    assert schema["properties"]["profile"]["enum"] == list(fast.PROFILES)
    thresholds = _resolve(schema, schema["properties"]["thresholds"])
    assert thresholds["additionalProperties"] is False
    assert {k: v["default"] for k, v in thresholds["properties"].items()} == fast.DEFAULT_THRESHOLDS
    assert all(v["minimum"] == 0 and v["maximum"] == 1 for v in thresholds["properties"].values())
    loop = _resolve(schema, schema["properties"]["loop"])["properties"]
    assert (loop["hard_repeat_count"]["minimum"], loop["hard_repeat_count"]["maximum"]) == (2, 1000)
    judge = _resolve(schema, schema["properties"]["judge"])
    assert "api_key" not in judge["properties"]  # never read from a file
    budgets = _resolve(schema, schema["properties"]["budgets"])["properties"]
    assert budgets["warn_fraction"]["minimum"] == 0.01


def test_the_gate_rule_schema_names_the_verdicts() -> None:
    schema = json.loads((ROOT / "policies" / "gate" / "rules.schema.json").read_text())
    rule = schema["definitions"]["GateRule"]
    assert rule["required"] == ["id"]
    assert {"block", "ask", "warn"} <= set(rule["properties"]["verdict"]["enum"])
