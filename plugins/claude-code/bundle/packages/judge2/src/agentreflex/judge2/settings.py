"""judge2's own settings: the ``[judge2]`` section of the config, validated.

Core owns the shared judge settings (mode, base URL, model, key, timeout,
retries); this section holds only what is particular to this package.  Its keys,
defaults and bounds are declared once, in :mod:`agentreflex.judge2.plugin`.
"""

from __future__ import annotations

import os

from agentreflex.core.config.settings import ConfigError
from agentreflex.core.util.record import record
from agentreflex.judge2.plugin import SECTION

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.config.settings import Config

_D = SECTION.defaults()


@record(frozen=True)
class Judge2Settings:
    cache: bool = _D["cache"]
    cache_ttl_s: float = _D["cache_ttl_s"]
    cache_max_entries: int = _D["cache_max_entries"]
    claims_unsupported_block: float = _D["claims_unsupported_block"]
    action_window: int = _D["action_window"]
    calibration: str = _D["calibration"]


def load_settings(config: Config) -> Judge2Settings:
    """Read ``[judge2]``; a bad value raises core's ``ConfigError`` naming the key."""
    return Judge2Settings(
        cache=_value(config, "cache"),
        cache_ttl_s=_value(config, "cache_ttl_s"),
        cache_max_entries=_value(config, "cache_max_entries"),
        claims_unsupported_block=_value(config, "claims_unsupported_block"),
        calibration=_calibration(_value(config, "calibration")),
        action_window=min(config.recent_action_window, _value(config, "action_window")),
    )


def _value(config: Config, key: str) -> Any:
    """One key of ``[judge2]`` as its declaration (plugin.py) types and bounds it."""
    return SECTION.setting(key).read(config, SECTION.key)


def _calibration(value: str) -> str:
    """``auto``, ``off`` or the absolute path of a map file (checked when it is first used).

    Which file a map comes from decides whether the judge may BLOCK alone (its
    ``may_block``), so the key is honoured only from trusted config: core applies
    a package section from an unapproved project config not at all (any change
    is withheld until ``agentreflex trust``).  A relative path is refused even
    from the user's config: it would be read from wherever the hook runs, which
    is the project, where the agent writes.
    """
    value = value.strip() or "auto"
    if value in ("auto", "off"):
        return value
    path = os.path.expanduser(value)
    if not os.path.isabs(path):
        raise ConfigError(
            f"[judge2] calibration: {value!r} is relative; give auto, off or an absolute path "
            "(a relative one would be read from the project, where the agent writes)"
        )
    return path
