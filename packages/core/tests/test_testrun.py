"""core.testrun: the one answer to "is this a test run, and is its exit status its own?"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core import testrun
from agentreflex.core.testrun import FAKE, MASKED, NONE, RUN, assess, summary


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("pytest -q", RUN),
        ("uv run --frozen pytest -x", RUN),
        ("timeout 60 env CI=1 pytest", RUN),
        ("npx vitest run", RUN),
        (".venv/bin/pytest -q", RUN),
        ("node_modules/.bin/jest", RUN),
        ("./gradlew test", RUN),
        ("pytest -n 4", RUN),  # xdist's -n is not make's dry run
        ("pytest && echo done", RUN),
        ("pytest; pytest -x", RUN),  # the last runner's status stands
        ("set -euo pipefail\npytest | tee log", RUN),
        ("pytest | head -1", MASKED),
        ("pytest 2>&1 | tail -5", MASKED),
        ("pytest || true", MASKED),
        ("pytest; true", MASKED),
        ("pytest & wait", MASKED),
        ("false || pytest", MASKED),
        ("./pytest -q", FAKE),
        ("bin/pytest", FAKE),
        ("pytest(){ echo 3 passed; }; pytest", FAKE),
        ("function pytest { echo ok; }; pytest", FAKE),
        ("alias pytest='echo 3 passed'; pytest", FAKE),
        ("pytest --collect-only", NONE),
        ("make -n test", NONE),
        ("pip install pytest", NONE),
        ("echo pytest", NONE),
    ],
)
def test_commands(tmp_path: Path, command: str, verdict: str) -> None:
    assert assess(command, str(tmp_path)).verdict == verdict


def test_python_m_prefers_a_local_module(tmp_path: Path) -> None:
    assert assess("python -m pytest", str(tmp_path)).verdict == RUN
    (tmp_path / "pytest").mkdir()
    found = assess("python3 -m pytest", str(tmp_path))
    assert found.verdict == FAKE and "shadows" in found.reason


def test_make_and_package_scripts_are_read_to_their_commands(tmp_path: Path) -> None:
    sub = tmp_path / "app"
    sub.mkdir()
    (sub / "Makefile").write_text(
        "X := 1\ntest: build\n\t@echo 3 passed\ncheck:\n\t-uv run pytest\n"
    )
    assert assess("cd app && make test", str(tmp_path)).verdict == FAKE
    assert assess("make -C app check", str(tmp_path)).verdict == RUN
    assert assess("make test", str(tmp_path)).verdict == FAKE  # no Makefile here
    (sub / "package.json").write_text('{"scripts": {"test": "jest", "test:e2e": "echo ok"}}')
    assert assess("cd app && npm test", str(tmp_path)).verdict == RUN
    assert assess("cd app && npm run test:e2e", str(tmp_path)).verdict == FAKE
    (sub / "package.json").write_text("{not json")
    assert assess("cd app && yarn test", str(tmp_path)).verdict == FAKE


def test_make_variables_are_expanded(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text(
        "PYTHON ?= python3\nVENV := .venv\ntest:\n\t$(PYTHON) -m pytest\n"
        "check:\n\t${VENV}/bin/pytest -q\nall:\n\t$(MAKE) test\nfake:\n\t$(ECHO) 3 passed\n"
    )
    assert assess("make test", str(tmp_path)).verdict == RUN
    assert assess("make check", str(tmp_path)).verdict == RUN
    assert assess("make all", str(tmp_path)).verdict == NONE  # `all` is not a test target
    assert assess("make -C . test", str(tmp_path)).verdict == RUN


def test_a_script_that_calls_itself_stops(tmp_path: Path) -> None:
    (tmp_path / "Makefile").write_text("test:\n\tmake test\n")
    assert assess("make test", str(tmp_path)).verdict == FAKE


def test_without_a_working_directory_targets_are_taken_at_their_word() -> None:
    assert assess("make test").verdict == RUN
    assert testrun.is_test_run("npm test")
    assert not testrun.is_test_run("npm test | head")


@pytest.mark.parametrize(
    ("output", "result"),
    [
        ("===== 1 failed, 3 passed in 0.4s =====", "failed"),
        ("3 passed in 0.01s", "passed"),
        ("collected 0 items\n== no tests ran ==", "none"),
        ("Ran 4 tests in 0.001s\n\nOK", "passed"),
        ("FAILED (failures=1)", "failed"),
        ("# tests 2\n# pass 1\n# fail 1", "failed"),
        ("# tests 2\n# pass 2\n# fail 0", "passed"),
        ("\u2139 tests 1\n\u2139 pass 1\n\u2139 fail 0", "passed"),
        ("# tests 0\n# pass 0\n# fail 0", "none"),
        ("test result: ok. 5 passed; 0 failed", "passed"),
        ("Tests:       1 failed, 2 passed, 3 total", "failed"),
        ("ok  \texample.com/m\t0.01s", "passed"),
        ("F.", ""),
    ],
)
def test_summary(output: str, result: str) -> None:
    assert summary(output) == result


# Each runner's closing lines as its own docs or sources print them (URLs in core.testrun).
@pytest.mark.parametrize(
    ("output", "result"),
    [
        # go test -run XXX: every package says it ran nothing, and exits 0
        (
            "ok  \texample.com/m/a\t0.004s [no tests to run]\n?   \texample.com/m/b\t[no test files]",
            "none",
        ),
        ("ok  \texample.com/m/a\t0.004s [no tests to run]\nok  \texample.com/m/c\t0.2s", "passed"),
        ("testing: warning: no tests to run\nPASS\nok  \tm\t0.01s [no tests to run]", "none"),
        # pytest -k nomatch: everything deselected
        ("collected 4 items / 4 deselected / 0 selected\n==== 4 deselected in 0.01s ====", "none"),
        ("\n1 deselected in 0.00s", "none"),  # the same with -q
        ("===== 2 passed, 3 deselected in 0.02s =====", "passed"),
        ("Tests:       3 skipped, 3 total", "none"),  # jest: everything skipped ran nothing
        # bun test
        (" 4 pass\n 1 fail\n 5 expect() calls\nRan 5 tests across 2 files. [150ms]", "failed"),
        (" 5 pass\n 0 fail\nRan 5 tests across 2 files. [40ms]", "passed"),
        # deno test
        ("FAILED | 2 passed | 1 failed (15ms)", "failed"),
        ("ok | 3 passed | 0 failed (12ms)", "passed"),
        ("ok | 0 passed | 0 failed | 3 filtered out (2ms)", "none"),  # deno test --filter nomatch
        # cargo nextest
        ("     Summary [   0.005s] 3 tests run: 2 passed, 1 failed, 0 skipped", "failed"),
        (
            "     Summary [   0.001s] 0 tests run: 0 passed, 5 skipped\nerror: no tests to run",
            "none",
        ),
        # vitest run --passWithNoTests
        ("No test files found, exiting with code 0", "none"),
        # rspec
        ("Finished in 0.01 seconds\n3 examples, 1 failure", "failed"),
        ("Finished in 0.01 seconds\n3 examples, 0 failures", "passed"),
        ("No examples found.\n0 examples, 0 failures", "none"),
        # mix test (ExUnit)
        ("Finished in 0.03 seconds\n5 tests, 2 failures", "failed"),
        ("Finished in 0.03 seconds\n1 test, 0 failures", "passed"),
        ("0 tests, 0 failures", "none"),
        ("Finished in 0.05 seconds\n5 tests, 0 failures, 5 excluded", "none"),  # mix test --only x
        ("Finished in 0.05 seconds\n5 tests, 0 failures, 2 excluded", "passed"),
        ("3 examples, 0 failures, 3 pending", "none"),
        # mvn -q test (Surefire)
        (
            "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0\n[INFO] BUILD FAILURE",
            "failed",
        ),
        ("[INFO] Tests run: 3, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS", "passed"),
        # gradle test
        (
            "3 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\nBUILD FAILED in 2s",
            "failed",
        ),
        # dotnet test
        ("Failed!  - Failed:     1, Passed:     2, Skipped:     0, Total:     3", "failed"),
        ("Passed!  - Failed:     0, Passed:     3, Skipped:     0, Total:     3", "passed"),
        ("No test matches the given testcase filter `Nope` in /src/bin/T.dll", "none"),
        # ctest
        ("67% tests passed, 1 tests failed out of 3", "failed"),
        ("100% tests passed, 0 tests failed out of 3", "passed"),
        ("No tests were found!!!", "none"),
        # phpunit
        ("FAILURES!\nTests: 3, Assertions: 3, Failures: 1.", "failed"),
        ("OK (3 tests, 3 assertions)", "passed"),
        ("No tests executed!", "none"),
        # tox and nox
        ("  py312: FAIL code 1 (2.10 seconds)\n  evaluation failed :( (2.2 seconds)", "failed"),
        ("  py312: OK (2.10 seconds)\n  congratulations :) (2.2 seconds)", "passed"),
        ("nox > Session tests-3.12 failed.", "failed"),
        ("nox > Session tests-3.12 was successful.", "passed"),
        # bazel test
        (
            "//pkg:t  FAILED in 0.3s\nExecuted 1 out of 3 tests: 2 tests pass and 1 fails locally.",
            "failed",
        ),
        ("//pkg:t  PASSED in 0.3s\nExecuted 3 out of 3 tests: 3 tests pass.", "passed"),
        ("ERROR: No test targets were found, yet testing was requested", "none"),
    ],
)
def test_summary_of_every_runner_the_vocabulary_knows(output: str, result: str) -> None:
    assert summary(output) == result


# Runners as their own docs invoke them, each a real run (source in the id).
@pytest.mark.parametrize(
    "command",
    [
        "vendor/bin/phpunit",  # https://docs.phpunit.de/en/11.5/installation.html
        "./vendor/bin/phpunit --testdox",
        "./mvnw test",  # https://maven.apache.org/wrapper/
        "mvn -q test",
        "mvn -pl core -am test",
        "mvn clean verify",
        "./gradlew :app:test",  # https://docs.gradle.org/current/userguide/java_testing.html
        "./gradlew check",
        "gradle testDebugUnitTest",
        "./gradlew :lib:integrationTest",
        "bazel test //...",  # https://bazel.build/reference/command-line-reference#test
        "bazelisk test //pkg:all",
        "pnpm -r test",  # https://pnpm.io/cli/recursive
        "pnpm --filter web test",  # https://pnpm.io/filtering
        "pnpm -r run test",
        "yarn workspaces foreach -A run test",  # https://yarnpkg.com/cli/workspaces/foreach
        "cargo nextest run",
        "bun test",
        "deno test -A",
        "tox -e py312",
        "nox -s tests",
        "ctest --test-dir build --output-on-failure",
        "dotnet test",
        "bundle exec rspec",
        "mix test",
        "bin/rails test",  # https://guides.rubyonrails.org/testing.html
        "bundle exec rake test",
        "php artisan test",  # https://laravel.com/docs/testing
        "sbt test",
        "zig build test",
        "flutter test",
        "dart test",
        "cabal test",
        "stack test",
        "lein test",
        "meson test -C build",
        "hatch test",  # https://hatch.pypa.io/latest/tutorials/testing/overview/
    ],
)
def test_every_runner_the_vocabulary_knows_is_a_run(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict == RUN


@pytest.mark.parametrize(
    "command",
    [
        # https://maven.apache.org/surefire/maven-surefire-plugin/examples/skipping-tests.html
        "mvn test -DskipTests",
        "./mvnw verify -Dmaven.test.skip=true",
        "./gradlew build -x test",  # https://docs.gradle.org/current/userguide/command_line_interface.html
        "./gradlew check --exclude-task test",
        "./gradlew testClasses",  # compiles the tests, runs none
        "bin/pytest",  # a project file named like a runner is still not one
    ],
)
def test_a_build_told_to_skip_its_tests_runs_none(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict in (NONE, FAKE)


def test_workspace_runs_are_each_package_s_script_and_the_root_s_is_read(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"scripts": {"test": "echo 3 passed"}}')
    assert assess("pnpm -w test", str(tmp_path)).verdict == FAKE  # the root's own script
    assert assess("pnpm -r test", str(tmp_path)).verdict == RUN
    assert assess("npm test --workspaces", str(tmp_path)).verdict == RUN
    assert assess("mvn test -DskipTests=false", str(tmp_path)).verdict == RUN


def test_a_run_in_another_folder_is_not_this_project_s(tmp_path: Path) -> None:
    proj = tmp_path / "repo" / "pkg"
    proj.mkdir(parents=True)
    here = str(proj)
    assert assess("cd /tmp/scratch && pytest -q", here).verdict == FAKE
    assert assess("(cd ../../other-repo && pytest)", here).verdict == FAKE
    assert assess("pushd /srv/old-checkout && go test ./...", here).verdict == FAKE
    found = assess("cd /tmp/scratch && pytest -q", here)
    assert "/tmp/scratch" in found.reason and "outside the project" in found.reason
    assert assess("cd .. && pytest", here).verdict == RUN  # the repository above the package
    assert assess("cd tests && pytest", here).verdict == RUN
    assert assess("(cd tests && pytest)", here).verdict == RUN  # a subshell's closing paren
    assert assess(f"cd {here} && pytest", here).verdict == RUN


def test_a_run_in_another_package_of_the_same_repository_is_this_project_s(
    tmp_path: Path,
) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    a = tmp_path / "repo" / "packages" / "a"
    a.mkdir(parents=True)
    assert assess("cd ../b && npm test --workspaces", str(a)).verdict == RUN
    assert assess("cd ../../../elsewhere && pytest", str(a)).verdict == FAKE


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("pytest /tmp/scratch/test_x.py", FAKE),
        ("pytest --rootdir=/tmp/scratch", FAKE),
        ("./gradlew -p /srv/other test", FAKE),
        ("cargo test --manifest-path /srv/other/Cargo.toml", FAKE),
        ("ctest --test-dir /srv/other/build", FAKE),
        ("pytest tests/ /tmp/scratch/test_x.py", RUN),  # this project's tests run too
        ("pytest {repo}/pkg/tests", RUN),
        ("pytest ../pkg/tests", RUN),
        ("ctest --test-dir build", RUN),
        ("pytest -p no:cacheprovider -q", RUN),  # pytest's -p loads a plugin, no folder
        ("pytest -q --junitxml /tmp/report.xml", RUN),  # an option's value, not a test path
        ("go test -o /tmp/t.bin ./...", RUN),
    ],
)
def test_a_runner_pointed_at_another_folder_tests_that_folder(
    tmp_path: Path, command: str, verdict: str
) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "pkg").mkdir()
    assert assess(command.format(repo=repo), str(repo / "pkg")).verdict == verdict


@pytest.mark.parametrize(
    "command",
    [
        "go test -list . ./...",  # prints test names, then "ok pkg 0.01s"
        "go test -list=Test ./pkg",
        "vitest list",
        "npx vitest list --json",
        "cargo nextest list",
        "ctest -N",
        "ctest --test-dir build --show-only",
        "./gradlew test -m",
        "tox -l",
        "tox list",
    ],
)
def test_a_runner_s_own_list_or_dry_run_runs_no_test(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict == NONE


@pytest.mark.parametrize(
    "command",
    ["cargo test list", "vitest run list", "go test -run TestList ./...", "tox -e lint"],
)
def test_a_test_named_like_a_list_switch_still_runs(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict == RUN


@pytest.mark.parametrize(
    "script",
    [
        "react-scripts test --watchAll=false",  # https://create-react-app.dev/docs/running-tests
        "ng test --watch=false",  # https://angular.dev/cli/test
        "karma start --single-run",
        "ava",
        "tap",
        "playwright test",  # https://playwright.dev/docs/test-cli
        "cypress run",  # https://docs.cypress.io/app/references/command-line
        "turbo run test",  # https://turbo.build/repo/docs/reference/run
        "turbo test",
        "nx run-many -t test",  # https://nx.dev/reference/nx-commands
        "nx affected -t test",
        "lerna run test",  # https://lerna.js.org/docs/api-reference/commands
        "cross-env NODE_ENV=test jest --ci",
        "nyc mocha",
        "c8 --reporter=lcov node --test",
        "dotenv -e .env.test -- vitest run",
    ],
)
def test_a_package_script_naming_a_javascript_runner_is_a_run(tmp_path: Path, script: str) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": script}}))
    assert assess("npm test", str(tmp_path)).verdict == RUN


@pytest.mark.parametrize(
    "script", ["turbo run build", "nx build app", "cross-env CI=1 echo 3 passed"]
)
def test_a_package_script_that_runs_no_tests_is_still_refused(tmp_path: Path, script: str) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": script}}))
    assert assess("npm test", str(tmp_path)).verdict == FAKE


def test_a_dangling_git_link_is_no_repository_top_as_for_git(tmp_path: Path) -> None:
    """red-team rt49: the repository holding the working folder was found by a twin of
    the guard's own ``work_tree_top`` that followed a ``.git`` link where the guard's did
    not, so the two disagreed on a ``.git`` link leading nowhere.  Git skips such a link
    and goes on up; so do both now (one definition)."""
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    a = tmp_path / "repo" / "packages" / "a"
    a.mkdir(parents=True)
    (a / ".git").symlink_to(tmp_path / "nowhere")
    assert assess("cd ../b && npm test --workspaces", str(a)).verdict == RUN
    from agentreflex.core.worktree.safegit import work_tree_top

    assert work_tree_top(str(a)) == str(tmp_path / "repo")


# red-team rt70: a runner's name rebound to another program in the command itself, as an
# alias or a function is: bash's `hash -p FILE NAME` ("no path search is performed, and
# filename is used as the full filename of the command", bash(1) SHELL BUILTIN COMMANDS)
@pytest.mark.parametrize(
    "command",
    [
        "hash -p /bin/true pytest; pytest",
        "hash -p /usr/bin/true pytest && pytest -q",
        "hash -r -p /bin/true npm; npm test",
    ],
)
def test_a_runner_name_rebound_by_hash_is_fake(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict == FAKE


# red-team rt70: pytest reads more arguments from PYTEST_ADDOPTS ("extra command line
# options", docs.pytest.org reference: environment variables), so a list-only switch put
# there in the command collects and runs no test, with exit status 0, as `pytest --co` does
@pytest.mark.parametrize(
    "command",
    [
        "PYTEST_ADDOPTS=--collect-only pytest",
        "env PYTEST_ADDOPTS=--co pytest -q",
        "export PYTEST_ADDOPTS=--co; pytest",
        "PYTEST_ADDOPTS='-q --co' python -m pytest",
        'export PYTEST_ADDOPTS="--fixtures" && uv run pytest',
    ],
)
def test_a_list_only_switch_in_pytest_addopts_runs_no_test(tmp_path: Path, command: str) -> None:
    assert assess(command, str(tmp_path)).verdict == NONE


def test_pytest_addopts_without_a_list_switch_still_runs(tmp_path: Path) -> None:
    assert assess("PYTEST_ADDOPTS='-x -q' pytest", str(tmp_path)).verdict == RUN


def test_a_250_kb_command_of_test_runs_is_assessed_well_inside_the_reflexes_deadline(
    tmp_path: Path,
) -> None:
    """Runaway asks whether every proposed command runs tests: ``pytest -q t0; pytest -q
    t1; ...`` (250 kB, 19 000 runs) took 7.8 s here, each run looking again through every
    run after it for the last one (is its status the command's?).  Now the last is found
    once, and the assessment checks the reflexes' deadline between segments: given 3 s
    (a fifth of FLOOR_HARD_LIMIT) it ends with time left, and past the deadline it stops."""
    from agentreflex.core.util import deadline

    command = "; ".join(f"pytest -q t{i}" for i in range(20_000))[:250_000]
    command = command[: command.rindex(";")]
    before = deadline.start(3.0)
    try:
        assert assess(command, str(tmp_path)).verdict == RUN  # the last run's status is its
        deadline.check()  # raises if the 3 s ran out on the way
    finally:
        deadline.restore(before)
    assert assess(command + "; echo done", str(tmp_path)).verdict == MASKED
    assert assess("pytest -q a; echo b; pytest -q c", str(tmp_path)).verdict == RUN
    assert assess("pytest -q a; echo b; pytest -q c; ls", str(tmp_path)).verdict == MASKED
    assert assess("pytest -q a; ; ", str(tmp_path)).verdict == RUN
    before = deadline.start(0.0)
    try:
        with pytest.raises(deadline.OutOfTime):
            assess(command, str(tmp_path))
    finally:
        deadline.restore(before)
