"""LazyPattern compiles on first use and then answers exactly as re.Pattern does."""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern


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


def test_text_without_a_hint_gets_the_no_match_answer_without_compiling() -> None:
    pattern = LazyPattern(r"\b(error|fail\w*)\b", re.IGNORECASE, hints="error fail")
    text = "all good here"
    assert pattern.search(text) is None and pattern.match(text) is None
    assert pattern.fullmatch(text) is None and list(pattern.finditer(text)) == []
    assert pattern.findall(text) == [] and pattern.split(text) == [text]
    assert pattern.sub("#", text) == text and pattern.subn("#", text) == (text, 0)
    assert pattern._compiled is None


def test_hints_are_compared_case_insensitively_for_ignorecase_patterns() -> None:
    pattern = LazyPattern(r"\b(error|fail\w*)\b", re.IGNORECASE, hints="ERROR Fail")
    assert pattern.hints == ("error", "fail")
    assert pattern.search("Build FAILED") is not None
    inline = LazyPattern(r"(?im)^resolved:", hints="resolved:")
    assert inline.search("x\nRESOLVED: y") is not None


def test_hinted_answers_equal_plain_answers_when_a_hint_is_present() -> None:
    hinted = LazyPattern(r"(\d+)-(fail)", hints="fail")
    real = re.compile(r"(\d+)-(fail)")
    text = "1-fail 22-fail x"
    assert hinted.findall(text) == real.findall(text)
    assert hinted.sub("#", text) == real.sub("#", text)
    assert hinted.split(text) == real.split(text)


def test_folding_covers_the_letters_ignorecase_equates_with_ascii() -> None:
    pattern = LazyPattern(r"password=\S+", re.IGNORECASE, hints="pass")
    assert re.search(r"password=\S+", "PA\u017fSWORD=x", re.IGNORECASE)  # long s
    assert pattern.search("PA\u017fSWORD=x") is not None
    kelvin = LazyPattern(r"key=\S+", re.IGNORECASE, hints="key")
    assert kelvin.search("\u212aEY=x") is not None


def test_fold_shows_every_ignorecase_match_of_an_ascii_letter() -> None:
    """Every character re.IGNORECASE equates with an ASCII letter folds to that letter."""
    import string
    import sys

    from agentreflex.core.util.lazyre import fold

    everything = "".join(map(chr, range(0x80, sys.maxunicode + 1)))
    twins = re.findall("[a-z]", everything, re.IGNORECASE)
    assert len(twins) >= 3  # the Kelvin sign, the long s, the Turkish i...
    for char in twins:
        letter = next(a for a in string.ascii_lowercase if re.fullmatch(a, char, re.IGNORECASE))
        assert fold(char) == letter, hex(ord(char))


def test_a_hint_with_a_turkish_i_still_matches() -> None:
    pattern = LazyPattern(r"authorization:\s*\S+", re.IGNORECASE, hints="authorization")
    assert pattern.search("AUTHOR\u0130ZAT\u0130ON: x") is not None
    assert pattern.search("author\u0131zat\u0131on: x") is not None
