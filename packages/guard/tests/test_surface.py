"""Surface, model and effort identity come only from allowlisted sources."""

from __future__ import annotations

from typing import Any

from agentreflex.core.testing import stop
from agentreflex.guard.surface import clean_effort, clean_model, resolve_surface
from guard_testkit import guard_config, make_runner, session


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


def test_opencode_contract_model_id_and_effort_like_variant(tmp_path: Any) -> None:
    state_dir = str(tmp_path / "state")
    run = make_runner(state_dir, guard_config("report"))
    raw = {"model_id": "anthropic/claude-sonnet-4-5", "model_variant": "high"}
    run(stop("ok", host="opencode", session_id="ses_1", raw=raw))
    identity = session(state_dir, "opencode")["session"]
    assert identity["surface"] == "opencode"
    assert (identity["model"], identity["effort"]) == ("anthropic/claude-sonnet-4-5", "high")
    run(stop("ok", host="opencode", session_id="ses_2", raw={"model_variant": "thinking"}))
    identity = session(state_dir, "opencode")["session"]
    assert (identity["model"], identity["effort"]) == ("unknown", "unknown")


def test_codex_desktop_and_cli_originators() -> None:
    assert resolve_surface({}, {}, "codex", "codex_exec") == "codex_cli"
    assert resolve_surface({}, {}, "codex", "codex_cli") == "codex_cli"
    assert resolve_surface({}, {}, "codex", "Codex Desktop") == "codex_desktop"
    assert resolve_surface({}, {}, "codex", "codex_vscode") == "unknown"
    assert resolve_surface({}, {}, "codex", "cli") == "unknown"  # Claude's value
