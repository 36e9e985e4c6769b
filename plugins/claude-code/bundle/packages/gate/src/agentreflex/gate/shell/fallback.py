"""A parse-free scan for when the real parse cannot finish.

Oversized, absurdly nested or syntactically broken input must not become a
free pass (dcg#189: ``rm -rf / ;`` followed by ninety ``$(`` hung the
parser and the timeout let it through).  This scan treats every fragment
between separators as executed and looks for the unmistakable cases only; it
runs in linear time and backs the ASK/BLOCK that such input gets anyway.
"""

from __future__ import annotations

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, Hit

_SPLIT = LazyPattern(r"[;&|\n()`{}]|\$\(")
_PATTERNS: tuple[tuple[str, LazyPattern], ...] = (
    (
        "GATE-RM-ROOT",
        LazyPattern(
            r"\brm\s+(?:-\S+\s+)*(?:-\S*[rR]\S*|--recursive)\s+(?:-\S+\s+)*"
            r"(?:/|/\*|~/?|\$HOME/?|\"\$HOME\"/?|/(?:etc|usr|bin|boot|var|home|opt|lib)\S*)(?:\s|$)"
        ),
    ),
    ("GATE-DISK-FORMAT", LazyPattern(r"\b(?:mkfs(?:\.\w+)?|wipefs|mke2fs)\s+\S")),
    ("GATE-DISK-DD", LazyPattern(r"\bdd\s+.*\bof=/dev/(?!null|zero|stdout|stderr)")),
    ("GATE-FORK-BOMB", LazyPattern(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&")),
    ("GATE-GIT-FORCE-PUSH", LazyPattern(r"\bgit\s+.*\bpush\b.*(?:\s--force\b|\s-f\b|\s\+\S)")),
    ("GATE-GIT-RESET-HARD", LazyPattern(r"\bgit\s+.*\breset\s+.*--hard\b")),
    ("GATE-RCE-DOWNLOAD", LazyPattern(r"\b(?:curl|wget)\b[^|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b")),
)


def scan(text: str) -> list[Hit]:
    """Unmistakably destructive fragments of ``text``, without parsing it."""
    hits: list[Hit] = []
    seen: set[str] = set()
    whole = text[:1_000_000]
    for rule, pattern in _PATTERNS:
        if rule in ("GATE-RCE-DOWNLOAD", "GATE-FORK-BOMB"):
            m = pattern.search(whole[:100_000])
            if m and rule not in seen:
                seen.add(rule)
                hits.append(
                    Hit(
                        rule,
                        DESTRUCTIVE,
                        P_BLOCK,
                        redact_head(m.group(0), 200),
                        "Destructive command found in input that could not be parsed.",
                    )
                )
    for fragment in _SPLIT.split(whole)[:20_000]:
        frag = fragment.strip().replace("'", "").replace('"', "").replace("\\", "")
        if not frag or len(frag) > 4000:
            continue
        for rule, pattern in _PATTERNS:
            if rule in seen or rule in ("GATE-RCE-DOWNLOAD", "GATE-FORK-BOMB"):
                continue
            if pattern.search(frag):
                seen.add(rule)
                hits.append(
                    Hit(
                        rule,
                        DESTRUCTIVE,
                        P_BLOCK,
                        redact_head(frag, 200),
                        "Destructive command found in input that could not be parsed. "
                        "Split it into simple commands.",
                    )
                )
    return hits
