"""Package managers and tool runners run the command line they are given.

``npm exec rm -rf ~``, ``pnpm -C . exec ...``, ``yarn --cwd . exec ...``,
``bundle --verbose exec ...`` and ``poetry -C . run ...`` run ``rm``: the gate
judges the command after the runner's own options, before and after its
subcommand, in each tool's documented spelling (npm-exec(1): ``-c``/``--call``
take a whole shell line; pnpm.io/cli/exec and /cli/dlx: ``-C``/``--dir``,
``--filter``, ``-c``/``--shell-mode``; yarnpkg.com/cli/dlx; bun.sh/docs/pm/bunx;
bundle-exec(1); python-poetry.org/docs/cli global options ``-C``/``-P``; hatch's
``run [ENV:]ARGS``; pixi run/exec; conda run ``-n``/``--cwd``).  Why it matters:
a wrapper prefix is the classic way past a command guard, in the peers' own
trackers -- ``sudo python3 -c`` defeating dcg's embedded-code rule
(destructive_command_guard#464) and ``npx malicious-pkg`` allowed
(Drakon-Systems-Ltd/ShieldCortex#92), both listed in
``../shared/reference/guards-field.md`` section 3.1 -- and package runners are
the wrappers agents type most.  The everyday uses (``npm exec eslint .``,
``bundle exec rspec``, ``poetry run pytest``) stay allowed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from agentreflex.gate import analyze
from agentreflex.gate.analyze import prefilter
from agentreflex.gate.shell import pkgrunners
from agentreflex.gate.shell.paths import Where

from .conftest import Checked

RUNS = [
    # the forms a previous review found allowed
    "npm exec {}",
    "pnpm -C . exec {}",
    "yarn --cwd . exec {}",
    "bundle --verbose exec {}",
    "poetry -C . run {}",
    # npm / npx
    "npm exec -- {}",
    "npm x -- {}",
    "npm --prefix web exec {}",
    "npm -w app exec -- {}",
    "npm exec --package=foo -- {}",
    "npm --registry https://r.example exec {}",
    "npx {}",
    "npx -y -p foo {}",
    "npx --package foo -- {}",
    # pnpm / pnpx
    "pnpm exec {}",
    "pnpm --dir web exec {}",
    "pnpm -Cweb exec {}",
    "pnpm --filter app exec {}",
    "pnpm -r exec {}",
    "pnpm dlx {}",
    "pnpm --package=x dlx {}",
    "pnpx {}",
    # yarn / bun
    "yarn exec {}",
    "yarn dlx {}",
    "yarn dlx -p foo {}",
    "yarn workspace app exec {}",
    "bun x {}",
    "bun --cwd web x {}",
    "bunx {}",
    "bunx -p foo {}",
    # ruby and python runners
    "bundle exec {}",
    "bundle exec --gemfile=Gemfile {}",
    "poetry --directory=. run {}",
    "poetry -P . run {}",
    "poetry run -C . {}",
    "pipenv run {}",
    "pdm -p . run {}",
    "pdm run -p . {}",
    "hatch -e test run {}",
    "hatch --env test run {}",
    "hatch run test:{}",
    "hatch env run -e test -- {}",
    "rye run {}",
    "pixi run -e dev {}",
    "pixi exec -s coreutils {}",
    "pixi x {}",
    "conda run -n base {}",
    "conda run --no-capture-output -n base {}",
    "conda run -p /opt/env -- {}",
    "mamba run -n base {}",
    "micromamba run -n base {}",
    "uv run {}",
    "uv --directory . run {}",
    "uv tool run {}",
    "uvx {}",
    "pipx run --spec x {}",
    "mise exec -- {}",
    # mise.jdx.dev/cli/exec: tools to put on PATH, then the command after `--`
    "mise x node@20 -- {}",
    "mise exec python@3.12 node@20 -- {}",
    "mise exec -C . node@20 -- {}",
    # yarnpkg.com/cli/workspaces/foreach: `exec` after foreach's own options
    "yarn workspaces foreach -A exec {}",
    "yarn workspaces foreach --all --include app -j 2 exec {}",
    "direnv exec . {}",
]
# a whole shell command line, judged as one
LINES = [
    "npm exec -c '{}'",
    "npm x --call='{}'",
    "npx -c '{}'",
    "npx -p foo -c '{}'",
    "pnpm -c exec '{}'",
    "pnpm -rc exec '{}'",
    "pnpm --shell-mode dlx '{}'",
    "bun exec '{}'",
    "pixi run '{}'",
    "mise exec -c '{}'",
    "doppler run --command '{}'",
]
HARMFUL = "rm -rf ~/.ssh"

EVERYDAY = [
    "npm exec eslint .",
    "npm exec -- eslint --fix .",
    "npm exec -c 'eslint .'",
    "pnpm -C web exec vitest",
    "pnpm exec tsc --noEmit",
    "pnpm dlx create-vite app",
    "bundle exec rspec",
    "bundle exec rake test",
    "poetry run pytest",
    "poetry -C . run pytest -q",
    "npx prettier --check .",
    "npx -c 'prettier --check .'",
    "yarn dlx create-vite app",
    "yarn exec tsc",
    "bunx prettier --check .",
    "hatch run test:pytest",
    "conda run -n base python --version",
    "pixi run pytest",
    "uv run pytest",
    "uvx ruff check .",
    "npm install",
    "poetry install",
    "bundle install",
    "mise x node@20 -- npm test",
    "mise x node@20 python@3.12 -- pytest",
    "yarn workspaces foreach -A run build",
    "yarn workspaces foreach -pA run build",
    "yarn workspaces foreach --all exec tsc --noEmit",
    "yarn workspace app build",
    "yarn workspace app add lodash",
    "yarn workspace app run test",
    "yarn test",
    "yarn build",
    "yarn add lodash",
    "yarn remove lodash",
    "yarn unlink",
    "yarn eslint .",
    "yarn run tsc --noEmit",
    "yarn node build.js",
    "pnpm eslint .",
    "pnpm tsc --noEmit",
    "pnpm rm lodash",
    "pnpm store prune",
    "bun test",
    "bun run dev",
    "bun index.ts",
    "bun run ./scripts/build.ts",
    "bun rm lodash",
    "bun run vite build",
    "deno run main.ts",
    "deno run -A npm:vite",
    "dx prettier --check .",
]


@pytest.mark.parametrize(
    "form",
    [
        # docs.deno.com/runtime/reference/cli/run: `npm:` runs the package's bin, as npx does
        "deno run npm:{}",
        "deno run -A npm:{}",
        "deno run --allow-all --config deno.json npm:{}",
        "deno run npm:{}@6",
        "deno x npm:@scope/tools/{}",
        # deno's npx (docs.deno.com/runtime/reference/cli/x): a bare name is an npm package
        "dx {}",
        "deno x {}",
    ],
)
def test_a_package_deno_runs_is_judged_as_its_bin(
    gate_check: Callable[[str], Checked], form: str
) -> None:
    direct = gate_check("rimraf ~/.ssh")
    assert direct[0] != "ALLOW"
    command = form.format("rimraf") + " ~/.ssh"
    assert gate_check(command) == direct, command


@pytest.mark.parametrize(
    "form",
    [
        # yarnpkg.com/cli/run (berry packages/plugin-essentials/sources/commands/run.ts) and
        # classic.yarnpkg.com/en/docs/cli/run: `yarn [run] NAME` runs the script NAME or, with
        # none, the bin NAME of a dependency; `yarn NAME` is `yarn run NAME`
        "yarn {}",
        "yarn run {}",
        "yarn run -T {}",
        "yarn --cwd . {}",
        # yarnpkg.com/cli/workspace, /cli/workspaces/foreach, classic `yarn workspaces run`:
        # the yarn command that follows runs in the workspace(s), a bare NAME included
        "yarn workspace app {}",
        "yarn workspace app run {}",
        "yarn workspaces foreach -A {}",
        "yarn workspaces foreach -A run {}",
        "yarn workspaces foreach -p --include app run {}",
        "yarn workspaces run {}",
    ],
)
def test_a_bin_yarn_runs_is_judged_as_the_bin(
    gate_check: Callable[[str], Checked], form: str
) -> None:
    direct = gate_check("rimraf ~/.ssh")
    assert direct[0] != "ALLOW"
    command = form.format("rimraf ~/.ssh")
    assert gate_check(command) == direct, command


@pytest.mark.parametrize(
    "form", ["pnpm {}", "pnpm --dir . {}", "bun {}", "bun run {}", "bun --cwd . run {}"]
)
def test_a_program_pnpm_or_bun_finds_on_path_is_judged_as_itself(
    gate_check: Callable[[str], Checked], form: str
) -> None:
    """pnpm runs a first word that is no command or script as a shell command (pnpm 6.6.1
    release notes), and bun runs a NAME that is no script, file or bin from PATH
    (oven-sh/bun#14190: ``bun run script`` ran /usr/bin/script)."""
    for program in ("shred ~/.ssh/id_rsa", "rimraf ~/.ssh"):
        direct = gate_check(program)
        assert direct[0] != "ALLOW"
        assert gate_check(form.format(program)) == direct, form.format(program)


def test_yarn_workspaces_foreach_parallel_takes_no_value(
    gate_check: Callable[[str], Checked],
) -> None:
    """foreach's ``-p`` is ``--parallel`` (yarnpkg.com/cli/workspaces/foreach): ``exec`` after
    it is still the subcommand, not ``-p``'s value."""
    assert gate_check(f"yarn workspaces foreach -p exec {HARMFUL}") == gate_check(HARMFUL)


def test_a_yarn_script_comes_before_a_bin_of_its_name(
    gate_check: Callable[[str], Checked], gate_project: Path
) -> None:
    """yarn runs the project's script NAME when there is one; only without one the bin NAME."""
    (gate_project / "package.json").write_text(json.dumps({"scripts": {"rimraf": "echo x"}}))
    assert gate_check("yarn rimraf ~/.ssh") == ("ALLOW", set())
    assert gate_check("yarn run shx rm -rf ~/.ssh") == gate_check("shx rm -rf ~/.ssh")
    assert gate_check("shx rm -rf ~/.ssh")[0] != "ALLOW"


def test_yarn_bin_of() -> None:
    assert pkgrunners.bin_of("yarn", ["add", "lodash"]) is None
    assert pkgrunners.bin_of("yarn", ["--cwd", "web", "run"]) is None
    assert pkgrunners.bin_of("npm", ["eslint"]) is None
    assert pkgrunners.bin_of("bun", ["run", "./build.ts"]) is None
    assert pkgrunners.bin_of("bun", ["index.ts"]) is None
    assert pkgrunners.bin_of("pnpm", ["store", "prune"]) is None
    assert pkgrunners.bin_of("pnpm", ["shred", "x"]) == pkgrunners.Unwrapped(["shred", "x"], "")
    run = pkgrunners.bin_of("yarn", ["--cwd", "web", "run", "eslint", "."])
    assert run == pkgrunners.Unwrapped(["eslint", "."], "web")
    again = pkgrunners.unwrap("yarn", ["workspaces", "foreach", "-A", "--from", "x", "run", "b"])
    assert again == pkgrunners.Unwrapped(["yarn", "run", "b"], "")


def test_yarn_node_is_node(gate_check: Callable[[str], Checked]) -> None:
    """yarnpkg.com/cli/node: ``yarn node ARGS`` runs node with ARGS, its options included."""
    code = "require('fs').rmSync('/home', {recursive: true})"
    direct = gate_check(f'node -e "{code}"')
    assert direct[0] != "ALLOW"
    assert gate_check(f'yarn node -e "{code}"') == direct


@pytest.mark.parametrize("form", RUNS + LINES)
def test_a_runner_is_judged_as_the_command_it_runs(
    gate_check: Callable[[str], Checked], form: str
) -> None:
    direct = gate_check(HARMFUL)
    assert direct[0] != "ALLOW"
    command = form.format(HARMFUL)
    decision, codes = gate_check(command)
    assert decision == direct[0], command
    assert direct[1] <= codes, (command, codes)


@pytest.mark.parametrize("form", ["npm exec {}", "pnpm -C . exec {}", "poetry -C . run {}"])
def test_a_system_folder_is_judged_through_the_runner(
    gate_check: Callable[[str], Checked], form: str
) -> None:
    assert gate_check(form.format("rm -rf /home")) == gate_check("rm -rf /home")


def test_the_folder_a_runner_changes_to_is_where_the_command_runs(
    gate_check: Callable[[str], Checked],
) -> None:
    """``pnpm -C ~ exec rm -rf .ssh`` removes ``~/.ssh``, not the project's."""
    for command in ("pnpm -C ~ exec rm -rf .ssh", "yarn --cwd ~ exec rm -rf .ssh"):
        decision, codes = gate_check(command)
        assert decision != "ALLOW", (command, codes)


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_runs_stay_allowed(gate_check: Callable[[str], Checked], command: str) -> None:
    assert gate_check(command) == ("ALLOW", set()), command


@pytest.mark.parametrize(
    "command",
    [
        "npm exec rm -rf build",
        "npm --prefix web exec rm -rf build",
        "pnpm -C . exec rm -rf build",
        "yarn --cwd . exec rm -rf build",
        "bundle --verbose exec rm -rf build",
        "poetry -C . run rm -rf build",
        "bun --cwd web x rm -rf build",
    ],
)
def test_the_prefilter_never_answers_for_a_runner(command: str) -> None:
    where = Where(cwd="/tmp/proj", home="/tmp", project="/tmp/proj")
    assert prefilter(command, where) is None, command


def test_a_runner_that_runs_no_command_is_left_alone() -> None:
    assert pkgrunners.unwrap("npm", ["install", "exec"]) is None
    assert pkgrunners.unwrap("poetry", ["add", "requests"]) is None
    assert pkgrunners.unwrap("ls", ["-l"]) is None
    run = pkgrunners.unwrap("pnpm", ["--dir", "web", "exec", "vitest"])
    assert run == pkgrunners.Unwrapped(["vitest"], "web")


def test_the_prefilter_knows_every_runner_it_may_answer_for() -> None:
    assert analyze._SAFE_FIRST & pkgrunners.RUNNERS.keys() == analyze.RUNNER_FIRST
