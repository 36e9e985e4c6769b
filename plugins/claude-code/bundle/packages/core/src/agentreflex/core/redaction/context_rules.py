"""Context rules: where a secret sits, whatever its format.

Why: a password has no format.  What gives it away is its place: the value of
a ``NAME=`` whose name says secret, a ``--password`` flag, an
``Authorization``, ``Cookie`` or ``X-*-Token`` header, the password of a URL,
``-u user:pass``, ``sshpass -p``, a netrc line, ``aws configure set``, "the
password is X" in prose.  gitleaks' rule set has no equivalent (the nearest
is its ``generic-api-key``, a key word then a value, which needs a digit and
entropy); every token format lives in ``secret_rules`` (generated from
gitleaks and from core's extension, ``tools/secret_rules_extra.toml``).

A context match is redacted unless its value is a placeholder (``$VAR``,
``<your-token>``, ``changeme``); a gate that blocks on a secret weighs it
lower (:data:`GENERIC_RULES`), since that is where false positives live.
When a pattern has a named group ``s`` only that group is the secret, so
"API_KEY=" or "Bearer " stays readable.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern

# (rule id, pattern with hints); the id is what a finding reports.
CONTEXT_RULES: tuple[tuple[str, LazyPattern], ...] = (
    (
        "url-credentials",
        # Any scheme, JSON-escaped slashes too; the password may hold "/", ":"
        # and "@" (the last "@" before the host ends it); "host:8080/x/@scope"
        # is a port and a path, not a password.
        LazyPattern(
            r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}:(?://|\\/\\/)[^\s:/@\"'\\]{0,128}:(?!\d{1,5}(?:/|\\/|$))(?P<s>[^\s\"']{1,256}?)@(?=[^\s@\"'/\\]*(?:[/\s\"'?#\\]|$))",
            hints=":// :\\/\\/",
        ),
    ),
    (
        "authorization-header",
        # any scheme (Bearer, Basic, token, AWS4-HMAC-SHA256...) or none
        LazyPattern(
            r"(?i)\b(?:proxy-)?authorization\\?[\"']?\s*[:=]\s*\\?[\"']?(?>(?:[a-z0-9-]{2,24}\s+(?=[^\s\"'\\]))?)(?P<s>[^\s\"'\\]{6,}(?:,\s*[^\s\"'\\]+)*)",
            hints="authorization",
        ),
    ),
    (
        "bearer-token",
        LazyPattern(r"(?i)\bbearer\s+(?P<s>[A-Za-z0-9._~+/\-]{20,}=*)", hints="bearer"),
    ),
    (
        "x-api-key-header",
        LazyPattern(
            r"(?i)\b(?:x-api-key|api-key|x-auth-token)\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<s>[A-Za-z0-9._~+/=\-]{12,})",
            hints="api-key x-auth-token",
        ),
    ),
    (
        "password-flag",
        LazyPattern(
            r"(?<![\w-])(?:--password|--passwd|--pass|--token|--secret|--api-key|--apikey|--client-secret|--auth-token)(?:=|\s+)(?P<s>(?!-)[^\s\"']{4,}|\"[^\"]{4,}\"[^\s\"']*|'[^']{4,}'[^\s\"']*)",
            hints="--pass --token --secret --api-key --apikey --client-secret --auth-token",
        ),
    ),
    (
        "mysql-inline-password",
        LazyPattern(
            r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p(?P<s>[^\s\-]\S{3,})",
            hints="mysql mariadb",
        ),
    ),
    (
        "cli-user-password",
        # curl/wget/http -u user:pass, --user user:pass (not docker's -u 1000:1000)
        LazyPattern(
            r"(?<![\w-])(?:-u|--user|--proxy-user)(?:=|\s+)[\"']?(?!\d+:\d+\b)[^\s:\"']{1,128}:(?P<s>[^\s\"']{1,256})",
            hints="-u --user --proxy-user",
        ),
    ),
    (
        "cli-password-arg",
        # sshpass -p X, redis-cli -a X, docker/podman/helm login -p X
        LazyPattern(
            r"\b(?:sshpass\b[^\n|;&]*?\s-p|redis-cli\b[^\n|;&]*?\s-a|(?:docker|podman|buildah|skopeo|helm|nerdctl)\b[^\n|;&]*?\blogin\b[^\n|;&]*?\s-p)(?:=|\s*)(?P<s>(?!-)[^\s\"']+|\"[^\"]+\"|'[^']+')",
            hints="sshpass redis-cli login",
        ),
    ),
    (
        "cli-secret-value",
        # A value typed where a tool takes a secret: gh secret set NAME --body
        # VALUE (https://cli.github.com/manual/gh_secret_set), az login -p
        # (https://learn.microsoft.com/cli/azure/reference-index#az-login),
        # htpasswd -b FILE USER PASSWORD and -nb USER PASSWORD
        # (https://httpd.apache.org/docs/2.4/programs/htpasswd.html).
        LazyPattern(
            r"\b(?:gh\s+secret\s+set\b[^\n|;&]*?\s(?:--body|-b)|az\s+login\b[^\n|;&]*?\s-p"
            r"|htpasswd\s+-(?=[A-Za-z]*b)(?:(?=[A-Za-z]*n)(?P<nofile>)|)[A-Za-z]+\s+(?(nofile)|\S+\s+)\S+)"
            r"(?:=|\s*)(?P<s>(?!-)[^\s\"']+|\"[^\"]+\"|'[^']+')",
            hints="secret login htpasswd",
        ),
    ),
    (
        "sql-password",
        # CREATE/ALTER USER|ROLE ... [WITH] [ENCRYPTED] PASSWORD 'x' (PostgreSQL,
        # https://www.postgresql.org/docs/current/sql-createrole.html) and
        # IDENTIFIED [WITH plugin] BY 'x' (MySQL, https://dev.mysql.com/doc/refman/8.0/en/create-user.html),
        # typed in a heredoc, a psql -c or a migration: a quoted literal only.
        LazyPattern(
            r"(?i)(?=[ca])\b(?:create|alter)\s+(?:user|role)\s[^;\n]*?\b(?:password|identified(?:\s+with\s+\w+)?\s+by)\s+(?P<s>'[^'\n]{4,}'|\"[^\"\n]{4,}\")",
            hints="user role",
        ),
    ),
    (
        "fish-set-secret",
        # fish's set -x NAME VALUE (https://fishshell.com/docs/current/cmds/set.html)
        # where NAME says secret, as NAME=VALUE elsewhere
        LazyPattern(
            r"(?i)(?=s)\bset\s+(?:-[a-z]+\s+)+(?:[A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|apikey|access_?key|private_?key|credentials?)|[A-Za-z0-9_]*_(?:pass|pwd|key))\s+(?P<s>\"[^\"\n]{6,}\"|'[^'\n]{6,}'|[^\s\"';|&]{6,})",
            hints="set",
        ),
    ),
    (
        "cookie-header",
        LazyPattern(
            r"(?i)\b(?:set-)?cookie\\*[\"']?\s*:\s*\\*[\"']?(?P<s>[^\r\n\"'\\]{4,})",
            hints="cookie",
        ),
    ),
    (
        "x-token-header",
        LazyPattern(
            r"(?i)\bx-[a-z0-9-]*(?:token|key|secret|auth|session|password)[a-z0-9-]*\\?[\"']?\s*:\s*\\?[\"']?(?P<s>[^\s\"'\\]{4,})",
            hints="x-",
        ),
    ),
    (
        "netrc-password",
        # "password VALUE" ending a line or a quoted string (netrc's lowercase keyword, alone or
        # after "login USER"; escaped line breaks are seen through), so
        # "Password checks" and "password reset flow" stay readable; after
        # "machine HOST login USER" whatever follows, as netrc's tokens may all
        # share one line ("machine a login b password c machine d ...",
        # https://www.gnu.org/software/inetutils/manual/html_node/The-_002enetrc-file.html)
        LazyPattern(
            r"(?m)(?:(?:(?:^|(?<=[\"']))[ \t]*|\blogin[ \t]+\S+[ \t]+)password[ \t]+(?P<s>(?![=:])[^\s\"'\\\])}]+)[ \t]*(?=$|[\"'\\\])}])"
            r"|\b(?:machine[ \t]+\S+|default)[ \t]+login[ \t]+\S+[ \t]+password[ \t]+(?P<s2>(?![=:])[^\s\"'\\\])}]+))",
            hints="password",
        ),
    ),
    (
        "aws-configure-secret",
        LazyPattern(
            r"(?i)\baws\s+configure\s+set\s+(?:[\w.-]*\.)?[\w-]*(?:secret|token|key|password)[\w-]*\s+(?P<s>[^\s\"']+|\"[^\"]+\"|'[^']+')",
            hints="configure",
        ),
    ),
    (
        "prose-password",
        # "the password is hunter22", "my token: abc123..." (prompts); a word
        # saying what happened to it ("the token was refreshed", "is expiring",
        # "is automatically ...") is prose, not a value
        LazyPattern(
            r"(?i)(?=[psta])\b(?:password|passphrase|passcode|passwd|secret|token|api key)\s+(?:is|was|=|:)\s+[\"'`]?(?!(?:the|a|an|not|set|empty|missing|wrong|invalid|expired|correct|required|stored|in|at|on|now|still|being|also|used|only|valid|needed|revoked|incorrect|too|same|different|for|from|to)\b)(?![a-z]+(?:ed|ing|ly)(?![\w-]))(?P<s>[^\s\"'`]{4,})",
            hints="password passphrase passcode passwd secret token api key",
        ),
    ),
    (
        "secret-assignment",
        LazyPattern(
            # the lookahead (the name's whole run, then the assignment) is implied by the
            # rest and only fails fast: without it every word was backtracked through
            # for a secret word in it, the costliest rule on code (tools/bench_redact.py)
            # a variable or command *used* ($PWD:/app, $(pwd):/app, ${PWD}:/app: docker's
            # volume spelling; the second scan drops the ")" and "}") names no assignment
            r"(?i)(?<![A-Za-z0-9$])(?<!\$\()(?!(?<=\$\{)pwd\b)(?=[A-Za-z0-9_]+\\?[\"']?\s*[:=])"
            r"(?:[A-Za-z0-9_]*(?:secret|token|password|passwd|api_?key|apikey|access_?key|private_?key|credentials?|auth_?token)|[A-Za-z0-9_]*_(?:pass|pwd|key)|pass|pwd)(?![A-Za-z0-9])\\?[\"']?\s*[:=]\s*(?P<s>\\?\"[^\"\s]{6,}\"[^\s\"',;]*|\\?'[^'\s]{6,}'[^\s\"',;]*|[^\s\"',;\\]{6,})",
            hints="secret token pass pwd key credential",
        ),
    ),
)

# A lookahead of a rule's first character ((?=[ca]) before create|alter) is implied by the
# pattern and changes no match: the search then tries the pattern only where it may start
# (tools/bench_redact.py: 40% less time in those rules).

# The rules that say where a secret sits rather than what it looks like:
# these and gitleaks' one context rule.
GENERIC_RULES = frozenset({rule for rule, _ in CONTEXT_RULES} | {"generic-api-key"})

_PLACEHOLDER = LazyPattern(
    r"(?i)^(?:(?:\[redacted\])+[\])}]*|redacted|x{4,}|\*{3,}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|"
    r"changeme|example|placeholder|your[_-].*|dummy|none|null|true|false|\$\(.*\))$"
)


def is_placeholder(value: str) -> bool:
    """``$VAR``, ``<your-token>``, ``changeme``...; also when a log closed the excerpt
    right after it (``password=$DB_PASSWORD]``)."""
    value = value.strip("\"'\\")
    return bool(_PLACEHOLDER.match(value) or _PLACEHOLDER.match(value.rstrip("])}")))
