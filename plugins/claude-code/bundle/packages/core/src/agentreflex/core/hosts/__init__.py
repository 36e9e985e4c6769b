"""Host adapters: each host payload in, each host-native answer out."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.protocols import HostAdapter

HOSTS = ("claude-code", "codex", "hermes", "opencode", "pi", "omp", "gemini", "copilot")


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
    if host == "opencode":
        from agentreflex.core.hosts.opencode import OpenCodeAdapter

        return OpenCodeAdapter()
    if host in ("pi", "omp"):
        from agentreflex.core.hosts.pi import PiAdapter

        return PiAdapter(host)
    if host == "gemini":
        from agentreflex.core.hosts.gemini import GeminiAdapter

        return GeminiAdapter()
    if host == "copilot":
        from agentreflex.core.hosts.copilot import CopilotAdapter

        return CopilotAdapter()
    raise ValueError(f"unknown host {host!r}; supported: {', '.join(HOSTS)}")
