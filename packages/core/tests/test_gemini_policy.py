"""Gemini CLI checks its policy on the contained line: the user's shell rules, mirrored for it.

The real host proves the whole route (``integration-tests/test_gemini_host.py``:
an allowed command runs headless without a prompt and stays contained; a deny
rule holds in YOLO mode).  Here each decision the mirror makes, on the lines the
boundary really writes, matched the way Gemini CLI 0.61 matches them
(``stableStringify``: each top-level pair between NUL characters).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.cli.commands import dispatch
from agentreflex.core.contain import boundary
from agentreflex.core.decision import Decision, Mode, Verdict
from agentreflex.core.hosts.gemini import GeminiAdapter
from agentreflex.core.install import gemini_policy as gp
from agentreflex.core.install.inspect import host_check

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
SCRIPT = Path(shutil.which("agentreflex") or "/usr/bin/agentreflex")
# Gemini's isSafeRegExp drops a pattern with a quantified group after a quantifier
UNSAFE = re.compile(r"\([^)]*[*+?{].*\)[*+?{]")


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".gemini" / "policies").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("GEMINI_CLI_TRUST_WORKSPACE", raising=False)
    return home


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "proj"
    (root / ".agentreflex").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def stable(args: dict[str, Any]) -> str:
    """Gemini CLI's stableStringify of a tool's arguments."""
    pairs = [f"\0{json.dumps(k)}:{json.dumps(args[k], ensure_ascii=False)}\0" for k in sorted(args)]
    return "{" + ",".join(pairs) + "}"


def matches(pattern: str, command: str, project: Path) -> tuple[bool, bool]:
    """(the whole contained line matches, the line without its redirection matches)."""
    line = boundary.rewrite(command, str(project), direct=False)  # Gemini's form (hosts/gemini.py)
    bare = line.rsplit(" 9< ", 1)[0]
    rx = re.compile(pattern)
    return (
        bool(rx.search(stable({"command": line, "dir_path": "."}))),
        bool(rx.search(stable({"command": bare}))),
    )


def pattern(prefix: str, decision: str = "allow") -> str | None:
    where, why = gp.boundary_line(os.environ)
    assert where is not None, why
    return gp.twin_pattern(gp.Rule(prefix, decision, 300, "test"), where)


def test_an_allow_twin_matches_one_command_with_the_prefix_and_nothing_more(
    home: Path, project: Path
) -> None:
    twin = pattern("git status")
    assert twin is not None and not UNSAFE.search(twin)
    assert matches(twin, "git status", project) == (True, True)
    assert matches(twin, "git status --short a/b.py", project) == (True, True)
    for other in (
        "git statusx",
        "git log",
        "git status; rm -rf x",
        "git status && id",
        "git status | sh",
        "git status $(id)",
        "git status `id`",
        "git status > out",
        "git status\nid",
        "git status 'quoted'",
        "echo git status",
    ):
        assert matches(twin, other, project) == (False, False), other


def test_a_one_word_allow_twin_matches_the_unquoted_line(home: Path, project: Path) -> None:
    twin = pattern("ls")
    assert twin is not None
    assert " -c ls 9< " in boundary.rewrite("ls", str(project), direct=False)  # shlex: bare
    assert matches(twin, "ls", project) == (True, True)
    assert matches(twin, "ls -la", project) == (True, True)
    assert matches(twin, "lsof", project) == (False, False)


def test_an_allow_prefix_beyond_plain_words_is_not_mirrored(home: Path) -> None:
    assert pattern('git log --format="%h"') is None
    assert pattern("make; id") is None


def test_a_deny_twin_matches_the_prefix_anywhere_at_word_boundaries(
    home: Path, project: Path
) -> None:
    twin = pattern("git push", "deny")
    assert twin is not None and not UNSAFE.search(twin)
    for hit in ("git push", "git push origin main", "make && git push", "echo 'x' ; git push -f"):
        assert matches(twin, hit, project) == (True, True), hit
    for miss in ("git pushx", "xgit push", "git status"):
        assert matches(twin, miss, project) == (False, False), miss
    assert pattern("it's", "deny") is None  # shlex spells ' as '"'"' in the line


def test_sources_settings_and_user_policy_files(home: Path, project: Path) -> None:
    allowed = ["run_shell_command(npm test)", "ShellTool(make)", "read_file", "glob(*)"]
    (home / ".gemini" / "settings.json").write_text(json.dumps({"tools": {"allowed": allowed}}))
    (project / ".gemini").mkdir()
    (project / ".gemini" / "settings.json").write_text(
        json.dumps({"tools": {"allowed": ["run_shell_command(pytest)"]}})
    )
    policies = home / ".gemini" / "policies"
    (policies / "mine.toml").write_text(
        "[[rule]]\n"
        'toolName = "run_shell_command"\ncommandPrefix = ["ls", "cat"]\n'
        'decision = "allow"\npriority = 100\nmodes = ["autoEdit"]\ninteractive = true\n'
        "[[rule]]\n"
        'toolName = "run_shell_command"\ncommandPrefix = "rm"\ndecision = "deny"\npriority = 900\n'
        "[[rule]]\n"  # not for the shell, or not a prefix rule, or out of range: skipped
        'toolName = "read_file"\ndecision = "allow"\npriority = 1\n'
        "[[rule]]\n"
        'toolName = "run_shell_command"\nargsPattern = "x"\ndecision = "allow"\npriority = 1\n'
        "[[rule]]\n"
        'toolName = "run_shell_command"\ncommandPrefix = "x"\ndecision = "allow"\npriority = 5000\n'
    )
    (policies / "broken.toml").write_text("[[rule]\n")
    (policies / gp.FILE_NAME).write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "own"\n'
        'decision = "allow"\npriority = 1\n'
    )
    rules = gp.user_rules(str(project), {"HOME": str(home)})
    got = {(r.prefix, r.decision, r.priority, r.modes, r.interactive) for r in rules}
    assert got == {
        ("npm test", "allow", 300, (), None),
        ("make", "allow", 300, (), None),
        ("pytest", "allow", 300, (), None),
        ("ls", "allow", 100, ("autoEdit",), True),
        ("cat", "allow", 100, ("autoEdit",), True),
        ("rm", "deny", 900, (), None),
    }
    text, left = gp.render(str(project), {"HOME": str(home), "PATH": "/usr/bin:/bin"})
    assert text is not None and not left
    parsed = __import__("tomllib").loads(text)["rule"]
    assert [r["priority"] for r in parsed] == [300, 300, 300, 100, 100, 900]
    assert all(r.get("allowRedirection") is True for r in parsed if r["decision"] == "allow")
    assert parsed[3]["modes"] == ["autoEdit"] and parsed[3]["interactive"] is True


def test_an_allow_always_for_the_engine_is_said_not_mirrored(home: Path, project: Path) -> None:
    """Gemini's "allow always" on a contained line saves the line's root: the engine."""
    (home / ".gemini" / "policies" / "auto-saved.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = ["/usr/bin/bwrap"]\n'
        'decision = "allow"\npriority = 950\n'
    )
    text, left = gp.render(str(project), {"HOME": str(home)})
    assert text is None and len(left) == 1 and "every contained command" in left[0]


def test_no_engine_no_twins_and_the_reason(
    home: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".gemini" / "settings.json").write_text(
        json.dumps({"tools": {"allowed": ["run_shell_command(ls)"]}})
    )
    monkeypatch.setattr(boundary, "engine_path", lambda: None)
    text, left = gp.render(str(project), {"HOME": str(home)})
    assert text is None and "bubblewrap is not installed" in left[0]
    monkeypatch.undo()
    odd = {"HOME": str(home), "XDG_STATE_HOME": str(home / "my state")}
    monkeypatch.setenv("HOME", str(home))
    text, left = gp.render(str(project), odd)
    assert text is None and "needs shell quoting" in left[0]


def test_the_contained_reply_keeps_the_other_arguments(home: Path, project: Path) -> None:
    """Gemini takes BeforeTool's tool_input as the whole new arguments."""
    given = {"command": "ls", "dir_path": "sub", "is_background": True, "description": "list"}
    payload = {
        "hook_event_name": "BeforeTool",
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "run_shell_command",
        "tool_input": given,
    }
    adapter = GeminiAdapter()
    event = adapter.parse(payload)
    decision = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.ENFORCED)
    out = json.loads(adapter.render(event, decision).stdout)["hookSpecificOutput"]["tool_input"]
    assert boundary.inner_command(out["command"]) == "ls"
    # even a lone plain command keeps the shell form the policy twins match
    assert " -c ls 9< " in out["command"]
    assert {k: v for k, v in out.items() if k != "command"} == {
        "dir_path": "sub",
        "is_background": True,
        "description": "list",
    }


def _reply(project: Path, command: str) -> str:
    """The hook's BeforeTool reply to ``command``, allowed, in enforced mode."""
    payload = {
        "hook_event_name": "BeforeTool",
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }
    adapter = GeminiAdapter()
    decision = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.ENFORCED)
    return adapter.render(adapter.parse(payload), decision).stdout


def _contained_reply(project: Path, command: str) -> bool:
    reply = _reply(project, command)
    return bool(reply) and "tool_input" in json.loads(reply)["hookSpecificOutput"]


def _refused(project: Path, command: str) -> str:
    reply = _reply(project, command)
    data = json.loads(reply) if reply else {}
    return str(data.get("reason", "")) if data.get("decision") == "deny" else ""


def test_a_rule_with_no_twin_is_held_by_the_hook_and_nothing_is_left_as_written(
    home: Path, project: Path
) -> None:
    """Gemini checks its rules against the replaced command: a rule that refuses with no
    twin (a deny written after ``install gemini`` mirrored the others, any
    ``tools.exclude``) would be passed over by the contained line, so the hook refuses
    what it names itself; an allow it has not seen leaves the command contained (Gemini
    asks).  Nothing is left as written (red-team rt30: `echo rm && ...` passed an exclusion
    of `rm` as Gemini reads it, and a command once allowed ran a rewritten script)."""
    policies = home / ".gemini" / "policies"
    twins = policies / gp.FILE_NAME
    twins.write_text("# twins\n")
    os.utime(twins, (1_000_000, 1_000_000))
    deny = policies / "mine.toml"
    deny.write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
        'decision = "deny"\npriority = 500\n'
    )
    assert "your own Gemini rule for 'touch'" in _refused(project, "touch made.txt")
    assert "mine.toml" in _refused(project, "make x && touch made.txt")
    assert _contained_reply(project, "make all") and _contained_reply(project, "touchy x")
    os.utime(deny, (900_000, 900_000))  # mirrored since: older than the twins, Gemini's own
    assert _contained_reply(project, "touch made.txt")
    allow = policies / "auto-saved.toml"  # an "allow always" saved since the install
    allow.write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "sh ci.sh"\n'
        'decision = "allow"\npriority = 100\n'
    )
    assert _contained_reply(project, "sh ci.sh")
    twins.unlink()  # no twins at all, and an allow rule in the settings: contained
    settings = home / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(git status)"]}}))
    assert _contained_reply(project, "git status")
    # an exclusion is never mirrored (a contained line would pass it): the hook holds it,
    # wherever the command names it, as a deny twin would
    settings.write_text(json.dumps({"tools": {"exclude": ["run_shell_command(git push)"]}}))
    assert "tools.exclude" in _refused(project, "git push origin main")
    assert "tools.exclude" in _refused(project, "echo x && git  push -f")
    assert _contained_reply(project, "git status") and _contained_reply(project, "make all")
    assert _contained_reply(project, "git pushy")


def test_an_exclusion_in_settings_with_comments_is_still_held(home: Path, project: Path) -> None:
    """Gemini CLI reads its settings.json with comments stripped (``strip-json-comments``):
    a user's ``tools.exclude`` in a file with a ``//`` comment holds in Gemini, so the hook
    must read it too.  Before, the strict parse failed, the exclusion was silently not
    seen, and the contained line (which Gemini checks) passed it."""
    settings = home / ".gemini" / "settings.json"
    settings.write_text(
        '{\n  // no pushing from the agent\n  "tools": {\n'
        '    /* the shell */ "exclude": ["run_shell_command(git push)"]\n  }\n}\n'
    )
    assert "tools.exclude" in _refused(project, "git push origin main")
    assert _contained_reply(project, "git status")


def test_install_writes_the_twins_doctor_checks_them_uninstall_removes_them(
    home: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(npm test)"]}}))
    twins = home / ".gemini" / "policies" / gp.FILE_NAME
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    assert "npm test" in twins.read_text()
    check = host_check("gemini", str(project), str(home / "state"), os.environ)
    assert check["ok"] and "your shell rules hold for contained commands" in check["detail"]
    data = json.loads(settings.read_text())
    data["tools"]["allowed"].append("run_shell_command(make)")
    settings.write_text(json.dumps(data))
    check = host_check("gemini", str(project), str(home / "state"), os.environ)
    assert not check["ok"] and "does not mirror your shell rules" in check["detail"]
    assert dispatch(["install", "gemini", "--project", "--bin", str(SCRIPT)]) == 0
    assert "make" in twins.read_text()
    assert dispatch(["uninstall", "gemini", "--project"]) == 0
    assert twins.exists()  # the user's install still contains commands
    assert dispatch(["uninstall", "gemini"]) == 0
    assert not twins.exists()
    capsys.readouterr()


def _contained_line(project: Path, command: str) -> str:
    line: str = json.loads(_reply(project, command))["hookSpecificOutput"]["tool_input"]["command"]
    return line


def test_twins_from_before_the_terminal_filter_keep_the_line_they_match(
    home: Path, project: Path
) -> None:
    """An allow twin written before the filter matches only the line without ``8<``: that
    line goes on until the install runs again, and then the filtered line is matched."""
    settings = home / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(npm test)"]}}))
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    twins = home / ".gemini" / "policies" / gp.FILE_NAME
    line = _contained_line(project, "npm test")
    assert " 8< " in line
    twin = pattern("npm test")
    assert twin is not None and not UNSAFE.search(twin)
    assert re.search(twin, stable({"command": line, "dir_path": "."}))
    # the twin an earlier install wrote: its tail knew only the mounts file
    old = twin.replace(r"\.bpf", r"\.none").replace(r"8< ", r"7< ")
    twins.write_text(twins.read_text().replace(twin, old))
    assert r"\.bpf" not in twins.read_text()
    kept = _contained_line(project, "npm test")
    assert " 8< " not in kept and re.search(old, stable({"command": kept, "dir_path": "."}))
    check = host_check("gemini", str(project), str(home / "state"), os.environ)
    assert not check["ok"] and "does not mirror your shell rules" in check["detail"]
    from agentreflex.core.contain.check import terminal_injection

    switch = home / "legacy_tiocsti"
    switch.write_text("1\n")
    assert "gemini: not until `agentreflex install gemini`" in terminal_injection(str(switch), True)
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    assert " 8< " in _contained_line(project, "npm test")
    assert "gemini" not in terminal_injection(str(switch), True)


def test_twins_from_before_the_projects_pid_namespace_keep_the_line_they_match(
    home: Path, project: Path
) -> None:
    """An allow twin written before contain/pidns.py matches no line that joins the
    project's namespaces (``6<``, ``7<``): such users keep the user's pid namespace until
    the install runs again, and their allowed commands are not turned into questions."""
    settings = home / ".gemini" / "settings.json"
    settings.write_text(json.dumps({"tools": {"allowed": ["run_shell_command(npm test)"]}}))
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    twins = home / ".gemini" / "policies" / gp.FILE_NAME
    line = _contained_line(project, "npm test")
    assert " 6< /proc/" in line and " 7< /proc/" in line
    twin = pattern("npm test")
    assert twin is not None and not UNSAFE.search(twin)
    assert re.search(twin, stable({"command": line, "dir_path": "."}))
    old = twin.replace("/ns/pid", "/ns/none")  # an earlier install's: no namespaces' tail
    twins.write_text(twins.read_text().replace(twin, old))
    kept = _contained_line(project, "npm test")
    assert " 7< " not in kept and re.search(old, stable({"command": kept, "dir_path": "."}))
    assert dispatch(["install", "gemini", "--bin", str(SCRIPT)]) == 0
    assert " 7< /proc/" in _contained_line(project, "npm test")
