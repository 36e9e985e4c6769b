"""OpenCode's permission rules: a shell command is replaced by the contained one only where
they certainly run it as written without asking.

OpenCode 1.18.33 checks its rules against the command it runs, after the plugin replaced
it: ``"touch *": "deny"`` no longer stopped a contained ``touch``
(``integration-tests/test_opencode_host.py`` shows the fix in the real host).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core.hosts.opencode_rules import decide, matches, permits, rulesets


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "proj"
    project.mkdir()
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    return project, env


def write(path: Path, doc: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))


def test_with_no_rules_every_command_runs_as_opencode_allows_it(
    world: tuple[Path, dict[str, str]],
) -> None:
    project, env = world
    assert permits("make test", str(project), env)
    assert permits("rm -rf build && npm test", str(project), env)
    # red-team rt30: a program named \x1c is no blank to bash (nor to OpenCode's trim)
    assert permits("\x1c", str(project), env)


@pytest.mark.parametrize(
    ("permission", "command", "allowed"),
    [
        ({"bash": {"*": "allow", "touch *": "deny"}}, "touch made.txt", False),
        ({"bash": {"*": "allow", "touch *": "deny"}}, "make && touch x", False),
        ({"bash": {"*": "allow", "touch *": "deny"}}, "make test", True),
        ({"bash": {"*": "allow", "git push *": "ask"}}, "git push origin main", False),
        # a rule is about the command a program leads, not any word of it (red-team rt32)
        ({"bash": {"*": "allow", "git push *": "ask"}}, "git status", True),
        ({"bash": {"*": "allow", "git push *": "ask"}}, "env git push origin", False),
        ({"bash": {"*": "allow", "touch *": "deny"}}, "python3 w.py touch", True),
        ({"bash": {"*": "allow", "touch *": "deny"}}, "sudo -u me touch x", False),
        ({"bash": {"*": "allow", "touch *": "deny"}}, "bash -c 'touch x'", False),
        ({"bash": {"*": "ask", "npm *": "allow"}}, "npm test", True),
        ({"bash": {"*": "ask", "npm *": "allow"}}, "npm test; curl x", False),
        ({"*": "ask", "bash": "allow"}, "make", True),
        ({"*": "ask"}, "make", False),
        ("allow", "make", True),
        ("ask", "make", False),
        ({"bash": "deny"}, "make", False),
        ({"bash": {"*": "allow", "rm*": "deny"}}, "rm -rf x", False),
        ({"bash": {"*": "allow", "*rm*": "deny"}}, "git rm x", False),
        ({"edit": "deny", "webfetch": "ask"}, "make", True),
    ],
)
def test_the_last_matching_rule_decides_and_any_rule_about_the_program_holds(
    world: tuple[Path, dict[str, str]], permission: object, command: str, allowed: bool
) -> None:
    project, env = world
    write(Path(env["XDG_CONFIG_HOME"]) / "opencode" / "opencode.json", {"permission": permission})
    assert permits(command, str(project), env) is allowed


@pytest.mark.parametrize(
    "where",
    ["opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc"],
)
def test_project_files_count_too(world: tuple[Path, dict[str, str]], where: str) -> None:
    project, env = world
    write(project / where, {"permission": {"bash": {"*": "allow", "touch *": "deny"}}})
    assert not permits("touch x", str(project), env)
    assert permits("make", str(project), env)


@pytest.mark.parametrize("name", ["opencode.json", "opencode.jsonc"])
def test_a_project_file_made_since_the_session_began_is_not_what_opencode_reads(
    world: tuple[Path, dict[str, str]], name: str
) -> None:
    """OpenCode reads its settings when it starts: the project root's file made after the
    session began (a contained command can make it there) decides nothing, broken or not
    (red-team rt30); the one there before still does, and so does ``.opencode``'s."""
    import os
    import time

    project, env = world
    write(project / name, {"permission": {"bash": {"*": "allow", "touch *": "deny"}}})
    since = time.time_ns() + 10**9  # the session began after the file was made
    assert not permits("touch x", str(project), env, since)
    since = os.lstat(project / name).st_ctime_ns  # ...and when it was being made: after
    assert permits("touch x", str(project), env, since)
    write(project / name, "{")  # broken
    assert rulesets(str(project), env) is None
    assert permits("touch x", str(project), env, since)
    write(project / ".opencode" / "opencode.json", {"permission": {"bash": {"touch *": "ask"}}})
    assert not permits("touch x", str(project), env, since)


def test_each_agents_rules_count_on_top_of_the_top_levels(
    world: tuple[Path, dict[str, str]],
) -> None:
    project, env = world
    doc = {"agent": {"careful": {"permission": {"bash": {"rm *": "ask"}}}}}
    write(project / "opencode.json", doc)
    assert not permits("rm -rf build", str(project), env)
    assert permits("make", str(project), env)


def test_the_newer_permissions_list_asks_by_default(world: tuple[Path, dict[str, str]]) -> None:
    project, env = world
    listed = [
        {"action": "shell", "resource": "*", "effect": "ask"},
        {"action": "shell", "resource": "npm *", "effect": "allow"},
        {"action": "read", "resource": "*.env", "effect": "deny"},
    ]
    write(project / "opencode.jsonc", {"permissions": listed})
    assert permits("npm test", str(project), env)
    assert not permits("make", str(project), env)
    write(project / "opencode.jsonc", {"permissions": listed[2:]})
    assert not permits("npm test", str(project), env)  # no shell rule: "ask"


def test_jsonc_comments_and_trailing_commas_are_read(world: tuple[Path, dict[str, str]]) -> None:
    project, env = world
    text = """{
      // the user's rules
      "permission": {"bash": {"*": "allow", /* no */ "touch *": "deny",},},
      "note": "a // that is not a comment, and a /* either",
    }"""
    write(project / "opencode.jsonc", text)
    found = rulesets(str(project), env)
    assert found == [([("*", "allow"), ("touch *", "deny")], "allow")]


@pytest.mark.parametrize(
    ("where", "content"),
    [
        ("opencode.json", "{not json"),
        ("opencode.json", '{"permission": 7}'),
        ("opencode.json", '{"permission": {"bash": ["x"]}}'),
        ("opencode.json", '{"permissions": [{"action": "shell"}]}'),
        ("opencode.json", '{"agent": ["x"]}'),
        (".opencode/agent/careful.md", "---\npermission: {bash: ask}\n---\nBe careful."),
        (".opencode/agent/careful.md", "---\npermission:\n  bash:\n    x: &a ask\n---\n"),
    ],
)
def test_rules_that_cannot_be_read_replace_nothing(
    world: tuple[Path, dict[str, str]], where: str, content: str
) -> None:
    project, env = world
    write(project / where, content)
    assert rulesets(str(project), env) is None
    assert not permits("make", str(project), env)


def test_rules_from_the_environment(world: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    project, env = world
    custom = tmp_path / "custom.json"
    write(custom, {"permission": {"bash": {"make *": "deny"}}})
    assert not permits("make all", str(project), {**env, "OPENCODE_CONFIG": str(custom)})
    inline = json.dumps({"permission": "ask"})
    assert not permits("ls", str(project), {**env, "OPENCODE_CONFIG_CONTENT": inline})
    assert not permits("ls", str(project), {**env, "OPENCODE_PERMISSION": '"deny"'})
    assert not permits("ls", str(project), {**env, "OPENCODE_PERMISSION": "{bad"})


@pytest.mark.parametrize(
    ("pattern", "text", "loose", "hit"),
    [
        ("git *", "git status", False, True),
        ("git *", "git", False, False),
        ("git *", "git", True, True),
        ("g?t", "git", False, True),
        ("a.b", "axb", False, False),
        ("*", "", False, True),
    ],
)
def test_wildcards_as_opencode_reads_them(pattern: str, text: str, loose: bool, hit: bool) -> None:
    assert matches(pattern, text, loose) is hit


def test_the_opencode_hook_replaces_only_what_the_rules_allow(
    world: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentreflex.core.contain import boundary
    from agentreflex.core.decision import Decision, Mode, Verdict
    from agentreflex.core.hosts.opencode import OpenCodeAdapter

    if boundary.engine_path() is None:
        pytest.fail("bubblewrap is not installed: `apt-get install -y bubblewrap` (.ci/run does)")
    project, env = world
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    write(project / "opencode.json", {"permission": {"bash": {"*": "allow", "touch *": "deny"}}})
    adapter = OpenCodeAdapter()
    allowed = Decision(verdict=Verdict.ALLOW, proposed=Verdict.ALLOW, mode=Mode.ENFORCED)

    def reply(command: str) -> dict[str, str]:
        payload = {
            "hook_event_name": "tool.execute.before",
            "session_id": "s",
            "cwd": str(project),
            "tool": "bash",
            "args": {"command": command},
        }
        out: dict[str, str] = json.loads(adapter.render(adapter.parse(payload), allowed).stdout)
        return out

    assert boundary.inner_command(reply("make test")["command"]) == "make test"
    assert "command" not in reply("touch made.txt")  # OpenCode's deny rule decides
    refused = reply("env touch made.txt")  # the rule, in a spelling OpenCode passes over
    assert refused.get("block") is True and "OpenCode permission rules" in refused["reason"]
    assert boundary.inner_command(reply("python3 w.py touch")["command"]) == "python3 w.py touch"


def test_an_agent_files_own_rules_are_read_and_its_other_words_are_not_rules(
    world: tuple[Path, dict[str, str]],
) -> None:
    """An agent file's front matter ``permission`` block counts like an agent's in the
    config; a file without one sets no rules, whatever its text says (``tools: bash:
    true``, a description that mentions bash: red-team rt32 saw every command of every
    agent left as written, outside the boundary, for such a file)."""
    project, env = world
    agents = Path(env["XDG_CONFIG_HOME"]) / "opencode" / "agent"
    write(
        agents / "review.md",
        "---\ndescription: may run bash, by permission\ntools:\n  bash: true\n---\nbash",
    )
    assert rulesets(str(project), env) == [([], "allow")]
    assert decide("make", str(project), env) == "contain"
    write(
        agents / "careful.md",
        '---\npermission:\n  edit: deny\n  bash:\n    "*": allow\n    "git push *": ask\n---\n',
    )
    assert decide("git push origin main", str(project), env) == "host"
    assert decide("nohup git push origin main", str(project), env) == "refuse"
    assert decide("git status", str(project), env) == "contain"
    write(agents / "urls.md", '---\npermission:\n  bash:\n    "curl https://*": deny\n---\n')
    assert decide("curl https://x.example", str(project), env) == "host"  # a quoted key's colon
    write(agents / "strict.md", "---\npermission: deny\n---\n")
    assert decide("make", str(project), env) == "host"
