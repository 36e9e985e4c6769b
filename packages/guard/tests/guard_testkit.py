"""Helpers shared by the guard tests (imported via the path conftest adds)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from agentreflex.core.config.settings import Config
from agentreflex.core.decision import Finding
from agentreflex.core.events import Event
from agentreflex.core.testing import make_config, make_context
from agentreflex.guard.examples import EXAMPLE_DIRECTIVE
from agentreflex.guard.reflex import GuardReflex

DIRECTIVE = EXAMPLE_DIRECTIVE


def marker(directive: dict[str, Any] | None = None) -> str:
    return "Evidence-Check: " + json.dumps(directive or DIRECTIVE)


def guard_config(mode: str = "on", **categories: str) -> Config:
    cfg = make_config("enforced", env={"AGENTREFLEX_REASONING_GUARD": mode})
    table = cfg.sections.setdefault("reasoning_guard", {})
    table.setdefault("categories", {}).update(categories)
    return cfg


Runner = Callable[[Event], list[Finding]]


def make_runner(state_dir: str, cfg: Config, env: dict[str, str] | None = None) -> Runner:
    reflex = GuardReflex(env=env or {})

    def run(event: Event) -> list[Finding]:
        return reflex.evaluate(make_context(event, config=cfg, state_dir=state_dir))

    return run


def ledger(state_dir: str, provider: str = "claude") -> dict[str, Any]:
    with open(f"{state_dir}/local/{provider}_reasoning_guard.json", encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def session(state_dir: str, provider: str = "claude", index: int = -1) -> dict[str, Any]:
    report: dict[str, Any] = ledger(state_dir, provider)["sessions"][index]
    return report


def codes(findings: list[Finding]) -> list[str]:
    return sorted(f.code for f in findings)
