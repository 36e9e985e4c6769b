"""The judge's key goes only where the user sent it (core's ``JudgeSettings.request_key``).

Through the real backend selection and a real local server playing Jev.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentreflex.core.config.settings import JudgeSettings
from agentreflex.core.systemone import signals as s
from agentreflex.core.testing import make_config, make_context, pre_tool
from agentreflex.judge2.jev import JevBackend
from agentreflex.judge2.judge import make_judge, select_backend
from agentreflex.judge2.offline import OfflineBackend

KEY = "sk-test-0123456789abcdefABCDEF"


def _ask(judge_settings: JudgeSettings) -> Any:
    config = make_config()
    config.judge = judge_settings
    judge = make_judge(config)
    assert judge is not None
    ctx = make_context(pre_tool("Bash", {"command": "make test"}), config=config, judge=judge)
    return ctx.judge_answer(s.PRE_TOOL)


@pytest.mark.parametrize("mode", ["auto", "jev"])
def test_an_untrusted_url_gets_no_key(jev: Any, mode: str) -> None:
    untrusted = JudgeSettings(mode=mode, base_url=jev.base_url, api_key=KEY, base_url_trusted=False)
    answer = _ask(untrusted)
    assert answer is not None and not answer.degraded  # loopback: works without a key
    assert jev.requests and all("Authorization" not in r["headers"] for r in jev.requests)


def test_a_trusted_url_gets_the_key(jev: Any) -> None:
    answer = _ask(JudgeSettings(mode="jev", base_url=jev.base_url, api_key=KEY))
    assert answer is not None and not answer.degraded
    assert [r["headers"]["Authorization"] for r in jev.requests] == [f"Bearer {KEY}"]


def test_a_remote_untrusted_url_is_never_contacted_with_the_key() -> None:
    settings = JudgeSettings(
        mode="jev", base_url="https://evil.example", api_key=KEY, base_url_trusted=False
    )
    config = make_config()
    config.judge = settings
    backend = select_backend(config)
    assert isinstance(backend, JevBackend) and KEY not in repr(backend)
    assert backend._key == ""
    config.judge.mode = "auto"  # no usable key: the offline stand-in, no request at all
    assert isinstance(select_backend(config), OfflineBackend)


def test_auto_uses_a_loopback_server_without_a_key(jev: Any) -> None:
    answer = _ask(JudgeSettings(mode="auto", base_url=jev.base_url))
    assert answer is not None and answer.backend == "jev" and not answer.degraded
