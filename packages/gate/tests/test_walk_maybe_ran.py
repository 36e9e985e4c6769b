"""What a part of a line that may not run sets is not known after it (rt104).

The walker read ``d=/etc; [ -d build ] && d=build; rm -rf $d`` as rm -rf build: the
right of ``&&``/``||``, an if's branches, a case's arms and a loop's body were
walked as if they always ran, so an assignment there (or a cd) replaced what
held before; bash keeps /etc when the check fails.  Each setup is run in real
bash, where the part does not run; the walker must not name the value bash did
not use.
"""

from __future__ import annotations

import pytest
from agentreflex.gate.model import UNKNOWN

from .conftest import corpus_check as _verdict
from .conftest import fields_in_bash_and_walk

SETUPS = [
    "d=/etc; false && d=build",
    "d=/etc; true || d=build",
    "d=/etc; true || d=build && true",
    "d=/etc; if false; then d=build; fi",
    "d=/etc; if false; then d=build; elif false; then d=dist; fi",
    "d=/etc; case x in y) d=build;; esac",
    "d=/etc; while false; do d=build; done",
    "d=/etc; for f in $NOTHING; do d=build; done",
]


@pytest.mark.parametrize("setup", SETUPS)
def test_a_value_set_where_bash_may_not_run_is_not_taken(setup: str) -> None:
    bash, walk = fields_in_bash_and_walk(setup, '"$d"')
    assert bash == "</etc>"
    assert walk == bash or UNKNOWN in walk


@pytest.mark.parametrize(
    "command",
    [
        "d=/etc; [ -d build ] && d=build; rm -rf $d",
        'd=/etc; if [ -n "$CLEAN" ]; then d=build; fi; rm -rf "$d"',
        "d=/etc; case $1 in clean) d=build;; esac; rm -rf $d",
        "cd /etc; if [ -d x ]; then cd /tmp/x; fi; rm -rf *",
        "cd /etc; [ -d x ] || cd /tmp/x; rm -rf *",
    ],
)
def test_a_delete_after_a_part_that_may_not_run_is_not_allowed(command: str) -> None:
    assert _verdict(command)[0] != "ALLOW"


@pytest.mark.parametrize(
    "command",
    [
        "d=build; [ -d build ] && rm -rf $d",
        "cd build && d=out && rm -rf $d",
        "d=dist; [ -d x ] && echo hi; rm -rf $d",
        "cd src || exit 1; rm -rf __pycache__",
        # a cd along a pure && chain is taken as done, as one before ; is (CMake's
        # out-of-source build, https://cmake.org/cmake/help/latest/guide/tutorial/)
        "mkdir -p build && cd build && cmake .. && make; cd ..; rm -rf build",
        "[ -d web ] && cd web; rm -rf .next",
    ],
)
def test_a_value_known_on_every_way_stays_known(command: str) -> None:
    assert _verdict(command)[0] == "ALLOW"


@pytest.mark.parametrize(
    "setup",
    [
        "d=/etc; d=build & wait",
        "d=/etc; { d=build; } & wait",
        "d=/etc; f() { d=build; }; f & wait",
    ],
)
def test_what_a_background_job_sets_ends_with_it(setup: str) -> None:
    bash, walk = fields_in_bash_and_walk(setup, '"$d"')
    assert bash == walk == "</etc>"


def test_a_group_not_in_the_background_still_sets_the_shells_variable() -> None:
    assert fields_in_bash_and_walk("d=/etc; { d=build; } > /dev/null", '"$d"') == (
        "<build>",
        "<build>",
    )
