"""The TOML key locator: every key path of a document mapped to the line it is written on."""

from __future__ import annotations

import tomllib
from typing import Any

from agentreflex.core.config.tomlines import Path, key_lines, line_of

DOC = """\
# a comment with = and [brackets]
mode = "enforced"   # trailing comment
loop.hard_repeat_count = 4
"quoted key" = 1
'literal.key' = 2

[thresholds]
destructive_block = 0.8
'destructive_warn' = 0.4

[reasoning_guard.categories]
completion_claims = "off"

[reasoning_guard]
backfill = { mode = "live", limit = 5 }
limits.soft = 1

[judge]
base_url = \"\"\"
multi
line = not a key
[not.a.table]
\"\"\"
model = '''
[also.not]'''
retries = 2

[[rule]]
id = "A"
tags = [
  "x",  # comment
  { inner = 1 },
  [1, 2],
]

[[rule]]
id = "B"

[rule.sub]
k = "v"

[[rule.nested]]
n = 1

[[rule.nested]]
n = 2

[gate]
rules = [
  { id = "one" },
  { id = "two", extra = { deep = true } },
]
"esc\\u0041ped" = 3
"""


def _lines() -> dict[Path, int]:
    return key_lines(DOC)


def _line(text: str) -> int:
    """The 1-based line of the first line of DOC starting with ``text``."""
    return next(i for i, line in enumerate(DOC.splitlines(), 1) if line.startswith(text))


def test_top_level_and_dotted_and_quoted_keys() -> None:
    lines = _lines()
    assert lines[("mode",)] == 2
    assert lines[("loop",)] == 3
    assert lines[("loop", "hard_repeat_count")] == 3
    assert lines[("quoted key",)] == 4
    assert lines[("literal.key",)] == 5


def test_tables_and_their_keys() -> None:
    lines = _lines()
    assert lines[("thresholds",)] == _line("[thresholds]")
    assert lines[("thresholds", "destructive_block")] == _line("destructive_block")
    assert lines[("thresholds", "destructive_warn")] == _line("'destructive_warn'")


def test_inline_tables_and_a_table_split_over_dotted_keys_and_headers() -> None:
    lines = _lines()
    backfill = _line("backfill")
    assert lines[("reasoning_guard", "backfill")] == backfill
    assert lines[("reasoning_guard", "backfill", "mode")] == backfill
    assert lines[("reasoning_guard", "backfill", "limit")] == backfill
    # a table first named by a sub-table's header, then given keys under its own
    assert lines[("reasoning_guard",)] == _line("[reasoning_guard.categories]")
    assert lines[("reasoning_guard", "categories")] == _line("[reasoning_guard.categories]")
    assert lines[("reasoning_guard", "categories", "completion_claims")] == _line(
        "completion_claims"
    )
    assert lines[("reasoning_guard", "limits", "soft")] == _line("limits.soft")


def test_multiline_strings_hide_what_looks_like_keys_and_tables() -> None:
    lines = _lines()
    assert lines[("judge", "base_url")] == _line("base_url")
    assert lines[("judge", "model")] == _line("model")
    assert lines[("judge", "retries")] == _line("retries")
    assert not any(key[0] in ("not", "also") for key in lines)
    assert ("judge", "line") not in lines


def test_arrays_of_tables_are_indexed_like_the_parsed_data() -> None:
    lines = _lines()
    first, second = (i for i, line in enumerate(DOC.splitlines(), 1) if line == "[[rule]]")
    assert lines[("rule", 0)] == first
    assert lines[("rule", 0, "id")] == first + 1
    assert lines[("rule", 1)] == second
    assert lines[("rule", 1, "id")] == second + 1
    assert lines[("rule", 1, "sub", "k")] == _line("k =")
    nested = [i for i, line in enumerate(DOC.splitlines(), 1) if line == "[[rule.nested]]"]
    assert lines[("rule", 1, "nested", 0, "n")] == nested[0] + 1
    assert lines[("rule", 1, "nested", 1, "n")] == nested[1] + 1


def test_arrays_over_several_lines_with_inline_tables_inside() -> None:
    lines = _lines()
    assert lines[("rule", 0, "tags", 0)] == _line('  "x"')
    assert lines[("rule", 0, "tags", 1, "inner")] == _line("  { inner")
    assert lines[("rule", 0, "tags", 2, 1)] == _line("  [1, 2]")
    assert lines[("gate", "rules", 1, "id")] == _line('  { id = "two"')
    assert lines[("gate", "rules", 1, "extra", "deep")] == _line('  { id = "two"')
    assert lines[("gate", "escAped")] == _line('"esc')


def test_every_parsed_key_has_a_line() -> None:
    """Walk the parsed data: the locator knows every path tomllib produced."""
    lines = _lines()

    def walk(node: Any, path: Path) -> None:
        assert path == () or path in lines, path
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, (*path, key))
        elif isinstance(node, list):
            for index, value in enumerate(node):
                walk(value, (*path, index))

    walk(tomllib.loads(DOC), ())


def test_line_of_falls_back_to_the_longest_written_prefix() -> None:
    lines = _lines()
    assert line_of(lines, ("thresholds", "destructive_block")) == _line("destructive_block")
    assert line_of(lines, ("thresholds", "not_written")) == _line("[thresholds]")
    assert line_of(lines, ("absent",)) == 0
