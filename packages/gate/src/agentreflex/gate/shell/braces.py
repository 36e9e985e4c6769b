"""Bash brace expansion, done where bash does it: before every other expansion.

``{rm,-rf,/boot}`` is three words, ``rm -rf /boot``; ``/{etc,usr}`` is two
paths; ``{1..3}`` and ``{a..c}`` are sequences.  Only *unquoted* braces and
commas count (``"{a,b}"`` and ``\\{a,b}`` are literal), and variable values
are never brace-expanded (bash expands braces before parameters).

A word is a list of parts ``(text, literal, active)``: ``literal`` parts are
not split on ``$IFS``; ``active`` parts are unquoted source text, the only
place brace syntax is recognised.  An expansion too large (more than
:data:`LIMIT` words) or too deeply nested to follow ends in a word holding
the unknown marker, and a sequence too long to spell out becomes the unknown
marker in its place (``dir{1..5000}`` is "some entry ``dir?``"), so whatever
it would run or delete is never taken for known.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import UNKNOWN

Part = tuple[str, bool, bool]

LIMIT = 256
MAX_NESTING = 32
_INT_SEQ = LazyPattern(r"([+-]?\d+)\.\.([+-]?\d+)(?:\.\.([+-]?\d+))?")
_CHAR_SEQ = LazyPattern(r"([A-Za-z])\.\.([A-Za-z])(?:\.\.([+-]?\d+))?")


def has_braces(parts: list[Part]) -> bool:
    """Cheap test: could any unquoted part start a brace expansion?"""
    opened = closed = False
    for text, _, active in parts:
        if active:
            opened = opened or "{" in text
            closed = closed or (opened and "}" in text)
    return closed


def expand(parts: list[Part]) -> list[list[Part]]:
    """The words ``parts`` brace-expands into (just ``[parts]`` when nothing expands)."""
    atoms: list[Part] = []
    for text, literal, active in parts:
        if active:
            atoms.extend((ch, True, True) for ch in text)
        else:
            atoms.append((text, literal, False))
    words: list[list[Part]] = []
    if not _expand(atoms, words, 0):
        words = words[:LIMIT]
        words.append([(UNKNOWN, True, False)])
    return [_regroup(w) for w in words]


def _expand(atoms: list[Part], out: list[list[Part]], depth: int) -> bool:
    """Append the expansions of ``atoms`` to ``out``; False when past the limits."""
    if depth > MAX_NESTING:
        return False
    group = _group(atoms)
    if group is None:
        if len(out) >= LIMIT:
            return False
        out.append(atoms)
        return True
    start, end, alternatives = group
    pre, post = atoms[:start], atoms[end + 1 :]
    return all(_expand(pre + alt + post, out, depth + 1) for alt in alternatives)


def _group(atoms: list[Part]) -> tuple[int, int, list[list[Part]]] | None:
    """The first brace group bash would expand: (start, end, alternatives)."""
    for k, (text, _, active) in enumerate(atoms):
        if not active or text != "{":
            continue
        if k > 0 and atoms[k - 1][2] and atoms[k - 1][0] == "$":
            continue  # ${...} is a parameter, not a brace group
        level = 0
        commas: list[int] = []
        end = -1
        for m in range(k, len(atoms)):
            t, _, a = atoms[m]
            if not a:
                continue
            if t == "{":
                level += 1
            elif t == "}":
                level -= 1
                if level == 0:
                    end = m
                    break
            elif t == "," and level == 1:
                commas.append(m)
        if end < 0:
            continue  # unmatched: bash tries the next "{"
        if commas:
            bounds = [k, *commas, end]
            return k, end, [atoms[bounds[i] + 1 : bounds[i + 1]] for i in range(len(bounds) - 1)]
        inner = atoms[k + 1 : end]
        if inner and all(a for _, _, a in inner):
            is_seq, seq = _sequence("".join(t for t, _, _ in inner))
            if is_seq:
                if seq is None:  # too long to spell out: some unknown item in its place
                    return k, end, [[(UNKNOWN, True, False)]]
                return k, end, [[(ch, True, True) for ch in s] for s in seq]
    return None


def _sequence(text: str) -> tuple[bool, list[str] | None]:
    """``1..5``, ``01..10..3``, ``a..e``: (is a sequence, its items or None when too many)."""
    m = _INT_SEQ.fullmatch(text)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        if abs(hi - lo) // step + 1 > LIMIT:
            return True, None
        ends = [g.lstrip("+-") for g in m.group(1, 2)]
        width = max((len(e) for e in ends if len(e) > 1 and e.startswith("0")), default=0)
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return True, [("-" if n < 0 else "") + str(abs(n)).zfill(width) for n in rng]
    m = _CHAR_SEQ.fullmatch(text)
    if m:
        lo, hi = ord(m.group(1)), ord(m.group(2))
        step = abs(int(m.group(3) or 1)) or 1
        rng = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return True, [chr(c) for c in rng]
    return False, None


def _regroup(atoms: list[Part]) -> list[Part]:
    """Merge runs of single-character active atoms back into parts."""
    out: list[Part] = []
    for atom in atoms:
        if atom[2] and out and out[-1][2]:
            out[-1] = (out[-1][0] + atom[0], True, True)
        else:
            out.append(atom)
    return out
