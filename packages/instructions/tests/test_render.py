"""``render``: the managed section, idempotent, user text kept, damaged markers refused."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.instructions import render
from agentreflex.instructions.render import BEGIN, END, RenderError, splice


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "policies").mkdir()
    (project / "policies" / "instructions.md").write_text("- Never edit generated/.\n")
    return project


def test_append_then_replace_keeps_user_text_and_is_idempotent() -> None:
    user = "# Mine\n\nKeep this.\n"
    once = splice(user, "A\n")
    assert once == f"# Mine\n\nKeep this.\n\n{BEGIN}\nA\n{END}\n"
    assert splice(once, "A\n") == once
    edited = once + "\nAfter the section, also mine.\n"
    again = splice(edited, "B")
    assert again.startswith("# Mine\n\nKeep this.\n\n") and again.endswith("also mine.\n")
    assert f"{BEGIN}\nB\n{END}\n" in again and "\nA\n" not in again


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (f"x\n{BEGIN}\nbody\n", "begin marker on line 2 has no end marker"),
        (f"x\nbody\n{END}\n", "end marker on line 3 has no begin marker"),
        (f"{END}\n{BEGIN}\n", "end marker on line 1 comes before the begin marker on line 2"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n", "2 begin markers (lines 1, 2)"),
        (f"{BEGIN}\n{END}\n{END}\n", "2 end markers (lines 2, 3)"),
    ],
)
def test_damaged_markers_are_refused_with_the_line(text: str, needle: str) -> None:
    with pytest.raises(RenderError, match=None) as info:
        splice(text, "A", "CLAUDE.md")
    assert needle in str(info.value) and str(info.value).startswith("CLAUDE.md")


def test_render_writes_each_host_file_and_check_agrees(repo: Path) -> None:
    (repo / "CLAUDE.md").write_text("Claude notes.\n")
    os.chmod(repo / "CLAUDE.md", 0o640)
    (repo / "GEMINI.md").write_text("")
    assert [o.file for o in render.render(str(repo), check=True).stale] == [
        "AGENTS.md",
        "CLAUDE.md",
        "GEMINI.md",
    ]
    assert not (repo / "AGENTS.md").exists()  # --check writes nothing
    render.render(str(repo))
    assert (repo / "CLAUDE.md").read_text().startswith("Claude notes.\n\n" + BEGIN)
    assert (repo / "CLAUDE.md").stat().st_mode & 0o777 == 0o640
    assert "generated/" in (repo / "AGENTS.md").read_text()
    assert not (repo / ".github").exists()  # copilot only where it is used
    assert render.render(str(repo), check=True).stale == []
    (repo / "policies" / "instructions.md").write_text("- Never edit vendor/.\n")
    assert len(render.render(str(repo), check=True).stale) == 3


def test_missing_source_and_markers_in_the_source(repo: Path) -> None:
    (repo / "policies" / "instructions.md").unlink()
    with pytest.raises(RenderError, match="does not exist"):
        render.render(str(repo))
    (repo / "policies" / "instructions.md").write_text(f"{END}\n")
    with pytest.raises(RenderError, match="contains agentreflex's markers"):
        render.render(str(repo))


def test_bad_targets_are_refused_not_touched(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("theirs\n")
    os.symlink(outside, repo / "CLAUDE.md")
    (repo / "AGENTS.md").write_bytes(b"\xff\xfe not utf-8\n")
    (repo / "GEMINI.md").write_bytes(b"\0\0")
    report = render.render(str(repo))
    errors = {o.file: o.error for o in report.errors}
    assert "outside the project" in errors["CLAUDE.md"]
    assert "not valid UTF-8" in errors["AGENTS.md"]
    assert "looks binary" in errors["GEMINI.md"]
    assert outside.read_text() == "theirs\n"
