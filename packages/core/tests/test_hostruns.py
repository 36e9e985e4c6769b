"""The project's files a host's own settings run are read-only in the boundary (issue #28)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.contain import boundary, hostruns
from agentreflex.core.util.fsutil import read_regular


def _project(tmp_path: Path, files: dict[str, object]) -> Path:
    root = tmp_path / "proj"
    for name, value in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value if isinstance(value, str) else json.dumps(value))
    return root


SCRIPTS = [
    ".claude/hooks/check.sh",
    "scripts/status.js",
    "bin/key-helper",
    "tools/server.py",
    "hooks/copilot.sh",
    "gemini/hook.py",
    "plugins/op.js",
    "tools/copilot_mcp.py",
    "tools/lsp/server.js",
    "plugins/jsonc.js",
]


def test_the_scripts_each_hosts_settings_run_are_found(tmp_path: Path) -> None:
    """Each host's documented form: Claude Code's hooks, status line and credential helper,
    .mcp.json's servers, Copilot CLI's hooks files and its MCP and language servers, Gemini
    CLI's hooks, OpenCode's plugins."""
    root = _project(
        tmp_path,
        {
            **dict.fromkeys(SCRIPTS, "x\n"),
            "docs/notes.md": "notes\n",
            ".claude/settings.json": {
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'}]}
                    ]
                },
                "statusLine": {"type": "command", "command": "node scripts/status.js --x"},
                "permissions": {"allow": ["Read(docs/notes.md)", "Bash(cat docs/notes.md)"]},
            },
            ".claude/settings.local.json": {"apiKeyHelper": "./bin/key-helper"},
            ".mcp.json": {"mcpServers": {"s": {"command": "python3", "args": ["tools/server.py"]}}},
            ".github/hooks/guard.json": {
                "hooks": {"preToolUse": [{"bash": "sh hooks/copilot.sh"}]}
            },
            ".gemini/settings.json": {
                "hooks": {
                    "BeforeTool": [{"hooks": [{"command": "$GEMINI_PROJECT_DIR/gemini/hook.py"}]}]
                }
            },
            "opencode.json": {"plugin": [f"file://{tmp_path}/proj/plugins/op.js"]},
            # OpenCode reads opencode.jsonc as readily, comments and trailing commas included
            "opencode.jsonc": (
                '{\n  // the team\'s plugin\n  "plugin": ["./plugins/jsonc.js",],\n'
                '  "instructions": ["a,}"],\n}\n'
            ),
            # Copilot CLI's project MCP and language servers (it reads both at start)
            ".github/mcp.json": {
                "mcpServers": {"m": {"command": "python3", "args": ["tools/copilot_mcp.py"]}}
            },
            ".github/lsp.json": {
                "lspServers": {
                    "ts": {
                        "command": "node",
                        "args": ["tools/lsp/server.js", "--stdio"],
                        "fileExtensions": {".ts": "typescript"},
                    }
                }
            },
        },
    )
    found = hostruns.named_files(str(root))
    assert sorted(found) == sorted(str(root / s) for s in SCRIPTS)


@pytest.mark.parametrize(
    "settings",
    [
        "not json",
        {"hooks": "x"},
        {"statusLine": {"command": "cat /etc/hostname ../outside.sh $HOME/x.sh -v"}},
        {"statusLine": {"command": "node scripts/missing.js"}},
        {"permissions": {"allow": ["Bash(./run.sh)"]}},
    ],
)
def test_nothing_else_is_made_read_only(tmp_path: Path, settings: object) -> None:
    """Bad settings, paths outside the project, missing files and permission rules: nothing."""
    root = _project(tmp_path, {".claude/settings.json": settings, "run.sh": "x"})
    (tmp_path / "outside.sh").write_text("x")
    assert hostruns.named_files(str(root)) == []


def test_settings_nested_too_deep_are_not_read(tmp_path: Path) -> None:
    deep = '{"statusLine": {"command": "sh run.sh"}, "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    root = _project(tmp_path, {".claude/settings.json": deep, "run.sh": "x"})
    assert hostruns.named_files(str(root)) == []


def test_a_fifo_where_settings_go_does_not_hang_the_hook(tmp_path: Path) -> None:
    """``mkfifo .mcp.json`` in a contained command: ``open`` would wait for a writer forever,
    and a hook that hangs until the host's timeout lets the tool call through."""
    root = _project(tmp_path, {"run.sh": "x", ".claude/settings.local.json": "{}"})
    os.mkfifo(root / ".mcp.json")
    os.mkfifo(root / ".claude" / "settings.json")
    code = (
        f"from agentreflex.core.contain import hostruns; print(hostruns.named_files({str(root)!r}))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.stdout.strip() == "[]", done.stderr


def test_read_regular_reads_only_regular_files(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abcdef")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    os.mkfifo(tmp_path / "fifo")
    assert read_regular(str(tmp_path / "f"), 3) == b"abcd"
    assert read_regular(str(tmp_path / "link"), 10) == b"abcdef"
    assert read_regular(str(tmp_path / "link"), 10, follow=False) is None
    for other in ("fifo", "missing", "."):
        assert read_regular(str(tmp_path / other), 10) is None
    assert read_regular(str(tmp_path / "a\0b"), 10) is None


def test_a_settings_file_too_large_is_not_read(tmp_path: Path) -> None:
    big = {"statusLine": {"command": "sh run.sh"}, "pad": "x" * (1 << 20)}
    root = _project(tmp_path, {".claude/settings.json": big, "run.sh": "x"})
    assert hostruns.named_files(str(root)) == []


def test_the_boundary_holds_them_and_the_rest_stays_writable(tmp_path: Path) -> None:
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    root = _project(
        tmp_path,
        {
            ".claude/settings.json": {"statusLine": {"command": "sh scripts/status.sh"}},
            ".claude/settings.local.json": {},
            "scripts/status.sh": "echo ok\n",
            "scripts/build.sh": "echo build\n",
        },
    )
    line = boundary.rewrite(
        "echo 'touch /tmp/x' >> scripts/status.sh; echo more >> scripts/build.sh", str(root)
    )
    subprocess.run(["bash", "-c", line], cwd=root, capture_output=True, check=False, timeout=60)
    assert (root / "scripts" / "status.sh").read_text() == "echo ok\n"
    assert (root / "scripts" / "build.sh").read_text() == "echo build\nmore\n"
