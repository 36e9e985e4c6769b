"""Issue 32: config sections built from the packages' declarations change nothing a user sees.

Before issue 32, core's schema and config check named every package's section
(pydantic models for ``[runaway]``, ``[budgets]``, ``[judge2]``, free tables
for the rest).  Now each package declares its sections once (its
``plugin.py``) and core builds the same models from the declarations.  The
files under ``tests/data/declarations/`` were produced by the core of the
commit before (686edf6) from the same inputs:

* ``config.schema.before.json``: the shipped ``policies/config.schema.json``
  of the last commit before the declarations (93e614a: 686edf6 plus issue 29's
  ``[worktree] allow_undoable``, which landed beside them).  A later deliberate
  change to a setting updates this file with the regenerated schema.
  The generated schema equals it as JSON (same keys, types, bounds, defaults,
  descriptions); only the order of the top-level ``properties`` differs
  (declared sections come in key order, as core no longer knows a
  hand-written order), which no schema reader gives meaning to.
* ``config_check_before.json``: ``config check``'s rendered problems for a
  corpus of config files (good ones, and bad values, unknown keys, wrong
  tables in every kind of section).  Every line is the same, word for word,
  except that the "known:" list of an unknown top-level key names the same
  keys with the sections in key order, and, when that key is a table, the
  message adds why it may be unknown: sections are known from the installed
  packages' declarations, so a table for a package that is not installed is
  unknown (before, core's fixed list accepted it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from agentreflex.core.cli.configcheck import check_text
from agentreflex.core.config import settings as fast

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "declarations"
BEFORE = json.loads((DATA / "config_check_before.json").read_text(encoding="utf-8"))
PATH = "/p/.agentreflex/config.toml"


def _render() -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_schema import render

        return str(render("config"))
    finally:
        sys.path.remove(str(ROOT / "tools"))


def test_the_schema_built_from_declarations_equals_the_one_core_wrote_by_name() -> None:
    before = json.loads((DATA / "config.schema.before.json").read_text(encoding="utf-8"))
    now = json.loads(_render())
    assert now == before
    assert set(now["properties"]) == set(before["properties"])
    core_keys = list(before["properties"])[:11]  # mode ... worktree: core's own, in its order
    assert list(now["properties"])[:11] == core_keys
    assert list(now["properties"])[-1] == "export"


def _known_as_set(line: str) -> tuple[str, frozenset[str]]:
    line = line.removesuffix(fast.NOT_DECLARED)
    head, sep, known = line.partition("; known: ")
    return head, frozenset(known.split(", ")) if sep else frozenset()


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_config_check_says_what_it_said_before(name: str) -> None:
    case = BEFORE[name]
    now = [p.render() for p in check_text(case["toml"].encode(), PATH, "config")]
    if name == "unknown_top_level":
        # the same keys; the declared sections listed in key order; why a table may be unknown
        assert all(line.endswith(fast.NOT_DECLARED) for line in now)
        assert [_known_as_set(line) for line in now] == [
            _known_as_set(line) for line in case["problems"]
        ]
    else:
        assert now == case["problems"]


def test_the_corpus_covers_every_kind_of_section_problem() -> None:
    said = "\n".join(line for case in BEFORE.values() for line in case["problems"])
    for fragment in (
        "runaway.colour: unknown key; known: fuzzy,",
        "budgets.nope: unknown key",
        "judge2.untested_ok: [1] is not a list of strings",
        "gate: must be a table",
        "nonsense: unknown key",
        "export.queue",
    ):
        assert fragment in said
