"""Backend selection from the judge mode, and the judge's fail-open wrapper."""

from __future__ import annotations

import pytest
from agentreflex.core.config.settings import ConfigError
from agentreflex.core.reflex import ReflexContext
from agentreflex.core.systemone import signals as s
from agentreflex.core.systemone.wire import SystemOneRequest, SystemOneResponse
from agentreflex.core.testing import make_config, make_context, pre_tool
from agentreflex.judge2.backend import Subject
from agentreflex.judge2.jev import JevBackend
from agentreflex.judge2.judge import Judge2, make_judge
from agentreflex.judge2.offline import OfflineBackend


def test_auto_uses_jev_with_a_key_and_offline_without() -> None:
    with_key = make_judge(
        make_config(env={"JEV_API_KEY": "k", "JEV_BASE_URL": "http://h", "JEV_MODEL": "m1"})
    )
    assert with_key is not None and isinstance(with_key.backend, JevBackend)
    assert with_key.backend.url == "http://h/v1/systemone" and with_key.backend.model == "m1"
    without = make_judge(make_config())
    assert without is not None and isinstance(without.backend, OfflineBackend)


def test_explicit_modes() -> None:
    assert isinstance(
        make_judge(make_config(env={"JEV_MODE": "mock", "JEV_API_KEY": "k"})).backend,
        OfflineBackend,
    )  # type: ignore[union-attr]
    assert isinstance(make_judge(make_config(env={"JEV_MODE": "jev"})).backend, JevBackend)  # type: ignore[union-attr]
    assert make_judge(make_config(env={"JEV_MODE": "off", "JEV_API_KEY": "k"})) is None


def test_bad_section_values_are_config_errors() -> None:
    cfg = make_config()
    cfg.sections["judge2"] = {"cache_ttl_s": "forever"}
    with pytest.raises(ConfigError, match=r"judge2\.cache_ttl_s"):
        make_judge(cfg)


class Exploding:
    name = "boom"
    model = "m"
    cacheable = False

    def answer(self, request: SystemOneRequest, subject: Subject) -> SystemOneResponse:
        raise ZeroDivisionError("bad math")


def test_unexpected_backend_errors_fail_open() -> None:
    ctx: ReflexContext = make_context(
        pre_tool("Bash", {"command": "ls"}), judge=Judge2(Exploding())
    )
    answer = ctx.judge_answer(s.PRE_TOOL)
    assert answer is not None and answer.degraded
    assert "ZeroDivisionError" in answer.error
    assert answer.probabilities[s.EXPECTED_PROGRESS] == 1.0
    assert answer.latency_ms >= 0.0


def test_unknown_battery_is_degraded_not_raised() -> None:
    ctx = make_context(pre_tool("Bash", {"command": "ls"}), judge=Judge2(OfflineBackend()))
    answer = ctx.judge_answer("nonsense")
    assert answer is not None and answer.degraded and "unknown battery" in answer.error
