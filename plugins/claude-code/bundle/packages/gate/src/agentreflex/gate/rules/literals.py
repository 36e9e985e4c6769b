"""Secret literals in text: typed on a command line, or about to be written to a file.

Found with core's one rule set (``agentreflex.core.redaction.redact.find_secrets``) so
the gate and every log, state file and judge request agree on what a secret
is.  A module of its own because every shell command is scanned
(``analyze``) while the rest of :mod:`secrets` is only needed once a command
is parsed.
"""

from __future__ import annotations

from agentreflex.core.redaction.redact import find_secrets as _core_find
from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.lazyre import LazyPattern

MAX_SCAN = 200_000


def find_secrets(text: str, command: bool = False) -> list[str]:
    """Names of the secret formats found in ``text`` (empty when none).

    ``command``: ``text`` is a command line, where the generic rules
    (``password-flag``, ``secret-assignment``) also match identifiers that
    name a secret without holding one (``--secret-id arn:...:secret:prod/db``,
    ``--key-id``, AWS's ``--api-key <id>``, ``--token dp.example``); those are
    left out.
    """
    if not text:
        return []
    text = text[:MAX_SCAN]
    found = _core_find(text)
    if command and found:
        return [m.rule for m in found if not _names_a_secret(text, m.rule, m.start, m.end)]
    return [m.rule for m in found]


_GENERIC = frozenset({"password-flag", "secret-assignment", "fish-set-secret"})
_VARIABLE = LazyPattern(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")
# Rules that find a password by where it is typed: a development default there is no secret.
_PASSWORD_RULES = frozenset(
    {
        "mysql-inline-password",
        "url-credentials",
        "cli-password-arg",
        "cli-secret-value",
        "sql-password",
    }
)
# The development defaults of database images and docs, typed in every README
# and CI service block (``docker run -e POSTGRES_PASSWORD=postgres``, the
# postgres image's own ``mysecretpassword``, ``MYSQL_ROOT_PASSWORD=root``):
# they protect a throwaway container and are public, so they are not secrets.
_DEV_DEFAULT = LazyPattern(
    r"(?i)(?:postgres|postgresql|password|passw0rd|secret|mysecretpassword|rootpass(?:word)?|"
    r"root|admin|test|testing|tests|testpass(?:word)?|dev|development|local|localdev|"
    r"guest|default|pass|changeme|mysql|mariadb|mongo|redis|keycloak|sonar|minio|"
    r"minioadmin|minio123|rabbitmq|docker|user|app|example)[_-]?(?:\d{1,4}|pass(?:word)?)?!?"
)
# A value the reader must replace (``__YOUR_PULSE_API_KEY__``, ``<api-key>``,
# ``your-token-here``, ``REPLACE_ME``): READMEs and .env examples spell keys so.
_PLACEHOLDER = LazyPattern(
    r"(?i)(?:__[a-z0-9_]+__|<[^<>]+>|\{\{?[a-z0-9_ .-]+\}\}?|"
    r"(?:\w*[_-])?your[_-]\w*|my[_-][\w-]*(?:secret|key|token|password|value)[\w-]*|"
    r"\w*(?:replace|change|fill)[_-]?(?:me|this)\w*|"
    # a value that calls itself a stand-in (``test-key``, ``dummy_token``, ``mock-api-key``)
    r"(?:test|dummy|fake|mock|sample)[_-](?:api[_-])?(?:key|token|secret))"
)
# A path to a key file (``GOOGLE_APPLICATION_CREDENTIALS=./service-account.json``):
# the variable says where the credential is, not what it is.
_KEY_FILE = LazyPattern(
    r"(?:\.{1,2}/|~/|/)[\w./-]*\.(?:json|pem|key|p12|pfx|crt|cer|jks|ya?ml|txt|env|ini|toml)"
)
_ID_FLAG_ENDS = ("-id", "_id", "-arn", "-name", "-ids", "-path")


def _names_a_secret(text: str, rule: str, start: int, end: int) -> bool:
    """A generic match that is an identifier, a placeholder or an ARN, not a secret."""
    matched = text[start:end].strip("'\"")
    if matched.startswith(("${{", "{{")) or _VARIABLE.match(matched):
        return True  # a CI or Jinja template (${{ secrets.TOKEN }}) or $VAR: the value is elsewhere
    if _generated(matched):
        # TOKEN=$(openssl rand -hex 32), Authorization: Token $(grep TOKEN .mcp.json | cut ...):
        # made at run time, never typed (rt71, rt77)
        return True
    if rule in _PASSWORD_RULES and _DEV_DEFAULT.fullmatch(text[start:end].strip("'\"")):
        return True  # mysql -proot, postgres://postgres:postgres@localhost/app
    if rule == "x-token-header" and _header_name(text, start).endswith(_ID_FLAG_ENDS):
        return True  # X-JFrog-Signing-Key-Name: packagesKey names a key, as --key-id does
    if rule not in _GENERIC:
        return False
    value = text[start:end].strip("'\"")
    if _PLACEHOLDER.fullmatch(value) or _KEY_FILE.fullmatch(value) or _its_user(text, value):
        return True
    word_start = max(text.rfind(" ", 0, start), text.rfind("=", 0, start)) + 1
    token = text[text.rfind(" ", 0, start) + 1 : end]
    before = text[:word_start].rstrip(" =").rsplit(" ", 1)[-1].strip("'\"")
    if "arn:" in token or value.endswith((".example", "example")) or value.startswith("example"):
        return True
    if _DEV_DEFAULT.fullmatch(value) or _elided(value):
        return True
    if before.startswith("-") and before.lower().endswith(_ID_FLAG_ENDS):
        return True
    head = text[: text.rfind(" ", 0, start) + 1].split()
    program = head[0].rsplit("/", 1)[-1].strip("'\"") if head else ""
    if program == "gcloud" and _option_of(text, start) in _SECRET_REFERENCES:
        return True  # gcloud --secret=NAME, --set-secrets=VAR=NAME:VERSION: a name, not a value
    return before == "--api-key" and program == "aws"


_USER_VALUE = LazyPattern(
    r"(?i)[a-z_]*(?:user(?:name)?|_db|database)=['\"]?(\w+)['\"]?(?=\s|$)",
    hints="user _db database",
)


def _generated(value: str) -> bool:
    """A value a command computes when the line runs (``$(openssl rand -hex 32)``,
    a backquoted ``python -c``): no secret is typed on the line.  ``$(echo VALUE)``
    and ``$(printf VALUE)`` only repeat a typed value, so they stay secrets."""
    if not value.startswith(("$(", "`")):
        return False
    program = value.lstrip("$(`").split(None, 1)[:1]
    return bool(program) and program[0] not in ("echo", "printf")


def _header_name(text: str, start: int) -> str:
    """The name of the header whose value starts at ``start`` (``X-Api-Key-Id``), lowercased."""
    head = text[:start].rstrip(" \t:\"'\\")
    return head.rsplit(None, 1)[-1].lstrip("\"'").lower() if head.strip() else ""


def _its_user(text: str, value: str) -> bool:
    """A password that is the user or database name set in the same command
    (``-e POSTGRES_USER=petclinic -e POSTGRES_PASSWORD=petclinic``): a throwaway
    container's development default, public in every README that starts it."""
    if len(value) > 32 or not value.isalnum():
        return False
    return any(m.group(1) == value for m in _USER_VALUE.finditer(text))


# gcloud's options whose values name Secret Manager secrets (``--secret=db-password``,
# ``--update-secrets=DB_PASS=db-password:latest``): the value never appears on the line
_SECRET_REFERENCES = frozenset(
    {"--secret", "--set-secrets", "--update-secrets", "--remove-secrets"}
)


def _option_of(text: str, start: int) -> str:
    """The long option a value at ``start`` belongs to: ``--opt=...`` in the same word,
    else the word before (``--opt VALUE``); ``""`` when neither is an option."""
    space = text.rfind(" ", 0, start)
    word = text[space + 1 : start].lstrip("'\"")
    if not word.startswith("--"):
        previous = text[:space].split()
        word = previous[-1] if previous and not word.startswith("-") else ""
    return word.partition("=")[0] if word.startswith("--") else ""


def _elided(value: str) -> bool:
    """A documentation placeholder: ``sk-...``, ``ghp_xxxx``, ``sk-***`` (a prefix, then dots,
    x's or stars), as README blocks write a key the reader must fill in."""
    if "..." in value or "\u2026" in value:
        return True
    tail = value.rsplit("-", 1)[-1].rsplit("_", 1)[-1]
    return len(tail) >= 3 and set(tail.lower()) <= set("x*.")


def redacted_excerpt(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text`` redacted, redacted before the cut
    (a cut first could leave half a secret that no rule recognises)."""
    return redact_head(text, limit)
