"""policies/thresholds.toml documents the defaults that core/config/settings.py applies."""

import tomllib
from pathlib import Path

from agentreflex.core.config.settings import DEFAULT_THRESHOLDS

POLICY = Path(__file__).resolve().parents[3] / "policies" / "thresholds.toml"


def test_policy_file_matches_the_built_in_defaults() -> None:
    data = tomllib.loads(POLICY.read_text())
    assert data["thresholds"] == DEFAULT_THRESHOLDS
