"""LazyPattern compiles on first use and then answers exactly as re.Pattern does."""

from __future__ import annotations

import re

from agentreflex.core.lazyre import LazyPattern


def test_not_compiled_until_used() -> None:
    pattern = LazyPattern(r"(a)(b)?", re.IGNORECASE)
    assert pattern._compiled is None
    assert pattern.search("xAb") is not None
    assert pattern._compiled is pattern.compiled
    assert pattern.compiled.flags & re.IGNORECASE


def test_methods_match_re_pattern() -> None:
    lazy, real = LazyPattern(r"(\d+)-?"), re.compile(r"(\d+)-?")
    text = "12-34 x 5"
    assert lazy.findall(text) == real.findall(text)
    assert lazy.sub("#", text) == real.sub("#", text)
    assert lazy.subn("#", text, 1) == real.subn("#", text, 1)
    assert lazy.split(text) == real.split(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.match("x1") is None and lazy.match("x1", 1) is not None
    assert lazy.fullmatch("12-") is not None and lazy.fullmatch("12-3") is None
    assert "LazyPattern" in repr(lazy)
