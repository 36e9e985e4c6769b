"""agentreflex's own files, by effect: every route that changes them asks the user.

Real files on disk (a project, a home with Claude/Codex settings, the key, a
symlinked and a hard-linked alias), judged by ``check_command`` and by
``GateReflex`` for the file and MCP tools.  Each route must answer ASK_USER
(or stricter) with a ``GATE-SELF-*`` finding naming the file; ordinary work
must stay ALLOW.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.gate import analyze
from agentreflex.gate.check import check_command
from agentreflex.gate.reflex import GateReflex
from agentreflex.gate.rules import protected, selfguard
from agentreflex.gate.shell.paths import Where


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    proj = home / "proj"
    (proj / ".git").mkdir(parents=True)
    (proj / "src").mkdir()
    (proj / "src" / "app.py").write_text("print(1)\n")
    (proj / ".agentreflex").mkdir()
    config = proj / ".agentreflex" / "config.toml"
    config.write_text('profile = "strict"\n')
    (home / ".claude" / "plugins").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text("{}\n")
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text("")
    state = home / ".local" / "state" / "agentreflex"
    state.mkdir(parents=True)
    (state / "key").write_text("k" * 32)
    (proj / "alias").symlink_to(proj / ".agentreflex")  # a symlinked alias
    os.link(config, proj / "notes.toml")  # a hard-linked alias
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_PLUGIN_DATA", raising=False)
    monkeypatch.setenv("HOME", str(home))
    protected._PROTECTED.clear()
    return {"home": home, "proj": proj, "config": config}


def _check(world: dict[str, Path], command: str, cwd: Path | None = None) -> tuple[str, list[Any]]:
    proj = str(world["proj"])
    return check_command(
        command, cwd=str(cwd or proj), home=str(world["home"]), project=proj, budget_s=5.0
    )


def _asks(world: dict[str, Path], command: str, names: str, code: str = selfguard.RULE) -> None:
    verdict, proposals = _check(world, command)
    assert verdict in ("ASK_USER", "BLOCK"), (command, verdict)
    rules = [r for p in proposals for r in p.rules]
    assert code in rules, (command, rules)
    asked = [p for p in proposals if p.verdict == "ASK_USER"]
    assert asked and asked[0].code == code, (command, [p.code for p in proposals])
    assert names in asked[0].message, (command, asked[0].message)


# --- each write route ---------------------------------------------------------------

ROUTES = [
    # files git itself writes
    ("git show HEAD:x --output=.agentreflex/config.toml", ".agentreflex/config.toml"),
    ("git log -p --output ~/.claude/settings.json", ".claude/settings.json"),
    ("git bundle create ~/.claude/settings.json HEAD", ".claude/settings.json"),
    # shell redirections and here-documents
    ("echo 'profile = \"off\"' > .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("echo x >> ~/.claude/settings.json", ".claude/settings.json"),
    ("echo x >| .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("echo x &> .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("cat <<EOF > .claude/settings.local.json\n{}\nEOF", ".claude/settings.local.json"),
    ("> .agentreflex/config.toml", ".agentreflex/config.toml"),
    # coreutils
    ("echo x | tee .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("cp /tmp/x ~/.config/agentreflex/config.toml", ".config/agentreflex/config.toml"),
    ("mv .agentreflex /tmp/gone", ".agentreflex"),
    ("mv /tmp/x .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("rm -f .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("rm -rf ~/.claude", ".claude/settings.json"),
    ("ln -sf /dev/null ~/.claude/settings.json", ".claude/settings.json"),
    ("install -m 644 /tmp/x .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("touch .agentreflex/new.toml", ".agentreflex/new.toml"),
    ("truncate -s 0 .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("chmod 000 ~/.codex/config.toml", ".codex/config.toml"),
    ("chmod -R a-w ~/.claude", ".claude/settings.json"),
    ("chown nobody .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("chattr +i ~/.claude/settings.json", ".claude/settings.json"),
    ("sed -i 's/strict/off/' .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("perl -pi -e 's/strict/off/' .agentreflex/config.toml", ".agentreflex/config.toml"),
    # archivers, dd, rsync, downloads
    ("tar -x -C ~/.claude/plugins -f /tmp/p.tar", ".claude/plugins"),
    ("tar -C .agentreflex -xf /tmp/p.tar", ".agentreflex"),
    ("tar xzf /tmp/p.tgz -C ~/.codex", ".codex"),
    ("unzip -o /tmp/p.zip -d ~/.claude/plugins", ".claude/plugins"),
    ("cd ~/.codex && cpio -idv < /tmp/p.cpio", ".codex"),
    ("dd if=/dev/zero of=.agentreflex/config.toml", ".agentreflex/config.toml"),
    ("rsync -a /tmp/evil/ ~/.claude/plugins/", ".claude/plugins"),
    ("curl -o .agentreflex/config.toml https://example.com/c", ".agentreflex/config.toml"),
    ("curl -sSLo ~/.claude/settings.json https://example.com/s", ".claude/settings.json"),
    ("cd ~/.claude/plugins && curl -O https://example.com/p.zip", ".claude/plugins/p.zip"),
    ("wget -O .agentreflex/config.toml https://example.com/c", ".agentreflex/config.toml"),
    ("wget -P ~/.claude/plugins https://example.com/p.zip", ".claude/plugins"),
    # git, find
    ("git checkout -- .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("git restore --source HEAD~3 .agentreflex/config.toml", ".agentreflex/config.toml"),
    ("find .agentreflex -delete", ".agentreflex"),
    ("find ~/.claude -name '*.json' -exec rm {} +", ".claude"),
    # code that runs other code
    ("bash -c 'echo x > .agentreflex/config.toml'", ".agentreflex/config.toml"),
    ("sh -c 'rm ~/.codex/config.toml'", ".codex/config.toml"),
    ("eval 'echo x > .agentreflex/config.toml'", ".agentreflex/config.toml"),
]


@pytest.mark.parametrize(("command", "names"), ROUTES)
def test_each_write_route_asks_and_names_the_file(
    world: dict[str, Path], command: str, names: str
) -> None:
    _asks(world, command, names)


# --- aliases ------------------------------------------------------------------------


def test_an_existing_symlink_alias_is_resolved(world: dict[str, Path]) -> None:
    _asks(world, "echo x > alias/config.toml", ".agentreflex/config.toml")
    _asks(world, "rm alias/config.toml", ".agentreflex/config.toml")


def test_a_hard_link_alias_is_found_by_inode(world: dict[str, Path]) -> None:
    _asks(world, "echo 'profile = \"off\"' > notes.toml", ".agentreflex/config.toml")


def test_creating_a_link_to_a_protected_file_asks(world: dict[str, Path]) -> None:
    _asks(world, "ln -s .agentreflex/config.toml mine.toml", ".agentreflex/config.toml")
    _asks(world, "ln .agentreflex/config.toml hard.toml", ".agentreflex/config.toml")
    _asks(world, "ln -s ../.agentreflex src/cfg", ".agentreflex")
    _asks(world, "cp -l ~/.claude/settings.json s.json", ".claude/settings.json")


def test_cwd_changes_and_dotdot_are_followed(world: dict[str, Path]) -> None:
    _asks(world, "cd src && echo x > ../.agentreflex/config.toml", ".agentreflex/config.toml")
    _asks(world, "cd .. && cd proj/.agentreflex && rm config.toml", ".agentreflex/config.toml")
    _asks(world, "cd && echo x > .claude/settings.json", ".claude/settings.json")


def test_tilde_user_is_that_users_home(world: dict[str, Path]) -> None:
    me = pwd.getpwuid(os.getuid())
    proj = str(world["proj"])
    verdict, proposals = check_command(
        f"cp /tmp/x ~{me.pw_name}/.claude/settings.json",
        cwd=proj,
        home=me.pw_dir,
        project=proj,
    )
    assert verdict in ("ASK_USER", "BLOCK")
    assert any(selfguard.RULE in p.rules for p in proposals)


@pytest.mark.parametrize(
    "command",
    [
        "rm .agentr*/config.toml",
        "rm .agent?eflex/*",
        "rm {.agentreflex,x}/config.toml",
        "echo x > .agentr[e]flex/config.toml",
        "cp /tmp/x ~/.cl*/settings.json",
    ],
)
def test_globs_and_braces_expand_and_match_by_name(world: dict[str, Path], command: str) -> None:
    _asks(world, command, ".")


def test_glob_patterns_match_protected_names_that_do_not_exist_yet(world: dict[str, Path]) -> None:
    where = Where(cwd="/nowhere/p", project="/nowhere/p", home="/nowhere")
    assert protected.reached(".agentr*/config.toml", protected.WRITE, where, where.cwd)
    assert not protected.reached("*.json", protected.WRITE, where, where.cwd)
    assert not protected.reached("*/config.toml", protected.WRITE, where, where.cwd)


def test_archives_unpacked_above_a_protected_folder_are_listed(world: dict[str, Path]) -> None:
    archive = world["home"] / "p.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(".claude/settings.json", '{"disableAllHooks": true}')
    _asks(world, f"unzip -o {archive} -d ~", ".claude/settings.json")
    harmless = world["home"] / "q.zip"
    with zipfile.ZipFile(harmless, "w") as zf:
        zf.writestr("docs/readme.txt", "hi")
    assert _check(world, f"unzip -o {harmless} -d ~/work")[0] == "ALLOW"


def test_rsync_of_a_tree_holding_host_settings_into_home_asks(world: dict[str, Path]) -> None:
    src = world["home"] / "backup"
    (src / ".claude").mkdir(parents=True)
    (src / ".claude" / "settings.json").write_text("{}")
    _asks(world, f"rsync -a {src}/ ~/", ".claude/settings.json")


# --- interpreter code ---------------------------------------------------------------

CODE_ROUTES = [
    "python3 -c \"open('.agentreflex/config.toml','w').write('profile = \\\"off\\\"')\"",
    "python3 - <<EOF\nimport os\nos.remove('.agentreflex/config.toml')\nEOF",
    "python -c \"import pathlib; pathlib.Path('.agentreflex/config.toml').write_text('')\"",
    "python3 -c \"import shutil; shutil.copy('/tmp/x', '.agentreflex/config.toml')\"",
    "python3 -c \"import os; os.rename('/tmp/x', os.path.expanduser('~/.claude/settings.json'))\"",
    "node -e \"require('fs').writeFileSync(process.env.HOME+'/.claude/settings.json','{}')\"",
    "perl -e 'open(F, \">.agentreflex/config.toml\"); print F 1'",
    'ruby -e \'File.write(".agentreflex/config.toml", "x")\'',
    # the path is built at run time: the fragments are enough
    "python3 -c \"import os; p=os.path.join('.agent'+'reflex','config.toml'); open(p,'w')\"",
    "python3 -c \"import os,glob; [os.remove(p) for p in glob.glob(os.environ['HOME']+'/.codex/*')]\"",
    # the file handed to the code as an argument
    "perl -e 'open(F, \">\", $ARGV[0]); print F 1' .agentreflex/config.toml",
    "ruby -e 'File.write(ARGV[0], \"x\")' ~/.claude/settings.json",
    "awk -v f=.agentreflex/config.toml 'BEGIN { print \"x\" > f }'",
    "awk '{print > \"/tmp/x\"}' .agentreflex/config.toml",
    "gawk -f /tmp/prog.awk .agentreflex/config.toml",
]

CODE_ELSEWHERE = [
    # awk that only reads: no redirection, pipe or system() in a program written out
    "awk '{print $1}' .agentreflex/config.toml",
    "awk -F= '/mode/ {print $2}' .agentreflex/config.toml",
    "git diff --output=/tmp/d.patch",
    "git format-patch -o patches HEAD~3",
    "git bundle create /tmp/repo.bundle --all",
    "perl -e 'open(F, \">\", $ARGV[0]); print F 1' out.txt",
    "awk -v f=out.txt 'BEGIN { print \"x\" > f }'",
    "perl -ne 'print if /hooks/' ~/.claude/settings.json",
]


@pytest.mark.parametrize("command", CODE_ELSEWHERE)
def test_code_that_writes_other_files_or_only_reads_stays_allowed(
    world: dict[str, Path], command: str
) -> None:
    _, proposals = _check(world, command)
    assert not any(selfguard.RULE in p.rules for p in proposals), (command, proposals)


@pytest.mark.parametrize("command", CODE_ROUTES)
def test_interpreter_code_that_writes_a_protected_file_asks(
    world: dict[str, Path], command: str
) -> None:
    verdict, proposals = _check(world, command)
    assert verdict in ("ASK_USER", "BLOCK"), command
    assert any(selfguard.RULE in p.rules for p in proposals), command


# --- uninstalling and disabling -----------------------------------------------------

DISABLE = [
    "pip uninstall -y agentreflex-gate",
    "pip3 uninstall agentreflex",
    "python -m pip uninstall agentreflex_core",
    "python3 -m pip uninstall -y agentreflex-judge2",
    "uv pip uninstall agentreflex-gate",
    "uv tool uninstall agentreflex",
    "pipx uninstall agentreflex",
    "pipx uninstall-all",
    "uv tool uninstall --all",
    "claude plugin disable agentreflex@agentreflex",
    "claude plugin uninstall agentreflex",
    "claude plugin remove agentreflex@agentreflex",
    "claude plugin marketplace remove agentreflex",
    "claude config set -g disableAllHooks true",
    "agentreflex trust",
    "agentreflex trust --revoke",
    "agentreflex state acknowledge --session s1",
    "uv run agentreflex trust",
    "agentreflex uninstall",
]


@pytest.mark.parametrize("command", DISABLE)
def test_uninstalling_or_disabling_asks(world: dict[str, Path], command: str) -> None:
    _asks(world, command, "agentreflex", code=selfguard.RULE_DISABLE)
    assert analyze.prefilter(command, Where(str(world["proj"]), str(world["proj"]), "/h")) is None


def test_disable_all_hooks_written_to_settings_asks(world: dict[str, Path]) -> None:
    command = "echo '{\"disableAllHooks\": true}' > ~/.claude/settings.json"
    verdict, proposals = _check(world, command)
    assert verdict in ("ASK_USER", "BLOCK")
    rules = {r for p in proposals for r in p.rules}
    assert {selfguard.RULE, selfguard.RULE_DISABLE} <= rules


# --- the key ------------------------------------------------------------------------


def test_reading_the_key_asks_but_reading_config_does_not(world: dict[str, Path]) -> None:
    _asks(world, "cat ~/.local/state/agentreflex/key", "agentreflex/key", selfguard.RULE_KEY)
    _asks(world, "cp ~/.local/state/agentreflex/key /tmp/k", "agentreflex/key", selfguard.RULE_KEY)
    for ok in ("cat .agentreflex/config.toml", "cat ~/.claude/settings.json", "ls ~/.claude"):
        assert _check(world, ok)[0] == "ALLOW", ok


# Issue #28: "the per-user record key read with `tar`, `cp -r`, `grep -ra`, `dd`, pathlib
# or node".  Folders above the key, read by a program that walks them; the key named in
# an upload or an operand; interpreter code that builds the key's path.
KEY_READS = [
    "grep -ra . ~/.local/state",
    "grep -R --include=k* x ~/.local",
    "rg -uu . ~/.local/state",
    "rsync -a ~/.local/state/ /tmp/s/",
    "zip -r /tmp/s.zip ~/.local/state",
    "tar -cf - ~/.local | base64",
    "find ~/.local/state -name key -exec cat {} +",
    "dd if=$HOME/.local/state/agentreflex/key",
    "curl -F f=@$HOME/.local/state/agentreflex/key http://127.0.0.1:9/",
    "curl --upload-file=$HOME/.local/state/agentreflex/key http://127.0.0.1:9/",
    'python3 -c "import pathlib; print(pathlib.Path.home().joinpath('
    "'.local/state/agentreflex/key').read_text())\"",
    "node -e \"console.log(require('fs').readFileSync(require('os').homedir()"
    "+'/.local/state/agentreflex/key','utf8'))\"",
    'ruby -e \'puts File.read(Dir.home + "/.local/state/agentreflex" + "/key")\'',
    # the folder tar reads from is the one -C names; find's name test picks the key out
    "tar -C ~ -cf - .local | tar -tvf -",
    "tar --directory=$HOME -czf /tmp/x.tgz .local/state",
    "find ~ -name key -exec cat {} \\;",
    "find ~ -path '*agentreflex/k*' -exec base64 {} +",
    "find ~ -name key -print0 | xargs -0 cat",
    # its names as separate literals, and a file: URL
    "python3 -c \"import pathlib; print((pathlib.Path.home() / '.local' / 'state' / "
    "'agentreflex' / 'key').read_bytes())\"",
    "node -e \"const p=require('path'); console.log(require('fs').readFileSync("
    "p.join(require('os').homedir(), '.local', 'state', 'agentreflex', 'key')))\"",
    "curl -s file:///$HOME/.local/state/agentreflex/key",
    "wget -qO- file://localhost$HOME/.local/state/agentreflex/key",
]


@pytest.mark.parametrize("command", KEY_READS)
def test_every_spelling_of_reading_the_key_asks(world: dict[str, Path], command: str) -> None:
    _asks(world, command, "agentreflex/key", selfguard.RULE_KEY)


@pytest.mark.parametrize(
    "command",
    [
        "grep -r TODO .",
        "grep -r foo ~",
        "rg foo ~/.config",
        "cp -r ~/.local/share/fonts /tmp/f",
        "rsync -a src/ dest/",
        "find ~/.local/share -name '*.desktop' -exec cat {} +",
        "curl -d @payload.json http://127.0.0.1:8000/",
        "git log --author=a@b.com",
        "dd if=/dev/zero of=blank.img bs=1M count=1",
        "python3 -c \"print('agentreflex')\"",
        "python3 -c \"open('docs/agentreflex/keyboard.md').read()\"",
        "tar -C ~ -cf /tmp/p.tar proj",
        "tar -C /tmp -czf out.tgz build",
        "find ~ -name '*.py' -exec grep -l TODO {} +",
        "find ~ -type f -exec grep -l TODO {} +",
        "find . -name key -exec cat {} +",
        "find ~ -name key",
        "python3 -c \"print(['agentreflex', 'keys'])\"",
        "curl -s file:///etc/hostname",
    ],
)
def test_reads_that_do_not_reach_the_key_stay_allowed(world: dict[str, Path], command: str) -> None:
    _, proposals = _check(world, command)
    assert not any(selfguard.RULE_KEY in p.rules for p in proposals), (command, proposals)


# --- file tools ---------------------------------------------------------------------


def _tool(world: dict[str, Path], name: str, tool_input: dict[str, Any]) -> list[Any]:
    event = pre_tool(name, tool_input, cwd=str(world["proj"]))
    return GateReflex().evaluate(make_context(event))


def _tool_asks(findings: list[Any], names: str, code: str = selfguard.RULE) -> None:
    asked = [f for f in findings if f.verdict is Verdict.ASK_USER]
    assert asked and asked[0].code == code, findings
    assert names in asked[0].message


def test_file_tools_ask(world: dict[str, Path]) -> None:
    proj, home = world["proj"], world["home"]
    cfg = str(proj / ".agentreflex" / "config.toml")
    settings = str(home / ".claude" / "settings.json")
    _tool_asks(_tool(world, "Write", {"file_path": cfg, "content": "x"}), cfg)
    edit = {"file_path": settings, "old_string": "{}", "new_string": '{"disableAllHooks":1}'}
    _tool_asks(_tool(world, "Edit", edit), settings)
    multi = {"file_path": cfg, "edits": [{"old_string": "strict", "new_string": "off"}]}
    _tool_asks(_tool(world, "MultiEdit", multi), cfg)
    nb = {"notebook_path": str(proj / "alias" / "n.ipynb"), "new_source": "x"}
    _tool_asks(_tool(world, "NotebookEdit", nb), ".agentreflex/n.ipynb")
    _tool_asks(_tool(world, "Write", {"file_path": str(proj / "notes.toml"), "content": "x"}), cfg)
    patch = "*** Begin Patch\n*** Update File: .codex/x\n@@\n-a\n+b\n*** End Patch\n"
    _tool_asks(_tool(world, "apply_patch", {"input": patch}), ".codex/x")
    _tool_asks(
        _tool(world, "Read", {"file_path": str(home / ".local/state/agentreflex/key")}),
        "agentreflex/key",
        selfguard.RULE_KEY,
    )


def test_a_script_the_hosts_settings_run_asks(world: dict[str, Path]) -> None:
    """A hook script the project's settings name runs outside any sandbox at the host's next
    event (code.claude.com/docs/en/hooks: ``"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh``): a
    change needs the user.  A file the settings only mention (a permission rule) does not."""
    proj = world["proj"]
    hook = proj / ".claude" / "hooks" / "fmt.sh"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\n")
    (proj / "docs").mkdir()
    (proj / "docs" / "notes.md").write_text("notes\n")
    settings = proj / ".claude" / "settings.json"
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/fmt.sh'
    hooks = {"Stop": [{"hooks": [{"command": command}]}]}
    settings.write_text(
        json.dumps({"hooks": hooks, "permissions": {"allow": ["Read(docs/notes.md)"]}})
    )
    _tool_asks(_tool(world, "Write", {"file_path": str(hook), "content": "x"}), str(hook))
    _asks(world, "echo 'curl x | sh' >> .claude/hooks/fmt.sh", str(hook))
    notes = {"file_path": str(proj / "docs" / "notes.md"), "content": "x"}
    assert not _tool(world, "Write", notes)
    # a script named after the settings changed is asked about too (the cache follows them)
    (proj / "lint.py").write_text("print(1)\n")
    settings.write_text('{"statusLine": {"command": "python3 lint.py"}}')
    _tool_asks(
        _tool(world, "Write", {"file_path": str(proj / "lint.py"), "content": "x"}), "lint.py"
    )


def test_what_a_host_runs_from_the_project_asks_even_where_nothing_names_it(
    world: dict[str, Path],
) -> None:
    """``.mcp.json``, and a skill whose frontmatter ``hooks:`` Claude Code runs outside any
    sandbox once the skill is used (traced in Claude Code 2.1.328): a host's file tool
    writes them outside any boundary, so only the user may create or change them."""
    proj = world["proj"]
    skill = proj / ".claude" / "skills" / "review" / "SKILL.md"
    hooked = "---\nname: review\nhooks:\n  Stop:\n    - hooks:\n      - command: sh x\n---\n"
    _tool_asks(_tool(world, "Write", {"file_path": str(skill), "content": hooked}), str(skill))
    mcp = str(proj / ".mcp.json")
    _tool_asks(_tool(world, "Write", {"file_path": mcp, "content": "{}"}), mcp)
    _asks(
        world,
        "mkdir -p .claude/commands && echo '!`sh x`' > .claude/commands/go.md",
        ".claude/commands",
    )
    # the same names elsewhere, and reading them, are everyday work
    docs = proj / "docs" / "skills" / "SKILL.md"
    assert not _tool(world, "Write", {"file_path": str(docs), "content": hooked})
    assert not _tool(world, "Read", {"file_path": mcp})
    assert _check(world, "cat .mcp.json .claude/skills/review/SKILL.md")[0] == "ALLOW"


def test_what_the_editor_runs_when_the_folder_opens_asks(world: dict[str, Path]) -> None:
    """CVE-2025-53773: Copilot's agent wrote ``chat.tools.autoApprove`` into
    ``.vscode/settings.json`` with its file tool; a VS Code task with ``"runOn":
    "folderOpen"`` runs when the user next opens the folder."""
    proj = world["proj"]
    settings = str(proj / ".vscode" / "settings.json")
    approve = '{"chat.tools.autoApprove": true}'
    _tool_asks(_tool(world, "Write", {"file_path": settings, "content": approve}), settings)
    _asks(world, "mkdir -p .vscode && echo '{}' > .vscode/tasks.json", ".vscode/tasks.json")
    # reading them, and the rest of the folder (a launch configuration), are everyday work
    launch = str(proj / ".vscode" / "launch.json")
    assert not _tool(world, "Write", {"file_path": launch, "content": "{}"})
    assert not _tool(world, "Read", {"file_path": settings})


def test_mcp_file_tools_ask(world: dict[str, Path]) -> None:
    cfg = str(world["proj"] / ".agentreflex" / "config.toml")
    write = _tool(world, "mcp__filesystem__write_file", {"path": cfg, "content": "x"})
    _tool_asks(write, cfg)
    move = {"source": "/tmp/x", "destination": str(world["home"] / ".codex" / "config.toml")}
    _tool_asks(_tool(world, "mcp__fs__move_file", move), ".codex/config.toml")
    read = _tool(world, "mcp__filesystem__read_text_file", {"path": cfg})
    assert all(f.verdict is Verdict.ALLOW for f in read)


# --- ordinary work stays allowed ----------------------------------------------------

ORDINARY = [
    "echo x > src/a.py",
    "sed -i 's/a/b/' src/app.py",
    "rm -rf build dist",
    "pip install -e .",
    "uv pip install agentreflex-gate",
    "touch src/new.py",
    "mkdir -p build/out",
    "echo x > ~/.cache/pip/x",
    "rm -rf ~/.cache/agentreflex",
    "find ~/.cache -name '*.o' -delete",
    "find . -name '*.pyc' -delete",
    "python3 -c \"import json; print(json.load(open('.claude/settings.json')))\"",
    "python3 -c \"open('out.txt','w').write('x')\"",
    "python -c \"import shutil; print(shutil.disk_usage('/'))\"",
    "tar xzf /tmp/x.tgz",
    "git checkout main",
    "cp -r src /tmp/copy",
    "rm *.json",
    "pip uninstall requests",
    "claude plugin disable other-plugin",
    "claude plugin install agentreflex@agentreflex",
    "agentreflex trust --show",
    "agentreflex doctor",
    "curl -O https://example.com/x.tgz",
    "grep -r agentreflex src",
    "git rm --cached -r .",
    "git rm -nrf .",
    "cat .claude/settings.json",
]


@pytest.mark.parametrize("command", ORDINARY)
def test_ordinary_work_stays_allowed(world: dict[str, Path], command: str) -> None:
    verdict, proposals = _check(world, command)
    assert verdict in ("ALLOW", "WARN"), (command, proposals)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


def test_reading_host_settings_with_a_file_tool_is_allowed(world: dict[str, Path]) -> None:
    settings = str(world["proj"] / ".claude" / "settings.json")
    assert all(f.verdict is Verdict.ALLOW for f in _tool(world, "Read", {"file_path": settings}))
    src = str(world["proj"] / "src" / "app.py")
    write = _tool(world, "Write", {"file_path": src, "content": "print(2)\n"})
    assert all(f.verdict is Verdict.ALLOW for f in write)


def test_self_protection_cannot_be_allow_listed(world: dict[str, Path]) -> None:
    allow = world["proj"] / ".agentreflex" / "allow.toml"
    allow.write_text('[[allow]]\nrule = "GATE-SELF-PROTECT"\nexpires = "2999-01-01"\n')
    cfg = str(world["proj"] / ".agentreflex" / "config.toml")
    _tool_asks(_tool(world, "Write", {"file_path": cfg, "content": "x"}), cfg)


def test_an_unreadable_archive_above_a_protected_folder_asks(world: dict[str, Path]) -> None:
    broken = world["home"] / "broken.zip"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    _, proposals = _check(world, f"tar -xf {broken} -C ~")
    assert any(selfguard.RULE in p.rules for p in proposals), proposals


def test_odd_paths_fail_closed_without_an_error(world: dict[str, Path]) -> None:
    findings = _tool(world, "Write", {"file_path": "/tmp/a\x00b", "content": "x"})
    assert all(f.code != "GATE-INTERNAL-ERROR" for f in findings), findings


def test_a_custom_claude_config_dir_is_protected(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    custom = tmp_path / "claude-config"
    custom.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    _asks(world, f"echo '{{}}' > {custom}/settings.json", "claude-config/settings.json")
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    _asks(world, f"rm {tmp_path}/codex-home/hooks.json", "codex-home/hooks.json")


def test_any_projects_agentreflex_folder_is_protected(
    world: dict[str, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other-repo"
    other.mkdir()
    _asks(world, f"cd {other} && echo 'mode = 1' > .agentreflex/config.toml", "other-repo")


@pytest.mark.parametrize(
    "command",
    [
        'cp /tmp/x "$PROJ/.agentreflex/config.toml"',
        'echo x > "$SOMEWHERE/.claude/settings.json"',
        'rm -rf "$D/.codex"',
    ],
)
def test_an_unknown_folder_holding_a_protected_name_asks(
    world: dict[str, Path], command: str
) -> None:
    verdict, proposals = _check(world, command)
    assert verdict in ("ASK_USER", "BLOCK")
    assert any(selfguard.RULE in p.rules for p in proposals), proposals
    for ok in ('echo x > "$OUT/result.txt"', 'cp a "$DIR/src/x.py"'):
        assert _check(world, ok)[0] == "ALLOW", ok


def test_a_project_wide_find_that_yields_a_protected_file_asks(world: dict[str, Path]) -> None:
    (world["proj"] / "src" / "a.toml").write_text("x")
    for command in (
        "find . -name '*.toml' -exec sed -i s/strict/off/ {} +",
        "find . -name config.toml -delete",
        "find ~ -name settings.json -exec rm {} \\;",
        "find . -name '*.toml' | xargs sed -i s/strict/off/",
        "find . -name '*.toml' -print0 | xargs -0 -I{} cp /dev/null {}",
    ):
        _asks(world, command, ".")
    for command in (
        "find . -name '*.py' -exec sed -i s/a/b/ {} +",
        "find . -path '*/src/*' -name '*.toml' -delete",
        "find . -maxdepth 1 -name '*.toml' -delete",
        "find . -name '*.toml' -exec grep strict {} +",
        "find . -name '*.py' | xargs sed -i s/a/b/",
    ):
        _, proposals = _check(world, command)
        assert not any(r in selfguard.RULES for p in proposals for r in p.rules), command


# --- programs the gate has no model of ----------------------------------------------
# Issue #28's list of routes that got through on a fresh build: "tools' output
# options (`sort -o`, `openssl enc -out`, sqlite's `writefile()`)", batch
# editors, and `agentreflex install claude-code --bin /bin/true`.  Where no
# boundary holds, a program whose effects no handler describes and that names
# one of agentreflex's own files asks: the parse fails closed for them.

UNMODELLED = [
    ("sort -o ~/.claude/settings.json /dev/null", "settings.json"),
    ("openssl enc -in /dev/null -out ~/.claude/settings.json", "settings.json"),
    ("sqlite3 /tmp/x.db \"select writefile('.agentreflex/config.toml', 'x')\"", "config.toml"),
    ("vim .claude/settings.json", "settings.json"),
    ("nano -B .agentreflex/config.toml", "config.toml"),
    ("python3 tools/fix.py --out=.agentreflex/config.toml", "config.toml"),
    ("ex -sc '%d|wq' ~/.claude/settings.json", "settings.json"),
    # readers with an output: uniq's and xxd's second operand, tree's and less's -o
    ("uniq /dev/null .agentreflex/config.toml", "config.toml"),
    ("uniq -f 1 - ~/.claude/settings.json", "settings.json"),
    ("xxd -r -c 16 dump.hex .agentreflex/config.toml", "config.toml"),
    ("tree -o ~/.claude/settings.json .", "settings.json"),
    ("less -o .agentreflex/config.toml notes.txt", "config.toml"),
]


@pytest.mark.parametrize(("command", "names"), UNMODELLED)
def test_an_unmodelled_program_naming_an_own_file_asks(
    world: dict[str, Path], command: str, names: str
) -> None:
    (world["proj"] / ".claude").mkdir(exist_ok=True)
    (world["proj"] / ".claude" / "settings.json").write_text("{}\n")
    _asks(world, command, names)


def test_agentreflex_install_asks_unless_it_only_shows_the_diff(world: dict[str, Path]) -> None:
    _asks(world, "agentreflex install claude-code --bin /bin/true", "hook", selfguard.RULE_DISABLE)
    verdict, _ = _check(world, "agentreflex install claude-code --dry-run")
    assert verdict in ("ALLOW", "WARN")


@pytest.mark.parametrize(
    "command",
    [
        "openssl enc -in a.txt -out b.bin",
        "vim src/settings.json",
        "sqlite3 app.db \"select writefile('out.bin', x'00')\"",
        "jq . ~/.claude/settings.json",
        "grep -n hooks ~/.claude/settings.json",
        "python3 -c \"print(open('.agentreflex/config.toml').read())\"",
        "sort -o sorted.txt names.txt",
        "uniq .agentreflex/config.toml",
        "xxd ~/.claude/settings.json",
        "tree .agentreflex",
        "less ~/.claude/settings.json",
        "uniq names.txt unique.txt",
    ],
)
def test_unmodelled_programs_elsewhere_and_readers_stay_allowed(
    world: dict[str, Path], command: str
) -> None:
    _, proposals = _check(world, command)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


# --- a tree or a link put where agentreflex's files are looked for ------------------------
# Issue #28: "`ln -s /tmp/x .claude`", "archives extracted over home".  A folder made
# to stand at ``.claude`` (a link, a recursive copy, a move) replaces the settings
# found below it; contents that are not there to read yet (a download in the same
# command) unpacked over a folder of agentreflex's outside the project may hold anything.


@pytest.mark.parametrize(
    "template",
    [
        "ln -s {src} .claude",
        "ln -sfn {src} .claude",
        "cp -r {src} .claude",
        "cp -a {src} .claude",
        "mv {src} .claude",
        "ln -s {src} ~/.claude",
    ],
)
def test_a_tree_put_in_place_of_a_settings_folder_asks(
    world: dict[str, Path], tmp_path: Path, template: str
) -> None:
    src = tmp_path / "elsewhere"
    (src).mkdir()
    (src / "settings.json").write_text('{"disableAllHooks": true}')
    if template.endswith("~/.claude"):
        import shutil

        shutil.rmtree(world["home"] / ".claude")
    _asks(world, template.format(src=src), "settings.json")


@pytest.mark.parametrize(
    "command",
    [
        "unzip -o /tmp/not-yet.zip -d ~/.claude",
        "rsync -a /tmp/not-yet/ ~/.claude/",
        "tar -xf /tmp/not-yet.tar -C ~",
        "curl -so /tmp/n.tgz https://example.com/a.tgz && tar xzf /tmp/n.tgz -C ~",
        "7z x /tmp/not-yet.7z -o$HOME",
        "cd ~ && cpio -idm < /tmp/a.cpio",
        "cpio -idv -D ~ < /tmp/a.cpio",
    ],
)
def test_contents_not_there_to_read_unpacked_over_an_own_folder_ask(
    world: dict[str, Path], command: str
) -> None:
    verdict, proposals = _check(world, command)
    assert verdict == "ASK_USER", proposals
    assert any(selfguard.RULE in p.rules for p in proposals), proposals


@pytest.mark.parametrize(
    "command",
    [
        "ln -s ../lib vendor/lib",
        "cp -r /tmp/x build",
        "mv dist dist.old",
        "tar xzf /tmp/not-yet.tgz",
        "tar xzf /tmp/not-yet.tgz -C vendor",
        "unzip /tmp/not-yet.zip -d dist",
        "rsync -a /tmp/not-yet/ out/",
        "tar xzf /tmp/not-yet.tgz -C ~/tools",
        "7z x /tmp/not-yet.7z -obuild",
        "7z l /tmp/not-yet.7z",
        "cpio -idv < /tmp/a.cpio",
        "find . | cpio -o > /tmp/a.cpio",
    ],
)
def test_trees_and_unknown_archives_elsewhere_stay_allowed(
    world: dict[str, Path], command: str
) -> None:
    _, proposals = _check(world, command)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


@pytest.mark.parametrize(
    "command",
    [
        "ln -T -sf {src} .claude",
        "python3 -m tarfile -e /tmp/not-yet.tar ~",
        "python3 -m zipfile -e /tmp/not-yet.zip ~/.claude",
        "git archive HEAD | tar -x -C ~",
        "git clone {src} .claude",
        "git worktree add ~/.claude",
        "git --work-tree=$HOME checkout HEAD -- .claude",
        "git --git-dir=/tmp/g.git --work-tree=$HOME checkout main",
        "git --git-dir=/tmp/g.git --work-tree=$HOME read-tree -u HEAD",
        "trash ~/.claude",
        "gio trash ~/.claude",
    ],
)
def test_other_ways_to_put_a_tree_over_an_own_folder_ask(
    world: dict[str, Path], tmp_path: Path, command: str
) -> None:
    import shutil

    shutil.rmtree(world["home"] / ".claude")  # where git clone / worktree add could go
    (world["home"] / ".claude").mkdir()
    (world["home"] / ".claude" / "settings.json").write_text("{}\n")
    verdict, proposals = _check(world, command.format(src=tmp_path))
    assert verdict == "ASK_USER", proposals
    assert any(selfguard.RULE in p.rules for p in proposals), proposals


@pytest.mark.parametrize(
    "command",
    [
        "python3 -m zipfile -e /tmp/not-yet.zip build",
        "python3 -m http.server 8000",
        "git archive HEAD | tar -x -C build",
        "git clone https://example.com/x.git vendor/x",
        "git worktree add ../wt",
        "git --work-tree=/tmp/other checkout HEAD -- .",
        "git --git-dir=/tmp/g.git --work-tree=build checkout -f HEAD",
        "git --work-tree=$HOME status",
        "gio open ~/.claude",
        "trash build/out",
    ],
)
def test_the_same_tools_elsewhere_stay_allowed(world: dict[str, Path], command: str) -> None:
    _, proposals = _check(world, command)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


# --- another revision's files ------------------------------------------------------------
# Issue #28: "`git merge`".  A branch made with plumbing carries another
# ``.agentreflex/config.toml``; switching, merging, rebasing or cherry-picking brings it
# into the work tree, and ``git stash`` takes an uncommitted change to it away.  Git is
# asked (``git diff REV -- <own files>``), through core's safe git.


def _git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ["PATH"], "HOME": str(repo), "GIT_CONFIG_GLOBAL": "/dev/null"}
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@e", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@pytest.fixture
def repo(world: dict[str, Path]) -> Path:
    """The world's project as a real repository; branch ``evil`` carries another config."""
    proj = world["proj"]
    (proj / ".git").rmdir()
    (proj / "alias").unlink()
    (proj / "notes.toml").unlink()
    _git(proj, "init", "-q", "-b", "main")
    _git(proj, "add", "-A")
    _git(proj, "commit", "-qm", "init")
    _git(proj, "checkout", "-qb", "evil")
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=proj,
        input='profile = "off"\n',
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    _git(proj, "update-index", "--cacheinfo", f"100644,{blob},.agentreflex/config.toml")
    _git(proj, "commit", "-qm", "evil")
    _git(proj, "checkout", "-qf", "main")
    _git(proj, "branch", "plain", "main")
    return proj


@pytest.mark.parametrize(
    "command",
    [
        "git merge evil",
        "git merge --ff-only evil",
        "git checkout evil",
        "git switch evil",
        "git rebase evil",
        "git cherry-pick evil",
        "git checkout evil -- .",
        "git read-tree -u -m evil",
        "git pull . evil",
        "git reset --keep evil",
    ],
)
def test_bringing_in_a_revision_that_changes_an_own_file_asks(
    world: dict[str, Path], repo: Path, command: str
) -> None:
    _asks(world, command, ".agentreflex/config.toml")


@pytest.mark.parametrize(
    "command",
    [
        "git merge plain",
        "git checkout plain",
        "git switch -c feature",
        "git checkout -b feature",
        "git rebase plain",
        "git pull origin main",
        "git merge --abort",
        "git stash",
        "git stash -u",
        "git stash pop",
    ],
)
def test_revisions_and_stashes_that_leave_own_files_alone_stay_allowed(
    world: dict[str, Path], repo: Path, command: str
) -> None:
    (repo / "scratch.txt").write_text("untracked\n")
    _, proposals = _check(world, command)
    assert not any(r in selfguard.RULES for p in proposals for r in p.rules), (command, proposals)


def test_a_repository_above_the_project_is_read_the_same_way(world: dict[str, Path]) -> None:
    """A monorepo: git names files from its top, above the project; the file is still found."""
    top, proj = world["home"], world["proj"]
    (proj / ".git").rmdir()
    (proj / "alias").unlink()
    (proj / "notes.toml").unlink()
    _git(top, "init", "-q", "-b", "main")
    _git(top, "add", "proj")
    _git(top, "commit", "-qm", "init")
    _git(top, "checkout", "-qb", "evil")
    world["config"].write_text('profile = "off"\n')
    _git(top, "commit", "-qam", "evil")
    _git(top, "checkout", "-qf", "main")
    _asks(world, "git merge evil", ".agentreflex/config.toml")


@pytest.mark.parametrize("command", ["git stash", "git stash push -u", "git stash save x"])
def test_stashing_an_uncommitted_change_to_an_own_file_asks(
    world: dict[str, Path], repo: Path, command: str
) -> None:
    world["config"].write_text('profile = "strict"\nmode = "enforced"\n')
    _asks(world, command, ".agentreflex")


def test_stash_u_of_an_untracked_own_file_asks(world: dict[str, Path], repo: Path) -> None:
    _git(repo, "rm", "-q", "--cached", ".agentreflex/config.toml")
    _git(repo, "commit", "-qm", "untrack")
    _, proposals = _check(world, "git stash")
    assert not any(selfguard.RULE in p.rules for p in proposals), proposals  # -u not given
    _asks(world, "git stash -u", ".agentreflex")


# --- patches and git plumbing -------------------------------------------------------
# Issue #28: "hook settings written through git plumbing (`hash-object` +
# `update-index --cacheinfo` + `checkout-index -f -a`), `git apply`".


def _patch(world: dict[str, Path], target: str) -> Path:
    patch = world["home"] / "change.patch"
    patch.write_text(
        f"diff --git a/{target} b/{target}\n--- a/{target}\n+++ b/{target}\n@@ -1 +1 @@\n-a\n+b\n"
    )
    return patch


@pytest.mark.parametrize(
    "template",
    ["git apply {p}", "git am {p}", "patch -p1 < {p}", "patch -p1 -i {p}", "git -C . apply {p}"],
)
def test_a_patch_that_changes_an_own_file_asks(world: dict[str, Path], template: str) -> None:
    patch = _patch(world, ".agentreflex/config.toml")
    _asks(world, template.format(p=patch), "config.toml")


@pytest.mark.parametrize("template", ["git apply {p}", "patch -p1 < {p}"])
def test_a_patch_to_project_files_stays_allowed(world: dict[str, Path], template: str) -> None:
    patch = _patch(world, "src/app.py")
    verdict, proposals = _check(world, template.format(p=patch))
    assert verdict in ("ALLOW", "WARN"), proposals


def test_staging_an_own_file_through_plumbing_asks(world: dict[str, Path]) -> None:
    blob = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"
    for command in (
        f"git update-index --add --cacheinfo 100644,{blob},.agentreflex/config.toml",
        f"git update-index --add --cacheinfo 100644 {blob} .agentreflex/config.toml",
        "git checkout-index -f .agentreflex/config.toml",
    ):
        _asks(world, command, "config.toml")


# --- the environment hosts start with ------------------------------------------------
# A host started from a new terminal inherits what the shell's start-up files export:
# ``REFLEX_MODE=shadow`` there stops agentreflex blocking, ``AGENTREFLEX_BIN`` makes the
# Claude Code plugin run another program as its hook.


@pytest.mark.parametrize(
    "command",
    [
        "echo 'export REFLEX_MODE=shadow' >> ~/.bashrc",
        "echo 'export AGENTREFLEX_BIN=/tmp/evil' >> ~/.profile",
        "printf 'REFLEX_MODE=shadow\\n' >> ~/.config/environment.d/10-x.conf",
        "cat >> ~/.zshrc <<'EOF'\nexport JEV_MODE=off\nEOF",
        "echo 'set -gx REFLEX_MODE shadow' >> ~/.config/fish/config.fish",
        "echo 'export REFLEX_MODE=shadow' > .envrc",
        "echo 'export REFLEX_MODE=shadow' | tee -a ~/.bash_profile",
    ],
)
def test_agentreflex_settings_put_in_a_shell_start_up_file_ask(
    world: dict[str, Path], command: str
) -> None:
    verdict, proposals = _check(world, command)
    assert verdict == "ASK_USER", (command, proposals)
    assert any(selfguard.RULE_DISABLE in p.rules for p in proposals), (command, proposals)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'export PATH=$HOME/.cargo/bin:$PATH' >> ~/.bashrc",
        "echo 'REFLEX_MODE=shadow' >> notes.txt",
        "echo 'export NODE_ENV=production' > .envrc",
        "export REFLEX_MODE=shadow",
    ],
)
def test_other_start_up_lines_and_other_files_stay_allowed(
    world: dict[str, Path], command: str
) -> None:
    _, proposals = _check(world, command)
    assert not any(selfguard.RULE_DISABLE in p.rules for p in proposals), (command, proposals)
