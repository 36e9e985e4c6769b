"""A patch is judged by the files the host's own parser finds in it (red-team rt35).

The hosts' patch tools run in the host's process, outside the boundary, so the
hook's reading of the patch is all that holds them.  Each host's parser is more
lenient than ``*** Add File: `` at the start of a line:

- Codex (codex-rs apply-patch, 0.169.0) trims the patch and each hunk's header line:
  ``  *** Add File: x`` and an indented ``*** Begin Patch`` apply;
- OpenCode (1.18.33's ``parsePatch``) finds ``*** Begin Patch`` by its trimmed line and
  takes ``*** Add File:x`` with no space (``slice(13).trim()``), as for ``Move to:``;
- Hermes (0.19.0's ``tools/patch_parser.py``) needs no ``*** Begin Patch`` at all,
  matches ``\\*\\*\\*\\s*Add\\s+File:\\s*(.+)``, and moves with ``*** Move File: a -> b``.

Each payload goes through the real hook entry point (``agentreflex hook HOST EVENT``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.testing import enforced_project, hook_process

TARGET = ".claude/settings.json"


_hook = hook_process


def _call(project: Path, host: str, body: str) -> str:
    cwd = str(project)
    if host == "codex":
        tool_input: dict[str, Any] = {"command": body}
        payload = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": cwd}
        payload |= {"tool_name": "apply_patch", "tool_input": tool_input}
        return _hook(project, host, "PreToolUse", payload)
    if host == "opencode":
        payload = {"hook_event_name": "tool.execute.before", "session_id": "s", "cwd": cwd}
        payload |= {"tool": "apply_patch", "args": {"patchText": body}}
        return _hook(project, host, "tool.execute.before", payload)
    payload = {"hook_event_name": "pre_tool_call", "session_id": "s", "cwd": cwd, "extra": {}}
    payload |= {"tool_name": "patch", "tool_input": {"mode": "patch", "patch": body}}
    return _hook(project, host, "pre_tool_call", payload)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "home" / "proj"
    enforced_project(root)
    (root / "notes.txt").write_text("notes\n")
    return root


SPELLINGS = [
    ("codex", f"*** Begin Patch\n  *** Add File: {TARGET}\n+{{}}\n*** End Patch\n"),
    ("codex", f" *** Begin Patch\n*** Add File: {TARGET}\n+{{}}\n*** End Patch\n"),
    ("codex", f"*** Begin Patch\n*** Update File: notes.txt\n*** Move to:  {TARGET}\n@@\n-n\n+m\n"),
    ("opencode", f"*** Begin Patch\n*** Add File:{TARGET}\n+{{}}\n*** End Patch\n"),
    ("opencode", f"  *** Begin Patch\n*** Add File: {TARGET}\n+{{}}\n*** End Patch\n"),
    (
        "opencode",
        f"*** Begin Patch\n*** Update File: notes.txt\n*** Move to:{TARGET}\n@@\n-n\n+m\n",
    ),
    ("hermes", f"*** Add File: {TARGET}\n+{{}}\n"),
    ("hermes", f"*** Begin Patch\n***Add  File:{TARGET}\n+{{}}\n*** End Patch\n"),
    ("hermes", f"*** Begin Patch\n*** Move File: notes.txt -> {TARGET}\n*** End Patch\n"),
    ("hermes", f"***Begin Patch\n*** Update File: {TARGET}\n@@\n-a\n+b\n***End Patch\n"),
]


@pytest.mark.parametrize(("host", "body"), SPELLINGS)
def test_a_header_the_host_reads_is_judged(project: Path, host: str, body: str) -> None:
    out = _call(project, host, body)
    assert "GATE-SELF-PROTECT" in out or TARGET in out, (host, body, out)
    assert '"deny"' in out or '"block"' in out, (host, body, out)


@pytest.mark.parametrize("host", ["codex", "opencode", "hermes"])
def test_a_patch_of_an_ordinary_file_stays_allowed(project: Path, host: str) -> None:
    body = "*** Begin Patch\n*** Update File: notes.txt\n@@\n-notes\n+notes!\n*** End Patch\n"
    out = _call(project, host, body)
    assert '"deny"' not in out and '"block"' not in out, out
