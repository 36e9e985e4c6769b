"""The file cache: keyed by model, state and questions; TTL; size bound; atomic; never an error."""

from __future__ import annotations

import os
from pathlib import Path

from agentreflex.core.systemone.wire import noul
from agentreflex.judge2.cache import CachedAnswer, FileCache, cache_key

Q = {"q": noul("x?", "yes", "no")}
ANSWER = CachedAnswer({"q": 0.3}, {"c": {"a": 0.4, "b": 0.6}}, "jev")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_key_depends_on_model_state_and_questions() -> None:
    base = cache_key("m", "state", Q)
    assert base == cache_key("m", "state", dict(Q))
    assert base != cache_key("m2", "state", Q)
    assert base != cache_key("m", "state2", Q)
    assert base != cache_key("m", "state", {"q": noul("y?", "yes", "no")})


def test_round_trip_and_ttl(tmp_path: Path) -> None:
    clock = Clock()
    cache = FileCache(str(tmp_path / "c"), ttl_s=60, clock=clock)
    assert cache.get("k") is None
    cache.put("k", ANSWER)
    assert cache.get("k") == ANSWER
    clock.now += 59
    assert cache.get("k") == ANSWER
    clock.now += 2
    assert cache.get("k") is None


def test_size_bound_keeps_the_newest(tmp_path: Path) -> None:
    cache = FileCache(str(tmp_path), max_entries=3)
    for i in range(10):
        cache.put(f"k{i}", ANSWER)
        assert len(cache) <= 3
    assert cache.get("k9") == ANSWER
    assert len(cache) == 3


def test_writes_leave_no_temp_files(tmp_path: Path) -> None:
    cache = FileCache(str(tmp_path))
    cache.put("k", ANSWER)
    assert sorted(os.listdir(tmp_path)) == ["k.json"]


def test_corrupt_or_invalid_entries_are_misses(tmp_path: Path) -> None:
    cache = FileCache(str(tmp_path))
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "range.json").write_text('{"ts": 1e18, "probabilities": {"q": 0.5}}')
    cache.put("oob", CachedAnswer({"q": 0.5}, {}, "m"))
    text = (tmp_path / "oob.json").read_text().replace("0.5", "7.5")
    (tmp_path / "oob.json").write_text(text)
    assert cache.get("bad") is None and cache.get("range") is None and cache.get("oob") is None


def test_an_unwritable_directory_is_silently_skipped(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    cache = FileCache(str(blocker / "sub"))
    cache.put("k", ANSWER)
    assert cache.get("k") is None
