"""Surface, model and effort identity come only from allowlisted sources."""

from __future__ import annotations

from agentreflex.guard.surface import clean_effort, clean_model, resolve_surface


def test_surface_order_and_cross_provider_values() -> None:
    assert (
        resolve_surface(
            {"surface": "claude_desktop"}, {"CLAUDE_CODE_ENTRYPOINT": "cli"}, "claude", ""
        )
        == "claude_desktop"
    )
    assert resolve_surface({}, {"CLAUDE_CODE_ENTRYPOINT": "cli"}, "claude", "") == "claude_cli"
    assert resolve_surface({}, {}, "claude", "claude-desktop") == "claude_desktop"
    assert resolve_surface({"surface": "codex_cli"}, {}, "claude", "") == "unknown"
    assert (
        resolve_surface({}, {"CODEX_INTERNAL_ORIGINATOR_OVERRIDE": "codex-tui"}, "codex", "")
        == "codex_cli"
    )
    assert resolve_surface({}, {}, "codex", "") == "unknown"
    assert resolve_surface({"client_surface": "weird"}, {}, "claude", "") == "unknown"


def test_model_and_effort_are_bounded_and_allowlisted() -> None:
    assert clean_model("claude-opus-4-1") == "claude-opus-4-1"
    assert clean_model("<synthetic>") == ""
    assert clean_model("x" * 200) == ""
    assert clean_model("model; rm -rf") == ""
    assert clean_effort({"level": "XHigh"}) == "xhigh"
    assert clean_effort("turbo") == "unknown"
    assert clean_effort(3) == "unknown"
