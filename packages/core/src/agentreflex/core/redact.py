"""Deterministic secret detection and redaction.

Runs on every string before it is logged, stored, printed or sent to a judge,
so it must be fast and must not miss the common formats.  The rules follow the
token formats the providers publish (and that gitleaks' MIT-licensed rule set
also encodes): fixed prefixes with a known alphabet and length, which keeps
false positives low without entropy guessing.  Generic rules cover
``NAME=value`` assignments whose name says secret, ``Authorization`` headers,
password flags and credentials embedded in URLs.

Stdlib only.  Patterns compile lazily on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

REDACTED = "[REDACTED]"


@dataclass(frozen=True, slots=True)
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


GENERIC_RULES = frozenset(
    {
        "secret-assignment",
        "password-flag",
        "mysql-inline-password",
        "bearer-token",
        "authorization-header",
        "x-api-key-header",
        "url-credentials",
    }
)

# (rule id, pattern).  When a pattern has a named group ``s`` only that group is
# redacted, so "API_KEY=" or "Bearer " stays readable.
_RULES: tuple[tuple[str, str], ...] = (
    (
        "private-key",
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    ),
    ("aws-access-key-id", r"\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b"),
    (
        "aws-secret-access-key",
        r"(?i)aws_?secret_?access_?key[\"']?\s*[:=]\s*[\"']?(?P<s>[A-Za-z0-9/+=]{40})",
    ),
    ("github-pat", r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"),
    ("github-fine-grained-pat", r"\bgithub_pat_[A-Za-z0-9_]{82}\b"),
    ("gitlab-pat", r"\bglpat-[A-Za-z0-9_\-]{20,}\b"),
    ("gitlab-runner-token", r"\bglrt-[A-Za-z0-9_\-]{20,}\b"),
    ("bitbucket-app-password", r"\bATBB[A-Za-z0-9_\-=]{32,}\b"),
    ("slack-token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
    ("slack-webhook", r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}"),
    (
        "discord-webhook",
        r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}",
    ),
    ("telegram-bot-token", r"\b\d{8,10}:AA[A-Za-z0-9_\-]{33}\b"),
    ("stripe-key", r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
    ("square-token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}\b"),
    ("paypal-braintree-token", r"\baccess_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}\b"),
    ("twilio-key", r"\bSK[0-9a-fA-F]{32}\b"),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b"),
    ("mailgun-key", r"\bkey-[0-9a-f]{32}\b"),
    ("anthropic-key", r"\bsk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{80,}\b"),
    (
        "openai-key",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}\b",
    ),
    ("openai-project-key", r"\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}\b"),
    ("openrouter-key", r"\bsk-or-v1-[a-f0-9]{64}\b"),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{48,}\b"),
    ("huggingface-token", r"\bhf_[A-Za-z0-9]{34,}\b"),
    ("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}\b"),
    ("google-oauth-secret", r"\bGOCSPX-[A-Za-z0-9_\-]{28}\b"),
    ("gcp-service-account-key", r"\"private_key_id\"\s*:\s*\"(?P<s>[a-f0-9]{40})\""),
    ("azure-storage-key", r"(?i)AccountKey=(?P<s>[A-Za-z0-9+/=]{80,100})"),
    ("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b"),
    ("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}\b"),
    ("docker-hub-pat", r"\bdckr_pat_[A-Za-z0-9_\-]{27,}\b"),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b"),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"),
    ("linear-api-key", r"\blin_api_[A-Za-z0-9]{40}\b"),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-\d)?\b"),
    ("vault-token", r"\bhv[sb]\.[A-Za-z0-9_\-]{24,}\b"),
    ("jwt", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    (
        "url-credentials",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\"']{1,128}:(?P<s>[^\s@/\"']{3,256})@",
    ),
    (
        "authorization-header",
        r"(?i)\b(?:authorization|proxy-authorization)[\"']?\s*[:=]\s*[\"']?(?:bearer|basic|token|digest)\s+(?P<s>[A-Za-z0-9._~+/=\-]{8,})",
    ),
    ("bearer-token", r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/\-]{20,}=*)"),
    (
        "x-api-key-header",
        r"(?i)\b(?:x-api-key|api-key|x-auth-token)[\"']?\s*[:=]\s*[\"']?(?P<s>[A-Za-z0-9._~+/=\-]{12,})",
    ),
    (
        "password-flag",
        r"(?:^|\s)(?:--password|--passwd|--pass|--token|--secret|--api-key|--apikey|--client-secret|--auth-token)(?:=|\s+)(?P<s>(?!-)[^\s\"']{4,}|\"[^\"]{4,}\"|'[^']{4,}')",
    ),
    (
        "mysql-inline-password",
        r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p(?P<s>[^\s\-]\S{3,})",
    ),
    (
        "secret-assignment",
        r"(?i)(?<![A-Za-z0-9])(?:[A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|apikey|access_?key|private_?key|credentials?|auth_?token)|[A-Za-z0-9_]*_(?:pass|pwd|key)|pass|pwd)(?![A-Za-z0-9])[\"']?\s*[:=]\s*(?P<s>\"[^\"\s]{6,}\"|'[^'\s]{6,}'|[^\s\"',;]{6,})",
    ),
)

# Cheap substring hints: if none occurs, no rule can match.
_HINTS = (
    "PRIVATE KEY",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "A3T",
    "ecret",
    "ECRET",
    "gh",
    "github_pat",
    "glpat-",
    "glrt-",
    "ATBB",
    "xox",
    "hooks.slack",
    "discord",
    ":AA",
    "_live_",
    "_test_",
    "sq0",
    "access_token",
    "SK",
    "SG.",
    "key-",
    "sk-",
    "gsk_",
    "hf_",
    "AIza",
    "GOCSPX",
    "private_key_id",
    "AccountKey",
    "npm_",
    "pypi-",
    "dckr_",
    "do",
    "shp",
    "lin_api_",
    "dapi",
    "hv",
    "eyJ",
    "://",
    "uthorization",
    "earer",
    "api-key",
    "auth-token",
    "--pass",
    "--token",
    "--secret",
    "--api",
    "--client",
    "-p",
    "oken",
    "OKEN",
    "ass",
    "ASS",
    "KEY",
    "key",
    "Key",
    "REDENTIAL",
    "redential",
    "AUTH",
    "auth",
)


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((rule, re.compile(pattern)) for rule, pattern in _RULES)


_PLACEHOLDER = re.compile(
    r"(?i)^(?:\[?redacted\]?|x{4,}|\*{3,}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|"
    r"changeme|example|placeholder|your[_-].*|dummy|none|null|true|false|\$\(.*\))$"
)


def _is_placeholder(value: str) -> bool:
    return bool(_PLACEHOLDER.match(value.strip("\"'")))


def find_secrets(text: str) -> list[SecretMatch]:
    """Every secret span in ``text``, sorted and non-overlapping."""
    if not text or not any(h in text for h in _HINTS):
        return []
    found: list[SecretMatch] = []
    for rule, pattern in _compiled():
        for m in pattern.finditer(text):
            start, end = (m.start("s"), m.end("s")) if "s" in pattern.groupindex else m.span()
            if start < 0 or end <= start:
                continue
            if rule in GENERIC_RULES and (_is_placeholder(text[start:end])):
                continue
            found.append(SecretMatch(rule, start, end))
    return _merge(found)


def _merge(matches: list[SecretMatch]) -> list[SecretMatch]:
    matches.sort(key=lambda m: (m.start, -m.end))
    merged: list[SecretMatch] = []
    for m in matches:
        if merged and m.start < merged[-1].end:
            last = merged[-1]
            if m.end > last.end:
                merged[-1] = SecretMatch(last.rule, last.start, m.end)
            continue
        merged.append(m)
    return merged


def redact(text: str) -> str:
    """``text`` with every secret span replaced by ``[REDACTED]``."""
    matches = find_secrets(text)
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


def has_secret(text: str) -> bool:
    return bool(find_secrets(text))


def redact_obj(value: object, depth: int = 0) -> object:
    """Redact every string inside a JSON-like value; keys named like secrets too."""
    if depth > 32:
        return REDACTED
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        out: dict[str, object] = {}
        for key, item in value.items():
            skey = str(key)
            if (
                isinstance(item, str)
                and _SECRET_KEY.search(skey)
                and item
                and not _is_placeholder(item)
            ):
                out[skey] = REDACTED
            else:
                out[skey] = redact_obj(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [redact_obj(v, depth + 1) for v in value]
    return value


_SECRET_KEY = re.compile(
    r"(?i)(secret|token|password|passwd|api_?key|apikey|credential|private_?key)"
)
