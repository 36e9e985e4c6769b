"""The ``[context]`` config section: what the context layer does, and its bounds.

Core keeps package sections as plain dicts; this module owns the keys.  The
section is one of core's package sections, so a project file that changes it
applies only once the user approved it (``agentreflex trust``): the agent
cannot switch the saver on for a host where it is not proven.  A bad value
is a :class:`~agentreflex.core.config.settings.ConfigError` the reflex reports, and
the layer then does nothing (it is a convenience, never a floor).
"""

from __future__ import annotations

from agentreflex.core.config.settings import section_value
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.config.settings import Config

SECTION = "context"
# Hosts where a shortened tool output is proven to reach the model in the tool's
# own shape (integration-tests/test_context_claude.py, Claude Code 2.1.328).
PROVEN_SAVER_HOSTS = ("claude-code",)


@record(frozen=True)
class ContextSettings:
    recap: bool = True
    recap_tokens: int = 600
    saver_hosts: tuple[str, ...] = PROVEN_SAVER_HOSTS
    saver_min_chars: int = 12_000
    saver_keep_chars: int = 6_000
    outputs_max_files: int = 50
    outputs_max_mb: int = 200


def load(config: Config) -> ContextSettings:
    """The section's values, validated (raises ConfigError on a bad one)."""
    hosts = section_value(config, SECTION, "saver_hosts", list(PROVEN_SAVER_HOSTS), "list")
    return ContextSettings(
        recap=section_value(config, SECTION, "recap", True, "bool"),
        recap_tokens=section_value(config, SECTION, "recap_tokens", 600, "int", low=40, high=4000),
        saver_hosts=tuple(str(h) for h in hosts),
        saver_min_chars=section_value(
            config, SECTION, "saver_min_chars", 12_000, "int", low=1000, high=10**9
        ),
        saver_keep_chars=section_value(
            config, SECTION, "saver_keep_chars", 6_000, "int", low=500, high=9_000
        ),
        outputs_max_files=section_value(
            config, SECTION, "outputs_max_files", 50, "int", low=1, high=10_000
        ),
        outputs_max_mb=section_value(
            config, SECTION, "outputs_max_mb", 200, "int", low=1, high=100_000
        ),
    )
