"""Measure core's redaction both ways: recall on generated secrets, over-redaction on look-alikes.

Why: a rule set is only as good as its two error rates.  A secret that
survives is written to a log; a git SHA, UUID, digest or path that is masked
leaves the agent and the user unable to read their own log.

* Positives: for every rule (each generated gitleaks rule and each of core's
  own), strings are generated from the rule's own regex (a seeded walk of the
  parsed pattern, kept only when the rule itself accepts the result: above its
  entropy floor and not allowlisted), then embedded in a shell command, a JSON
  document and a log line.  Plus every command shape of issue #23.  A
  positive counts as found when the secret no longer appears in the output.
* Look-alikes: strings that resemble secrets and must stay readable, per
  family (git SHAs, UUIDs, content and image digests, integrity strings,
  paths, versions, URLs without a password, placeholders, prose).

    uv run --frozen python tools/secrets_eval.py [--per-rule 3] [--show]
    uv run --frozen python tools/secrets_eval.py --bounds   # 1, 4, 10 MiB: time, memory
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "packages" / "core" / "src"))

from agentreflex.core.redaction import redact as R  # noqa: E402
from agentreflex.core.redaction.context_rules import is_placeholder  # noqa: E402

_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


# ------------------------------------------------------------ generating positives


def _gen(seq: object, rng: random.Random, out: list[str], groups: dict[int, str]) -> None:
    """Append a random string matching parsed ``seq`` (asserts are ignored, checked later)."""
    from re import _constants as c  # type: ignore[attr-defined]

    for op, av in seq:  # type: ignore[attr-defined]
        if op == c.LITERAL:
            out.append(chr(av))
        elif op == c.NOT_LITERAL:
            out.append(rng.choice([ch for ch in _ALNUM if ord(ch) != av]))
        elif op == c.ANY:
            out.append(rng.choice(_ALNUM))
        elif op == c.IN:
            out.append(_from_class(av, rng))
        elif op == c.BRANCH:
            _gen(rng.choice(av[1]), rng, out, groups)
        elif op == c.SUBPATTERN:
            start = len("".join(out))
            _gen(av[-1], rng, out, groups)
            if av[0]:
                groups[av[0]] = "".join(out)[start:]
        elif op == c.ATOMIC_GROUP:
            _gen(av, rng, out, groups)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, item = av
            high = min(high, low + 24) if high != c.MAXREPEAT else low + 24
            for _ in range(rng.randint(low, max(low, high))):
                _gen(item, rng, out, groups)
        elif op == c.GROUPREF:
            out.append(groups.get(av, ""))
        # AT, ASSERT, ASSERT_NOT: match no text


def _from_class(items: object, rng: random.Random) -> str:
    from re import _constants as c  # type: ignore[attr-defined]

    chars: list[str] = []
    negate = False
    for op, av in items:  # type: ignore[attr-defined]
        if op == c.NEGATE:
            negate = True
        elif op == c.LITERAL:
            chars.append(chr(av))
        elif op == c.RANGE:
            chars.extend(chr(x) for x in range(av[0], min(av[1], 126) + 1))
        elif op == c.CATEGORY:
            chars.extend(_category(av))
    if negate:
        chars = [ch for ch in _ALNUM if ch not in chars] or ["x"]
    return rng.choice(chars or ["x"])


def _category(cat: object) -> str:
    name = str(cat).lower()
    if "digit" in name:
        return "0123456789" if "not" not in name else "abc"
    if "space" in name:
        return " " if "not" not in name else "abc"
    return _ALNUM + "_" if "not" not in name else " "


def generate(pattern: str, flags: int, rng: random.Random, tries: int = 200) -> list[str]:
    """Strings fully matched by ``pattern``, as varied as the pattern allows."""
    from re import _parser  # type: ignore[attr-defined]

    parsed = _parser.parse(pattern, flags)
    compiled = re.compile(pattern, flags)
    found: list[str] = []
    for _ in range(tries):
        out: list[str] = []
        _gen(parsed, rng, out, {})
        text = "".join(out)
        if compiled.search(text) and text not in found:
            found.append(text)
    return found


def rule_positives(per_rule: int, seed: int = 23) -> dict[str, list[tuple[str, str]]]:
    """rule id -> [(text, secret)]: ``per_rule`` secrets each rule itself accepts."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[str, str]]] = {}
    for index, (rid, regex, _, requires, *_rest, origin) in enumerate(R.RULES):
        lead = f"{requires[0]} " if requires else ""
        picked: list[tuple[str, str]] = []
        flags = re.ASCII if origin == "gitleaks" else 0
        for cand in generate(regex, flags, rng):
            text = lead + cand
            spans = [m for m in R._generated_matches(index, text) if m.rule == rid]
            if spans:
                secret = text[spans[0].start : spans[0].end]
                if len(secret) >= 6:
                    picked.append((text, secret))
            if len(picked) >= per_rule:
                break
        out[rid if origin == "gitleaks" else f"core:{rid}"] = picked
    for rid, pattern in R._RULES:
        picked = []
        for text in generate(pattern.pattern, pattern.flags, rng):
            m = pattern.compiled.search(text)
            if m is None:
                continue
            start, end = (m.start("s"), m.end("s")) if "s" in m.re.groupindex else m.span()
            secret = text[start:end]
            if len(secret) >= 6 and not is_placeholder(secret):
                picked.append((text, secret))
            if len(picked) >= per_rule:
                break
        out[f"core:{rid}"] = picked
    return out


# Issue #23's command shapes, each written more than one way.
COMMAND_SHAPES: list[tuple[str, str]] = [
    ("curl -u admin:Adm1nPa55word https://api.example/x", "Adm1nPa55word"),
    ("curl --user 'deploy:Depl0y-Secret' https://h/x", "Depl0y-Secret"),
    ("wget --user=bob --password=B0bsPassw0rd https://h/f", "B0bsPassw0rd"),
    ("mysql -u root -pR00tPassw0rd app", "R00tPassw0rd"),
    ("mysql -h db --password=MyS3cretDB app", "MyS3cretDB"),
    ("mysqldump --password 'Dump-Pa55' app > dump.sql", "Dump-Pa55"),
    ("sshpass -p 'Sshp4ss!word' ssh deploy@10.0.0.5", "Sshp4ss!word"),
    ("sshpass -pS5hInline scp f host:", "S5hInline"),
    ("redis-cli -h cache -a R3disAuthPw ping", "R3disAuthPw"),
    ("redis-cli -a 'R3dis-Quoted' --no-auth-warning info", "R3dis-Quoted"),
    ("docker login -u me -p D0ckerHubPw registry.example", "D0ckerHubPw"),
    ("docker login registry.example --username me --password D0ckerLong", "D0ckerLong"),
    ("gh api --token ghTokenValue123 /user", "ghTokenValue123"),
    ("vault login --token=s.VaultTok3nValue", "s.VaultTok3nValue"),
    ("psql postgres://app:pa/ss@db.internal:5432/app", "pa/ss"),
    ("DATABASE_URL=mysql://u:p@ss:w0rd@db/app", "p@ss:w0rd"),
    ("git clone https://user:Gh%40Pass%2Fword@github.com/o/r.git", "Gh%40Pass%2Fword"),
    ('{"url": "amqp:\\/\\/guest:Rabb1tPw@mq:5672\\/"}', "Rabb1tPw"),
    ("redis://:R3disUrlPw@cache:6379/0", "R3disUrlPw"),
    (
        "curl -H 'Authorization: Bearer eyFakeBearerValue1234567890' h",
        "eyFakeBearerValue1234567890",
    ),
    ("curl -H 'Authorization: Basic dXNlcjpwYXNzd29yZA==' h", "dXNlcjpwYXNzd29yZA=="),
    ("Authorization: token 0123456789abcdefFAKE", "0123456789abcdefFAKE"),
    ("curl -H 'Cookie: session=Sess10nCookieVal; csrftoken=Csrf123' h", "Sess10nCookieVal"),
    ("Set-Cookie: auth=AuthC00kieValue; Path=/; HttpOnly", "AuthC00kieValue"),
    ("curl -H 'X-Vault-Token: hvsFakeVaultHeader1' h", "hvsFakeVaultHeader1"),
    ("curl -H 'X-Auth-Token: AuthHeaderTok3n' h", "AuthHeaderTok3n"),
    ("x-goog-api-key: GoogHeaderKey12345", "GoogHeaderKey12345"),
    ("machine api.example login bob password N3trcPassw0rd", "N3trcPassw0rd"),
    ("machine h\n  login bob\n  password N3trcMultiLine\n", "N3trcMultiLine"),
    ("aws configure set aws_secret_access_key AwsConfSecretValue123", "AwsConfSecretValue123"),
    ("aws configure set default.aws_session_token AwsSessTok3nValue", "AwsSessTok3nValue"),
    ("the password is Hunter2Hunter2", "Hunter2Hunter2"),
    ("my api key is: ApiKeyFromProse99", "ApiKeyFromProse99"),
    ("The secret was 'Pr0seSecretVal'", "Pr0seSecretVal"),
    ("export GITHUB_TOKEN=EnvTokenValue123", "EnvTokenValue123"),
    (
        "https://api.telegram.org/bot1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawx/getMe",
        "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawx",
    ),
    (
        "ya29.a0AfH6SMBx3k9Lp2Qr7Tz8YwVn4Ue5Io6Pa1Sd2Fg3Hj4Kl5",
        "a0AfH6SMBx3k9Lp2Qr7Tz8YwVn4Ue5Io6Pa1Sd2Fg3Hj4Kl5",
    ),
    ("STRIPE_WEBHOOK=whsec_3kL9pQ2rT7vX1zB4nM6wE8yU0iO5aS2d", "3kL9pQ2rT7vX1zB4nM6wE8yU0iO5aS2d"),
    (
        "https://a.blob.core.windows.net/c/f?sv=2022-11-02&sig=AbCdEf0123456789GhIjKl%2Bmn%3D",
        "AbCdEf0123456789GhIjKl%2Bmn%3D",
    ),
    (
        "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" * 2,
        "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"[:20],
    ),
]


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


def _wrapped_b64(text: str) -> str:
    import base64

    return base64.encodebytes(text.encode()).decode()  # 76 a line, as base64(1) writes


# Secrets under a reversible encoding: their encoded spelling is the secret too
# (decoding gives it back).  gitleaks decodes base64, hex and percent escapes
# before its rules for the same reason (https://github.com/gitleaks/gitleaks#decoding).
_GH = "ghp_R8x2Kq9LmN4pT7vW1yZ3aB5cD6eF8gH0iJ2k"
_STRIPE = "sk_live_51HxY2kLmN4pQ7rS9tU1vW3xY5zA7bC9dE1fG3hJ5kL7mN9pQ"
_DOCKER_AUTH = '{"auths":{"ghcr.io":{"auth":"' + _b64("bot:" + _GH) + '"}}}'
ENCODED_SHAPES: list[tuple[str, str]] = [
    # a token smuggled past a filter, decoded by the command itself
    (f"echo {_b64(_GH)} | base64 -d", _b64(_GH)),
    (f"echo {_b64(_GH).rstrip('=')} | base64 -d", _b64(_GH).rstrip("=")),
    # a Kubernetes Secret's data and a .dockerconfigjson are base64
    # (https://kubernetes.io/docs/concepts/configuration/secret/#docker-config-secrets)
    (f"  .dockerconfigjson: {_b64(_DOCKER_AUTH)}", _b64(_DOCKER_AUTH)[8:48]),
    # `base64 .env` prints the file wrapped at 76 characters a line
    (
        _wrapped_b64(f"STRIPE_SECRET_KEY={_STRIPE}\nDEBUG=1\n" * 2),
        _wrapped_b64(f"STRIPE_SECRET_KEY={_STRIPE}\nDEBUG=1\n" * 2)[4:60],
    ),
    # a private key as a CI variable is stored base64 (one line, URL-safe too)
    (
        "SSH_KEY_B64="
        + _b64("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n")
        .replace("+", "-")
        .replace("/", "_"),
        "LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS",
    ),
    # xxd -p / od output, and a printf of \x escapes
    (f"echo {_GH.encode().hex()} | xxd -r -p", _GH.encode().hex()[8:64]),
    ("printf '" + "".join(f"\\x{b:02x}" for b in _GH.encode()) + "'", "\\x52\\x38\\x78\\x32"),
    # a header or a key percent-encoded in a logged URL or form body
    (
        "GET /callback?h=Authorization%3A%20Bearer%20Rt7vQ2pL9xW4mK8nZ3cF6hJ1 HTTP/1.1",
        "Rt7vQ2pL9xW4mK8nZ3cF6hJ1",
    ),
    (
        "curl -d 'client_secret%3D" + "Zq8%2Bv3Lm%2F9pXw2Rt7" + "' https://h/token",
        "Zq8%2Bv3Lm%2F9pXw2Rt7",
    ),
]
COMMAND_SHAPES += ENCODED_SHAPES

# One secret split in two by the program's own syntax: each half alone is no
# format, the program runs the whole.  Shell line continuations and adjacent
# literals (https://www.gnu.org/software/bash/manual/bash.html#Escape-Character),
# concatenation in Python, JavaScript, PHP, Lua; JSON-escaped as a hook payload
# carries it.
SPLIT_SHAPES: list[tuple[str, str]] = [
    (f'TOKEN="{_GH[:20]}"\\\n"{_GH[20:]}"', _GH[20:]),
    (f"export GH_TOKEN={_GH[:18]}\\\n{_GH[18:]}", _GH[18:]),
    (f'key = "{_STRIPE[:24]}" + "{_STRIPE[24:]}"', _STRIPE[24:]),
    (f'KEY = ("{_STRIPE[:20]}"\n       "{_STRIPE[20:]}")', _STRIPE[20:]),
    (f"$k = '{_GH[:10]}' . '{_GH[10:]}';", _GH[10:]),
    (json.dumps({"command": f'TOKEN="{_GH[:20]}"\\\n"{_GH[20:]}"'}), _GH[20:]),
]
COMMAND_SHAPES += SPLIT_SHAPES

# Where a tool takes a password as a plain argument (sources in context_rules).
COMMAND_SHAPES += [
    ("cat <<EOF | psql\nALTER USER app WITH PASSWORD 'Pg-Heredoc-Pw9';\nEOF", "Pg-Heredoc-Pw9"),
    ("mysql -e \"CREATE USER 'u'@'%' IDENTIFIED BY 'My-Ident-Pw9'\"", "My-Ident-Pw9"),
    ("gh secret set API_KEY --body Gh-Body-Secret9", "Gh-Body-Secret9"),
    ("gh secret set API_KEY -b'Gh-Body-Short9'", "Gh-Body-Short9"),
    ("az login --service-principal -u app -p Az-Sp-Passw0rd --tenant t", "Az-Sp-Passw0rd"),
    ("htpasswd -b .htpasswd admin Htp-Passw0rd", "Htp-Passw0rd"),
    ("htpasswd -nb admin Htp-Nofile-Pw9", "Htp-Nofile-Pw9"),
    ("set -gx OPENAI_API_KEY Fish-Set-Key9", "Fish-Set-Key9"),
]


# ------------------------------------------------------------ look-alikes

LOOKALIKES: dict[str, list[str]] = {
    "git sha": [
        "git checkout 3f786850e387550fdab836ed7e6dc881de23001b",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: A <a@b.c>",
        "git log --oneline: a1b2c3d fix the build; e4f5a6b add tests",
        "Merge: 1a2b3c4 5d6e7f8",
        "HEAD is now at 0123abcd feat: token refresh",
    ],
    "uuid": [
        "session 123e4567-e89b-12d3-a456-426614174000 started",
        '{"id": "550e8400-e29b-41d4-a716-446655440000", "key": "550e8400"}',
        "request-id: 6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    ],
    "content digest": [
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "checksum sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709",
        "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9  hello.txt",
        "md5 d41d8cd98f00b204e9800998ecf8427e",
    ],
    "integrity string": [
        '"integrity": "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR/Lk+Q=="',
        "integrity sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC",
        "h1:1qGBfZ9+yiuwmv0/WKDZu9Q6qB3e16ZrLMTMVqdnmZ4=",
    ],
    "image digest": [
        "docker pull python@sha256:2bb9d1e4bcdc0e0a0d0d3e2b6d1f0c9e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d",
        "image: ghcr.io/org/app:1.4.2@sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    ],
    "path": [
        "/home/user/projects/some-very-long-directory-name/another_long_subdir/file_name_v2.py",
        "src/agentreflex/core/redaction/secret_rules.py:42: token_counter = 0",
        "C:\\Users\\dev\\AppData\\Local\\pnpm-cache\\v3\\metadata\\registry.npmjs.org",
        "/var/lib/docker/overlay2/4f3c2b1a0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b/diff",
        "~/.cache/uv/archive-v0/KmJ3xQ9pL2vN8rT4/lib/python3.11/site-packages",
    ],
    "package version": [
        "pip install requests==2.31.0 numpy==1.26.4",
        '"version": "1.2.3-beta.4+build.5678"',
        "npm install @types/node@^20.11.5 typescript@5.3.3",
        "uv add 'pydantic>=2.6,<3' && cargo add serde@1.0.197",
        "go get golang.org/x/crypto@v0.21.0",
    ],
    "url without password": [
        "https://registry.npmjs.org:443/@types/node",
        "ssh://git@github.com:22/org/repo.git",
        "git@github.com:org/repo.git",
        "postgres://localhost:5432/app",
        "https://user@example.com/path",
        "http://[::1]:8080/api/v1/items?page=2",
    ],
    "placeholder": [
        "password=$DB_PASSWORD",
        "curl -H 'Authorization: Bearer $TOKEN' https://h",
        "gh api --token $GH_TOKEN /user",
        "export API_KEY=${API_KEY}",
        "curl -u $USER:$PASS https://h",
        "docker run -u 1000:1000 img",
        "mysql -u root -p app",
    ],
    "encoded, no secret": [
        "echo aGVsbG8gd29ybGQsIHRoaXMgaXMgZmluZQ== | base64 -d",
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
        "echo 48656c6c6f2c20776f726c642120746f6b656e20726f746174696f6e | xxd -r -p",
        "https://www.google.com/search?q=how%20to%20rotate%20an%20api%20token%3F",
        "  config.json: eyJsb2dMZXZlbCI6ICJkZWJ1ZyIsICJtYXhfdG9rZW5zIjogNDA5Nn0=",
        "printf '\\x68\\x65\\x6c\\x6c\\x6f\\x20\\x77\\x6f\\x72\\x6c\\x64'",
        "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU= 5f4dcc3b5aa765d61d8327deb882cf99",
    ],
    "split literals, no secret": [
        'print("hello " + name + " world")',
        'msg = ("the build passed "\n       "and the token was refreshed")',
        "docker run \\\n  -e LOG_LEVEL=debug \\\n  -p 8080:8080 app",
        "htpasswd -c .htpasswd admin",
        "set -x PATH /usr/local/bin $PATH",
        "CREATE USER app; -- password set later",
        "gh secret set API_KEY < key.txt",
    ],
    "prose": [
        "the token is expired, refresh it",
        "the password is required for this endpoint",
        "Set the API key in the settings page",
        "max_tokens: 4096 and the tokenizer is cl100k_base",
        "passed 142 tests; keyboard shortcuts work",
    ],
}


def evaluate(per_rule: int, show: bool = False) -> dict[str, float]:
    """Print and return recall and over-redaction figures."""
    from agentreflex.core.redaction.redact import redact

    positives = rule_positives(per_rule)
    found = total = 0
    ungenerated: list[str] = []
    missed: list[tuple[str, str]] = []
    for rid, items in sorted(positives.items()):
        if len(items) < per_rule:
            ungenerated.append(rid)
        for text, secret in items:
            for wrapped in (text, f'echo "{text}"', f'{{"output": "{text}"}}', f"log: {text}\n"):
                total += 1
                if secret in redact(wrapped):
                    missed.append((rid, wrapped))
                else:
                    found += 1
    shape_found = sum(secret not in redact(text) for text, secret in COMMAND_SHAPES)
    core = sum(rule[10] == "core" for rule in R.RULES)
    print(
        f"rules: {len(positives)} ({len(R.RULES) - core} from gitleaks, {core} core's extension, "
        f"{len(R._RULES)} context)"
    )
    print(f"rules with fewer than {per_rule} generated positives: {len(ungenerated)}")
    if ungenerated:
        print("  " + ", ".join(ungenerated))
    print(f"recall, generated positives in 4 contexts: {found}/{total} = {found / total:.4f}")
    print(f"recall, command shapes: {shape_found}/{len(COMMAND_SHAPES)}")
    over = 0
    count = 0
    for family, items in LOOKALIKES.items():
        bad = [t for t in items if redact(t) != t]
        count += len(items)
        over += len(bad)
        print(f"over-redaction, {family:22} {len(bad)}/{len(items)}")
        if show:
            for t in bad:
                print(f"    {t!r} -> {redact(t)!r}")
    print(f"over-redaction, all look-alikes: {over}/{count}")
    if show:
        for rid, text in missed[:40]:
            print(f"  missed {rid}: {text[:120]!r}")
    return {
        "recall": found / total,
        "shapes": shape_found / len(COMMAND_SHAPES),
        "over": over / count,
    }


def big_output(size: int, seed: int = 7) -> tuple[str, list[str]]:
    """A tool output of ``size`` characters (log lines, paths, SHAs) with secrets planted."""
    rng = random.Random(seed)
    words = [
        "the",
        "build",
        "step",
        "ran",
        "tests",
        "passed",
        "failed",
        "error",
        "warning",
        "info",
        "debug",
        "src",
        "lib",
        "module",
        "function",
        "value",
        "index",
        "result",
        "key",
        "token",
        "api",
        "auth",
        "access",
        "config",
        "user",
        "path",
        "file",
        "line",
    ]
    secrets = [secret for _, secret in COMMAND_SHAPES[:12]]
    lines: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12))
        line += f" /usr/lib/python3/x{rng.randint(0, 9999)}.py:{rng.randint(1, 999)}"
        line += f" {rng.getrandbits(160):040x}"
        if rng.random() < 0.001:
            line += " " + rng.choice(COMMAND_SHAPES[:12])[0]
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size], secrets


def bounds() -> None:
    """Time and peak memory of redacting 1, 4 and 10 MiB (goal: linear, < 1 s/MiB)."""
    import time
    import tracemalloc

    from agentreflex.core.redaction.redact import redact

    for mib in (1, 4, 10):
        text, _ = big_output(mib * 1024 * 1024)
        tracemalloc.start()
        started = time.perf_counter()
        redact(text)
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"redact {mib:2d} MiB: {elapsed:.2f} s ({elapsed / mib:.2f} s/MiB), "
            f"peak {peak / 2**20:.1f} MiB ({peak / len(text):.2f}x the input)"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-rule", type=int, default=3)
    parser.add_argument("--show", action="store_true", help="list misses and over-redactions")
    parser.add_argument("--bounds", action="store_true", help="time 1, 4 and 10 MiB outputs")
    args = parser.parse_args(argv)
    if args.bounds:
        bounds()
        return 0
    evaluate(args.per_rule, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
