"""Every markdown table in the repository's docs keeps its columns.

Why: a ``|`` splits a table cell even inside backticks (GitHub's table
extension splits the row before it reads code spans), so a command example
such as ``find | xargs rm`` in a cell cut the gate README's "area | ids" row
into four cells and the rest of the row was dropped from the rendered table.
Inside a cell the pipe is written ``\\|``, which GitHub renders as ``|`` in a
code span too.

Each table (a header row, then a delimiter row of dashes) is parsed row by row,
splitting on the pipes that are not escaped: every row must have as many cells
as the header. Fenced code blocks are not tables. Checked in every ``*.md`` of
the repository outside generated and installed folders (plugin bundles,
node_modules, the hosts the integration tests install).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP_FOLDERS = {".git", ".venv", ".tox", ".hosts", "bundle", "node_modules", "__pycache__"}
DELIMITER = re.compile(r"\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?")
FENCE = re.compile(r"(`{3,}|~{3,})")


def markdown_files() -> list[Path]:
    found: list[Path] = []
    stack = [ROOT]
    while stack:
        folder = stack.pop()
        for path in folder.iterdir():
            if path.is_dir() and not path.is_symlink():
                if path.name not in SKIP_FOLDERS:
                    stack.append(path)
            elif path.suffix == ".md":
                found.append(path)
    return sorted(found)


def cells(row: str) -> list[str]:
    """A table row's cells: split on each ``|`` not escaped as ``\\|``, outer pipes dropped."""
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return re.split(r"(?<!\\)\|", row)


def bad_rows(text: str) -> list[str]:
    """``line N: n cells, the header has m`` for each table row that does not fit its header."""
    lines = text.splitlines()
    bad: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        opening = FENCE.match(line)
        if opening:
            if not fence:
                fence = opening.group(1)
            elif line.startswith(fence) and not line[len(fence) :].strip():
                fence = ""
            i += 1
            continue
        is_header = (
            not fence
            and "|" in line
            and i + 1 < len(lines)
            and DELIMITER.fullmatch(lines[i + 1].strip()) is not None
            and len(cells(lines[i + 1])) == len(cells(line))  # else no table (GFM)
        )
        if not is_header:
            i += 1
            continue
        width = len(cells(line))
        i += 2
        while i < len(lines) and lines[i].strip() and "|" in lines[i]:
            count = len(cells(lines[i]))
            if count != width:
                bad.append(f"line {i + 1}: {count} cells, the header has {width}")
            i += 1
    return bad


def test_the_parser_sees_a_pipe_in_a_code_span_split_a_row() -> None:
    table = "| area | ids |\n|---|---|\n| pipes | `find | xargs rm` |\n"
    assert bad_rows(table) == ["line 3: 3 cells, the header has 2"]
    assert bad_rows(table.replace("find | xargs", "find \\| xargs")) == []
    assert bad_rows("a | b\n--- | ---\nc | d | e\n") == ["line 3: 3 cells, the header has 2"]
    fenced = "```\n| a | b |\n|---|---|\n| `x | y` | z |\n```\n"
    assert bad_rows(fenced) == []  # a code block is no table
    assert bad_rows("a | b\n---\nc | d | e\n") == []  # a heading's underline, no table


def test_markdown_files_are_found() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "packages/gate/README.md", "tests/README.md"} <= names
    assert not any("/bundle/" in n or "node_modules" in n for n in names)


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_table_row_has_the_headers_cells(doc: Path) -> None:
    bad = bad_rows(doc.read_text(encoding="utf-8"))
    assert bad == [], (
        f"{doc.relative_to(ROOT)}: a `|` in a cell splits it; write it as `\\|` (also in code)"
    )
