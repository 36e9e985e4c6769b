"""Every hinted pattern in every package is proved to need one of its hints.

A ``LazyPattern`` with hints answers "no match" without running on text that
holds none of them (``agentreflex.core.util.lazyre``). That is only safe if every
possible match contains a hint; a hint list that misses an alternative would
silently blind a reflex. This test finds every hinted pattern defined at
module level in the installed ``agentreflex`` packages and proves its hints
from the parsed regex.
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import agentreflex
from agentreflex.core.util.lazyre import LazyPattern, hints_cover


def _module_names() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(agentreflex.__path__, "agentreflex."):
        if not info.name.endswith(("__main__", ".demo")):
            names.append(info.name)
    return sorted(names)


def _patterns(value: object, depth: int = 0) -> list[LazyPattern]:
    if isinstance(value, LazyPattern):
        return [value]
    if depth < 3 and isinstance(value, tuple | list):
        return [p for item in value for p in _patterns(item, depth + 1)]
    if depth < 3 and isinstance(value, dict):
        return [p for item in value.values() for p in _patterns(item, depth + 1)]
    if depth < 3 and hasattr(value, "__slots__") and hasattr(value, "pattern"):
        return _patterns(value.pattern, depth + 1)
    return []


def hinted_patterns() -> dict[str, LazyPattern]:
    found: dict[str, LazyPattern] = {}
    for name in _module_names():
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            for index, pattern in enumerate(_patterns(value)):
                if pattern.hints:
                    found[f"{name}.{attr}[{index}]"] = pattern
    return found


def generated_secret_patterns() -> dict[str, LazyPattern]:
    """core's token formats (gitleaks' and core's extension), plain data: proved like the others."""
    from agentreflex.core.redaction.secret_rules import RULES

    return {
        f"agentreflex.core.redaction.secret_rules.RULES[{index}:{rule[0]}]": LazyPattern(
            rule[1], re.ASCII if rule[10] == "gitleaks" else 0, rule[2]
        )
        for index, rule in enumerate(RULES)
        if rule[2]
    }


def test_every_hinted_pattern_is_covered_by_its_hints() -> None:
    patterns = hinted_patterns() | generated_secret_patterns()
    assert len(patterns) >= 200  # the walk really found the hinted patterns
    unproved = [name for name, pattern in patterns.items() if not hints_cover(pattern)]
    assert unproved == []


def test_the_proof_rejects_a_hint_list_that_misses_an_alternative() -> None:
    assert hints_cover(LazyPattern(r"\b(typos?|docs?)\b", re.I, "typo doc"))
    assert not hints_cover(LazyPattern(r"\b(typos?|docs?|readme)\b", re.I, "typo doc"))
    assert hints_cover(LazyPattern(r"(?i)Resolved:", 0, "Resolved:"))  # hints folded too
    assert not hints_cover(LazyPattern(r"a(?i:bc)", 0, "abc"))
    assert not hints_cover(LazyPattern(r"x?abc", 0, "xabc"))
    assert hints_cover(LazyPattern(r"[ab]c", 0, "a b"))
    assert not hints_cover(LazyPattern(r"[abz]c", 0, "a b"))
    assert not hints_cover(LazyPattern(r"[a-c]d", 0, "a b c"))
