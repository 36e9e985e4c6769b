"""A project's .env loaded into variables is not printed (rt88).

``export $(cat .env | xargs)`` and ``export KEY=$(grep KEY .env | cut -d= -f2)`` put the
file's values into the environment as ``set -a; source .env`` does, which the gate allows:
nothing reaches the transcript (the 12-factor loading idiom,
https://stackoverflow.com/questions/19331497).  Before, the read inside the substitution
blocked as "prints .env into the transcript".  The same read printed (``echo $(cat
.env)``), a command line that also prints variables, and a private key captured into a
variable (which only exfiltration would need) stay stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

Checked = tuple[str, set[str]]


@pytest.fixture
def env_file(gate_project: Path) -> Path:
    (gate_project / ".env").write_text("OPENAI_API_KEY=sk-proj-FAKE\nDEBUG=1\n")
    return gate_project


@pytest.mark.parametrize(
    "command",
    [
        "export $(cat .env | xargs)",
        "export $(grep -v '^#' .env | xargs) && npm run dev",
        "export OPENAI_API_KEY=$(grep OPENAI_API_KEY .env | cut -d= -f2)",
        "OPENAI_API_KEY=$(grep OPENAI_API_KEY .env | cut -d= -f2) python src/app.py",
        "TOKEN=$(grep OPENAI_API_KEY .env | cut -d= -f2); python src/app.py",
    ],
)
def test_env_file_loaded_into_variables_is_allowed(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set())


@pytest.mark.parametrize(
    "command",
    [
        "echo $(cat .env)",
        "cat .env | xargs",
        'ENVS=$(cat .env); echo "$ENVS"',
        'ENVS=$(cat .env); cat <<< "$ENVS"',
        "export $(cat .env | xargs); env",
        "export $(cat .env | tee /dev/stderr | xargs)",
        "KEY=$(cat ~/.ssh/id_rsa)",
    ],
)
def test_printed_or_key_reads_still_block(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-SECRET-READ" in codes, codes


# rt93: what prints the whole environment once .env is in it, in every spelling of the
# load (source/. as export $(...)); before rt88 the export form blocked on its read, and
# the source form let each of these through.
_DUMPS = [
    "export -p",
    "/usr/bin/env",
    "command env",
    "time env",
    "exec env",
    # wrappers with options of their own, peeled as everywhere else (shell/wrappers.peel)
    "nice -n 5 env",
    "stdbuf -o0 env",
    "timeout 5 env",
    "nohup env -0",
    "readonly -p",
    "cat /proc/self/environ",
    "ps eww",
    "python3 -c 'import os; print(os.environ)'",
    "node -e 'console.log(process.env)'",
]


@pytest.mark.parametrize("load", ["export $(cat .env | xargs)", "set -a; . ./.env", "source .env"])
@pytest.mark.parametrize("dump", _DUMPS)
def test_environment_dumped_after_loading_blocks(
    env_file: Path, gate_check: Callable[[str], Checked], load: str, dump: str
) -> None:
    verdict, codes = gate_check(f"{load}; {dump}")
    assert verdict == "BLOCK" and "GATE-SECRET-READ" in codes, codes


@pytest.mark.parametrize(
    "command",
    [
        'X=$(cat .env); n=X; cat <<< "${!n}"',  # indirect expansion names X
        'X=$(cat .env); Y=$X; cat <<< "$Y"',  # a copy of the variable
        'X=$(cat .env); arr=($X); cat <<< "${arr[0]}"',  # an array of its words
        "X=$(cat .env | dd of=/dev/stderr)",  # the substitution's own commands print it
        "X=$(cat .env | sed 'w /dev/stderr')",
        "X=$(cat .env | awk '{print > \"/dev/stderr\"}')",
        "X=$(cat .env | logger)",
    ],
)
def test_captured_value_reaching_output_blocks(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-SECRET-READ" in codes, codes


@pytest.mark.parametrize(
    "command",
    [
        "set -a; source .env; set +a; python src/app.py",
        "source .env && env PORT=3000 npm start",
        "export $(grep -v '^#' .env | xargs) && export PATH=$PATH:bin && npm run dev",
        "API_KEY=$(sed -n 's/^API_KEY=//p' .env); node server.js",
        "KEY=$(awk -F= '/^KEY=/{print $2}' .env); Y=$HOME; ls $Y",
    ],
)
def test_loading_without_dumping_stays_allowed(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set())


# rt93: a credential-named variable printed by bash's other spellings, as echo "$TOKEN"
# is (GATE-SECRET-ENV-PRINT), loaded from .env or not.
@pytest.mark.parametrize(
    "command",
    [
        'cat <<< "$GITHUB_TOKEN"',
        'base64 <<< "$OPENAI_API_KEY"',
        "source .env; declare -p OPENAI_API_KEY",
        'x=$GITHUB_TOKEN; echo "$x"',
        "x=$GITHUB_TOKEN; declare -p x",
        'n=OPENAI_API_KEY; echo "${!n}"',
        'source .env; x="sk:$OPENAI_API_KEY"; y=$x; printf "%s" "$y"',
    ],
)
def test_secret_variable_printed_blocks(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-SECRET-ENV-PRINT" in codes, codes


@pytest.mark.parametrize(
    "command",
    [
        'cat <<< "$PATH"',
        'grep -q ghp_ <<< "$GITHUB_TOKEN"',
        'gh auth login --with-token <<< "$GITHUB_TOKEN"',
        'echo "$OPENAI_API_KEY" | docker login -u me --password-stdin',
        "declare -p PATH",
        'x=$HOME; echo "$x"',
        'n=HOME; echo "${!n}"',
        'test -n "$GITHUB_TOKEN" && echo set',
    ],
)
def test_other_variables_or_unprinted_secrets_stay_allowed(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command)[0] == "ALLOW"


@pytest.mark.parametrize(
    "command",
    [
        "xargs < .env",  # xargs's default echo prints it, as cat .env | xargs does
        "export $(xargs < .env); env",
    ],
)
def test_xargs_reading_env_file_prints_it(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    verdict, codes = gate_check(command)
    assert verdict == "BLOCK" and "GATE-SECRET-READ" in codes, codes


@pytest.mark.parametrize(
    "command",
    [
        "source .env; env | wc -l",  # a count, as cat .env | wc -l
        "source .env; printenv | grep -c KEY",
        "source .env; env > env.txt",  # into a file, as cat .env > x
        "export $(xargs < .env) && npm start",
    ],
)
def test_environment_summarised_or_stored_after_loading_is_allowed(
    env_file: Path, gate_check: Callable[[str], Checked], command: str
) -> None:
    assert gate_check(command) == ("ALLOW", set())
