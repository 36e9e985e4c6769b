"""Host adapters: each host payload in, each host-native answer out."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.protocols import HostAdapter

HOSTS = ("claude-code", "codex", "hermes")


def get_adapter(host: str) -> HostAdapter:
    """The adapter for a host name; ValueError names the supported hosts."""
    if host in ("claude-code", "claude"):
        from agentreflex.core.hosts.claude_code import ClaudeCodeAdapter

        return ClaudeCodeAdapter()
    if host == "codex":
        from agentreflex.core.hosts.codex import CodexAdapter

        return CodexAdapter()
    if host == "hermes":
        from agentreflex.core.hosts.hermes import HermesAdapter

        return HermesAdapter()
    raise ValueError(f"unknown host {host!r}; supported: {', '.join(HOSTS)}")
