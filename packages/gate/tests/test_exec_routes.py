"""Code-execution routes (issue 22 items 2 and 5): settings, startup files, generated
code, input-built commands, unknown wrappers, and what bash really runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from agentreflex.gate.check import check_command
from agentreflex.gate.model import Cmd
from agentreflex.gate.rules import derived
from agentreflex.gate.rules import git as rules_git
from agentreflex.gate.shell import inert, itemcode


def verdict(command: str, cwd: str = "/home/user/project") -> tuple[str, list[str]]:
    got, proposals = check_command(command, cwd=cwd, home="/home/user", project=cwd)
    return got, [p.code for p in proposals]


# --- git settings that run programs ----------------------------------------


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ({}, False),
        ({"GIT_CONFIG_COUNT": "0"}, False),
        ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b", "GIT_CONFIG_VALUE_0": ""}, False),
        ({"GIT_CONFIG_COUNT": "1"}, True),
        ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "a.b"}, True),
        ({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "", "GIT_CONFIG_VALUE_0": "x"}, True),
        ({"GIT_CONFIG_COUNT": "+1"}, True),
        ({"GIT_CONFIG_COUNT": " 1"}, True),
        ({"GIT_CONFIG_COUNT": "01"}, True),
        ({"GIT_CONFIG_COUNT": "9" * 5000}, True),
        ({"GIT_CONFIG_COUNT": "65"}, True),
    ],
)
def test_config_count_is_read_only_when_every_pair_is_there(
    env: dict[str, str], problem: bool
) -> None:
    assert bool(rules_git.config_env_problem(env)) is problem


@pytest.mark.parametrize(
    ("sub", "rest", "remote"),
    [
        ("fetch", [], True),
        ("push", ["origin", "main"], True),
        ("ls-remote", [], True),
        ("archive", ["--remote=ssh://h/r", "HEAD"], True),
        ("archive", ["HEAD"], False),
        ("remote", ["-v", "update"], True),
        ("remote", ["-v"], False),
        ("status", [], False),
    ],
)
def test_ssh_program_runs_only_when_git_contacts_a_remote(
    sub: str, rest: list[str], remote: bool
) -> None:
    assert rules_git.contacts_remote(sub, rest) is remote


def test_ssh_helper_is_judged_from_disk(tmp_path: Path) -> None:
    helper = tmp_path / "helper.sh"
    helper.write_text('#!/bin/sh\nexec ssh "$@"\n')
    assert verdict("GIT_SSH_COMMAND=./helper.sh git fetch origin", str(tmp_path))[0] == "ALLOW"
    helper.write_text("#!/bin/sh\nrm -rf ~\n")
    assert verdict("GIT_SSH_COMMAND=./helper.sh git fetch origin", str(tmp_path))[0] == "BLOCK"
    got, codes = verdict("GIT_SSH_COMMAND=./missing.sh git fetch origin", str(tmp_path))
    assert (got, codes) == ("ASK_USER", ["GATE-HIDDEN-PROGRAM"])


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git -c core.fsmonitor=./missing.sh status", "ASK_USER"),
        ("GIT_EXTERNAL_DIFF=./missing.sh git diff", "ASK_USER"),
        ("git config core.fsmonitor ./missing.sh", "ASK_USER"),
        ("git -c core.sshCommand=./missing.sh status", "ALLOW"),
        ("git -c core.pager=less log", "ALLOW"),
        ("git config user.name bot", "ALLOW"),
    ],
)
def test_program_settings_with_unreadable_files_ask(command: str, expected: str) -> None:
    assert verdict(command)[0] == expected


# --- shell startup files ---------------------------------------------------


def test_startup_file_is_read_where_the_shell_reads_it(tmp_path: Path) -> None:
    (tmp_path / "rc.sh").write_text("rm -rf ~\n")
    cwd = str(tmp_path)
    assert verdict("BASH_ENV=rc.sh bash build.sh", cwd)[0] == "BLOCK"
    assert verdict("bash --rcfile rc.sh -i", cwd)[0] == "BLOCK"
    assert verdict("ENV=rc.sh sh -i", cwd)[0] == "BLOCK"
    # where the shell does not read it, its content does not matter
    assert verdict("BASH_ENV=rc.sh bash -i", cwd)[0] == "ALLOW"
    assert verdict("ENV=rc.sh sh build.sh", cwd)[0] == "ALLOW"
    assert verdict("bash --rcfile rc.sh -c true", cwd)[0] == "ALLOW"
    assert verdict("BASH_ENV=rc.sh zsh build.sh", cwd)[0] == "ALLOW"


def test_startup_file_copied_over_with_unknown_content_asks() -> None:
    command = "printf 'true\\n' > /tmp/rc.sh; cp /tmp/x /tmp/rc.sh; BASH_ENV=/tmp/rc.sh bash a.sh"
    assert verdict(command) == ("ASK_USER", ["GATE-HIDDEN-PROGRAM"])
    assert verdict("printf 'true\\n' > /tmp/rc.sh; BASH_ENV=/tmp/rc.sh bash a.sh")[0] == "ALLOW"


# --- code generated at run time --------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        'eval "$(ssh-agent -s)"',
        'eval "$(pyenv init -)"',
        'eval "$(/usr/local/bin/brew shellenv)"',
        "source <(kubectl completion bash)",
        ". <(kubectl completion zsh)",
    ],
)
def test_plain_setup_idioms_pass(command: str) -> None:
    assert verdict(command)[0] == "ALLOW"


@pytest.mark.parametrize(
    "command",
    [
        'builtin eval "$(ssh-agent -s)"',
        'SETUP=1 eval "$(ssh-agent -s)"',
        'eval "$(ssh-agent -s)" >/tmp/agent.env',
        'eval "$(command ssh-agent -s)"',
        'eval "$(ssh-agent "$MODE")"',
        'trap "$(ssh-agent -s)" EXIT',
        "source <(kubectl completion bash | cat)",
        "source <(kubectl completion bash) extra",
        "source <(some-tool)",
    ],
)
def test_other_generated_code_asks(command: str) -> None:
    assert verdict(command)[0] == "ASK_USER"


# --- xargs / parallel: where the items land ---------------------------------


@pytest.mark.parametrize(
    ("template", "replace", "code"),
    [
        (["bash", "-c"], "", True),
        (["bash"], "", True),
        (["bash", "script.sh"], "", False),
        (["bash", "-n"], "", False),
        (["sh", "-c", 'wc -l "$1"', "_"], "", False),
        (["sh", "-c", 'eval "$1"', "_"], "", True),
        (["sh", "-c", "echo {}"], "{}", True),
        (["sudo", "--"], "", True),
        (["env", "--"], "", True),
        (["python3", "-c", "print(1)"], "", False),
        (["python3", "-c"], "", True),
        (["node", "-e", "x"], "", True),
        (["node", "-e", "x", "--"], "", False),
        (["awk", "-f", "a.awk"], "", True),
        (["awk", "{ print }"], "", False),
        (["eval", "echo ok"], "{}", False),
        (["find", ".", "-name", "x"], "", True),
        (["find", ".", "-name", "{}"], "{}", False),
        (["find", "./{}", "-name", "x"], "{}", False),
        (["find", "{}"], "{}", True),
        (["find", ".", "-exec", "echo", "{}", ";"], "{}", False),
        (["find", ".", "-exec", "sh", "-c", "{}", ";"], "{}", True),
        (["git", "reset", "{}"], "{}", True),
        (["git", "reset", "--", "{}"], "{}", False),
        (["git", "status"], "", False),
        (["git", "branch", "-d"], "", False),
        (["git"], "", True),
        (["wc", "-l"], "", False),
    ],
)
def test_items_as_code(template: list[str], replace: str, code: bool) -> None:
    assert itemcode.reads_as_code(template, replace) is code


def test_parallel_perl_replacement_strings_ask_even_in_a_dry_run() -> None:
    assert verdict("parallel --dry-run echo '{= system(\"id\") =}' ::: a")[0] == "ASK_USER"
    assert verdict("parallel --dry-run rm -rf {} ::: /")[0] == "ALLOW"


# --- unknown programs handed a command line --------------------------------


def test_derived_command_asks_only_for_unknown_programs_and_protected_heads() -> None:
    assert derived.wanted(Cmd(["tool", "git", "reset"], "tool git reset", "/"), known=False)
    assert not derived.wanted(Cmd(["man", "git", "reset"], "man git reset", "/"), known=False)
    assert not derived.wanted(Cmd(["tool", "ls"], "tool ls", "/"), known=False)
    assert not derived.wanted(Cmd(["A-B=2", "git"], "A-B=2 git", "/"), known=False)
    assert not derived.wanted(Cmd(["npm", "rm", "x"], "npm rm x", "/"), known=True)
    assert verdict("tool git reset --hard") == ("ASK_USER", ["GATE-DERIVED-COMMAND"])
    assert verdict("vaultrun -- git push --force origin main")[0] == "ASK_USER"
    assert verdict("op run -- git push --force origin main")[0] == "BLOCK"
    assert verdict("dotenv -- rm -rf dist")[0] == "ALLOW"
    assert derived.command_line(["run", "--", "git", "status"]) == ["git", "status"]
    assert derived.command_line(["run", "--", "make"]) == []
    assert verdict("tool git status")[0] == "ALLOW"


def test_derived_walk_leaves_no_state_behind() -> None:
    # the arguments are judged as a command, not run: the cd does not move the shell
    assert verdict("tool cd / ; rm -rf build")[0] == "ALLOW"


# --- what bash really runs ---------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("f() { rm -rf ~; }; f", "BLOCK"),
        ("f() { rm -rf ~; }; time f", "BLOCK"),
        ("f() { rm -rf ~; }; time -- f", "BLOCK"),
        ('f() { rm -rf ~; }; time "--" f', "ALLOW"),
        ("f() { rm -rf ~; }; X=1 time f", "ALLOW"),
        ("f() { rm -rf ~; }; env f", "ALLOW"),
        ("f() { rm -rf ~; }; sh -c f", "ALLOW"),
        ("f() { rm -rf ~; }; export -f f; bash -c f", "BLOCK"),
        ("f() { rm -rf ~; }; trap f EXIT", "BLOCK"),
        ("bash -c 'IFS=,; $*' _ rm -rf /", "BLOCK"),
        ("bash -c 'IFS=,; $*' _ 'rm -rf /'", "ALLOW"),
        ("bash -c 'IFS=; $*' _ rm -rf /", "ASK_USER"),
    ],
)
def test_functions_and_parameters(command: str, expected: str) -> None:
    assert verdict(command)[0] == expected


def test_one_line_bash_rejects_is_a_note_several_lines_ask() -> None:
    assert verdict("echo 'unterminated") == ("WARN", ["GATE-SYNTAX-REJECTED"])
    assert verdict("touch a\necho 'unterminated")[0] == "ASK_USER"


def test_last_of_dry_run_and_no_dry_run_wins() -> None:
    assert inert.inert("git", ["rm", "--dry-run", "-f", "a"]) == "dry run"
    assert inert.inert("git", ["rm", "--dry-run", "--no-dry-run", "-f", "a"]) == ""
    assert inert.inert("git", ["restore", "a", "--version"]) == "help"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git merge --abort", "ASK_USER"),
        ("git rebase --abor", "ASK_USER"),
        ("git merge feature", "ALLOW"),
        ("git checkout --track direct main", "ALLOW"),
        ("git checkout --recurse-submodules checkout main", "ALLOW"),
        ("git checkout --recurse-submodules main file.txt", "ASK_USER"),
        ("git restore -p", "BLOCK"),
        ("git restore -p --no-patch", "ALLOW"),
        ("find . -gid -delete -print", "ALLOW"),
        ("watch -x git reset --hard", "BLOCK"),
        ("watch -d git reset --hard", "BLOCK"),
        ("less +'!rm -rf ~' notes.txt", "BLOCK"),
        ("less +G notes.txt", "ALLOW"),
        ("awk '{ print | \"sh\" }' cmds.txt", "ASK_USER"),
        ("awk '{ print | \"sort\" }' words.txt", "ALLOW"),
    ],
)
def test_git_and_find_details(command: str, expected: str) -> None:
    assert verdict(command)[0] == expected


def test_abort_on_a_clean_work_tree_is_allowed(tmp_path: Path) -> None:
    import subprocess

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    (tmp_path / "a.txt").write_text("one\n")
    git("init", "-q")
    git("add", "a.txt")
    git("commit", "-qm", "one")
    assert verdict("git merge --abort", str(tmp_path))[0] == "ALLOW"
    (tmp_path / "a.txt").write_text("work in progress\n")
    assert verdict("git merge --abort", str(tmp_path))[0] == "ASK_USER"
