"""A secret quoted by a reflex never reaches the host, the log, the store or `check`."""

from __future__ import annotations

import json
from pathlib import Path

from agentreflex.core.decision import Finding, Verdict
from agentreflex.core.events import EventKind
from agentreflex.core.hook.runtime import Plugins, run_hook
from agentreflex.core.reflex import ReflexContext

TOKEN = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"


class Quoting:
    """A reflex that quotes the command it blocks, secret and all."""

    name = "quoting"
    events = frozenset({EventKind.PRE_TOOL})
    floor = True

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        assert ctx.event.tool is not None
        command = ctx.event.tool.command
        return [
            Finding(
                self.name,
                "TEST-QUOTE",
                Verdict.BLOCK,
                f"blocked: {command}",
                detail={"segment": command},
                context=f"saw {command}",
            )
        ]


def test_secrets_in_reflex_words_are_redacted_everywhere(tmp_path: Path) -> None:
    state = tmp_path / "state"
    payload = {
        "session_id": "s",
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t",
        "tool_input": {"command": f"curl -H 'Authorization: Bearer {TOKEN}' x.io"},
    }
    env = {"HOME": str(tmp_path), "REFLEX_MODE": "enforced", "AGENTREFLEX_STATE_DIR": str(state)}
    outcome = run_hook(
        "claude-code", json.dumps(payload).encode(), env, plugins=Plugins(reflexes=[Quoting()])
    )
    assert json.loads(outcome.reply.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert TOKEN not in outcome.reply.stdout + outcome.reply.stderr
    assert outcome.decision is not None
    assert TOKEN not in json.dumps(outcome.decision.to_json())
    written = "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    assert "[REDACTED]" in written
    assert TOKEN not in written


PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join("MIIEowIBAAKCAQEA" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z" * 2 for _ in range(24))
    + "\n-----END RSA PRIVATE KEY-----"
)


def _cut_payloads(tmp_path: Path) -> list[dict[str, object]]:
    """A token cut by each stored window: at the tool output's head (400), at the
    prompt's and stop message's (600) and at the summary's (200), each also behind a
    private key or forty tokens, whose redaction pulls a cut made further on into what
    is kept."""
    base = {"session_id": "s", "cwd": str(tmp_path), "tool_use_id": "t"}
    out = []
    many = " ".join(f"ghs_{i:02d}" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z12" for i in range(40))
    for lead in ("", PEM + "\n", many + "\n"):
        for window in (200, 400, 600, 1224, 1624):
            text = lead + "x" * (window - 20) + " " + TOKEN + " done"
            out += [
                {**base, "hook_event_name": "UserPromptSubmit", "prompt": text},
                {**base, "hook_event_name": "Stop", "last_assistant_message": text},
                {
                    **base,
                    "hook_event_name": "PostToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": "make test"},
                    "tool_response": {"stdout": text, "stderr": "", "interrupted": False},
                },
                {
                    **base,
                    "hook_event_name": "PostToolUseFailure",
                    "tool_name": "Bash",
                    "tool_input": {"command": "make deploy"},
                    "error": "error: " + text,
                },
                {
                    **base,
                    "hook_event_name": "PreToolUse",
                    "tool_name": "Bash",
                    "tool_input": {"command": f"echo {text}"},
                },
            ]
    return out


def test_a_secret_cut_by_a_stored_window_leaves_no_piece(tmp_path: Path) -> None:
    """A window cut before redaction leaves the head of a token no rule recognises
    (ghp_ and 16 characters of it); a private key redacted earlier in the text pulls
    such a cut into the part that is kept."""
    state = tmp_path / "state"
    env = {"HOME": str(tmp_path), "REFLEX_MODE": "enforced", "AGENTREFLEX_STATE_DIR": str(state)}
    for payload in _cut_payloads(tmp_path):
        outcome = run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())
        assert TOKEN[:10] not in outcome.reply.stdout + outcome.reply.stderr
    written = "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    assert "[REDACTED]" in written
    for piece in (TOKEN[:10], "MIIEowIBAAKCAQEA", "ghs_"):
        assert piece not in written


def test_a_secret_in_a_host_given_name_or_id_is_not_stored(tmp_path: Path) -> None:
    """The store redacts every string of a record, not the fields it expects text in:
    a tool name (an MCP server's, a host's), a tool call id, a folder name."""
    state = tmp_path / "state"
    env = {"HOME": str(tmp_path), "REFLEX_MODE": "enforced", "AGENTREFLEX_STATE_DIR": str(state)}
    project = tmp_path / f"work-{TOKEN}"
    project.mkdir()
    base = {"session_id": "s", "cwd": str(project)}
    for payload in (
        {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": f"mcp__{TOKEN}__q",
            "tool_input": {},
        },
        {
            **base,
            "hook_event_name": "PreToolUse",
            "tool_name": TOKEN,
            "tool_use_id": TOKEN,
            "tool_input": {"x": 1},
        },
        {
            **base,
            "hook_event_name": "PostToolUse",
            "tool_name": "Bash",
            "tool_use_id": f"id-{TOKEN}",
            "tool_input": {"command": "make"},
            "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        },
    ):
        outcome = run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())
        assert TOKEN not in outcome.reply.stdout + outcome.reply.stderr
    written = "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    assert "[REDACTED]" in written
    assert TOKEN[4:20] not in written


def test_a_secret_in_a_tool_inputs_list_or_netrc_line_is_not_stored(tmp_path: Path) -> None:
    """The summary of a tool without a command shows its input's values: an argv list
    (a PHP join of a token's halves, a password item after its flag) and a netrc line
    followed by more text were kept in the log, the state and the judge's text."""
    state = tmp_path / "state"
    env = {"HOME": str(tmp_path), "REFLEX_MODE": "enforced", "AGENTREFLEX_STATE_DIR": str(state)}
    inputs = [
        {"argv": ["$k", "=", f"'{TOKEN[:10]}'", ".", f"'{TOKEN[10:]}';"]},
        {"argv": ["mysql", "-uroot", "-pS3cretPw9FAKE", "app"]},
        {"query": "machine api.example login bob password N3trcPw9FAKE", "note": "x"},
    ]
    for i, tool_input in enumerate(inputs):
        payload = {
            "session_id": "s",
            "cwd": str(tmp_path),
            "hook_event_name": "PreToolUse",
            "tool_name": "mcp__db__run",
            "tool_use_id": f"t{i}",
            "tool_input": tool_input,
        }
        run_hook("claude-code", json.dumps(payload).encode(), env, plugins=Plugins())
    written = "".join(p.read_text() for p in state.rglob("*") if p.is_file())
    assert "[REDACTED]" in written
    for piece in (TOKEN[10:], "S3cretPw9FAKE", "N3trcPw9FAKE"):
        assert piece not in written
