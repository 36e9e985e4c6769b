"""Redaction, bounded excerpts and digests for everything the guard stores.

The report sits on disk next to the project, so nothing secret and no prompt
text may reach it.  Core's ``redact`` (provider token formats, URLs with
credentials, auth headers) runs first; the seed's own rule is applied on
top: any value whose *name* contains TOKEN, SECRET, KEY, PASSWORD, PASS or
CREDENTIAL (and matching command flags) becomes ``[REDACTED]``.
"""

from __future__ import annotations

import re

from agentreflex.core.digest import sha256_hex
from agentreflex.core.lazyre import LazyPattern
from agentreflex.core.redact import redact as core_redact
from agentreflex.guard.bounds import MAX_EXCERPT

REDACTED = "[REDACTED]"
_SECRET_WORDS = "TOKEN|SECRET|KEY|PASSWORD|PASS|CREDENTIAL"

# NAME=value, NAME: value, "name": "value" where NAME contains a secret word.
_ASSIGN = LazyPattern(
    r"""(?P<name>["']?[A-Za-z0-9_.-]*(?:"""
    + _SECRET_WORDS
    + r""")[A-Za-z0-9_.-]*["']?)(?P<sep>\s*[:=]\s*)(?P<value>"[^"]*"|'[^']*'|[^\s,;&|]+)""",
    re.IGNORECASE,
    hints="token secret key pass credential",
)
# --api-key value, --token=value, -p value is left alone (too generic).
_FLAG = LazyPattern(
    r"(?P<flag>--?[A-Za-z0-9-]*(?:"
    + _SECRET_WORDS
    + r")[A-Za-z0-9-]*)(?P<sep>[= ]+)(?P<value>\S+)",
    re.IGNORECASE,
    hints="token secret key pass credential",
)
# Well-known credential shapes, whatever they are called.
_SHAPES = LazyPattern(
    r"\b(?:sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+)",
    hints="sk- gh AKIA xox eyJ",
)
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
    """Replace secret-shaped assignments, flags and credential shapes."""
    if not text:
        return text
    text = core_redact(text)
    text = _ASSIGN.sub(lambda m: f"{m['name']}{m['sep']}{REDACTED}", text)
    text = _FLAG.sub(lambda m: f"{m['flag']}{m['sep']}{REDACTED}", text)
    return _SHAPES.sub(REDACTED, text)


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
