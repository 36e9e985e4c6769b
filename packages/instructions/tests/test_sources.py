"""Discovery, nesting and bad files: real files on disk."""

from __future__ import annotations

import os
from pathlib import Path

from agentreflex.instructions import ruleset, sources


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_nested_files_govern_their_subtree_root_first(project: Path) -> None:
    _write(project / "AGENTS.md", "- Never edit generated/.\n")
    _write(project / "CLAUDE.md", "- Don't touch migrations.\n")
    _write(project / "api" / "AGENTS.md", "- Never edit schema.sql.\n")
    _write(project / ".github" / "copilot-instructions.md", "- Do not add dependencies.\n")
    chain = sources.chain(str(project), str(project / "api" / "x.py"))
    assert [s.rel for s in chain] == [
        ".github/copilot-instructions.md",
        "AGENTS.md",
        "CLAUDE.md",
        "api/AGENTS.md",
    ]
    inside = ruleset.for_path(str(project), "api/x.py")
    outside = ruleset.for_path(str(project), "web/x.py")
    assert "schema.sql" in {r.target for r in inside.rules}
    assert "schema.sql" not in {r.target for r in outside.rules}
    assert {"generated/", "migrations", "dependencies"} <= {r.target for r in outside.rules}


def test_every_source_walks_the_tree_and_skips_vendored(project: Path) -> None:
    _write(project / "AGENTS.md", "x\n")
    _write(project / "a" / "b" / "CLAUDE.md", "x\n")
    _write(project / "node_modules" / "p" / "AGENTS.md", "x\n")
    _write(project / ".cursor" / "rules" / "ts.mdc", "x\n")
    rels = {s.rel for s in sources.every_source(str(project))}
    assert rels == {"AGENTS.md", "a/b/CLAUDE.md", ".cursor/rules/ts.mdc"}


def test_cursor_globs_limit_where_a_rule_applies(project: Path) -> None:
    _write(
        project / ".cursor" / "rules" / "ts.mdc",
        "---\nglobs: src/**/*.ts\n---\n- Never edit src/gen/.\n",
    )
    assert ruleset.for_path(str(project), "src/gen/a.ts").of_kind("prohibit")
    assert not ruleset.for_path(str(project), "src/gen/a.py").of_kind("prohibit")


def test_symlink_leading_outside_is_not_read(project: Path, tmp_path: Path) -> None:
    secret = _write(tmp_path / "outside.md", "- Never edit anything/.\n")
    os.symlink(secret, project / "AGENTS.md")
    got = ruleset.for_path(str(project), "x.py")
    assert got.rules == []
    assert "outside the project" in got.diagnostics[0].message


def test_symlink_inside_the_project_is_followed(project: Path) -> None:
    real = _write(project / "docs" / "rules.md", "- Never edit generated/.\n")
    os.symlink(real, project / "AGENTS.md")
    assert ruleset.for_path(str(project), "x.py").of_kind("prohibit")


def test_binary_fifo_and_dangling_files_are_reported(project: Path) -> None:
    _write(project / "AGENTS.md", b"\x00\x01binary")
    os.mkfifo(project / "CLAUDE.md")
    os.symlink(project / "missing.md", project / "GEMINI.md")
    got = ruleset.for_path(str(project), "x.py")
    messages = " | ".join(f"{d.file}: {d.message}" for d in got.diagnostics)
    assert "AGENTS.md: looks binary" in messages
    assert "CLAUDE.md: is not a regular file" in messages
    assert "GEMINI.md: cannot be read" in messages
    assert got.rules == []


def test_huge_file_is_read_up_to_the_bound(project: Path) -> None:
    body = "- Never edit early/.\n" + ("filler line of advice.\n" * 20000) + "- Never edit late/.\n"
    _write(project / "AGENTS.md", body)
    got = ruleset.for_path(str(project), "x.py")
    targets = {r.target for r in got.of_kind("prohibit")}
    assert "early/" in targets and "late/" not in targets
    assert "larger than 256 KiB" in got.diagnostics[0].message


def test_invalid_utf8_is_replaced_and_reported(project: Path) -> None:
    _write(project / "AGENTS.md", b"- Never edit gen/ \xff\xfe.\n")
    got = ruleset.for_path(str(project), "x.py")
    assert got.of_kind("prohibit") and "not valid UTF-8" in got.diagnostics[0].message


def test_memo_reparses_a_changed_file(project: Path) -> None:
    path = _write(project / "AGENTS.md", "- Never edit one/.\n")
    assert {r.target for r in ruleset.for_path(str(project), "x").rules} == {"one/"}
    path.write_text("- Never edit two/ and never edit three/.\n")
    os.utime(path, ns=(1, 1))
    assert "two/" in {r.target for r in ruleset.for_path(str(project), "x").rules}


def test_conflict_is_reported_and_prohibition_stays(project: Path) -> None:
    _write(project / "AGENTS.md", "- Never edit generated/.\n")
    _write(project / "gen" / "AGENTS.md", "- You may edit generated/ here.\n")
    got = ruleset.for_path(str(project), "gen/x")
    assert got.conflicts and "stricter rule applies" in got.conflicts[0]
    assert got.of_kind("prohibit")


def test_is_instruction_file(project: Path) -> None:
    p = str(project)
    assert sources.is_instruction_file(f"{p}/sub/CLAUDE.local.md", p)
    assert sources.is_instruction_file(f"{p}/.cursor/rules/x.mdc", p)
    assert sources.is_instruction_file(f"{p}/.github/copilot-instructions.md", p)
    assert not sources.is_instruction_file(f"{p}/README.md", p)


def test_copilot_apply_to_frontmatter(project: Path) -> None:
    _write(
        project / ".github" / "instructions" / "py.instructions.md",
        '---\napplyTo: "**/*.py"\n---\n- Never edit config/.\n',
    )
    assert ruleset.for_path(str(project), "app/config/a.py").of_kind("prohibit")
    assert not ruleset.for_path(str(project), "app/config/a.ts").of_kind("prohibit")


def test_two_only_use_rules_conflict(project: Path) -> None:
    _write(project / "AGENTS.md", "- Only use pnpm.\n")
    _write(project / "CLAUDE.md", "- Only use yarn.\n- Only use uv.\n")
    got = ruleset.for_path(str(project), "x")
    assert len(got.conflicts) == 1 and "both apply" in got.conflicts[0]
