"""Redaction, bounded excerpts and digests for everything the guard stores.

The report sits on disk next to the project, so nothing secret and no prompt
text may reach it.  Core's one rule set (``agentreflex.core.redaction.redact``) finds
the secrets; the guard declares one extension of it, :data:`NAME_RULES`: any
value whose *name* contains TOKEN, SECRET, KEY, PASSWORD, PASS or CREDENTIAL
(and matching command flags) becomes ``[REDACTED]``, placeholders included,
because a report field named so is never worth keeping.
"""

from __future__ import annotations

import re

from agentreflex.core.redaction.redact import redact as core_redact
from agentreflex.core.util.digest import sha256_hex
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.guard.bounds import MAX_EXCERPT

REDACTED = "[REDACTED]"
_SECRET_WORDS = "TOKEN|SECRET|KEY|PASSWORD|PASS|CREDENTIAL"

# NAME=value, NAME: value, "name": "value" where NAME contains a secret word.
_ASSIGN = LazyPattern(
    r"""["']?[A-Za-z0-9_.-]*(?:"""
    + _SECRET_WORDS
    + r""")[A-Za-z0-9_.-]*["']?\s*[:=]\s*(?P<s>"[^"]*"|'[^']*'|[^\s,;&|]+)""",
    re.IGNORECASE,
    hints="token secret key pass credential",
)
# --api-key value, --token=value, -p value is left alone (too generic).
_FLAG = LazyPattern(
    r"--?[A-Za-z0-9-]*(?:" + _SECRET_WORDS + r")[A-Za-z0-9-]*[= ]+(?P<s>\S+)",
    re.IGNORECASE,
    hints="token secret key pass credential",
)
# The guard's declared extension of core's rule set (names, not formats).
NAME_RULES = (("guard-secret-name", _ASSIGN), ("guard-secret-flag", _FLAG))
_CONTROL = LazyPattern(r"[\x00-\x08\x0b-\x1f\x7f\u202a-\u202e\u2066-\u2069]")

# Whole-word segments that make a *key* secret-shaped (directive keys, JSON paths).
_SECRET_SEGMENTS = frozenset(
    {
        "token",
        "tokens",
        "secret",
        "secrets",
        "key",
        "keys",
        "apikey",
        "password",
        "passwd",
        "pass",
        "passphrase",
        "credential",
        "credentials",
    }
)
_CAMEL = LazyPattern(r"(?<=[a-z0-9])(?=[A-Z])")


def redact(text: str) -> str:
    """Core's redaction with the guard's name rules declared as an extension."""
    if not text:
        return text
    return core_redact(text, extra=NAME_RULES)


# The characters _CONTROL matches, for str.translate: excerpts run on every
# ingested text, and translate needs no pattern compiled per hook process.
_CONTROL_TO_SPACE = dict.fromkeys(
    [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)],
    " ",
)


def excerpt(text: str, limit: int = MAX_EXCERPT) -> str:
    """A redacted, single-line, control-free excerpt of at most ``limit`` characters."""
    # split() splits on exactly what \s matches: runs become one space, ends are stripped
    clean = " ".join(redact(text).translate(_CONTROL_TO_SPACE).split())
    if len(clean) > limit:
        clean = clean[: limit - 1].rstrip() + "…"
    return clean


def has_control(text: str) -> bool:
    """True when ``text`` holds control or bidi-override characters."""
    return _CONTROL.search(text) is not None


def secret_shaped_key(name: str) -> bool:
    """A key is secret-shaped when one of its word segments is a secret word.

    Segment matching (``api_key``, ``authToken``, ``PASSWORD``) rather than a
    substring test keeps ordinary report fields like ``passed`` usable in a
    ``json_field_equals`` path.
    """
    spaced = _CAMEL.sub("_", name)
    segments = re.split(r"[^A-Za-z0-9]+", spaced.lower())
    return any(seg in _SECRET_SEGMENTS for seg in segments) or "apikey" in name.lower()


def digest(data: str | bytes) -> str:
    """A short, stable content digest (never reversible to the text)."""
    # core's builtin SHA-256 (no OpenSSL load); encoded here to keep lone surrogates distinct
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return "sha256:" + sha256_hex(raw, 16)


def normalize_text(text: str) -> str:
    """NFC, with recognisable CP1252/Latin-1-read-as-UTF-8 mojibake reversed.

    The reversal is conservative: it is applied only when the text carries
    typical mojibake pairs, the round trip decodes cleanly, and the result has
    fewer such pairs.  Ordinary Unicode is returned unchanged.
    """
    if text.isascii():
        return text  # no mojibake pair is ASCII, and NFC leaves ASCII as it is
    import unicodedata  # lazy: only non-ASCII transcript text needs it

    if _MOJIBAKE.search(text):
        for codec in ("cp1252", "latin-1"):
            try:
                fixed = text.encode(codec).decode("utf-8")
            except (UnicodeEncodeError, UnicodeDecodeError):
                continue
            if len(_MOJIBAKE.findall(fixed)) < len(_MOJIBAKE.findall(text)):
                text = fixed
                break
    return unicodedata.normalize("NFC", text)


_MOJIBAKE = LazyPattern(
    "[\u00c2\u00c3][\u0080-\u00bf]|\u00e2\u20ac.|\u00e2\u0080.", hints="\u00c2 \u00c3 \u00e2"
)
