"""A text that is cut to a bounded length is redacted first, wherever it is written.

A secret a cut divides keeps a head no rule recognises afterwards (``ghp_`` and a few
characters): the real hook (every installed reflex) is run on a command whose secret
lies across such a cut, and nothing it answers, logs or stores may hold that head.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from agentreflex.core.hook.runtime import run_hook

# GitHub's token shape (https://docs.github.com/en/authentication/keeping-your-account-and-data-secure/about-authentication-to-github#githubs-token-formats)
TOKEN = "ghp_" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zaB3dE"


def _hook(tmp_path: Path, command: str) -> str:
    """Everything the PreToolUse hook answered and wrote, as one text."""
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True, exist_ok=True)
    (root / ".agentreflex" / "config.toml").write_text('mode = "enforced"\n')
    (root / ".git").mkdir(exist_ok=True)
    payload = {
        "session_id": "cut-session",
        "cwd": str(root),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "c1",
    }
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
        "AGENTREFLEX_DAEMON": "off",
    }
    outcome = run_hook("claude-code", json.dumps(payload).encode(), env)
    written = [outcome.reply.stdout, outcome.reply.stderr]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            written.append(path.read_bytes().decode("utf-8", "replace"))
    assert outcome.decision is not None
    written += [f.message for f in outcome.decision.findings]
    return "\n".join(written)


@pytest.mark.parametrize("pad", range(120, 300, 6))
def test_the_gates_message_never_keeps_the_head_of_a_cut_secret(tmp_path: Path, pad: int) -> None:
    """The gate names the command it stopped, cut to 200, 300 and 160 characters, in its
    message, which the hook redacted only afterwards: a token across one of those cuts
    reached the host's screen, the log and the state by its head."""
    command = "rm -rf ~/ " + "a" * pad + " " + TOKEN
    shown = _hook(tmp_path, command)
    assert "GATE-" in shown  # the gate did stop it
    assert "ghp_" not in shown, shown


def _run(tmp_path: Path, host: str, payload: dict[str, object], hint: str | None) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path / "home"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "AGENTREFLEX_STATE_DIR": str(tmp_path / "state"),
        "AGENTREFLEX_DAEMON": "off",
    }
    outcome = run_hook(host, json.dumps(payload).encode(), env, hint)
    written = [outcome.reply.stdout, outcome.reply.stderr, outcome.error or ""]
    written += [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    return "\n".join(written)


def test_a_payloads_event_name_is_redacted_before_it_is_cut(tmp_path: Path) -> None:
    """A payload whose hook_event_name is not the event the hook is registered for is
    noted with that name cut to 80 characters, then redacted: the cut token's head stayed."""
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path / "proj"),
        "hook_event_name": "y" * 66 + " " + TOKEN,
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }
    shown = _run(tmp_path, "claude-code", payload, "PreToolUse")
    assert "registered for PreToolUse" in shown
    assert "ghp_" not in shown, shown


def test_an_error_is_redacted_before_it_is_cut(tmp_path: Path) -> None:
    """A hook that cannot read its payload says why in one line of 500 characters: the
    message was cut at 2,000 characters and only then redacted, so where a long secret
    before the cut (a JWT) shrank to its placeholder, the head of a token across the cut
    moved into the line kept (the host's screen and the error log)."""
    # JWT's shape: https://datatracker.ietf.org/doc/html/rfc7519#section-3.1
    jwt = "eyJhbGciOiJIUzI1NiJ9." + "eyJzdWIiOiIx" + "aB3dE5gH7j" * 170 + ".c2lnbmF0dXJlc2ln"
    name = jwt + " "
    prefix = len("bad hermes payload: unsupported hook_event_name '")
    name += "b" * (2000 - prefix - len(name) - 10) + " " + TOKEN
    payload = {"hook_event_name": name, "session_id": "s", "cwd": str(tmp_path)}
    shown = _run(tmp_path, "hermes", payload, None)
    assert "unsupported hook_event_name" in shown
    assert "ghp_" not in shown and "eyJzdWIiOiIx" not in shown


@pytest.mark.parametrize("pad", [72, 80, 88])
def test_a_constraint_noted_from_the_prompt_never_keeps_a_cut_secrets_head(
    tmp_path: Path, pad: int
) -> None:
    """The gate notes a prompt's "do not ..." with its sentence cut to 160 characters,
    redacted only when the note was stored: a token across the cut stayed by its head."""
    (tmp_path / "proj" / ".git").mkdir(parents=True)
    prompt = "do not push to main with the token " + "x" * pad + " " + TOKEN + " ok"
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path / "proj"),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    shown = _run(tmp_path, "claude-code", payload, "UserPromptSubmit")
    assert "do not push to main" in shown  # the constraint was noted
    assert "ghp_" not in shown, shown
