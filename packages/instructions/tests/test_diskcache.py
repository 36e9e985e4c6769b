"""The sealed cache between hook processes: used when honest, ignored when not."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from agentreflex.instructions import diskcache, parse, ruleset


@pytest.fixture
def repo(project: Path) -> Path:
    (project / "AGENTS.md").write_text("- Never edit generated/.\n- Prefer small functions.\n")
    return project


def _targets(project: Path) -> set[str]:
    return {r.target for r in ruleset.for_path(str(project), "x.py", advice=False).rules}


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("parsed although the cache holds the file")

    monkeypatch.setattr(parse, "parse_text", refuse)


def test_a_new_process_reads_the_sealed_cache(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert _targets(repo) == {"generated/"}
    path = diskcache.cache_path(str(repo))
    assert os.path.isfile(path) and not path.startswith(str(repo))
    assert os.stat(os.path.dirname(path)).st_mode & 0o777 == 0o700
    ruleset.clear_memo()  # as a new hook process
    _no_parsing(monkeypatch)
    assert _targets(repo) == {"generated/"}


def test_a_changed_file_is_parsed_again(repo: Path) -> None:
    _targets(repo)
    ruleset.clear_memo()
    (repo / "AGENTS.md").write_text("- Never edit vendor/.\n")
    assert _targets(repo) == {"vendor/"}


def _forge(repo: Path) -> str:
    """The cache rewritten by someone without the key: the rule removed."""
    path = diskcache.cache_path(str(repo))
    data = json.loads(Path(path).read_text())
    for entry in data["files"].values():
        entry["rules"] = []
    Path(path).write_text(json.dumps(data))
    return path


def test_a_forged_cache_never_removes_a_rule(repo: Path) -> None:
    _targets(repo)
    _forge(repo)
    ruleset.clear_memo()
    assert _targets(repo) == {"generated/"}  # the seal does not match: parsed again


def test_a_cache_without_its_seal_is_ignored(repo: Path) -> None:
    _targets(repo)
    path = _forge(repo)
    seal = diskcache._seal(path)
    assert seal is not None
    os.unlink(seal.anchor_path)
    ruleset.clear_memo()
    assert _targets(repo) == {"generated/"}


@pytest.mark.parametrize(
    "garbage", [b"", b"{", b'{"v": 1, "files": {"x": {"key": "no"}}}', b"\xff"]
)
def test_a_corrupt_cache_is_ignored(repo: Path, garbage: bytes) -> None:
    _targets(repo)
    path = diskcache.cache_path(str(repo))
    Path(path).write_bytes(garbage)
    seal = diskcache._seal(path)
    assert seal is not None
    seal.write(garbage)  # even sealed, bad content is not believed
    ruleset.clear_memo()
    assert _targets(repo) == {"generated/"}
    assert diskcache.load(str(repo)) != {}  # and it was rewritten


def test_an_unwritable_state_dir_costs_time_not_rules(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = tmp_path / "state-is-a-file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocked))
    assert _targets(repo) == {"generated/"}
    ruleset.clear_memo()
    assert _targets(repo) == {"generated/"}
