"""What is a test run, and which words are wrappers: the one answer every package asks.

A command counts as a test run only when a real test framework runs and its
exit status is its own.  The executable is resolved the way the shell would
resolve it, from the command text and the project's files (never by running
anything):

* a shell function or alias defined in the command shadows the runner
  (``pytest(){ echo "3 passed"; }; pytest`` runs no tests);
* a ``./pytest`` or ``bin/pytest`` path is a project file named like a
  runner, not the runner (virtualenv and ``node_modules/.bin`` paths are);
* ``python -m pytest`` with a ``pytest.py`` or ``pytest/`` in the working
  directory imports that local module first;
* ``make test`` and ``npm test`` are read to the commands their Makefile
  target or package.json script runs; a target that only echoes is no run.

The status is *masked* when something else decides the exit status: a pipe
without ``set -o pipefail`` (``pytest | head -1``), ``|| true``, ``; true``,
a runner that only runs when something before it fails.  A masked run is not
a pass: only a failure its own summary reports is believed.

:func:`summary` reads the framework's own closing summary from its output
(pytest, unittest, node --test, jest, vitest, mocha, go test, cargo test).

Stdlib only; the hook path imports it.
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util import fastjson
from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record

RUN = "run"  # a real framework ran and the status is its own
MASKED = "masked"  # a real framework ran but something else decides the exit status
FAKE = "fake"  # looks like a runner, resolves to something else
NONE = ""  # no test runner in the command

# A test runner is recognised only where a command starts (after env
# assignments and wrappers), never as a word inside an argument.
RUNNERS = LazyPattern(
    r"^(?:"
    r"pytest|py\.test|python3?(?:\.\d+)?\s+-m\s+(?:pytest|unittest)|tox|nox|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S+)?|jest|vitest|mocha|"
    r"pnpm\s+(?:(?:-r|--recursive|-w|--workspace-root|--parallel|--stream|"
    r"--filter(?:=\S+|\s+\S+)|-F\s+\S+)\s+)+(?:run\s+)?test(?::\S+)?|"
    r"yarn\s+workspaces\s+(?:foreach\s+(?:-\S+\s+)*run\s+)test(?::\S+)?|"
    r"node\s+--test|deno\s+test|cargo\s+(?:test|nextest)|go\s+test|gotestsum|"
    r"mvnw?\s+(?:\S+\s+)*?(?:test|verify)|gradlew?\s+(?:\S+\s+)*?(?:\S*:)?(?:\w*Test|test|check)|"
    r"g?make\s+(?:-[Cf]\s+\S+\s+|-\S+\s+)*(?:test|check)\S*|ctest|rspec|phpunit|dotnet\s+test|swift\s+test|"
    r"mix\s+test|bats|prove|(?:bazel|bazelisk)\s+(?:-\S+\s+)*(?:test|coverage)|"
    r"(?:sbt|lein|cabal|stack|flutter|dart|meson|hatch)\s+(?:-\S+\s+)*test|zig\s+build\s+test|"
    r"rake\s+(?:test|spec)(?::\S+)?|rails\s+test|php\s+artisan\s+test|busted|"
    # JavaScript runners a package script names (each tool's CLI docs): Create React App,
    # Angular, Karma, AVA, node-tap, Playwright, Cypress; and the monorepo task runners
    # that run each package's own test script (turbo, nx, lerna).
    r"react-scripts\s+test|ng\s+test|karma\s+start|ava|tap|playwright\s+test|cypress\s+run|"
    r"turbo\s+(?:run\s+)?test(?::\S+)?|lerna\s+run\s+test|"
    r"nx\s+(?:test|affected\s+(?:-t|--target)[= ]test|run-many\s+(?:-\S+\s+)*?(?:-t|--targets?)[= ]test)"
    r")(?=$|\s)",
    hints="test Test tox nox jest mocha verify check rspec phpunit bats prove spec busted coverage karma ava tap cypress",
)
# Env assignments and command wrappers that may precede the real command.
WRAPPERS = LazyPattern(
    r"^(?:(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\"[^\"]*\"|[^\s'\"])*|sudo|env|time|nice|nohup|command|exec|"
    r"xvfb-run(?:\s+-a)?|timeout(?:\s+-\S+)*\s+\S+|"
    r"(?:uv|poetry|pipenv|hatch|pdm|rye)\s+run(?:\s+--?\S+)*|"
    r"npx|bunx|pnpm\s+exec|yarn\s+exec|bundle\s+exec|"
    # a package script's env and coverage wrappers: cross-env, dotenv-cli, nyc, c8
    r"cross-env|dotenv(?:\s+-\S+(?:\s+[^-\s]\S*)?)*\s+--|nyc(?:\s+--\S+)*|c8(?:\s+--\S+)*)\s+)+"
)
# The operators between a compound command's parts, kept.
_OPERATORS = LazyPattern(r"(\|\||&&|;|\||(?<![<>])&(?!>)|\n)")
# Words that make a runner list, describe or dry-run its tests.
_NO_RUN = frozenset(
    [
        "--version",
        "-V",
        "--help",
        "-h",
        "--collect-only",
        "--co",
        "--no-run",
        "--list",
        "--listTests",
        "--list-tests",
        "--dry-run",
        "--dryrun",
        "--just-print",
        "--recon",
        "--fixtures",
        "--markers",
    ]
)
# A runner's own switch or subcommand that lists or dry-runs its tests, each as its docs
# name it: make -n, go test -list REGEX (https://pkg.go.dev/cmd/go#hdr-Testing_flags),
# vitest list (https://vitest.dev/guide/cli#vitest-list), cargo nextest list
# (https://nexte.st/docs/listing/), ctest -N/--show-only
# (https://cmake.org/cmake/help/latest/manual/ctest.1.html), gradle -m/--dry-run
# (https://docs.gradle.org/current/userguide/command_line_interface.html), tox -l/list
# (https://tox.wiki/en/latest/cli_interface.html).
_LISTS = {
    "make": ("-n",),
    "gmake": ("-n",),
    "go": ("-list", "-test.list"),
    "vitest": ("list",),
    "cargo": ("list",),
    "ctest": ("-N", "--show-only"),
    "gradle": ("-m",),
    "gradlew": ("-m",),
    "tox": ("-l", "-a", "list", "--listenvs", "--listenvs-all"),
}


def _lists_only(runner: str, words: list[str]) -> bool:
    """Does the runner's own list or dry-run switch stand among its words?"""
    switches = _LISTS.get(runner, ())
    if runner == "cargo" and words[1:2] != ["nextest"]:
        return False  # ``list`` is nextest's subcommand; ``cargo test list`` filters by name
    if runner == "vitest" and words[1:2] != ["list"]:
        return False
    return any(w.split("=", 1)[0] in switches for w in words[1:])


_FUNCTION_DEF = LazyPattern(
    r"(?:^|[;&|\n{(]\s*|\bfunction\s+)([A-Za-z_][\w.-]*)\s*\(\s*\)|\bfunction\s+([A-Za-z_][\w.-]*)",
    hints="( function",
)
_ALIAS = LazyPattern(r"\balias\s+([A-Za-z_][\w.-]*)=", hints="alias")
# bash's ``hash -p FILE NAME``: NAME runs FILE, with no path search (bash(1)), red-team rt70
_HASHED = LazyPattern(
    r"\bhash\s+(?:-[a-z]+\s+)*?-[a-z]*p[a-z]*\s+\S+\s+([A-Za-z_][\w.-]*)", hints="hash"
)
# pytest's arguments from the environment ("extra command line options", PYTEST_ADDOPTS in
# docs.pytest.org's reference), set in the command: a list-only switch there runs no test
_PYTEST_ADDOPTS = LazyPattern(
    r"\bPYTEST_ADDOPTS=('[^']*'|\"[^\"]*\"|[^\s;&|)]*)", hints="PYTEST_ADDOPTS"
)
_PIPEFAIL = LazyPattern(
    r"\bset\s+(?:-\w*\s+)*-[a-z]*o\s*pipefail|\bset\s+-o\s+pipefail", hints="pipefail"
)
# Directories whose executables are installed tools, not project files.
_TOOL_DIRS = LazyPattern(
    r"(?:^|/)(?:\.?venv[^/]*|env|\.tox/[^/]+|\.nox/[^/]+)/bin/[^/]+$|node_modules/\.bin/|"
    # Composer's default bin-dir (https://getcomposer.org/doc/articles/vendor-binaries.md)
    # and the Rails binstub bin/rails (https://guides.rubyonrails.org/command_line.html).
    r"(?:^|/)vendor/bin/[^/]+$|(?:^|/)bin/rails$"
)
_MAX_DEPTH = 3


@record(frozen=True)
class TestRun:
    """What a command does about tests: ``verdict`` is RUN, MASKED, FAKE or NONE."""

    verdict: str = NONE
    runner: str = ""
    reason: str = ""

    @property
    def counts(self) -> bool:
        """A real framework ran (masked or not): its own failure summary is believed."""
        return self.verdict in (RUN, MASKED)


def is_test_run(command: str, cwd: str = "") -> bool:
    """A real framework runs and decides the exit status."""
    return assess(command, cwd).verdict == RUN


def program(command: str) -> str:
    """The program the first simple command runs: wrappers, assignments and path dropped."""
    for part in _OPERATORS.split(command)[::2]:
        seg = strip_wrappers(part.strip().lstrip("({").strip())
        if seg:
            return seg.split(None, 1)[0].strip("'\"").rsplit("/", 1)[-1]
    return ""


def strip_wrappers(segment: str) -> str:
    """A simple command without env assignments and wrappers (``uv run``, ``timeout 60``)."""
    return WRAPPERS.sub("", segment.strip()).strip()


def assess(command: str, cwd: str = "", depth: int = 0) -> TestRun:
    """Resolve ``command`` (run in ``cwd``) to what it does about tests.

    Not cached: the answer depends on project files (Makefile, package.json,
    a local ``pytest.py``) that change between calls in a long-lived daemon.
    """
    shadowed = _shadowed(command)
    pipefail = bool(_PIPEFAIL.search(command))
    addopts = [
        w for m in _PYTEST_ADDOPTS.finditer(command) for w in m.group(1).strip("'\"").split()
    ]
    parts = _OPERATORS.split(command)
    last = _last_said(parts)
    here = cwd
    best = TestRun()
    for k in range(0, len(parts), 2):
        if not k % 512:
            check_time()  # the reflexes' deadline: a 250 kB command has ~20 000 segments
        seg = strip_wrappers(parts[k].strip().lstrip("({").rstrip(")}; ").strip())
        if seg.startswith(("cd ", "pushd ")) and here:
            here = _cd(here, seg.split(" ", 1)[1].strip())
            continue
        found = _resolve(seg, here, shadowed, depth)
        if found.verdict != FAKE and "pytest" in seg and _NO_RUN.intersection(addopts):
            continue  # pytest told to list only, through its environment (as ``pytest --co``)
        if found.verdict == NONE:
            continue
        if found.verdict != FAKE and _elsewhere(here, cwd):
            found = TestRun(FAKE, found.runner, f"it runs in {here}, outside the project at {cwd}")
        elif found.verdict != FAKE and (away := _aimed_elsewhere(seg, here, cwd)):
            found = TestRun(FAKE, found.runner, f"it tests {away}, outside the project at {cwd}")
        if found.verdict == RUN and _masked(parts, k, pipefail, last):
            found = TestRun(MASKED, found.runner, "its exit status is not its own")
        best = _better(best, found)
    return best


def _better(a: TestRun, b: TestRun) -> TestRun:
    rank = {NONE: 0, FAKE: 1, MASKED: 2, RUN: 3}
    return b if rank[b.verdict] >= rank[a.verdict] else a


def _shadowed(command: str) -> frozenset[str]:
    names = {m.group(1) or m.group(2) for m in _FUNCTION_DEF.finditer(command)}
    names.update(m.group(1) for m in _ALIAS.finditer(command))
    names.update(m.group(1) for m in _HASHED.finditer(command))
    return frozenset(n for n in names if n)


def _elsewhere(here: str, cwd: str) -> bool:
    """Is ``here`` another project: outside the repository holding ``cwd`` (or, with no
    repository, neither the working folder, inside it, nor above it)?

    ``cd .. && pytest`` from a package, or ``cd ../b && npm test`` in the same monorepo,
    runs this project's tests; ``cd /tmp/x && pytest`` or ``cd ../other-repo && pytest``
    runs someone else's.
    """
    if not here or not cwd or here == cwd:
        return False
    root = _repository_root(cwd) or cwd
    if _within(here, root):
        return False
    return not _within(cwd, here)  # a folder above the project holds it


# A runner's switches naming the folder or project it tests: make -C, npm/pnpm --prefix,
# pnpm --dir, cargo --manifest-path, pytest --rootdir, ctest --test-dir, gradle -p.
_FOLDER_SWITCHES = frozenset(
    ["-C", "--prefix", "--dir", "--manifest-path", "--rootdir", "--test-dir", "-p", "--project-dir"]
)


def _aimed_elsewhere(seg: str, here: str, cwd: str) -> str:
    """The folder a runner is pointed at, when every path it is given lies elsewhere."""
    if not here or not cwd:
        return ""
    words = seg.split()
    paths: list[str] = []
    for i, w in enumerate(words[1:], 1):
        key, eq, value = w.partition("=")
        if eq and key in _FOLDER_SWITCHES:
            paths.append(value)
        elif words[i - 1] in _FOLDER_SWITCHES and not w.startswith("-"):
            paths.append(w)
        elif (
            "/" in w
            and not w.startswith(("-", "//"))
            and "://" not in w
            and not words[i - 1].startswith("-")  # an option's value (--junitxml /tmp/r.xml)
        ):
            paths.append(w)  # a path argument (not a bazel //label or a URL)
    targets = [os.path.normpath(os.path.join(here, p.strip("'\""))) for p in paths]
    if not targets or not all(_elsewhere(t, cwd) for t in targets):
        return ""
    return targets[0]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _repository_root(folder: str) -> str:
    """The nearest folder at or above ``folder`` holding ``.git`` ("" when none): the
    guard's own definition (imported here: safegit loads subprocess, off the hot path)."""
    from agentreflex.core.worktree.safegit import work_tree_top

    return work_tree_top(folder)


def _cd(here: str, target: str) -> str:
    target = target.strip("'\"").split()[0] if target.strip() else ""
    if not target or target.startswith(("~", "$", "-")):
        return ""
    return os.path.normpath(os.path.join(here, target))


def _last_said(parts: list[str]) -> int:
    """The index in ``parts`` of the command's last simple command that is not blank, or -1.

    Found once per command: looked for again after each run (:func:`_masked`), a command
    of 19 000 ``pytest`` runs took 7.8 s."""
    for k in range((len(parts) - 1) // 2 * 2, -1, -2):  # the commands: at even indexes
        if parts[k].strip():
            return k
    return -1


def _masked(parts: list[str], k: int, pipefail: bool, last: int) -> bool:
    """Does something other than this runner decide the command's exit status?

    ``last``: :func:`_last_said` of ``parts``."""
    before = parts[k - 1] if k > 0 else ""
    if before == "||" or (before == "|" and not pipefail):
        return True
    ops = parts[k + 1 :: 2]
    if not ops:
        return False
    op = ops[0]
    if op == "|":
        return not pipefail
    if op in ("||", "&"):
        return True
    if op in (";", "\n"):
        # a later command decides it, unless that command (the last one) is a runner too
        return last > k and not RUNNERS.match(strip_wrappers(parts[last]))
    return False


def _resolve(seg: str, cwd: str, shadowed: frozenset[str], depth: int) -> TestRun:
    """One simple command, resolved as the shell would."""
    raw_first = seg.split(" ", 1)[0] if seg else ""
    first = raw_first.rsplit("/", 1)[-1]
    plain = first + seg[len(raw_first) :]
    if not RUNNERS.match(plain):
        return TestRun()
    words = plain.split()
    runner = words[0]
    if _NO_RUN.intersection(words[1:]) or _lists_only(runner, words):
        return TestRun()  # lists, describes or dry-runs (make -n prints the recipe)
    if _skips_tests(runner, words):
        return TestRun()  # builds the tests and runs none (mvn -DskipTests, gradle -x test)
    if first in shadowed:
        return TestRun(
            FAKE,
            runner,
            f"`{first}` is a shell function, alias or hashed path defined in the command",
        )
    if "/" in raw_first and not _installed(raw_first, first, cwd):
        return TestRun(FAKE, runner, f"`{raw_first}` is a project file named like a runner")
    if runner.startswith("python") and len(words) > 2:
        return _python_module(words[2], cwd, runner)
    if not cwd:
        return TestRun(RUN, runner, "taken at its word: no working directory to resolve it in")
    if runner in ("make", "gmake"):
        return _make_target(words, cwd, depth)
    if runner in ("npm", "pnpm", "yarn") or (runner == "bun" and words[1] == "run"):
        return _package_script(words, cwd, depth)
    return TestRun(RUN, runner)


# Maven's switches that compile the tests and run none
# (https://maven.apache.org/surefire/maven-surefire-plugin/examples/skipping-tests.html).
_MAVEN_SKIP = LazyPattern(r"^-D(?:skipTests|maven\.test\.skip|skipITs)(?:=(?!false\b)\S*)?$")


def _skips_tests(runner: str, words: list[str]) -> bool:
    """A build tool told to leave its tests out (Gradle's ``-x test``, Maven's ``-DskipTests``)."""
    if runner in ("mvn", "mvnw"):
        return any(_MAVEN_SKIP.match(w) for w in words)
    if runner in ("gradle", "gradlew"):
        return any(
            w in ("-x", "--exclude-task") and i + 1 < len(words) and words[i + 1].endswith("test")
            for i, w in enumerate(words)
        )
    return False


# Runner scripts a project checks in on purpose (the Gradle and Maven wrappers).
_PROJECT_WRAPPERS = frozenset({"gradlew", "mvnw"})


def _installed(path: str, name: str, cwd: str) -> bool:
    """A path to an installed runner (a venv, node_modules/.bin, outside the project)."""
    return name in _PROJECT_WRAPPERS or bool(_TOOL_DIRS.search(path)) or _outside(path, cwd)


def _outside(path: str, cwd: str) -> bool:
    """An absolute path outside the project (a system or user install), not a project file."""
    if not path.startswith("/"):
        return False
    return not cwd or not os.path.normpath(path).startswith(os.path.normpath(cwd) + os.sep)


def _python_module(module: str, cwd: str, runner: str) -> TestRun:
    """``python -m pytest`` imports from the working directory first."""
    if cwd and (
        os.path.exists(os.path.join(cwd, module + ".py"))
        or os.path.isdir(os.path.join(cwd, module))
    ):
        return TestRun(
            FAKE, runner, f"a local `{module}` in the working directory shadows `-m {module}`"
        )
    return TestRun(RUN, f"{runner} -m {module}")


_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")


def _make_target(words: list[str], cwd: str, depth: int) -> TestRun:
    """Read the Makefile target to the commands it runs."""
    target = next((w for i, w in enumerate(words) if i and _make_operand(words, i)), "")
    if "-C" in words:
        i = words.index("-C")
        if i + 1 < len(words):
            cwd = os.path.join(cwd, words[i + 1])
    recipe = _recipe(cwd, target)
    if recipe is None:
        return TestRun(FAKE, "make", f"the make target `{target}` could not be read to a test run")
    return _inner(recipe, cwd, depth, f"the make target `{target}`")


def _make_operand(words: list[str], i: int) -> bool:
    """Is ``words[i]`` a target (not an option, nor the value of ``-C``/``-f``)?"""
    return not words[i].startswith("-") and words[i - 1] not in ("-C", "-f")


def _recipe(cwd: str, target: str) -> list[str] | None:
    for name in _MAKEFILES:
        text = _read(os.path.join(cwd, name))
        if text is not None:
            return _target_lines(text, target)
    return None


_MAKE_VAR = LazyPattern(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", hints="$")
_MAKE_ASSIGN = LazyPattern(r"^([A-Za-z_][A-Za-z0-9_]*)\s*[:?]?=\s*(.*)$", re.MULTILINE, hints="=")


def _expand(line: str, variables: dict[str, str]) -> str:
    """``$(PYTHON) -m pytest`` as make runs it (one level; ``$(MAKE)`` is make)."""
    return _MAKE_VAR.sub(lambda m: variables.get(m.group(1), m.group(0)), line)


def _target_lines(text: str, target: str) -> list[str] | None:
    variables = {"MAKE": "make"}
    for m in _MAKE_ASSIGN.finditer(text):
        variables.setdefault(m.group(1), m.group(2).strip())
    lines = _recipe_lines(text, target)
    return None if lines is None else [_expand(line, variables) for line in lines]


def _recipe_lines(text: str, target: str) -> list[str] | None:
    lines: list[str] | None = None
    rule = re.compile(rf"^{re.escape(target)}\s*:(?!=)")
    for line in text.splitlines():
        if rule.match(line):
            lines = []
            continue
        if lines is not None:
            if line.startswith("\t"):
                lines.append(line.strip().lstrip("@-+").strip())
            elif line.strip() and not line.startswith("#"):
                break
    return lines


# The switches that run a script in every (or a named) workspace package, not the root's:
# https://pnpm.io/cli/recursive, https://docs.npmjs.com/cli/using-npm/workspaces.
_WORKSPACE_FLAGS = frozenset(["-r", "--recursive", "-F", "-ws", "--workspaces", "workspaces"])


def _package_script(words: list[str], cwd: str, depth: int) -> TestRun:
    """Read the package.json script to the command it runs."""
    if any(w in _WORKSPACE_FLAGS or w.startswith(("--filter", "--workspace")) for w in words):
        # pnpm -r test, npm test --workspaces: each workspace package runs its own script
        return TestRun(RUN, words[0], "taken at its word: each workspace package's own script")
    name = next((w for w in words[1:] if w != "run" and not w.startswith("-")), "")
    data = _read(os.path.join(cwd, "package.json"))
    try:
        scripts = fastjson.loads(data)["scripts"] if data else None
        script = scripts[name] if isinstance(scripts, dict) else None
    except (ValueError, KeyError, TypeError):
        script = None
    if not isinstance(script, str):
        return TestRun(
            FAKE, words[0], f"the package script `{name}` could not be read to a test run"
        )
    return _inner([script], cwd, depth, f"the package script `{name}`")


def _inner(commands: list[str], cwd: str, depth: int, what: str) -> TestRun:
    if depth >= _MAX_DEPTH:
        return TestRun(FAKE, "", f"{what} nests too deep to read")
    found = TestRun()
    for line in commands:
        found = _better(found, assess(line, cwd, depth + 1))
    if found.verdict == RUN:
        return found
    reason = found.reason or "runs no test framework"
    return TestRun(FAKE, found.runner, f"{what}: {reason}")


def _read(path: str, limit: int = 256_000) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(limit)
    except OSError:
        return None


# A runner's closing summary: what really happened, whatever the exit status.
# One alternative per format, each as the runner's own docs or sources print it:
# pytest, unittest, node --test (TAP), jest/vitest, mocha, go test, cargo test and
# nextest (https://nexte.st/docs/running/), bun test (" 1 fail", "Ran 2 tests across
# 1 files": https://bun.sh/docs/cli/test), deno test ("FAILED | 2 passed | 1 failed":
# https://docs.deno.com/runtime/fundamentals/testing/), rspec ("3 examples, 1 failure":
# https://rspec.info/features/3-13/rspec-core/), ExUnit ("3 tests, 1 failure":
# https://hexdocs.pm/ex_unit/ExUnit.html), Maven Surefire ("Tests run: 3, Failures: 1,
# Errors: 0", "BUILD FAILURE": https://maven.apache.org/surefire/maven-surefire-plugin/),
# Gradle ("3 tests completed, 1 failed"), dotnet test ("Failed!  - Failed:     1,":
# https://learn.microsoft.com/dotnet/core/tools/dotnet-test), ctest ("67% tests passed,
# 1 tests failed out of 3", "No tests were found!!!": https://cmake.org/cmake/help/latest/
# manual/ctest.1.html), PHPUnit ("FAILURES!", "OK (3 tests, 3 assertions)", "No tests
# executed!": https://docs.phpunit.de/en/11.5/textui.html), tox ("py312: FAIL code 1",
# "congratulations :)": https://tox.wiki/en/latest/user_guide.html), nox ("Session tests
# failed.", "Session tests was successful.": https://nox.thea.codes/en/stable/usage.html),
# Bazel ("Executed 1 out of 3 tests: 2 tests pass and 1 fails locally.", "No test targets
# were found, yet testing was requested": https://bazel.build/docs/user-manual).
_FAILED = LazyPattern(
    r"\b[1-9]\d* (?:failed|errors?)\b|test result: FAILED|^FAIL\b|\bFAILED \(|"
    r"Tests:\s+\d+ failed|\b\d+ failing\b|^(?:#|\u2139) fail [1-9]|"
    r"^\s*[1-9]\d* fail\s*$|\b[1-9]\d* (?:tests? failed|failures?|fails? locally)\b|"
    r"\b(?:Failures|Errors): [1-9]|^\[ERROR\] Tests run:|\bBUILD FAIL(?:URE|ED)\b|"
    r"^Failed!\s+-|^(?:FAILURES|ERRORS)!$|: FAIL code \d|\bSession \S+ failed\b|"
    r"\b[1-9]\d* tests? FAILED\b|\bFAILED in \d",
    re.MULTILINE,
    hints="failed error ERROR FAIL failing fail failure fails Failures Errors Failed",
)
_NONE_RAN = LazyPattern(
    r"no tests ran|collected 0 items|Ran 0 tests|No tests found|\[no test files\]|"
    r"test result: ok\. 0 passed|\b0 passing\b|^(?:#|\u2139) tests 0\b|"
    r"\b0 selected\b|\b\d+ (?:deselected|skipped)\b|\[no tests to run\]|[Nn]o tests to run|No test files found|"
    r"\b0 (?:examples|tests), 0 failures\b|No examples found|No tests were found|"
    r"No tests executed!|No test is available|No test matches the given testcase filter|"
    r"No test targets were found|\b0 tests run\b|Tests run: 0,|^ok \| 0 passed \| 0 failed\b|"
    r"\b(?P<all>\d+) (?:examples?|tests?), 0 failures, (?P=all) (?:excluded|pending)\b",
    re.MULTILINE,
    hints="no tests collected Ran No 0 selected skipped ok",
)
# ``ok  pkg  0.01s [no tests to run]`` is go test saying it ran nothing in that package,
# ``ok | 0 passed | 0 failed | 3 filtered out`` deno test --filter matching nothing, and
# ``5 tests, 0 failures, 5 excluded`` ExUnit's mix test --only matching nothing (rspec's
# ``pending`` alike): each counts what it left out among its tests
# (cmd/go's own testdata: https://github.com/golang/go/blob/master/src/cmd/go/testdata/
# script/test_match_only_tests.txt).
_PASSED = LazyPattern(
    r"\b[1-9]\d* (?:passed|passing)\b|test result: ok\. [1-9]|^ok\s(?!\| 0 passed)(?!.*\[no tests to run\])|"
    r"^OK\b|Ran [1-9]\d* tests?|^(?:#|\u2139) pass [1-9]|^\s*[1-9]\d* pass\s*$|"
    r"\b(?P<ran>[1-9]\d*) (?:examples?|tests?), 0 failures\b(?!, (?P=ran) (?:excluded|pending))|\bTests run: [1-9]\d*, Failures: 0, Errors: 0|"
    r"^Passed!\s+-|\b100% tests passed\b|\bcongratulations :\)|\bSession \S+ was successful\b|"
    r"\b[1-9]\d* tests? pass(?:es)?\b",
    re.MULTILINE,
    hints="passed passing ok OK Ran pass example test Tests Passed congratulations successful",
)


def summary(text: str) -> str:
    """``failed``, ``none`` (no test ran), ``passed`` or ``""`` (no summary) from a runner's output."""
    tail = text[-8000:]
    if _FAILED.search(tail):
        return "failed"
    if _PASSED.search(tail):
        return "passed"
    if _NONE_RAN.search(tail):
        return "none"
    return ""
