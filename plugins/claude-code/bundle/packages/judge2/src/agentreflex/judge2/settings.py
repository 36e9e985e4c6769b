"""judge2's own settings: the ``[judge2]`` section of the config, validated.

Core owns the shared judge settings (mode, base URL, model, key, timeout,
retries); this section holds only what is particular to this package.
"""

from __future__ import annotations

from agentreflex.core.config import section_value
from agentreflex.core.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.config import Config

SECTION = "judge2"


@record(frozen=True)
class Judge2Settings:
    cache: bool = True
    cache_ttl_s: float = 600.0
    cache_max_entries: int = 256
    claims_unsupported_block: float = 0.70
    action_window: int = 12
    calibration: str = "auto"  # auto (the shipped map for the answering model), off, or a path


def load_settings(config: Config) -> Judge2Settings:
    """Read ``[judge2]``; a bad value raises core's ``ConfigError`` naming the key."""
    d = Judge2Settings()
    return Judge2Settings(
        cache=section_value(config, SECTION, "cache", d.cache, "bool"),
        cache_ttl_s=section_value(
            config, SECTION, "cache_ttl_s", d.cache_ttl_s, "float", low=0.0, high=86400.0
        ),
        cache_max_entries=section_value(
            config, SECTION, "cache_max_entries", d.cache_max_entries, "int", low=1, high=100_000
        ),
        claims_unsupported_block=section_value(
            config, SECTION, "claims_unsupported_block", d.claims_unsupported_block, "prob"
        ),
        calibration=_calibration(section_value(config, SECTION, "calibration", "auto", "str")),
        action_window=min(
            config.recent_action_window,
            section_value(
                config, SECTION, "action_window", d.action_window, "int", low=1, high=100
            ),
        ),
    )


def _calibration(value: str) -> str:
    """``auto``, ``off`` or the path of a map file (checked when it is first used)."""
    return value.strip() or "auto"
