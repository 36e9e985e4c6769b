"""Deterministic secret detection and redaction.

Runs on every string before it is logged, stored, printed or sent to a judge,
so it must be fast and must not miss the common formats.  The rules follow the
token formats the providers publish (and that gitleaks' MIT-licensed rule set
also encodes): fixed prefixes with a known alphabet and length, which keeps
false positives low without entropy guessing.  Generic rules cover
``NAME=value`` assignments whose name says secret, ``Authorization`` headers,
password flags and credentials embedded in URLs.

Three parts make the one rule set every package uses, run in one pass:

* the rules generated from gitleaks' default configuration
  (``secret_rules.py``, written by ``tools/gen_secret_rules.py``), applied
  with gitleaks' semantics: the secret group only, its entropy floor, its
  allowlists and stopwords;
* in the same table, first, core's extension of it
  (``tools/secret_rules_extra.toml``): the provider formats gitleaks has no
  rule for or misses real tokens of, each with the reason;
* the context rules, ``secret_rules_context.py``: where a secret sits
  rather than its format (``NAME=value``, ``-u user:pass``, ``sshpass -p``,
  ``redis-cli -a``, ``docker login -p``, URLs with passwords, headers,
  netrc lines, ``aws configure set``, "the password is X" in prose).

A package that needs an extra shape passes it as ``extra`` (a declared
extension, merged in the same pass), never as a parallel set.

Stdlib only.  A pattern compiles the first time one of its hints occurs.
"""

from __future__ import annotations

from agentreflex.core.redaction.context_rules import CONTEXT_RULES, GENERIC_RULES, is_placeholder
from agentreflex.core.redaction.secret_rules import (
    EXACT_WORDS,
    FOLDED_WORDS,
    GLOBAL_ALLOW_REGEXES,
    GLOBAL_STOPWORDS,
    RULES,
)
from agentreflex.core.util.lazyre import LazyPattern, fold
from agentreflex.core.util.record import record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Iterator

REDACTED = "[REDACTED]"
# No rule, core's or gitleaks', matches fewer characters (test_redact computes
# every rule's shortest match): a shorter text holds no secret, and the words
# and keys of a finding are mostly that short.
SHORTEST_SECRET_TEXT = 6


@record(frozen=True)
class SecretMatch:
    """Where a secret was found.  ``group`` marks the secret part of the match."""

    rule: str
    start: int
    end: int

    @property
    def generic(self) -> bool:
        """True for context rules (``NAME=value``, headers, flags) rather than token formats.

        Generic matches are always redacted, but a gate that *blocks* on a
        secret should weigh them lower: they are where false positives live.
        """
        return self.rule in GENERIC_RULES


# A package's declared extension of the rule set: (rule id, pattern) pairs.
Extension = tuple[tuple[str, LazyPattern], ...]

# The context rules (the token formats are all in ``secret_rules``).  A rule
# runs only when one of its hints occurs in the text; every match contains
# one (tests/test_pattern_hints.py), so the hints never hide a secret, and a
# typical string compiles none of the patterns: compiling all of them costs a
# hook process several milliseconds.
_RULES: tuple[tuple[str, LazyPattern], ...] = CONTEXT_RULES


def find_secrets(text: str, extra: Extension = ()) -> list[SecretMatch]:
    """Every secret span in ``text``, sorted and non-overlapping.

    ``extra`` is a package's declared extension of the set (``(rule id,
    pattern)`` pairs, the secret in group ``s`` when there is one).

    Text that went through JSON or ``repr`` once or more glues a secret to
    the ``n`` of an escaped newline (``\\nghp_...``) and puts backslashes
    between a name and its value, which defeats word boundaries and the
    short gaps gitleaks allows; a log may close an excerpt with ``]`` right
    after a secret, which defeats its strict terminators.  Such text is
    scanned a second time without its backslashes and closing brackets, and
    the spans found there are mapped back and merged.
    """
    if len(text) < SHORTEST_SECRET_TEXT and not extra:
        return []
    memo = not extra and len(text) <= _CLEAN_MEMO_CHARS
    if memo and text in _CLEAN:
        return []
    found = _find(text, extra)
    if memo and not found:
        if len(_CLEAN) >= _CLEAN_MEMO_SIZE:
            _CLEAN.clear()
        _CLEAN.add(text)
    return found


# Short texts already scanned and found clean (rule names, keys, categories,
# command words): a finding repeats them, a daemon sees them again and again.
# Only clean texts are kept, so no secret lingers in the memo.
_CLEAN: set[str] = set()
_CLEAN_MEMO_CHARS = 64
_CLEAN_MEMO_SIZE = 4096


def _find(
    text: str, extra: Extension, depth: int = 0, rules: _Candidates | None = None
) -> list[SecretMatch]:
    """find_secrets without its shortcuts: the text, its unescaped view, its encoded runs.

    ``rules``: the candidate rules when the caller knows them (a view's, from its text's).
    """
    folded = fold(text)
    if rules is None:
        rules = (_own_candidates(text, folded), _candidates(text, folded))
    found = _scan(text, folded, extra, rules)
    view = _unescaped(text)
    if view is not None:
        plain, view_starts, text_starts = view
        # Without a backslash the view differs only by closing brackets made
        # spaces, and no hint word holds one: the rules that may match it are
        # the text's own candidates (test_redact checks both facts).
        again = rules if "\\" not in text else _view_rules(plain, view_starts[1:], rules)
        for m in _scan(plain, fold(plain), extra, again):
            start = _to_text(m.start, view_starts, text_starts)
            end = _to_text(m.end - 1, view_starts, text_starts) + 1
            found.append(SecretMatch(m.rule, start, end))
    if depth < _MAX_DECODE_DEPTH:
        found.extend(_encoded(text, extra, depth))
        found.extend(_joined(text, extra, depth, rules))
    return _merge(found)


def _view_rules(view: str, seams: list[int], rules: _Candidates) -> _Candidates | None:
    """The candidate rules of a view of a text whose own are ``rules``, or None: look them up.

    Why: looking the hint words up is a third of a redaction's time, and a view (the
    text unescaped, or its split literals joined) holds the text's words but for those
    its ``seams`` made, where it joins two pieces of the text: only the words around
    those are looked up.  A seam between two characters no hint word holds (a line
    break, a space, a quote) makes none.  The text's rules whose word the view lost
    find nothing there: a rule matches only where its word is.
    """
    global _HINT_CHARS
    if _HINT_CHARS is None:
        _HINT_CHARS = _hint_chars()
    chars, longest = _HINT_CHARS
    reach = longest - 1
    near: list[str] = []
    size = 0
    for b in seams:
        if 0 < b < len(view):
            left, right = view[b - 1], view[b]
            if (left in chars or not left.isascii()) and (right in chars or not right.isascii()):
                near.append(view[max(0, b - reach) : b + reach])
                size += len(near[-1])
                if size >= len(view):
                    return None
    if not near:
        return rules
    words = "\x00".join(near)
    folded = fold(words)
    own = set(rules[0]).union(_own_candidates(words, folded))
    generated = set(rules[1]).union(_candidates(words, folded))
    return sorted(own), sorted(generated)


def _hint_chars() -> tuple[frozenset[str], int]:
    """Every character of a hint word (either case), and the longest word's length."""
    global _OWN
    if _OWN is None:
        _OWN = _own_index()
    words = [w for w, _ in FOLDED_WORDS] + [w for w, _ in EXACT_WORDS]
    words += [w for w, _, _ in _OWN[0]]
    text = "".join(words)
    return frozenset(text + text.upper() + text.lower()), max(map(len, words))


_HINT_CHARS: tuple[frozenset[str], int] | None = None


# Where a program's text splits one string in two: a closing quote, a
# concatenation (``+``, ``.``, ``..``, ``&``, ``||``) or none (adjacent
# literals), a line break a backslash may continue, an opening quote; or a
# shell's line continuation (a backslash and a line break) inside a word.
_JOINER = LazyPattern(
    # every join starts with a backslash or a quote: said first, the search skips the rest
    # of the text at once rather than trying each form at every character
    r"(?=[\\\"'])(?:"
    r"(?P<sep>\\*[\"'][ \t]*,[ \t]*(?:(?:\\*\r?\n|\\+n)[ \t]*)?\\*[\"'])"
    r"|\\*[\"'][ \t]*(?:(?:\+|\.\.?|&|\|\|)[ \t]*)?(?:(?:\\*\r?\n|\\+n)[ \t]*)?\\*[\"'](?![ \t]*,)"
    r"|\\\r?\n[ \t]*|\\\\\\n[ \t]*)",
    hints="\" ' \\",
)
# ``sep``: between the items of a list (``['mysql', '-pS3cret']``, a JSON array):
# an argv read as the command line it is, the items a space apart; a quote an
# item ends with, before the separator's own, is no join (``["a'", "'b"]``).


def _joined(
    text: str, extra: Extension, depth: int, rules: _Candidates | None = None
) -> list[SecretMatch]:
    """Secrets split across string literals or continued lines, found with the pieces joined.

    Why: ``TOKEN="ghp_0123..."\\`` then ``"...89ab"`` on the next line, or
    ``key = "sk_live_51Hx" + "Y2kLm..."``, is one secret to the program that
    runs it; scanned piece by piece, the half after the split matches no rule
    and was written as is.  A finding of the joined view is mapped back to the
    text: the pieces and the joiner between them are redacted together.
    """
    if len(text) < SHORTEST_SECRET_TEXT or not _JOINER.possible(text):
        return []
    pieces: list[str] = []
    view_starts: list[int] = []
    text_starts: list[int] = []
    v = pos = 0
    seams: list[tuple[int, bool]] = []  # where the view joins two pieces; a list's items?
    for m in _JOINER.compiled.finditer(text):
        if m.start() > pos:
            pieces.append(text[pos : m.start()])
            view_starts.append(v)
            text_starts.append(pos)
            v += m.start() - pos
        seams.append((v, m.group("sep") is not None))
        if m.group("sep") is not None:
            pieces.append(" ")
            view_starts.append(v)
            text_starts.append(m.start())
            v += 1
        pos = m.end()
    if pos < len(text):
        pieces.append(text[pos:])
        view_starts.append(v)
        text_starts.append(pos)
    view = "".join(pieces)
    if not any(_glues(view, seam, items) for seam, items in seams):
        return []
    out: list[SecretMatch] = []
    again = None if rules is None else _view_rules(view, [v for v, _ in seams], rules)
    for found in _find(view, extra, depth + 1, again):
        start = _to_text(found.start, view_starts, text_starts)
        end = _to_text(found.end - 1, view_starts, text_starts) + 1
        out.append(SecretMatch(found.rule, start, end))
    return out


# What a secret, a rule's name word or an option is made of: a join between two of them
# may have split one; one with a space on either side has not.
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.:@$%")


def _glues(view: str, seam: int, items: bool) -> bool:
    """Could the seam at ``view[seam]`` have split what a rule reads as one?

    Why: code is full of joins (``"a", "b"``, ``"text " + name``, a shell line
    continued after a space), and scanning the joined view again for every text
    doubled the cost of each redaction, a hook's included.  Only two kinds matter:
    a seam between two token characters (``"ghp_01" "23"``; a word continued on the
    next line), and one after an option or before one, whose value or program is on
    the other side (``"--password", "S3cret"``; ``"mysql", "-pS3cret"``; a
    continued ``--password`` then its value).  Between a list's ``items`` the seam is
    the space the view puts there: two items are two words, never one token.
    """
    before = view[seam - 1 : seam]
    after = view[seam + 1 : seam + 2] if items else view[seam : seam + 1]
    if after == "-" or (not items and before in _TOKEN_CHARS and after in _TOKEN_CHARS and after):
        return True
    if items and _literal_halves(view[max(0, seam - 16) : seam], view[seam + 1 : seam + 17]):
        return True
    word = view[max(0, seam - 64) : seam].rsplit(None, 1)
    return bool(word) and word[-1].lstrip("\"'[(,").startswith("-")


def _literal_halves(head: str, tail: str) -> bool:
    """Do two list items end and start with a string literal's quote between token
    characters (``'("sk_live_51aB"\\n', '"3dE5")'``: a program's line split into
    words, its literals' join then the items' own)?"""
    left = head
    while left.endswith(("\\n", '"', "'", "\\")):
        left = left[:-2] if left.endswith("\\n") else left[:-1]
    right = tail.lstrip("\"'\\")
    quoted = left != head and right != tail
    return quoted and left[-1:] in _TOKEN_CHARS and right[:1] in _TOKEN_CHARS and right != ""


# How many encodings deep a secret is looked for (base64 of base64 of a key:
# gitleaks' --max-decode-depth, whose default runs decode on; see
# https://github.com/gitleaks/gitleaks#decoding).
_MAX_DECODE_DEPTH = 2

# A run a base64 or hex encoder writes: the standard and the URL-safe
# alphabets, padding, and the line breaks ``base64`` wraps its output with
# (76 characters a line).  A hex string is such a run too.
_ENCODED_RUN = LazyPattern(
    r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}(?:={1,2}|(?:\r?\n[A-Za-z0-9+/_-]{4,})+={0,2})?(?![A-Za-z0-9+/_=-])"
)
# The bytes of text (a decoded run that is anything else holds no secret the rules read).
_TEXT_BYTES = frozenset(b"\t\n\r" + bytes(range(0x20, 0x7F)))
# A percent-encoded run: a URL, a query or a form body whose escapes hide a
# header, a NAME=value or a password (``Authorization%3A%20Bearer%20...``).
_PERCENT_RUN = LazyPattern(r"[^\s\"'<>`]*%[0-9A-Fa-f]{2}[^\s\"'<>`]*", hints="%")
# ``\x67\x68``: bytes a shell's printf, echo -e or a language's literal decodes.
# (doubled once or more where the text went through JSON or repr).
_HEX_ESCAPES = LazyPattern(r"(?:\\*\\x[0-9A-Fa-f]{2}){6,}", hints="\\x")


def _encoded(text: str, extra: Extension, depth: int) -> list[SecretMatch]:
    """Secrets under a reversible encoding: base64, hex, percent escapes, ``\\x`` escapes.

    Why: redacting only the plain spelling leaves the secret readable to
    anyone who decodes (``echo Z2hwX... | base64 -d``, an ``Authorization``
    header in a logged URL, a key printed by ``xxd -p``).  A run is decoded
    and, when it decodes to text, scanned with the same rules; a base64 or
    hex run that holds a secret is redacted whole (its characters do not map
    to the secret's one by one), a percent-encoded one where the secret is.
    A git SHA, a digest or an integrity hash decodes to bytes that are not
    text and is never touched.
    """
    found: list[SecretMatch] = []
    if len(text) >= 16:
        for m in _ENCODED_RUN.compiled.finditer(text):
            rule = _decoded_rule(m.group(), extra, depth)
            if rule is not None:
                found.append(SecretMatch(rule, m.start(), m.end()))
    if "%" in text:
        for m in _PERCENT_RUN.finditer(text):
            found.extend(_percent_secrets(m.group(), m.start(), extra, depth))
    if "\\x" in text:
        for m in _HEX_ESCAPES.finditer(text):
            raw = bytes.fromhex(m.group().replace("\\", "").replace("x", ""))
            rule = _text_rule(raw, extra, depth)
            if rule is not None:
                found.append(SecretMatch(rule, m.start(), m.end()))
    return found


def _decoded_rule(run: str, extra: Extension, depth: int) -> str | None:
    """The rule a secret inside ``run`` decoded (as hex, then base64) answers to, if any."""
    import binascii

    flat = run.replace("\r", "").replace("\n", "")
    if len(flat) % 2 == 0 and all(c in _HEX_DIGITS for c in flat):
        rule = _text_rule(bytes.fromhex(flat), extra, depth)
        if rule is not None:
            return rule
    body = flat.rstrip("=")
    if len(body) % 4 == 1:
        return None
    if "-" in body or "_" in body:
        if "+" in body or "/" in body:
            return None
        body = body.replace("-", "+").replace("_", "/")
    try:
        raw = binascii.a2b_base64(body + "=" * (-len(body) % 4), strict_mode=True)
    except (binascii.Error, ValueError):
        return None
    return _text_rule(raw, extra, depth)


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _text_rule(raw: bytes, extra: Extension, depth: int) -> str | None:
    """The rule of the first secret in ``raw`` when it is text, else ``None``."""
    if len(raw) < SHORTEST_SECRET_TEXT or not _TEXT_BYTES.issuperset(raw):
        return None
    inner = _find(raw.decode("ascii"), extra, depth + 1)
    if not inner:
        return None
    specific = [m for m in inner if not m.generic]
    return (specific or inner)[0].rule


def _percent_secrets(run: str, offset: int, extra: Extension, depth: int) -> list[SecretMatch]:
    """The secrets of a percent-encoded run, at the run's own characters."""
    import re

    pieces = re.split(r"(%[0-9A-Fa-f]{2})", run)
    plain: list[str] = []
    starts: list[int] = []  # where each character of the decoded text starts in ``run``
    pos = 0
    for piece in pieces:
        if len(piece) == 3 and piece[0] == "%":
            byte = int(piece[1:], 16)
            plain.append(chr(byte) if 0x20 <= byte < 0x7F or byte in (9, 10, 13) else "\ufffd")
            starts.append(pos)
        else:
            plain.append(piece)
            starts.extend(range(pos, pos + len(piece)))
        pos += len(piece)
    decoded = "".join(plain)
    starts.append(len(run))
    out = []
    for m in _find(decoded, extra, depth + 1):
        end = starts[m.end] if m.end < len(starts) else len(run)
        out.append(SecretMatch(m.rule, offset + starts[m.start], offset + end))
    return out


_BRACKETS = str.maketrans({"]": " ", ")": " ", "}": " "})


def _unescaped(text: str) -> tuple[str, list[int], list[int]] | None:
    """``text`` without backslashes and closing brackets, and where its pieces start.

    An escape ``\\n`` or ``\\r`` becomes a line break, ``\\t`` and a closing
    bracket a space; ``None`` when there is nothing to undo.
    """
    if "\\" not in text and "]" not in text and ")" not in text and "}" not in text:
        return None
    parts = text.split("\\")
    out = [parts[0]]
    view_starts, text_starts = [0], [0]
    v = o = len(parts[0])
    after_redaction = parts[0].endswith(REDACTED)
    for part in parts[1:]:
        o += 1  # the backslash
        if part[:1] in ("n", "r", "t"):  # an escaped line break ends a value as a real one does
            part = ("\n" if part[0] != "t" else " ") + part[1:]
        elif part and after_redaction:
            # an escape right after a redaction ("[REDACTED]\\0") ends it, as the
            # backslashes did in the text: glued, "[REDACTED]0" would be a new value
            part = " " + part[1:]
        if part:
            after_redaction = part.endswith(REDACTED)
        view_starts.append(v)
        text_starts.append(o)
        out.append(part)
        v += len(part)
        o += len(part)
    view = "".join(out)
    if "]" in view:  # keep "[REDACTED]" whole: it is no secret, and redaction stays idempotent
        hold = "\x00" * len(REDACTED)  # the same length: spans map back by position
        view = view.replace(REDACTED, hold).translate(_BRACKETS).replace(hold, REDACTED)
    else:
        view = view.translate(_BRACKETS)
    return view, view_starts, text_starts


def _to_text(index: int, view_starts: list[int], text_starts: list[int]) -> int:
    """Where the view's character ``index`` sits in the text."""
    from bisect import bisect_right

    k = bisect_right(view_starts, index) - 1
    return text_starts[k] + index - view_starts[k]


# The rules (by index) whose hint words occur in a text: core's own, gitleaks'.
_Candidates = tuple[list[int], list[int]]


def _scan(text: str, folded: str, extra: Extension, rules: _Candidates | None) -> list[SecretMatch]:
    """The spans every candidate rule finds in ``text``, unmerged.

    ``rules`` are the candidates when the caller knows them already, else
    they are looked up from ``text``'s words.
    """
    if rules is None:
        rules = (_own_candidates(text, folded), _candidates(text, folded))
    found: list[SecretMatch] = []
    own_ids, generated_ids = rules
    own = [_RULES[i] for i in own_ids]
    for rule, pattern in (*own, *[(r, p) for r, p in extra if p.possible(text, folded)]):
        for m in pattern.compiled.finditer(text):
            start, end = (m.start("s"), m.end("s")) if "s" in m.re.groupindex else m.span()
            if start < 0 and "s2" in m.re.groupindex:  # a rule's second form
                start, end = m.start("s2"), m.end("s2")
            if start < 0 or end <= start:
                continue
            if rule in GENERIC_RULES and (is_placeholder(text[start:end])):
                continue
            found.append(SecretMatch(rule, start, end))
    for index in generated_ids:
        found.extend(_generated_matches(index, text))
    return found


def _own_index() -> tuple[tuple[tuple[str, bool, tuple[int, ...]], ...], tuple[int, ...]]:
    """Core's own rules by hint word (built once a process), and the hintless ones."""
    words: dict[tuple[str, bool], list[int]] = {}
    always: list[int] = []
    for index, (_, pattern) in enumerate(_RULES):
        if not pattern.hints:
            always.append(index)
        for word in pattern.hints:
            words.setdefault((word, not pattern._fold), []).append(index)
    return tuple((w, f, tuple(ids)) for (w, f), ids in words.items()), tuple(always)


def _own_candidates(text: str, folded: str) -> list[int]:
    """Core's own rules one of whose hints occurs in ``text`` (one pass over the words)."""
    global _OWN
    if _OWN is None:
        _OWN = _own_index()
    words, always = _OWN
    hit = {i for word, exact, ids in words if word in (text if exact else folded) for i in ids}
    hit.update(always)
    return sorted(hit)


_OWN: tuple[tuple[tuple[str, bool, tuple[int, ...]], ...], tuple[int, ...]] | None = None


def _candidates(text: str, folded: str) -> list[int]:
    """The generated rules one of whose words occurs in ``text`` (one pass over the words)."""
    hit = {i for word, ids in FOLDED_WORDS if word in folded for i in ids}
    hit.update(i for word, ids in EXACT_WORDS if word in text for i in ids)
    return sorted(hit)


_COMPILED: dict[int, re.Pattern[str]] = {}


def _compiled(index: int) -> re.Pattern[str]:
    pattern = _COMPILED.get(index)
    if pattern is None:
        import re

        rule = RULES[index]
        flags = re.ASCII if rule[10] == "gitleaks" else 0  # RE2's classes are ASCII
        pattern = _COMPILED[index] = re.compile(rule[1], flags)
    return pattern


def _generated_matches(index: int, text: str) -> list[SecretMatch]:
    """A token format's findings: the secret group, above its entropy, not allowlisted."""
    rid, _, _, _, entropy, group, allow_regexes, stopwords, target, prefix, origin = RULES[index]
    gitleaks = origin == "gitleaks"
    out: list[SecretMatch] = []
    for m, start, end in _secret_matches(_compiled(index), group, text):
        if end <= start:
            continue
        secret = text[start:end]
        if entropy and not _entropic(rid, entropy, secret):
            continue
        if gitleaks and _globally_allowed(secret):
            continue
        if _allowed(secret, stopwords, allow_regexes, target, _whole(m, prefix, text), text):
            continue
        out.append(SecretMatch(rid, start, end))
    return out


def _secret_matches(
    pattern: re.Pattern[str], group: int, text: str
) -> Iterator[tuple[re.Match[str], int, int]]:
    """Each match and its secret span; the next search starts where the secret ends.

    Many gitleaks rules consume the character after a secret (a quote, a
    space, a line break) and some also need one before it: ``finditer``
    would never see the second of two secrets one delimiter apart, as on two
    lines of a secrets file.
    """
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        start, end = _secret_span(m, group)
        yield m, start, end
        pos = max(end if end > start else m.end(), m.start() + 1)


def _whole(m: re.Match[str], prefix: int, text: str) -> tuple[int, int]:
    """The match as gitleaks sees it: with the identifier prefix the generator dropped."""
    start = m.start()
    low = max(0, start - prefix)
    while start > low and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
        start -= 1
    return start, m.end()


def _secret_span(m: re.Match[str], group: int) -> tuple[int, int]:
    """gitleaks' secret: ``secretGroup`` if set, else the first non-empty group, else all."""
    if group and group <= (m.re.groups or 0):
        return m.span(group)
    for index in range(1, (m.re.groups or 0) + 1):
        start, end = m.span(index)
        if end > start:
            return start, end
    return m.span()


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value`` (gitleaks' entropy measure)."""
    from math import log2

    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    size = len(value)
    return -sum(n / size * log2(n / size) for n in counts.values())


def _entropic(rule: str, floor: float, secret: str) -> bool:
    if shannon_entropy(secret) <= floor:
        return False
    # gitleaks: a generic rule's secret must also hold a digit
    return not rule.startswith("generic") or any(ch.isdigit() for ch in secret)


_ALLOW_CACHE: dict[str, re.Pattern[str]] = {}


def _allow_re(pattern: str) -> re.Pattern[str]:
    compiled = _ALLOW_CACHE.get(pattern)
    if compiled is None:
        import re

        compiled = _ALLOW_CACHE[pattern] = re.compile(pattern, re.ASCII)
    return compiled


def _allowed(
    secret: str,
    stopwords: tuple[str, ...],
    allow_regexes: tuple[str, ...],
    target_kind: str,
    span: tuple[int, int],
    text: str,
) -> bool:
    """A rule's own allowlists (regexes, stopwords) on the finding."""
    lowered = secret.lower()
    if any(word in lowered for word in stopwords):
        return True
    if not allow_regexes:
        return False
    target = secret
    if target_kind == "match":
        target = text[span[0] : span[1]]
    elif target_kind == "line":
        start = text.rfind("\n", 0, span[0]) + 1
        end = text.find("\n", span[1])
        target = text[start : end if end >= 0 else len(text)]
    return any(_allow_re(p).search(target) for p in allow_regexes)


def _globally_allowed(secret: str) -> bool:
    """gitleaks' global allowlist (regexes, stopwords): applied to its own rules only."""
    lowered = secret.lower()
    if any(word in lowered for word in GLOBAL_STOPWORDS):
        return True
    return any(_allow_re(p).search(secret) for p in GLOBAL_ALLOW_REGEXES)


def _merge(matches: list[SecretMatch]) -> list[SecretMatch]:
    """Sort and join overlapping spans.

    Touching spans are joined too, so one ``[REDACTED]`` replaces them and a
    second pass over the output finds nothing new.  A joined span keeps the most telling rule: a provider token found inside
    a ``NAME=value`` assignment is reported as that token (specific), not as
    the generic assignment, so a gate weighs it as a real credential.
    """
    matches.sort(key=lambda m: (m.start, -m.end))
    merged: list[SecretMatch] = []
    for m in matches:
        if merged and m.start <= merged[-1].end:  # overlapping or touching
            last = merged[-1]
            rule = m.rule if last.generic and not m.generic else last.rule
            merged[-1] = SecretMatch(rule, last.start, max(last.end, m.end))
            continue
        merged.append(m)
    return merged


def redact(text: str, extra: Extension = ()) -> str:
    """``text`` with every secret span replaced by ``[REDACTED]``.

    Redacted again, until nothing more is found, where one round's placeholder is followed
    by a closing bracket or a backslash: there the text's own scan reads on where the
    unescaped view (:func:`_unescaped`) stopped (``PASSWORD=00000\\0}0`` gave
    ``PASSWORD=[REDACTED]}0``, whose value ``[REDACTED]}0`` the next round took whole).
    What is stored is redacted again when read back, so the answer must not change; the
    second round is paid only there (a 10 MiB output holds one copy more otherwise).
    """
    return _rounds(text, _redact_once(text, extra), extra)


def _rounds(text: str, once: str, extra: Extension) -> str:
    """The rounds after the first (``once``: ``text`` redacted once), where needed."""
    for _ in range(_MAX_ROUNDS):
        if once is text or not any(REDACTED + c in once for c in _READ_ON):
            return once
        text, once = once, _redact_once(once, extra)
    return once


_MAX_ROUNDS = 4  # a bound, not a count: the second round is the last one that changes anything
_READ_ON = ("]", ")", "}", "\\")  # what the view takes for a break and the text's scan not


def _redact_once(text: str, extra: Extension) -> str:
    return _replaced(text, find_secrets(text, extra))


def _replaced(text: str, matches: list[SecretMatch]) -> str:
    if not matches:
        return text
    out: list[str] = []
    pos = 0
    for m in matches:
        out.append(text[pos : m.start])
        out.append(REDACTED)
        pos = m.end
    out.append(text[pos:])
    return "".join(out)


def redact_head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``redact(text)``, scanning only a window of ``text``.

    Why: a writer that keeps a bounded head of a long text (a stored output,
    a prompt, a summary) must not scan megabytes, but cutting first leaves
    the head of a token no rule recognises (``ghp_`` and 16 characters), and
    cutting a redacted window still keeps it when secrets redacted earlier
    in the window made room for the cut part.  The window is redacted whole
    and, when the text goes on past it, its last :data:`HEAD_MARGIN`
    characters are dropped (a secret the cut divides lies there); a longer
    window is tried when what remains is shorter than ``limit``.
    """
    window = limit + HEAD_MARGIN
    while len(text) > window:
        out = redact(text[:window])
        tail = text[window - HEAD_MARGIN : window]
        # the margin untouched (the usual case): exactly what the text before it gives
        kept = out[: -len(tail)] if out.endswith(tail) else out[: len(out) - HEAD_MARGIN]
        if len(kept) >= limit:
            return kept[:limit]
        window += max(2 * (limit - len(kept)), HEAD_MARGIN // 4)  # what redaction took, and more
    return redact(text)[:limit]


# Longer than any token format the rules know (a PEM block cut off is
# redacted to the end of the text, so it needs no margin).
HEAD_MARGIN = 1024


def redact_chunks(chunks: Iterable[str], extra: Extension = ()) -> Iterator[str]:
    """``redact`` of text that arrives in pieces (a stream read in batches), piece by piece.

    Why: redacting each piece alone divides a secret that straddles two of
    them (a token in a long line read 64 KiB at a time, a private key whose
    BEGIN line ends a batch: its body then started the next one and matched
    no rule).  Each piece is redacted with the end of the one before it: the
    text is cut at the start of the line where a secret still reaching into
    the last :data:`HEAD_MARGIN` characters begins (or where those begin),
    and what follows the cut is carried to the next piece.  A secret that
    holds most of the text (a key still open) is carried whole, up to
    :data:`CARRY_LIMIT` characters.
    """
    carry = ""
    for chunk in chunks:
        text = carry + chunk if carry else chunk
        if len(text) <= 2 * HEAD_MARGIN:
            carry = text
            continue
        matches = find_secrets(text, extra)
        cut = len(text) - HEAD_MARGIN
        for m in matches:
            if m.end > cut:
                cut = min(cut, m.start)
        line = text.rfind("\n", 0, cut) + 1
        if line > len(text) // 4:
            cut = line
        if cut < len(text) // 4 and len(text) < CARRY_LIMIT:
            carry = text
            continue
        if cut < len(text) // 4:
            cut = len(text)  # too long to carry: what is open is redacted to the end
        head = text[:cut]
        yield _rounds(head, _replaced(head, [m for m in matches if m.end <= cut]), extra)
        carry = text[cut:]
    if carry:
        yield redact(carry, extra)


CARRY_LIMIT = 4 * 1024 * 1024


def redact_line(text: str, limit: int) -> str:
    """One line of at most ``limit`` characters: ``text`` redacted, then its whitespace collapsed.

    Why: collapsing first changes what the rules read (a shell's line
    continuation, backslash and line break, becomes backslash and space, and
    the second half of a secret continued on the next line was kept).
    ``…`` ends a line that was cut.
    """
    room = 4 * limit + 1  # what a run of whitespace collapsed may take
    head = redact_head(text, room)
    line = " ".join(head.split())
    cut = len(text) > room
    if len(line) > limit or (cut and len(line) >= limit):
        return line[: limit - 1] + "…"
    return line + "…" if cut else line


def has_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact_obj(value: object, depth: int = 0) -> object:
    """Redact every string inside a JSON-like value.

    Keys are redacted like any string (an environment dict may use a token as
    a key).  A value stored under a key that names a secret (``password``,
    ``apiKey``, ``client_secret``, ``Authorization``...) is replaced whole
    when it is a non-empty string or a number, unless it is a placeholder.
    Keys that merely contain such a word (``max_tokens``, ``tokenizer``,
    ``token_type``) are not secret names.
    """
    if depth > 32:
        return REDACTED
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            skey = redact(str(key))
            if _SECRET_KEY.search(str(key)) and _secret_scalar(item):
                out[skey] = REDACTED
            else:
                out[skey] = redact_obj(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        if len(value) > 1 and all(isinstance(v, str) for v in value):
            # the items as they are: one redacted alone first would hide its half of a
            # secret split across two ("sk_live_.." then "...") from the joined line
            return _redact_argv([str(v) for v in value])
        return [redact_obj(v, depth + 1) for v in value]
    return value


def redact_shown(value: object) -> object:
    """A tool input's value about to be formatted into text (``f"{key}={value}"``).

    A list or an object is redacted as a value first (:func:`redact_obj`): its
    repr's quotes and commas hide an argv's flag from its password and a join's
    halves from each other, which the text's own redaction then misses.  A
    large one is left to the text's bounded redaction.
    """
    if isinstance(value, list | tuple | dict) and len(repr(value)) <= _SHOWN_CHARS:
        return redact_obj(value)
    return value


_SHOWN_CHARS = 16 * 1024


def _redact_argv(items: list[str]) -> list[object]:
    """A list of strings read as the command line it may be (``["mysql", "-pS3cret"]``,
    ``["--password", "S3cret"]``): each item a secret of the joined line covers is redacted
    there, as it is in the line."""
    line = " ".join(items)
    matches = find_secrets(line)
    if not matches:
        return [redact(item) for item in items]  # an item's own escapes (JSON, repr)
    out: list[object] = []
    start = 0
    for item in items:
        end = start + len(item)
        spans = [
            (max(m.start, start), min(m.end, end))
            for m in matches
            if m.start < end and m.end > start
        ]
        if spans:
            text, pos = [], start
            for a, b in spans:
                text += [line[pos:a], REDACTED]
                pos = b
            text.append(line[pos:end])
            item = "".join(text)
        out.append(redact(item))
        start = end + 1
    return out


def _secret_scalar(item: object) -> bool:
    """A value worth hiding under a secret-named key: text or a number, not a placeholder."""
    if isinstance(item, str):
        return bool(item) and not is_placeholder(item)
    return isinstance(item, int | float) and not isinstance(item, bool)


# A key *ending* in a secret word names a secret: ``GITHUB_TOKEN``,
# ``accessToken``, ``db-password``, ``x-api-key``.
_SECRET_KEY = LazyPattern(
    r"(?i)(?:secret|token|password|passwd|passphrase|pwd|api[_-]?key|access[_-]?key|"
    r"private[_-]?key|secret[_-]?key|credentials?|authorization|cookie|^pass)$"
)
