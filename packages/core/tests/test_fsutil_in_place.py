"""The looks after a command act on what it left, outside any boundary: never through a link.

A process the command left running can turn a folder on the way into a link to the
user's home between a look's check and its act (a red-team pass showed
``~/.claude/settings.json`` leaving home that way); and a later move of the same
path must not replace a copy kept by an earlier one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from agentreflex.core.util import fsutil


@pytest.fixture
def home(tmp_path: Path) -> Path:
    users = tmp_path / "home"
    (users / ".claude").mkdir(parents=True)
    (users / ".claude" / "settings.json").write_text('{"hooks": "mine"}')
    return users


def test_a_folder_on_the_way_that_is_a_link_is_never_opened(tmp_path: Path, home: Path) -> None:
    (tmp_path / "proj").mkdir()
    os.symlink(home, tmp_path / "proj" / "web")
    with pytest.raises(OSError):
        fsutil.open_folder(str(tmp_path / "proj" / "web" / ".claude"))
    fd = fsutil.open_folder(str(home / ".claude"))
    os.close(fd)


def test_a_move_through_a_link_moves_nothing(tmp_path: Path, home: Path) -> None:
    (tmp_path / "proj").mkdir()
    os.symlink(home, tmp_path / "proj" / "web")
    kept = tmp_path / "kept"
    assert fsutil.move_under(str(tmp_path / "proj/web/.claude/settings.json"), str(kept)) == ""
    assert (home / ".claude" / "settings.json").read_text() == '{"hooks": "mine"}'
    assert not kept.exists() or not any(kept.rglob("settings.json"))


def test_a_second_move_of_the_same_path_keeps_the_first_copy(tmp_path: Path) -> None:
    planted = tmp_path / "proj" / ".mcp.json"
    planted.parent.mkdir()
    kept = tmp_path / "kept"
    planted.write_text("first")
    first = fsutil.move_under(str(planted), str(kept))
    planted.write_text("second")
    second = fsutil.move_under(str(planted), str(kept))
    assert first and second and first != second
    assert (Path(first).read_text(), Path(second).read_text()) == ("first", "second")


def test_a_link_itself_is_moved_as_the_link(tmp_path: Path, home: Path) -> None:
    (tmp_path / "proj").mkdir()
    link = tmp_path / "proj" / ".claude"
    os.symlink(home / ".claude", link)
    moved = fsutil.move_under(str(link), str(tmp_path / "kept"))
    assert Path(moved).is_symlink() and not link.exists()
    assert (home / ".claude" / "settings.json").read_text() == '{"hooks": "mine"}'


def test_a_rewrite_is_never_written_through_a_link(tmp_path: Path, home: Path) -> None:
    (tmp_path / "proj").mkdir()
    os.symlink(home / ".claude", tmp_path / "proj" / ".gemini")
    with pytest.raises(OSError):
        fsutil.replace_in_place(str(tmp_path / "proj/.gemini/settings.json"), b"{}", 0o644)
    assert (home / ".claude" / "settings.json").read_text() == '{"hooks": "mine"}'
    env = tmp_path / "proj" / ".env"
    env.write_text("A=1\nLD_PRELOAD=x\n")
    fsutil.replace_in_place(str(env), b"A=1\n", 0o640)
    assert env.read_text() == "A=1\n" and oct(env.stat().st_mode & 0o777) == "0o640"
    assert sorted(p.name for p in env.parent.iterdir()) == [".env", ".gemini"]  # no temp left


def test_a_read_in_place_follows_no_link(tmp_path: Path, home: Path) -> None:
    (tmp_path / "proj").mkdir()
    os.symlink(home / ".claude" / "settings.json", tmp_path / "proj" / "config")
    assert fsutil.read_in_place(str(tmp_path / "proj" / "config"), 100) is None
    (tmp_path / "proj" / "real").write_text("x = 1\n")
    assert fsutil.read_in_place(str(tmp_path / "proj" / "real"), 100) == b"x = 1\n"


def test_a_move_to_another_filesystem_stays_out_of_sight_in_its_folder(tmp_path: Path) -> None:
    """``rename`` fails across filesystems (a project in /tmp, the state folder in home): the
    entry is renamed in its own folder to a name no host reads, never copied by path (a
    folder inside it swapped for a link meanwhile would be followed: a red-team pass)."""
    (tmp_path / "proj").mkdir()
    planted = tmp_path / "proj" / "opencode.json"
    planted.write_text("{}")
    fd = fsutil.open_folder(str(planted.parent))
    try:
        where = fsutil._move_across(fd, planted.name, str(planted), str(tmp_path / "kept"))
    finally:
        os.close(fd)
    assert not planted.exists() and Path(where).read_text() == "{}"
    assert Path(where).parent == planted.parent and Path(where).name.startswith(".agentreflex-")
    assert "." not in Path(where).name.removeprefix(".")  # no suffix a host reads by
