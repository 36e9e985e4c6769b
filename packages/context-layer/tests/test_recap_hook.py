"""The session recap through core's real hook path: when it is injected, and what it carries."""

from __future__ import annotations

from typing import Any

Host = Any

CONSTRAINT = "Do not touch the public API in api.py."


def _context(reply: dict[str, object]) -> str:
    out = reply.get("hookSpecificOutput")
    return str(out.get("additionalContext", "")) if isinstance(out, dict) else ""


def test_first_prompt_alone_injects_nothing(host: Host) -> None:
    assert host.reply("SessionStart", source="startup") == {}
    assert host.reply("UserPromptSubmit", prompt="Fix the parser bug.") == {}


def test_second_prompt_carries_the_constraint_in_the_users_words(host: Host) -> None:
    host.reply("UserPromptSubmit", prompt=f"Fix the parser bug. {CONSTRAINT}")
    text = _context(host.reply("UserPromptSubmit", prompt="Now run the tests."))
    assert CONSTRAINT in text
    assert "Fix the parser bug" in text  # the goal
    # unchanged since it was injected: not injected again
    assert host.reply("UserPromptSubmit", prompt="Go on.") == {}


def test_compaction_re_injects_the_unchanged_recap(host: Host) -> None:
    host.reply("UserPromptSubmit", prompt=f"Refactor the loader. {CONSTRAINT}")
    assert CONSTRAINT in _context(host.reply("UserPromptSubmit", prompt="continue"))
    assert host.reply("PreCompact", trigger="auto", custom_instructions="") == {}
    reply = host.reply("SessionStart", source="compact")
    assert reply["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert CONSTRAINT in _context(reply)


def test_source_compact_re_injects_even_without_a_precompact(host: Host) -> None:
    host.reply("UserPromptSubmit", prompt=f"Refactor the loader. {CONSTRAINT}")
    host.reply("UserPromptSubmit", prompt="continue")
    assert CONSTRAINT in _context(host.reply("SessionStart", source="compact"))


def test_secrets_in_a_constraint_are_redacted(host: Host) -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    host.reply("UserPromptSubmit", prompt=f"Deploy it. Never print the token {token} anywhere.")
    text = _context(host.reply("UserPromptSubmit", prompt="ok"))
    assert "Never print the token" in text
    assert token not in text


def test_failures_and_blocks_appear(host: Host) -> None:
    host.reply("UserPromptSubmit", prompt="Make the build green. Only use the stdlib.")
    host.reply(
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest -q"},
        tool_use_id="t1",
        tool_response={"stdout": "1 failed", "stderr": "", "exit_code": 1, "interrupted": False},
    )
    text = _context(host.reply("UserPromptSubmit", prompt="and?"))
    assert "Unresolved failures" in text
    assert "pytest -q" in text


def test_codex_gets_the_recap_as_additional_context(host: Host) -> None:
    host.host = "codex"
    host.reply("UserPromptSubmit", prompt=f"Fix it. {CONSTRAINT}")
    reply = host.reply("UserPromptSubmit", prompt="next")
    assert reply["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    assert CONSTRAINT in reply["hookSpecificOutput"]["additionalContext"]


def test_recap_can_be_switched_off(host: Host) -> None:
    host.user_config("[context]\nrecap = false\n")
    host.reply("UserPromptSubmit", prompt=f"Fix it. {CONSTRAINT}")
    assert host.reply("UserPromptSubmit", prompt="next") == {}


def test_a_project_file_cannot_switch_the_recap_off_unapproved(host: Host) -> None:
    host.state_dir.mkdir()
    (host.state_dir / "config.toml").write_text("[context]\nrecap = false\n")
    host.reply("UserPromptSubmit", prompt=f"Fix it. {CONSTRAINT}")
    assert CONSTRAINT in _context(host.reply("UserPromptSubmit", prompt="next"))


def test_a_bad_setting_is_reported_and_changes_nothing(host: Host) -> None:
    host.user_config("[context]\nrecap_tokens = 3\n")
    host.reply("UserPromptSubmit", prompt=f"Fix it. {CONSTRAINT}")
    outcome = host.hook("UserPromptSubmit", prompt="next")
    assert outcome.reply.stdout == ""
    assert outcome.decision is not None
    assert any("recap_tokens" in d for d in outcome.decision.degraded)


def _js_prompt_event(host: Host) -> str:
    from agentreflex.core.hosts import opencode, pi

    events = opencode.EVENTS if host.host == "opencode" else pi.EVENTS
    return next(name for name, kind in events.items() if kind.name == "USER_PROMPT")


def test_pi_opencode_and_hermes_get_the_recap_with_the_prompt(host: Host) -> None:
    for name in ("pi", "opencode", "hermes"):
        host.host = name
        host.session = f"sess-{name}"

        def prompt(text: str, name: str = name) -> dict[str, Any]:
            if name == "hermes":  # the plugin passes Hermes' kwargs under "extra"
                return host.reply("pre_llm_call", extra={"user_message": text})
            return host.reply(_js_prompt_event(host), prompt=text)

        prompt(f"Fix it. {CONSTRAINT}")
        reply = prompt("next")
        assert CONSTRAINT in str(reply.get("context", "")), (name, reply)
