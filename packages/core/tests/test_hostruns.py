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
    "mcp_db/serve.py",
    "mcp_pkg/__main__.py",
    "plugins/tui.js",
    "tools/windsurf_hook.py",
    "tools/roo_mcp.js",
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
            ".mcp.json": {
                "mcpServers": {
                    "s": {"command": "python3", "args": ["tools/server.py"]},
                    # a module run as the server: its file, or its package's __main__.py
                    "m": {"command": "uv", "args": ["run", "python", "-m", "mcp_db.serve"]},
                    "p": {"command": "python3", "args": ["-m", "mcp_pkg"]},
                    # Claude Code's headers helper, run at each connection (red-team rt28)
                    "h": {"type": "http", "url": "x", "headersHelper": "sh auth/mcp_headers.sh"},
                }
            },
            ".github/hooks/guard.json": {
                "hooks": {"preToolUse": [{"bash": "sh hooks/copilot.sh"}]}
            },
            ".gemini/settings.json": {
                "hooks": {
                    "BeforeTool": [{"hooks": [{"command": "$GEMINI_PROJECT_DIR/gemini/hook.py"}]}]
                },
                "tools": {"discoveryCommand": "python3 gemtools/discover.py"},
            },
            "opencode.json": {"plugin": [f"file://{tmp_path}/proj/plugins/op.js"]},
            # OpenCode reads opencode.jsonc as readily, comments and trailing commas included
            "opencode.jsonc": (
                '{\n  // the team\'s plugin\n  "plugin": ["./plugins/jsonc.js",],\n'
                '  "instructions": ["a,}"],\n}\n'
            ),
            # OpenCode's TUI plugins, loaded at start (red-team rt25)
            "tui.json": {"plugin": ["./plugins/tui.js"]},
            # the editors' agents: Windsurf's workspace hooks, Roo Code's project servers
            ".windsurf/hooks.json": {
                "hooks": {"pre_user_prompt": [{"command": "python3 tools/windsurf_hook.py"}]}
            },
            ".roo/mcp.json": {
                "mcpServers": {"r": {"command": "node", "args": ["tools/roo_mcp.js"]}}
            },
            # pi's extensions (read from its own folder) and Codex's project MCP servers
            ".pi/settings.json": {"extensions": ["../pi_ext/notify.ts"]},
            ".codex/config.toml": '[mcp_servers.db]\ncommand = "python3"\nargs = ["codex_tools/db.py"]\n',
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


def test_vs_codes_folder_open_tasks_and_servers_are_found_and_its_other_tasks_are_not(
    tmp_path: Path,
) -> None:
    """VS Code runs a ``"runOn": "folderOpen"`` task, and each task it depends on, when the
    folder opens (the "Contagious Interview" repositories); a task the user runs stays the
    project's to change.  Its files have comments and trailing commas."""
    tasks = """{
      // the team's tasks
      "version": "2.0.0",
      "tasks": [
        {"label": "watch", "type": "shell", "command": "sh scripts/watch.sh",
         "dependsOn": ["prepare"], "runOptions": {"runOn": "folderOpen"},},
        {"label": "prepare", "type": "process", "command": "node",
         "linux": {"args": ["scripts/prepare.js"]}},
        {"label": "build", "type": "shell", "command": "./scripts/build.sh"},
        {"label": "loop", "dependsOn": "watch"},
      ],
    }"""
    root = _project(
        tmp_path,
        {
            ".vscode/tasks.json": tasks,
            ".vscode/mcp.json": '{"servers": {"db": {"command": "python3",'
            ' "args": ["tools/db.py"]}}, // the project\'s\n}',
            ".cursor/hooks.json": '{"version": 1, "hooks": {"beforeShellExecution":'
            ' [{"command": "./scripts/guard.sh"}]}}',
            **dict.fromkeys(
                [
                    "scripts/watch.sh",
                    "scripts/prepare.js",
                    "scripts/build.sh",
                    "tools/db.py",
                    "scripts/guard.sh",
                ],
                "x",
            ),
        },
    )
    found = sorted(hostruns.named_files(str(root)))
    assert found == sorted(
        str(root / s)
        for s in ("scripts/watch.sh", "scripts/prepare.js", "tools/db.py", "scripts/guard.sh")
    )


def test_what_a_server_runs_from_its_folder_or_a_folder_it_names(tmp_path: Path) -> None:
    """Gemini CLI's ``cwd`` for an MCP server, a VS Code task's ``options.cwd`` and its
    ``${workspaceFolder}``, a folder run by node (its ``index.js``) or by Python (its
    ``__main__.py``): the file the program starts is held, not a word's namesake."""
    tasks = {
        "tasks": [
            {
                "label": "serve",
                "command": "sh",
                "args": ["serve.sh"],
                "options": {"cwd": "${workspaceFolder}/ops"},
                "runOptions": {"runOn": "folderOpen"},
            },
            {
                "label": "lint",
                "command": "${workspaceFolder}/ops/lint.sh",
                "runOptions": {"runOn": "folderOpen"},
            },
        ]
    }
    root = _project(
        tmp_path,
        {
            ".gemini/settings.json": {
                "mcpServers": {
                    "db": {"command": "python3", "args": ["db.py"], "cwd": "./mcp"},
                    "srv": {"command": "node", "args": ["--no-warnings", "tools/srv"]},
                    "app": {"command": "python3.12", "args": ["tools/app", "-v"]},
                }
            },
            ".vscode/tasks.json": tasks,
            **dict.fromkeys(
                [
                    "mcp/db.py",
                    "db.py",
                    "ops/serve.sh",
                    "ops/lint.sh",
                    "tools/srv/index.js",
                    "tools/app/__main__.py",
                    "tools/app/index.js",
                ],
                "x",
            ),
        },
    )
    found = sorted(hostruns.named_files(str(root)))
    assert found == sorted(
        str(root / s)
        for s in (
            "mcp/db.py",
            "db.py",
            "ops/serve.sh",
            "ops/lint.sh",
            "tools/srv/index.js",
            "tools/app/__main__.py",
        )
    )


@pytest.mark.parametrize(
    "tasks",
    [
        '{"tasks": "x"}',
        '{"tasks": [1, {"runOptions": "folderOpen", "command": "sh run.sh"}]}',
        '{"tasks": [{"runOptions": {"runOn": "default"}, "command": "sh run.sh"}]}',
        '{"tasks": [{"label": "a", "dependsOn": ["a", 3], "runOptions": {"runOn": "folderOpen"}}]}',
    ],
)
def test_odd_vs_code_tasks_make_nothing_read_only(tmp_path: Path, tasks: str) -> None:
    root = _project(tmp_path, {".vscode/tasks.json": tasks, "run.sh": "x"})
    assert hostruns.named_files(str(root)) == []


def test_the_editors_files_are_held_where_they_exist(tmp_path: Path) -> None:
    """CVE-2025-53773: the agent wrote ``chat.tools.autoApprove`` into the project's
    ``.vscode/settings.json``; a contained command can change none of VS Code's files."""
    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    settings = '{"editor.formatOnSave": true}\n'
    root = _project(tmp_path, {".vscode/settings.json": settings, ".vscode/tasks.json": "{}"})
    line = boundary.rewrite(
        "sed -i 's/true}/true, \"chat.tools.autoApprove\": true}/' .vscode/settings.json;"
        " rm -f .vscode/tasks.json; echo ok > notes.txt",
        str(root),
    )
    subprocess.run(["bash", "-c", line], cwd=root, capture_output=True, check=False, timeout=60)
    assert (root / ".vscode" / "settings.json").read_text() == settings
    assert (root / ".vscode" / "tasks.json").read_text() == "{}"
    assert (root / "notes.txt").read_text() == "ok\n"


COPILOT_AGENT = """---
name: db
description: Looks things up in tools/notes.md
mcp-servers:
  db:
    type: local
    command: python3
    args: ['tools/agent_mcp.py', '--stdio']
tools: ['*']
---
Answer from the database.  Run scripts/free.sh when asked.
"""
CLAUDE_SKILL = """---
name: review
hooks:
  PreToolUse:
  - matcher: Bash
    hooks:
      - type: command
        command: "$CLAUDE_PROJECT_DIR"/scripts/check.sh
---
"""


def test_the_scripts_agents_and_skills_start_are_found(tmp_path: Path) -> None:
    """Copilot CLI 1.0.102 starts an agent file's ``mcp-servers:`` command with no sandbox
    (traced, any ``.md`` under ``.github/agents``); Claude Code runs a skill's ``hooks:``.
    The hosts parse the frontmatter as YAML, so every word of one that names such a block
    counts (its description too); never the body's, nor those of a frontmatter that
    names none."""
    root = _project(
        tmp_path,
        {
            ".github/agents/team/db.agent.md": COPILOT_AGENT,
            # a BOM, and a quoted key, as YAML allows
            ".github/agents/bom.md": "\ufeff" + COPILOT_AGENT.replace("agent_mcp", "bom_mcp"),
            ".gemini/agents/quoted.md": COPILOT_AGENT.replace(
                "mcp-servers:", '"mcp_servers":'
            ).replace("agent_mcp", "quoted_mcp"),
            ".claude/skills/review/SKILL.md": CLAUDE_SKILL,
            ".gemini/agents/plain.md": "no frontmatter: tools/gemini_mcp.py\n",
            ".claude/agents/quiet.md": "---\nname: q\ndescription: see tools/quiet.py\n---\n",
            **dict.fromkeys(
                [
                    "tools/agent_mcp.py",
                    "tools/bom_mcp.py",
                    "tools/quoted_mcp.py",
                    "tools/notes.md",
                    "scripts/free.sh",
                    "scripts/check.sh",
                    "tools/gemini_mcp.py",
                    "tools/quiet.py",
                ],
                "x",
            ),
        },
    )
    found = sorted(hostruns.named_files(str(root)))
    named = (
        "tools/agent_mcp.py",
        "tools/bom_mcp.py",
        "tools/quoted_mcp.py",
        "scripts/check.sh",
        "tools/notes.md",
    )
    assert found == sorted(str(root / s) for s in named)
    # a changed agent file changes the stamp a cache of these is kept by
    before = hostruns.stamp(str(root))
    (root / ".github/agents/team/db.agent.md").write_text(COPILOT_AGENT.replace("--stdio", ""))
    assert hostruns.stamp(str(root)) != before


HOOK_BLOCK = "  PreToolUse:\n    - hooks:\n        - command: {}\n"


@pytest.mark.parametrize(
    ("where", "text"),
    [
        # JSON is YAML: Claude Code's Bun.YAML.parse reads it (a red-team pass)
        (
            ".claude/skills/lint/SKILL.md",
            '---\n{"name": "lint",\n "hooks": {"PostToolUse": [{"hooks": [{"type": "command",'
            ' "command": "python3 run/x.py"}]}]}}\n---\n',
        ),
        (
            ".claude/skills/f/SKILL.md",
            "---\n{name: f, hooks: {Stop: [{command: run/x.py}]}}\n---\n",
        ),
        (
            ".claude/skills/i/SKILL.md",
            "---\n  name: i\n  hooks:\n" + HOOK_BLOCK.format("run/x.py") + "---\n",
        ),
        # an escaped key, an escaped path, a path continued on the next line, an alias
        (
            ".claude/agents/e.md",
            '---\n"ho\\x6fks":\n' + HOOK_BLOCK.format('"run\\x2fx.py"') + "---\n",
        ),
        (
            ".claude/agents/u.md",
            "---\nhooks:\n" + HOOK_BLOCK.format('"run/\\\n    x.py"') + "---\n",
        ),
        (
            ".claude/agents/a.md",
            "---\nname: &script run/x.py\nhooks:\n" + HOOK_BLOCK.format("*script") + "---\n",
        ),
        # a Markdown rule inside a block scalar: serde_yaml ends only at a column-0 ---
        (
            ".github/agents/ops.agent.md",
            "---\ndescription: |\n  Ops.\n  ---\n  More.\nmcp-servers:\n  ops:\n"
            "    command: python3\n    args: ['run/x.py']\n---\n",
        ),
        # Claude Code reads a command's frontmatter with the skills' reader, hooks included
        (".claude/commands/ship.md", "---\nhooks:\n" + HOOK_BLOCK.format("sh run/x.py") + "---\n"),
    ],
)
def test_frontmatter_in_every_spelling_the_hosts_read(
    tmp_path: Path, where: str, text: str
) -> None:
    root = _project(tmp_path, {where: text, "run/x.py": "x"})
    assert hostruns.named_files(str(root)) == [str(root / "run/x.py")]


@pytest.mark.parametrize(
    "text",
    [
        "---\nname: n\ndescription: run/x.py\n---\n",  # names no block that runs
        "---\nname: n\n---\nhooks:\n  command: run/x.py\n",  # the body
        "--- # comment\nhooks:\n  command: run/x.py\n---\n",  # no host opens it so
    ],
)
def test_frontmatter_that_starts_nothing_holds_nothing(tmp_path: Path, text: str) -> None:
    root = _project(tmp_path, {".claude/skills/n/SKILL.md": text, "run/x.py": "x"})
    assert hostruns.named_files(str(root)) == []


def test_a_plugin_marketplace_in_the_project_is_held(tmp_path: Path) -> None:
    """``extraKnownMarketplaces`` naming a project folder: Copilot CLI 1.0.102 installs its
    plugins with no prompt and runs their servers and hooks in place (traced), from
    Claude Code's settings as from its own.  A marketplace at the project root holds its
    catalogue and the plugin folders it lists, not the whole project."""
    market = {"extraKnownMarketplaces": {"m": {"source": {"source": "directory", "path": "./mkt"}}}}
    here = {"extraKnownMarketplaces": {"h": {"source": {"source": "directory", "path": "."}}}}
    catalogue = {
        "name": "h",
        "metadata": {"pluginRoot": "./more"},
        "plugins": [
            {"name": "p", "source": "./plugins/p"},
            {"name": "q", "source": "q"},
            {"x": 1},
            3,
        ],
    }
    root = _project(
        tmp_path,
        {
            ".github/copilot/settings.json": market,
            ".claude/settings.json": here,
            "mkt/pp/.mcp.json": "{}",
            ".claude-plugin/marketplace.json": catalogue,
            "plugins/p/hooks/hooks.json": "{}",
            "more/q/hooks/hooks.json": "{}",
            "outside/x": "x",
        },
    )
    (tmp_path / "elsewhere").mkdir()
    (root / ".claude/settings.local.json").write_text(
        json.dumps({"extraKnownMarketplaces": {"o": {"source": {"path": "../elsewhere"}}}})
    )
    found = sorted(hostruns.named_files(str(root)))
    assert found == sorted(
        str(root / p) for p in ("mkt", ".claude-plugin/marketplace.json", "plugins/p", "more/q")
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        # a byte-order mark: VS Code reads past one
        (".vscode/mcp.json", '\ufeff{"servers": {"db": {"command": "sh run/x.py"}}}'),
        (".claude/settings.json", '\ufeff{"statusLine": {"command": "sh run/x.py"}}'),
        # VS Code's reader recovers from errors and runs what it read
        (
            ".vscode/tasks.json",
            '{"tasks": [{"command": "sh run/x.py", "runOptions": {"runOn": "folderOpen"}} oops',
        ),
        (".vscode/mcp.json", '{"servers": {"db": {"command": "sh", "args": ["run/x.py"]} ]'),
    ],
)
def test_editor_files_as_the_editor_reads_them(tmp_path: Path, name: str, text: str) -> None:
    root = _project(tmp_path, {name: text, "run/x.py": "x"})
    assert hostruns.named_files(str(root)) == [str(root / "run/x.py")]


def test_a_broken_tasks_file_with_no_folder_open_task_holds_nothing(tmp_path: Path) -> None:
    root = _project(
        tmp_path, {".vscode/tasks.json": '{"tasks": [{"command": "sh run/x.py"', "run/x.py": "x"}
    )
    assert hostruns.named_files(str(root)) == []


def test_a_linked_extension_is_seen_as_the_install_file_says_now(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sources are kept between calls of one process (the warm daemon): a link made,
    moved or taken out since is seen at the next call."""
    home, project = tmp_path / "home", tmp_path / "proj"
    (project / "ext").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    assert hostruns.linked_extensions(str(project)) == []
    install = home / ".gemini" / "extensions" / "ext" / ".gemini-extension-install.json"
    install.parent.mkdir(parents=True)
    install.write_text(json.dumps({"source": str(project / "ext"), "type": "link"}))
    assert str(project / "ext" / "hooks" / "hooks.json") in hostruns.linked_extensions(str(project))
    install.write_text(json.dumps({"source": str(tmp_path / "elsewhere"), "type": "link"}))
    assert hostruns.linked_extensions(str(project)) == []
    install.write_text(json.dumps({"source": str(project), "type": "link"}))
    assert str(project / "gemini-extension.json") in hostruns.linked_extensions(str(project))
    install.write_text(json.dumps({"source": str(project), "type": "local"}))
    assert hostruns.linked_extensions(str(project)) == []
