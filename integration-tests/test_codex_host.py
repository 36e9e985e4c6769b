"""agentreflex inside the real Codex CLI 0.169.0, offline, installed the user's way.

Each scenario installs ``@openai/codex`` (once, from npm, into ``.hosts/``),
runs ``agentreflex install codex`` into a fresh ``CODEX_HOME`` and drives
``codex exec`` inside ``unshare -n`` against the scripted fake Responses API
(:mod:`hostharness.fake_openai_responses`).  No run passes a hook-trust bypass
flag except the one control that shows what the trust install records changes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.install.codex_trust import our_entries
from hostharness.claude import HostUnavailableError, request_text
from hostharness.codex import CodexProject, CodexRun, install_codex
from hostharness.fake_openai_responses import SESSION
from hostharness.fakemodel import Turn, say, tool

pytestmark = pytest.mark.integration

BLOCKED = "Command blocked by PreToolUse hook"
BYPASS = "--dangerously-bypass-hook-trust"


@pytest.fixture(scope="session")
def codex_binary() -> Path:
    try:
        return install_codex()
    except HostUnavailableError as exc:
        pytest.fail(f"Codex is not available, so the guard cannot be proven in it: {exc}")


@pytest.fixture
def codex_project(tmp_path: Path, codex_binary: Path) -> Iterator[CodexProject]:
    project = CodexProject(tmp_path, codex_binary)
    project.set_mode("enforced")
    yield project
    project.cleanup()


@pytest.fixture
def installed(codex_project: CodexProject) -> CodexProject:
    out = codex_project.install()
    assert "hooks trusted in" in out, out
    return codex_project


def exec_command(cmd: str, text: str | None = None) -> Turn:
    return tool("exec_command", text=text, cmd=cmd)


def apply_patch(patch: str) -> Turn:
    return tool("apply_patch", input=patch)


def wipe(target: Path) -> str:
    """A recursive delete Codex's own command policy lets through (it refuses ``rm -f``)."""
    return f"find {target} -delete"


def make_sentinel_dir(project: CodexProject) -> Path:
    """Work of the user's outside the project, in their home (which the gate protects)."""
    target = project.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    return target


def doctor_codex(project: CodexProject) -> dict[str, Any]:
    done = project.agentreflex("doctor", "--json", "--cwd", str(project.project))
    checks = {c["check"]: c for c in json.loads(done.stdout)["checks"]}
    return dict(checks["host codex"])


def assert_blocked(run: CodexRun) -> str:
    """The model's next request shows the call blocked with our reason; returns that output."""
    outputs = run.tool_outputs()
    assert outputs, run.describe()
    assert BLOCKED in outputs[0], run.describe()
    assert len(outputs[0]) > len(BLOCKED) + 20, outputs[0]  # a reason, not just the verdict
    return outputs[0]


# ------------------------------------------------------------ the shell: exec_command


def test_destructive_command_is_blocked_and_the_reason_reaches_the_model(
    installed: CodexProject,
) -> None:
    target = make_sentinel_dir(installed)
    run = installed.run("clean up", [exec_command(wipe(target)), say("Cleaned up.")])
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-RM-" in assert_blocked(run), run.describe()  # the rule that fired, named
    assert "hook: PreToolUse Blocked" in run.stderr, run.describe()
    assert run.rc == 0, run.describe()


def test_a_command_in_its_workdir_is_judged_there(installed: CodexProject) -> None:
    """``exec_command`` runs ``cmd`` in ``workdir`` joined to the turn's cwd; its hook input
    is ``{"command"}`` alone (codex-rs core/src/tools/handlers/unified_exec/
    exec_command.rs, ``pre_tool_use_payload``), and Codex 0.169.0 reports that folder as
    the payload's ``cwd`` (seen), so the floors judge the command where it runs and the
    adapter must not join ``workdir`` again (red-team rt41)."""
    settings = installed.project / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("{}\n")
    call = tool("exec_command", cmd="echo '{\"hooks\": {}}' > settings.json", workdir=".claude")
    run = installed.run("tidy the settings", [call, say("Done.")])
    assert settings.read_text() == "{}\n", run.describe()
    assert ".claude/settings.json" in assert_blocked(run)


def test_ask_user_becomes_a_deny_that_tells_the_model_to_ask(installed: CodexProject) -> None:
    """Codex has no "ask": a hook answering it would count as failed and the tool would run.
    (The folder comes from a program's output, which the gate can't know; a ``$(cat F)``
    of a project file it reads.)"""
    target = make_sentinel_dir(installed)
    installed.write("where.txt", f"{target}\n")
    script = [exec_command('find "$(sed -n 1p where.txt)" -delete'), say("Cleaned up.")]
    run = installed.run("clean up", script)
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    reason = assert_blocked(run)
    assert "ask the user" in reason and "GATE-RM-UNRESOLVED" in reason, reason


def test_benign_command_runs(installed: CodexProject) -> None:
    run = installed.run("make a file", [exec_command("echo hello > made.txt"), say("Made it.")])
    assert (installed.project / "made.txt").read_text() == "hello\n", run.describe()
    assert "hook: PreToolUse Completed" in run.stderr, run.describe()  # the hook ran, allowed
    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()


def test_typing_into_an_open_shell_is_stopped_where_the_shell_opens(
    installed: CodexProject,
) -> None:
    """Codex 0.169 runs no hook for write_stdin, so the gate refuses the interactive shell."""
    target = make_sentinel_dir(installed)
    script = [
        tool("exec_command", cmd="bash", tty=True, yield_time_ms=500),
        tool("write_stdin", session_id=SESSION, chars=f"{wipe(target)}\n", yield_time_ms=1000),
        say("Cleaned up."),
    ]
    run = installed.run("clean up", script)
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-CODEX-STDIN" in assert_blocked(run)
    assert "Process running with session ID" not in "".join(run.tool_outputs())


# ------------------------------------------------------------ trust


def test_untrusted_hooks_are_reported_and_after_install_run_without_bypass(
    codex_project: CodexProject,
) -> None:
    project = codex_project
    project.install()
    config = project.codex_home / "config.toml"
    hooks_path = project.codex_home / "hooks.json"
    # Codex itself agrees with every hash install recorded
    listed = {h["key"]: h for h in project.hooks_list()}
    ours = our_entries(str(hooks_path), json.loads(hooks_path.read_text()), "codex")
    assert len(ours) == 7
    for key, digest in ours.items():
        assert listed[key]["currentHash"] == digest, listed[key]
        assert listed[key]["trustStatus"] == "trusted", listed[key]
    # hooks.json as a hand-wired setup (or an older install) leaves it: nobody trusted them
    trusted_config = config.read_text()
    config.write_text(trusted_config.split("# >>> agentreflex hook trust")[0])
    assert {h["trustStatus"] for h in project.hooks_list() if h["key"] in ours} == {"untrusted"}
    check = doctor_codex(project)
    assert check["ok"] is False and "UNTRUSTED" in check["detail"], check

    target = make_sentinel_dir(project)
    script = [exec_command(wipe(target)), say("Cleaned up.")]
    skipped = project.run("clean up", script)  # Codex skips untrusted hooks, silently
    assert not target.exists(), skipped.describe()
    assert "hook:" not in skipped.stderr, skipped.describe()

    target = make_sentinel_dir(project)
    bypassed = project.run("clean up", script, BYPASS)  # the one run with the bypass flag
    assert target.exists(), bypassed.describe()
    assert_blocked(bypassed)

    out = project.install()  # install again: it records the trust
    assert "hooks trusted in" in out, out
    assert doctor_codex(project)["ok"] is True
    run = project.run("clean up", script)
    assert BYPASS not in " ".join(project.exec_argv("x"))
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert_blocked(run)


# ------------------------------------------------------------ apply_patch


CALC_TEST = "from src.calc import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def patch_file(path: str, old: str, new: str) -> str:
    return f"*** Begin Patch\n*** Update File: {path}\n@@\n-{old}\n+{new}\n*** End Patch\n"


def test_patch_touching_a_test_file_is_blocked_under_do_not_modify_tests(
    installed: CodexProject,
) -> None:
    test_file = installed.write("tests/test_calc.py", CALC_TEST)
    installed.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    patch = patch_file(
        "tests/test_calc.py", "    assert add(2, 2) == 4", "    assert add(2, 2) == 0"
    )
    run = installed.run(
        "Fix the bug in src/calc.py. Do not modify tests.",
        [apply_patch(patch), say("Changed the expectation.")],
    )
    assert test_file.read_text() == CALC_TEST, run.describe()
    assert "GATE-CONSTRAINT: tests/test_calc.py" in assert_blocked(run)


def test_patch_elsewhere_runs_under_do_not_modify_tests(installed: CodexProject) -> None:
    installed.write("tests/test_calc.py", CALC_TEST)
    calc = installed.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    patch = patch_file("src/calc.py", "    return a - b", "    return a + b")
    run = installed.run(
        "Fix the bug in src/calc.py. Do not modify tests.",
        [apply_patch(patch), say("Fixed.")],
    )
    assert calc.read_text() == "def add(a, b):\n    return a + b\n", run.describe()
    assert BLOCKED not in "".join(run.tool_outputs()), run.describe()


# ------------------------------------------------------------ the done reflex (Stop)


def passing_tests(project: CodexProject) -> str:
    project.write("tests/test_ok.py", "def test_ok():\n    assert True\n")
    return f"{sys.executable} -m pytest -q -p no:cacheprovider tests"


def input_text(body: dict[str, Any]) -> str:
    return request_text(body.get("input"))


def test_done_reflex_keeps_the_turn_going_then_lets_it_end(installed: CodexProject) -> None:
    test_command = passing_tests(installed)
    add_feature = "*** Begin Patch\n*** Add File: src/feature.py\n+def feature():\n+    return 42\n*** End Patch\n"
    script = [
        apply_patch(add_feature),
        say("Done: the feature is implemented."),
        exec_command(test_command),
        say("Done: the feature is implemented and the tests pass."),
    ]
    run = installed.run("add the feature", script)
    assert (installed.project / "src" / "feature.py").exists(), run.describe()
    requests = run.main_requests
    assert len(requests) == 4, run.describe()  # the blocked stop made Codex ask the model again
    before, after = input_text(requests[1]), input_text(requests[2])
    continuation = after[len(before) :]
    assert "Done: the feature is implemented." in continuation, run.describe()
    assert "test" in continuation.lower().split("done: the feature is implemented.", 1)[1]
    assert "<hook_prompt" in continuation and "Not done yet" in continuation, continuation
    assert run.stderr.count("hook: Stop Blocked") == 1, run.describe()
    assert run.stderr.count("hook: Stop Completed") == 1, run.describe()  # then it may end
    assert run.stdout.strip().endswith("Done: the feature is implemented and the tests pass.")


# ------------------------------------------------------------ project hooks


def test_project_hooks_run_once_codex_trusts_the_project(codex_project: CodexProject) -> None:
    project = codex_project
    out = project.install("--project")
    assert "hooks trusted in" in out and "codex exec --trust" in out, out
    check = doctor_codex(project)
    assert check["ok"] is False and "is not a trusted project" in check["detail"], check
    target = make_sentinel_dir(project)
    script = [exec_command(wipe(target)), say("Cleaned up.")]
    ignored = project.run("clean up", script)  # Codex ignores an untrusted project's .codex/
    assert not target.exists(), ignored.describe()
    assert "Untrusted project-local configuration is disabled" in ignored.stderr

    config = project.codex_home / "config.toml"
    trust = f'\n[projects."{project.project}"]\ntrust_level = "trusted"\n'
    config.write_text(config.read_text() + trust)  # what Codex records when the user says yes
    assert doctor_codex(project)["ok"] is True
    target = make_sentinel_dir(project)
    run = project.run("clean up", script)
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-RM-" in assert_blocked(run)


def test_a_question_with_a_failing_probe_may_stop(installed: CodexProject) -> None:
    """Issue 31: nothing changed, so a failing test run is the answer, not unfinished work."""
    installed.write("src/__init__.py", "")
    installed.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    installed.write("tests/test_calc.py", CALC_TEST)
    probe = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
    answer = "test_add fails because add() subtracts; I changed nothing and it still fails."
    run = installed.run("why does test_add fail?", [exec_command(probe), say(answer)])
    assert run.stderr.count("hook: Stop Blocked") == 0, run.describe()
    assert run.stderr.count("hook: Stop Completed") == 1, run.describe()  # the hook did run
    assert len(run.main_requests) == 2, run.describe()
    assert run.stdout.strip().endswith(answer), run.describe()


def test_a_perl_in_place_edit_with_no_test_run_is_held(installed: CodexProject) -> None:
    """Issue 31 with issue 29: ``perl -pi`` reads as harmless words, but the work tree saw
    the edit, so a stop with no test run after it is held once."""
    installed.write("src/__init__.py", "")
    installed.write("src/calc.py", "def add(a, b):\n    return a - b\n")
    installed.write("tests/test_calc.py", CALC_TEST)
    script = [
        exec_command("perl -pi -e 's/a - b/a + b/' src/calc.py"),
        say("Fixed add()."),
        say("Fixed add(); I have not run the tests."),
    ]
    run = installed.run("fix add", script)
    assert "a + b" in (installed.project / "src" / "calc.py").read_text(), run.describe()
    assert run.stderr.count("hook: Stop Blocked") == 1, run.describe()
    before, after = input_text(run.main_requests[1]), input_text(run.main_requests[2])
    continuation = after[len(before) :]
    assert "Not done yet" in continuation and "no test run" in continuation, continuation


def test_an_indented_patch_header_cannot_reach_the_guard_files(installed: CodexProject) -> None:
    """Codex's apply_patch runs in Codex's own process, and its parser trims each hunk's
    header line and the whole patch (codex-rs apply-patch): ``  *** Add File: x`` adds
    ``x``, and a patch whose ``*** Begin Patch`` is indented still applies.  The hook read
    only headers at the start of a line, found no file, and allowed both (red-team rt35)."""
    indented = "*** Begin Patch\n  *** Add File: .claude/settings.json\n+{}\n*** End Patch\n"
    begin = " *** Begin Patch\n*** Add File: .gemini/settings.json\n+{}\n*** End Patch\n"
    run = installed.run("set up", [apply_patch(indented), apply_patch(begin), say("Set up.")])
    project = installed.project
    assert not (project / ".claude" / "settings.json").exists(), run.describe()
    assert not (project / ".gemini" / "settings.json").exists(), run.describe()


def test_a_patch_given_to_the_shell_cannot_reach_the_guard_files(installed: CodexProject) -> None:
    """Codex takes a shell command that runs ``apply_patch`` with a here-document for its own
    patch tool (codex-rs ``maybe_parse_apply_patch_verified``) and applies it itself: the
    hook was asked about a shell command, read no file in its here-document, and allowed
    it (red-team rt35)."""
    patch = "*** Begin Patch\n*** Add File: .claude/settings.json\n+{}\n*** End Patch"
    command = f"apply_patch <<'EOF'\n{patch}\nEOF\n"
    run = installed.run("set up", [exec_command(command), say("Set up.")])
    assert not (installed.project / ".claude" / "settings.json").exists(), run.describe()


def test_a_command_exiting_non_zero_is_a_failure_and_its_third_identical_attempt_refused(
    installed: CodexProject,
) -> None:
    """The same failing command three times: the third is a loop.  Codex's PostToolUse
    hands on the output alone; the exit is read from the rollout Codex wrote just before
    (a run the user's way, not ``--ephemeral``, which writes none).  It was a strict
    xfail until the hook read it (rt45's open item)."""
    failing = f"{sys.executable} -c \"import sys; print('cannot reach registry'); sys.exit(3)\""
    script = [exec_command(failing)] * 3 + [say("Stopped.")]
    run = installed.run("install the dependencies", script, ephemeral=False)
    outputs = run.tool_outputs()
    assert "cannot reach registry" in outputs[0], run.describe()
    assert "Loop:" not in outputs[1], run.describe()
    assert "Loop:" in outputs[2], run.describe() + "\n" + json.dumps(outputs)[:3000]
