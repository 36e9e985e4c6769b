"""Issue 30: the gate on what agents really run.

Every case of ``corpus/*/issue30.jsonl`` cites where it comes from (an
incident report, a real CI file, Dockerfile or Makefile, a tool's docs) and
names the rule that must fire (``rule``) or must not (``not_rule``); the
corpus test checks the decision, these check the rule.  The rest proves what
the corpus cannot: the SQL parser stays off the hot path, a PowerShell tool of
a host is read as PowerShell, and ``git checkout FILE`` is judged on a real
work tree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.decision import Verdict
from agentreflex.core.testing import make_context, pre_tool
from agentreflex.gate.check import check_command
from agentreflex.gate.reflex import GateReflex
from agentreflex.gate.rules import dbscope, exfil, sql, windows
from agentreflex.gate.shell.paths import Where

from .conftest import proposed_verdict as _verdict

CORPUS = Path(__file__).parent / "corpus"
CWD, HOME = "/home/user/project", "/home/user"


def _cases() -> list[tuple[str, dict[str, str]]]:
    out = []
    for path in sorted(CORPUS.glob("*/issue30.jsonl")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            out.append((f"{path.parent.name}:{n}", json.loads(line)))
    return out


CASES = _cases()


def test_every_case_cites_a_source_and_names_a_rule() -> None:
    assert len(CASES) >= 100
    folders = {name.split(":")[0] for name, _ in CASES}
    assert folders == {"true_positives", "false_positives", "edge_cases"}
    for _, case in CASES:
        assert case["source"].startswith("https://"), case
        assert ("rule" in case) != ("not_rule" in case), case
        assert case["expected"] in ("ALLOW", "WARN", "ASK_USER", "BLOCK")


@pytest.mark.parametrize(("case_id", "case"), CASES, ids=[c[0] for c in CASES])
def test_the_named_rule_fires_or_stays_quiet(case_id: str, case: dict[str, str]) -> None:
    verdict, proposals = check_command(case["command"], cwd=CWD, home=HOME, project=CWD)
    codes = {p.code for p in proposals}
    assert verdict == case["expected"], (case["note"], codes)
    if "rule" in case:
        assert case["rule"] in codes, (case["note"], codes)
    else:
        assert case["not_rule"] not in codes, (case["note"], codes)


def test_every_destructive_finding_says_what_to_do_instead() -> None:
    """Reasons that help (item 7): each new finding names what is lost and a safer command."""
    for command, words in (
        ("npx prisma migrate reset --force", "prisma migrate dev"),
        ("docker compose down -v", "docker compose down (without -v)"),
        ('psql -c "TRUNCATE users"', "pg_dump"),
        ('mysql -e "UPDATE users SET a = 1"', "WHERE"),
        ("supabase db reset", "supabase migration up"),
        ("pwsh -c 'Remove-Item -Recurse -Force C:\\Users\\me\\x'", "-WhatIf"),
    ):
        _, proposals = check_command(command, cwd=CWD, home=HOME, project=CWD)
        assert proposals and words in proposals[0].message, (command, proposals)


# --- SQL: parsed, and only loaded for SQL a client is given --------------------------


def _modules_after(command: str) -> set[str]:
    code = (
        "import sys\n"
        "from agentreflex.gate.check import check_command\n"
        f"check_command({command!r}, cwd={CWD!r}, home={HOME!r}, project={CWD!r})\n"
        "print('\\n'.join(sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


@pytest.mark.parametrize(
    ("command", "loaded"),
    [
        ("rm -rf build && git status", False),
        ('psql -c "SELECT 1"', False),  # a database command without a destructive keyword
        ('psql -c "DROP TABLE users"', True),
    ],
)
def test_sqlglot_loads_only_for_destructive_looking_sql(command: str, loaded: bool) -> None:
    assert ("sqlglot" in _modules_after(command)) is loaded


def test_the_parser_judges_statements_not_words() -> None:
    found = sql.destructive("DELETE FROM t WHERE id = 1; UPDATE t SET a = 1", "postgres")
    assert found is not None
    assert [s.kind for s in found] == ["update-all"]
    found = sql.destructive("-- DROP TABLE x\nSELECT 'TRUNCATE y'", "postgres")
    assert found == []
    assert sql.destructive("DROP TABLE (((", "postgres") is None  # the keyword scan decides


def test_scope_words_are_data_and_production_wins() -> None:
    from agentreflex.gate.model import Cmd

    def scope(argv: list[str], **assigns: str) -> str:
        return dbscope.scope_of(Cmd(argv, " ".join(argv), CWD, assigns=assigns))

    assert scope(["psql", "-d", "app_test"]) == "test"
    assert scope(["psql", "-h", "localhost"]) == "dev"
    assert scope(["psql", "-h", "prod-db", "-d", "app_test"]) == "prod"
    assert scope(["rails", "db:reset"], RAILS_ENV="test") == "test"
    assert scope(["psql", "-d", "app"]) == "unknown"
    assert dbscope.grade("high", Cmd(["psql"], "psql", CWD, assigns={"RAILS_ENV": "test"}))[0] == (
        "low"
    )


# --- exfiltration --------------------------------------------------------------------


def test_token_owners_come_from_the_data_file() -> None:
    assert "github.com" in exfil.token_hosts("GITHUB_TOKEN")
    assert exfil.token_hosts("SOME_RANDOM_TOKEN") == ()
    assert exfil.host_in("api.github.com", exfil.token_hosts("GH_TOKEN"))
    assert not exfil.host_in("github.com.evil.example", exfil.token_hosts("GH_TOKEN"))
    # a self-hosted GitLab cannot be told from an attacker's gitlab.evil.example by name
    assert not exfil.host_in("gitlab.evil.example", exfil.token_hosts("GITLAB_TOKEN"))
    assert exfil.host_in("gitlab.com", exfil.token_hosts("GITLAB_TOKEN"))


# --- Windows shells ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "tool_input", "expected"),
    [
        ("PowerShell", {"command": "Remove-Item -Recurse -Force C:\\Users\\me"}, Verdict.BLOCK),
        ("PowerShell", {"command": "Remove-Item -Recurse -Force .\\dist"}, Verdict.ALLOW),
        ("PowerShell", {"command": "Get-ChildItem; git status"}, Verdict.ALLOW),
        (
            "exec_command",
            {"cmd": "rd /s /q C:\\", "shell": "C:\\Windows\\System32\\cmd.exe"},
            Verdict.BLOCK,
        ),
        ("exec_command", {"cmd": "git status", "shell": "powershell.exe"}, Verdict.ALLOW),
    ],
)
def test_a_host_windows_shell_is_read_as_that_shell(
    tmp_path: Path, tool: str, tool_input: dict[str, str], expected: Verdict
) -> None:
    event = pre_tool(tool, tool_input, cwd=str(tmp_path), host="codex")
    findings = GateReflex().evaluate(make_context(event))
    assert _verdict(findings) is expected, [f.code for f in findings]


def test_windows_paths_are_classified_the_windows_way() -> None:
    where = Where("C:/Users/me/proj", "C:/Users/me/proj", "C:/Users/me")
    assert windows.classify("C:\\", where) == "root"
    assert windows.classify("C:\\Users\\me", where) == "home"
    assert windows.classify("C:\\Program Files\\App", where) == "system"
    assert windows.classify("$env:TEMP\\x", where) == "temp"
    assert windows.classify("build\\out", where) == "inside"
    assert windows.classify("..\\other", where) == "outside"
    assert windows.classify("$dir", where) == "unknown"


def test_an_unreadable_powershell_command_asks() -> None:
    where = Where(CWD, CWD, HOME)
    hits = windows.analyse("Remove-Item -Path 'C:\\x", "powershell", where)  # open quote
    assert [h.rule for h in hits] == ["GATE-PARSE-ERROR"]
    # the grammar's gaps are read as words instead of asking
    hits = windows.analyse("Remove-Item -Recurse $env:windir\\Temp", "powershell", where)
    assert [h.rule for h in hits] == ["GATE-RM-SYSTEM"]


# --- in-project work on a real work tree --------------------------------------------


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(cwd), *args], check=True, capture_output=True)


def test_git_checkout_of_a_changed_file_is_a_discard(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    _git(repo, "init", "-q")
    _git(repo, "config", "user.email", "a@b")
    _git(repo, "config", "user.name", "a")
    (repo / "src" / "app.py").write_text("a\n")
    (repo / "notes.md").write_text("b\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "init")
    _git(repo, "branch", "feature")
    (repo / "src" / "app.py").write_text("changed\n")
    where = {"cwd": str(repo), "home": str(tmp_path), "project": str(repo)}
    verdict, proposals = check_command("git checkout src/app.py", **where)
    assert verdict == "BLOCK" and {p.code for p in proposals} == {"GATE-GIT-DISCARD-FILES"}
    assert check_command("git checkout notes.md", **where)[0] == "ALLOW"  # clean
    assert check_command("git checkout feature", **where)[0] == "ALLOW"  # a branch
    # deleting files whose changes are not committed asks; clean or ignored files do not
    verdict, proposals = check_command("rm -rf src", **where)
    assert verdict == "ASK_USER" and {p.code for p in proposals} == {"GATE-RM-UNCOMMITTED"}
    assert check_command("rm notes.md", **where)[0] == "ALLOW"
    assert check_command("rm -rf build dist", **where)[0] == "ALLOW"
    # a folder that exists is not "made" by mkdir -p: chown of it is judged as usual
    verdict = check_command("mkdir -p /etc && chown -R nobody /etc", **where)[0]
    assert verdict == "BLOCK"
    (repo / "scratch.py").write_text("x\n")  # untracked scratch files are the agent's own
    assert check_command("rm scratch.py", **where)[0] == "ALLOW"
    # a folder of files git never held goes for good with rm -r (claude-code#49129)
    (repo / "photos").mkdir()
    (repo / "photos" / "a.jpg").write_text("x")
    assert check_command("rm -rf photos", **where)[0] == "ASK_USER"
    (repo / ".gitignore").write_text("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "out.o").write_text("x")
    assert check_command("rm -rf build", **where)[0] == "ALLOW"  # ignored output


def _encoded(text: str) -> str:
    import base64

    return base64.b64encode(text.encode("utf-16-le")).decode()


@pytest.mark.parametrize(
    ("command", "codes"),
    [
        # what PowerShell and cmd take from their command line
        (f"powershell -EncodedCommand {_encoded('Remove-Item -Recurse C:/')}", {"GATE-RM-ROOT"}),
        ('powershell "Remove-Item -Recurse -Force C:\\Windows"', {"GATE-RM-SYSTEM"}),
        ("pwsh -NoProfile -ExecutionPolicy Bypass -c 'rd -r C:\\'", {"GATE-RM-ROOT"}),
        ("powershell -enc !!notbase64!!", set()),
        ("cmd /k echo hi", set()),
        ("cmd", set()),
        # parameters, quoting, arrays, pipelines, nesting
        ("pwsh -c 'Remove-Item -LiteralPath \"C:\\Users\\me\" -Recurse'", {"GATE-RM-ROOT"}),
        ("pwsh -c 'Remove-Item -Include *.log -Recurse -Path C:\\'", {"GATE-RM-ROOT"}),
        ("pwsh -c 'Remove-Item -Recurse build, C:\\Windows'", {"GATE-RM-SYSTEM"}),
        ("pwsh -c 'Remove-Item C:\\data\\old.txt'", {"GATE-RM-OUTSIDE"}),
        ("pwsh -c 'Remove-Item -Recurse $env:windir\\Temp'", {"GATE-RM-SYSTEM"}),
        ("pwsh -c 'Remove-Item -Recurse $env:USERPROFILE\\x'", {"GATE-RM-RECURSIVE-OUTSIDE"}),
        ("pwsh -c 'Remove-Item -Recurse $env:TEMP\\x'", set()),
        ("pwsh -c 'Remove-Item -Recurse ..\\other'", {"GATE-RM-RECURSIVE-OUTSIDE"}),
        ("pwsh -c 'Remove-Item -Recurse $dir'", {"GATE-RM-UNRESOLVED"}),
        ("pwsh -c 'gci C:\\ | ri -Recurse'", {"GATE-RM-ROOT"}),
        ("pwsh -c 'if ($true) { cmd /c \"rd /s /q C:\\\\\" }'", {"GATE-RM-ROOT"}),
        ("pwsh -c 'git.exe reset --hard'", {"GATE-GIT-RESET-HARD"}),
        (
            "pwsh -c 'Set-Content -Path C:\\Users\\me\\.gitconfig -Value x'",
            {"GATE-OVERWRITE-DOTFILE"},
        ),
        ("pwsh -c 'Clear-Content $HOME'", {"GATE-OVERWRITE-DOTFILE"}),
        ("pwsh -c 'Set-Content notes.txt x'", set()),
        ("cmd /c 'rd/s/q C:\\'", {"GATE-RM-ROOT"}),
        ("cmd /c 'echo a^&b & rd /s /q C:\\'", {"GATE-RM-ROOT"}),
        ("cmd /c 'del \"C:\\Program Files\\App\\x.dll\"'", {"GATE-RM-SYSTEM"}),
        ("cmd /c format D: /q", {"GATE-DISK-FORMAT"}),
    ],
)
def test_windows_forms(command: str, codes: set[str]) -> None:
    _, proposals = check_command(command, cwd=CWD, home=HOME, project=CWD)
    assert {p.code for p in proposals} == codes, [(p.code, p.message) for p in proposals]


def test_which_windows_shell() -> None:
    assert windows.dialect_of("PowerShell", "") == "powershell"
    assert windows.dialect_of("exec_command", "C:\\Windows\\System32\\cmd.exe") == "cmd"
    assert windows.dialect_of("exec_command", "/bin/bash") == ""


def test_sql_files_on_disk_are_read_bounded(tmp_path: Path) -> None:
    (tmp_path / "drop.sql").write_text("-- reset\nDROP TABLE users;\n")
    (tmp_path / "seed.sql").write_text("INSERT INTO users VALUES (1);\n")
    (tmp_path / "huge.sql").write_text("SELECT 1;\n" * 8000 + "DROP TABLE users;\n")
    where = {"cwd": str(tmp_path), "home": str(tmp_path), "project": str(tmp_path)}
    assert check_command("psql -f drop.sql", **where)[0] == "BLOCK"
    assert check_command("psql --file=drop.sql app", **where)[0] == "BLOCK"
    assert check_command("mysql app < drop.sql", **where)[0] == "BLOCK"
    assert check_command("psql -f seed.sql", **where)[0] == "ALLOW"
    assert check_command("psql -f missing.sql", **where)[0] == "ALLOW"  # fails, deletes nothing
    assert check_command("psql -f huge.sql", **where)[0] == "ALLOW"  # over 64 kB: not read
    # a file written earlier in the same command is judged from what was written
    verdict = check_command("echo 'TRUNCATE t;' > x.sql && psql -f x.sql", **where)[0]
    assert verdict == "BLOCK"
