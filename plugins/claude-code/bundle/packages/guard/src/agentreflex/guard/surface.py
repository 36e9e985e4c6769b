"""Surface, model and effort identity of a session, from allowlisted sources only.

Surface order: a canonical ``surface``/``client_surface`` hook value or
``AGENTREFLEX_HOOK_SURFACE`` (``PRD_HOOK_SURFACE``), then the host-owned
``CODEX_INTERNAL_ORIGINATOR_OVERRIDE`` / ``CLAUDE_CODE_ENTRYPOINT``, then
trusted transcript metadata.  A value for another provider, or one we do not
know, stays ``unknown``: missing metadata is never proof of CLI or Desktop.
Model strings must be identifier-shaped (at most 128 characters); effort is
normalised to the allowlist or ``unknown``.
"""

from __future__ import annotations

from agentreflex.guard.bounds import MAX_MODEL_CHARS
from agentreflex.guard.report import EFFORTS, SURFACES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

# What a model id is: ^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$ (ASCII only), checked with
# str methods, as every event checks one and a pattern would compile per process.
_MODEL_FIRST = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
_MODEL_CHARS = _MODEL_FIRST + "._:/@+-"
_PROVIDER_SURFACES = {
    "claude": ("claude_cli", "claude_desktop"),
    "codex": ("codex_cli", "codex_desktop"),
    "opencode": ("opencode",),
}
_ALIASES = {
    "cli": "claude_cli",
    "claude-cli": "claude_cli",
    # `claude -p` (print mode) of the same CLI binary, as Claude Code 2.1 records it;
    # the Agent SDKs (sdk-ts, sdk-py) stay unknown
    "sdk-cli": "claude_cli",
    "claude-desktop": "claude_desktop",
    "codex_exec": "codex_cli",
    "codex-exec": "codex_cli",
    "codex-tui": "codex_cli",
    "codex_tui": "codex_cli",
    "codex_cli_rs": "codex_cli",
    "codex desktop": "codex_desktop",
    "codex-desktop": "codex_desktop",
}
LABELS = {
    "codex_desktop": "Codex Desktop",
    "codex_cli": "Codex CLI",
    "claude_desktop": "Claude Desktop",
    "claude_cli": "Claude CLI",
    "opencode": "OpenCode",
    "unknown": "Unknown surface",
}


def canonical_surface(value: Any, provider: str) -> str:
    """Map a surface-ish value to the allowlist for this provider, else ``unknown``."""
    if not isinstance(value, str):
        return "unknown"
    low = value.strip().lower()
    surface = low if low in SURFACES else _ALIASES.get(low, "unknown")
    return surface if surface in _PROVIDER_SURFACES.get(provider, ()) else "unknown"


def resolve_surface(
    raw: Mapping[str, Any], env: Mapping[str, str], provider: str, transcript_entrypoint: str
) -> str:
    """The first allowlisted source that yields a surface for this provider."""
    for value in (
        raw.get("surface"),
        raw.get("client_surface"),
        env.get("AGENTREFLEX_HOOK_SURFACE"),
        env.get("PRD_HOOK_SURFACE"),
    ):
        surface = canonical_surface(value, provider)
        if surface != "unknown":
            return surface
    host_owned = {
        "codex": env.get("CODEX_INTERNAL_ORIGINATOR_OVERRIDE"),
        "claude": env.get("CLAUDE_CODE_ENTRYPOINT"),
    }.get(provider)
    for value in (host_owned, transcript_entrypoint):
        surface = canonical_surface(value, provider)
        if surface != "unknown":
            return surface
    return "opencode" if provider == "opencode" else "unknown"


def clean_model(value: Any) -> str:
    """An identifier-shaped model id, or "" (synthetic and malformed ids are dropped)."""
    if not isinstance(value, str):
        return ""
    text = value.strip()
    if not text or len(text) > MAX_MODEL_CHARS or not _model_shaped(text):
        return ""
    return "" if "synthetic" in text.lower() else text


def _model_shaped(text: str) -> bool:
    """An allowed first character, then only allowed characters (the text is stripped)."""
    return text[0] in _MODEL_FIRST and not text.strip(_MODEL_CHARS)


def clean_effort(value: Any) -> str:
    """Normalise an effort value (a string or Claude's ``{level: ...}``)."""
    if isinstance(value, dict):
        value = value.get("level")
    if not isinstance(value, str):
        return "unknown"
    low = value.strip().lower()
    return low if low in EFFORTS else "unknown"


def hook_model(raw: Mapping[str, Any], env: Mapping[str, str], event_model: str) -> str:
    for value in (
        raw.get("model"),
        raw.get("model_id"),
        event_model,
        env.get("AGENTREFLEX_HOOK_MODEL"),
        env.get("PRD_HOOK_MODEL"),
    ):
        model = clean_model(value)
        if model:
            return model
    return ""


def hook_effort(raw: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Effort from the hook payload or environment (the OpenCode contract included).

    OpenCode has no transcript: its bundle keeps a bounded in-memory cache of
    ``message.updated`` and forwards the latest assistant ``modelID`` as the
    payload key ``model_id`` and its ``variant`` as ``model_variant`` (raw
    strings, both optional).  A variant that is one of the effort values is the
    effort; any other variant (``"thinking"``, a custom name) stays unknown.
    """
    for value in (
        raw.get("effort"),
        raw.get("reasoning_effort"),
        raw.get("model_variant"),
        env.get("AGENTREFLEX_HOOK_EFFORT"),
        env.get("PRD_HOOK_EFFORT"),
    ):
        effort = clean_effort(value)
        if effort != "unknown":
            return effort
    return "unknown"
