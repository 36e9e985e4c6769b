"""Redaction: every rule finds a realistic (synthetic) sample; innocent text is left alone.

Every sample is built from obviously fake pieces (``EXAMPLE``, ``FAKE``,
repeated alphabets) in the shape the provider publishes, so the file holds no
real credential and no secret scanner mistakes it for one.
"""

from __future__ import annotations

import itertools
import re

import pytest
from agentreflex.core.redaction import redact as redact_mod
from agentreflex.core.redaction.context_rules import CONTEXT_RULES
from agentreflex.core.redaction.redact import (
    GENERIC_RULES,
    REDACTED,
    find_secrets,
    has_secret,
    redact,
    redact_obj,
)
from agentreflex.core.redaction.secret_rules import RULES
from agentreflex.core.util.lazyre import LazyPattern, fold
from hypothesis import example, given, settings
from hypothesis import strategies as st

ALNUM = "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0z"  # 31 chars, mixed case and digits
HEX = "0123456789abcdef"


def rep(alphabet: str, n: int) -> str:
    """``n`` characters cycling through ``alphabet`` (deterministic, obviously fake)."""
    return (alphabet * (n // len(alphabet) + 1))[:n]


# core's own rules: its extension of gitleaks' formats (first in the generated
# table, from tools/secret_rules_extra.toml) and the context rules.
EXTENSION = [(rule[0], LazyPattern(rule[1], 0, rule[2])) for rule in RULES if rule[10] == "core"]
OWN_RULES = EXTENSION + list(CONTEXT_RULES)

# rule id -> (text containing a secret, the secret part that must disappear)
SAMPLES: dict[str, tuple[str, str]] = {}


def sample(rule: str, text: str, secret: str) -> None:
    assert secret in text
    SAMPLES[rule] = (text, secret)


_pem_body = "MIIEpAIBAAKCAQEA" + rep(ALNUM, 60) + "\n" + rep(ALNUM, 64) + "\nFAKEFAKEFAKE=="
sample(
    "private-key",
    f"key file:\n-----BEGIN RSA PRIVATE KEY-----\n{_pem_body}\n-----END RSA PRIVATE KEY-----\nok",
    _pem_body,
)
sample("aws-access-key-id", "aws_access_key_id = AKIAEXAMPLEFAKE12345", "AKIAEXAMPLEFAKE12345")
_aws_secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKEKEY000"
sample("aws-secret-access-key", f"AWS_SECRET_ACCESS_KEY={_aws_secret} aws s3 ls", _aws_secret)
_ghp = "ghp_" + rep(ALNUM, 36)
sample("github-pat", f"git clone https://github.com/o/r.git # token {_ghp}", _ghp)
_gh_fine = "github_pat_" + rep(ALNUM + "_", 82)
_glpat = "glpat-" + rep(ALNUM, 20)
sample("gitlab-pat", f"curl --header 'PRIVATE-TOKEN: {_glpat}' gitlab.example", _glpat)
_glrt = "glrt-" + rep(ALNUM, 20)
sample("gitlab-runner-token", f"gitlab-runner register --registration {_glrt}", _glrt)
_atbb = "ATBB" + rep(ALNUM, 32)
sample("bitbucket-app-password", f"bitbucket app password {_atbb}", _atbb)
_xoxb = "xoxb-1234567890-1234567890123-" + rep(ALNUM, 24)
sample("slack-token", f"SLACK_BOT={_xoxb}", _xoxb)
_slack_hook = "https://hooks.slack.com/services/T00000000/B00000000/" + rep(ALNUM, 24)
sample("slack-webhook", f"curl -X POST {_slack_hook} -d '{{}}'", _slack_hook)
_discord = "https://discord.com/api/webhooks/123456789012345678/" + rep(ALNUM + "-_", 68)
sample("discord-webhook", f"webhook: {_discord}", _discord)
_tg = "123456789:AA" + rep(ALNUM, 33)
sample("telegram-bot-token", f"bot = Bot('{_tg}')", _tg)
_stripe = "sk_live_" + rep(ALNUM, 24)
sample("stripe-key", f"stripe.api_key = '{_stripe}'", _stripe)
_square = "sq0atp-" + rep(ALNUM, 22)
sample("square-token", f"square access {_square}", _square)
_braintree = "access_token$production$" + rep("abc123xyz", 16) + "$" + rep(HEX, 32)
sample("paypal-braintree-token", f"BT {_braintree}", _braintree)
_twilio = "SK" + rep(HEX, 32)
_sendgrid = "SG." + rep(ALNUM, 22) + "." + rep(ALNUM, 43)
sample("sendgrid-key", f"sendgrid {_sendgrid}", _sendgrid)
_mailgun = "key-" + rep(HEX, 32)
sample("mailgun-key", f"mailgun api {_mailgun}", _mailgun)
_anthropic = "sk-ant-api03-" + rep(ALNUM + "-_", 93) + "AA"
sample("anthropic-key", f"client = Anthropic(api_key='{_anthropic}')", _anthropic)
_openai = "sk-proj-" + rep(ALNUM, 40) + "T3BlbkFJ" + rep(ALNUM, 40)
sample("openai-key", f"OpenAI({_openai})", _openai)
_openai_proj = "sk-svcacct-" + rep(ALNUM, 64)
sample("openai-project-key", f"using {_openai_proj} for batch", _openai_proj)
_openrouter = "sk-or-v1-" + rep(HEX, 64)
sample("openrouter-key", f"openrouter {_openrouter}", _openrouter)
_groq = "gsk_" + rep(ALNUM, 52)
sample("groq-key", f"groq {_groq}", _groq)
_hf = "hf_" + rep(ALNUM, 34)
sample("huggingface-token", f"huggingface-cli login --token-value {_hf}", _hf)
_gapi = "AIza" + rep(ALNUM + "-_", 35)
sample("google-api-key", f"https://maps.googleapis.com/api?k={_gapi}", _gapi)
_gocspx = "GOCSPX-" + rep(ALNUM, 28)
sample("google-oauth-secret", f"client secret {_gocspx}", _gocspx)
_gcp_kid = rep(HEX, 40)
sample(
    "gcp-service-account-key",
    f'{{"type": "service_account", "private_key_id": "{_gcp_kid}", "project_id": "demo"}}',
    _gcp_kid,
)
_azure = rep(ALNUM + "+/", 86) + "=="
sample(
    "azure-storage-key",
    f"DefaultEndpointsProtocol=https;AccountName=demo;AccountKey={_azure};EndpointSuffix=core",
    _azure,
)
_npm = "npm_" + rep(ALNUM, 36)
sample("npm-token", f"//registry.npmjs.org/:_authToken {_npm}", _npm)
_pypi = "pypi-AgEIcHlwaS5vcmc" + rep(ALNUM, 60)
sample("pypi-token", f"twine upload -u __token__ {_pypi}", _pypi)
_docker = "dckr_pat_" + rep(ALNUM, 27)
sample("docker-hub-pat", f"docker login -u me --password-stdin <<< {_docker}", _docker)
_do = "dop_v1_" + rep(HEX, 64)
sample("digitalocean-token", f"doctl auth init -t {_do}", _do)
_shopify = "shpat_" + rep(HEX, 32)
_linear = "lin_api_" + rep(ALNUM, 40)
_dapi = "dapi" + rep(HEX, 32)
sample("databricks-token", f"databricks {_dapi}", _dapi)
_vault = "hvs." + rep(ALNUM, 90)
sample("vault-token", f"vault login {_vault}", _vault)
_jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJGQUtFLVVTRVIifQ." + rep(ALNUM + "-_", 43)
sample("jwt", f"cookie session={_jwt}; path=/", _jwt)
sample(
    "url-credentials",
    "DATABASE_URL: postgres://app_user:s3cr3t-Passw0rd@db.internal:5432/app",
    "s3cr3t-Passw0rd",
)
sample(
    "authorization-header",
    "curl -H 'Authorization: Basic ZmFrZXVzZXI6ZmFrZXBhc3N3b3Jk' https://api.example",
    "ZmFrZXVzZXI6ZmFrZXBhc3N3b3Jk",
)
sample(
    "bearer-token",
    "the client sent bearer " + rep(ALNUM, 30) + " in the request",
    rep(ALNUM, 30),
)
sample(
    "x-api-key-header",
    "curl -H 'X-Api-Key: " + rep(ALNUM, 32) + "' https://api.example",
    rep(ALNUM, 32),
)
sample("password-flag", "psql --password hunter2-FAKE --host db", "hunter2-FAKE")
sample("mysql-inline-password", "mysql -u root -pS3cretFAKE appdb", "S3cretFAKE")
sample("secret-assignment", "export DB_PASSWORD=correct-horse-FAKE", "correct-horse-FAKE")
sample("secret-assignment", "DB_PWD=correct-horse-FAKE ./run.sh", "correct-horse-FAKE")
sample("secret-assignment", "pwd: correct-horse-FAKE", "correct-horse-FAKE")

sample("cli-user-password", "curl -u admin:Adm1n-FAKE https://h", "Adm1n-FAKE")
sample("cli-password-arg", "sshpass -p Sshp4ss-FAKE ssh deploy@h", "Sshp4ss-FAKE")
sample(
    "cookie-header", "curl -H 'Cookie: sid=c00kie-FAKE-value' https://h", "sid=c00kie-FAKE-value"
)
sample("x-token-header", "curl -H 'X-Vault-Token: v4ult-FAKE-123' https://h", "v4ult-FAKE-123")
sample("netrc-password", "machine h login bob password n3trc-FAKE", "n3trc-FAKE")
sample("cli-secret-value", "gh secret set API_KEY --body gh-b0dy-FAKE", "gh-b0dy-FAKE")
sample("sql-password", "ALTER USER app WITH PASSWORD 'sq1-FAKE-pw';", "sq1-FAKE-pw")
sample("fish-set-secret", "set -gx GITHUB_TOKEN f1sh-FAKE-tok", "f1sh-FAKE-tok")
sample(
    "aws-configure-secret",
    "aws configure set aws_secret_access_key s3cr3t-FAKE-key",
    "s3cr3t-FAKE-key",
)
sample("prose-password", "the password is hunter22FAKE, use it", "hunter22FAKE,")
_ya29 = "ya29." + rep(ALNUM, 40)
sample("google-oauth-access-token", f"token {_ya29}", _ya29)
_whsec = "whsec_" + rep(ALNUM, 32)
sample("stripe-webhook-secret", f"STRIPE_WH={_whsec}", _whsec)
_sig = rep(ALNUM, 40) + "%3D"
sample("azure-sas-signature", f"https://a.blob.core.windows.net/c?sv=2020&sig={_sig}", _sig)


# Formats whose hand-written rule was dropped because gitleaks' generated rules
# catch the same secrets: old rule id -> (samples, the generated rules that
# now report them).  The samples are the ones the dropped rules were tested with.
LEFT_TO_GITLEAKS: dict[str, tuple[list[tuple[str, str]], set[str]]] = {
    "github-fine-grained-pat": ([(f"GH={_gh_fine}", _gh_fine)], {"github-fine-grained-pat"}),
    "twilio-key": ([(f"twilio api key sid {_twilio}", _twilio)], {"twilio-api-key"}),
    "shopify-token": (
        [
            (f"shopify {kind}{rep(HEX, 32)}", f"{kind}{rep(HEX, 32)}")
            for kind in ("shpat_", "shpca_", "shppa_", "shpss_")
        ],
        {
            "shopify-access-token",
            "shopify-custom-access-token",
            "shopify-private-app-access-token",
            "shopify-shared-secret",
        },
    ),
    "linear-api-key": ([(f"linear {_linear}", _linear)], {"linear-api-key"}),
}

# For every rule of core's extension (tools/secret_rules_extra.toml), a real
# token (or a real place of one) that gitleaks' rules alone miss or only partly
# redact: the reason the rule exists.  Defaults to the rule's sample.
WITNESSES: dict[str, tuple[str, str]] = {
    "private-key": (f"-----BEGIN OPENSSH PRIVATE KEY-----\n{_pem_body}", _pem_body),
    "github-pat": (f"token {_ghp}{rep(ALNUM, 8)}", _ghp + rep(ALNUM, 8)),
    "gitlab-pat": (f"token {_glpat}{rep(ALNUM, 6)}", _glpat + rep(ALNUM, 6)),
    "gitlab-runner-token": (f"token {_glrt}{rep(ALNUM, 6)}", _glrt + rep(ALNUM, 6)),
    "slack-token": (f"xoxs-{rep(ALNUM, 20)}", f"xoxs-{rep(ALNUM, 20)}"),
    "slack-webhook": (
        "https://hooks.slack.com/services/T0000/B0000/" + rep(ALNUM, 24),
        "T0000/B0000/" + rep(ALNUM, 24),
    ),
    "stripe-key": (f"STRIPE={_stripe},next", _stripe),
    "square-token": ("square sq0csp-" + rep(ALNUM, 30), "sq0csp-" + rep(ALNUM, 30)),
    "sendgrid-key": (f"{_sendgrid},next", _sendgrid),
    "anthropic-key": ("sk-ant-api04-" + rep(ALNUM, 90), "sk-ant-api04-" + rep(ALNUM, 90)),
    "google-api-key": (f"https://maps.example/api?key={_gapi}&v=3", _gapi),
    "npm-token": (f"NPM_TOKEN={_npm}|next", _npm),
    "pypi-token": (
        "twine upload -r testpypi " + "pypi-AgENdGVzdC5weXBpLm9yZw" + rep(ALNUM, 60),
        "pypi-AgENdGVzdC5weXBpLm9yZw" + rep(ALNUM, 60),
    ),
    "digitalocean-token": (f"use {_do}.", _do),
    "databricks-token": (f"use {_dapi}.", _dapi),
    "vault-token": ("vault login hvs." + rep(ALNUM, 30), "hvs." + rep(ALNUM, 30)),
    "jwt": (f"session={_jwt},next", _jwt),
    # a stopword of generic-api-key ("fake"; real keys hold "home", "java"...)
    "azure-storage-key": (f"AccountKey=FAKE/{_azure};EndpointSuffix=core", f"FAKE/{_azure}"),
}


def test_every_rule_has_a_sample() -> None:
    rule_ids = {rule for rule, _ in OWN_RULES}
    assert len(rule_ids) >= 30
    assert set(SAMPLES) == rule_ids


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_rule_finds_and_redacts_its_sample(rule: str) -> None:
    text, secret = SAMPLES[rule]
    matches = find_secrets(text)
    assert rule in {m.rule for m in matches}, matches
    out = redact(text)
    assert secret not in out
    assert REDACTED in out
    assert has_secret(text)
    # the secret's rule reports generic-ness correctly
    found = next(m for m in matches if m.rule == rule)
    assert found.generic is (rule in GENERIC_RULES)


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_every_match_contains_one_of_its_rules_hints(rule: str) -> None:
    """The per-rule hints are a pre-filter only: they never hide a match."""
    text, _ = SAMPLES[rule]
    for variant in (text, text.upper(), text.lower(), f'{{"cmd": "{text}"}}'):
        for name, pattern in OWN_RULES:
            for m in pattern.compiled.finditer(variant):
                assert pattern.possible(m.group(0)), (name, variant)


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_sample_is_found_inside_json_and_quotes(rule: str) -> None:
    import json

    text, secret = SAMPLES[rule]
    as_json = json.dumps({"tool_input": {"command": text}})
    assert secret not in json.dumps(json.loads(redact(as_json)))


@pytest.mark.parametrize("rule", sorted(SAMPLES))
def test_each_sample_is_found_escaped_twice_or_glued_to_an_escape(rule: str) -> None:
    """JSON in JSON, a repr'd dict, ``\\n`` glued to the token, ``]`` right after it."""
    import json

    text, secret = SAMPLES[rule]
    for wrapped in (
        json.dumps(json.dumps(text)),
        repr({"note": f"{text}\n{text}"}),
        f"log \\n{text}] end",
    ):
        out = redact(wrapped)
        assert secret not in out and json.dumps(secret)[1:-1] not in out, wrapped


def _gitleaks_only(text: str) -> list[tuple[int, int]]:
    """The spans gitleaks' rules alone (not core's extension) find in ``text``."""
    folded = fold(text)
    return [
        (m.start, m.end)
        for index in redact_mod._candidates(text, folded)
        if RULES[index][10] == "gitleaks"
        for m in redact_mod._generated_matches(index, text)
    ]


def _covered(spans: list[tuple[int, int]], text: str, secret: str) -> bool:
    start = text.index(secret)
    return any(a <= start and start + len(secret) <= b for a, b in spans)


def test_dropped_formats_are_not_hand_written_any_more() -> None:
    hand_written = {rule for rule, _ in OWN_RULES}
    assert not set(LEFT_TO_GITLEAKS) & hand_written
    assert not set(LEFT_TO_GITLEAKS) & set(SAMPLES)


@pytest.mark.parametrize(
    ("dropped", "text", "secret"),
    [(rule, t, s) for rule, (items, _) in LEFT_TO_GITLEAKS.items() for t, s in items],
)
def test_the_generated_rules_redact_the_samples_of_the_dropped_rules(
    dropped: str, text: str, secret: str
) -> None:
    import json

    _, reporters = LEFT_TO_GITLEAKS[dropped]
    for wrapped in (
        text,
        f"{text},next",
        f"?t={text}&a=1",
        f"use {text}.",
        f"<{text}>",
        json.dumps({"tool_input": {"command": text}}),
    ):
        assert _covered(_gitleaks_only(wrapped), wrapped, secret), wrapped
    assert {m.rule for m in find_secrets(text)} & reporters
    for wrapped in (
        json.dumps(json.dumps(text)),
        repr({"note": f"{text}\n{text}"}),
        f"log \\n{text}] end",
    ):
        out = redact(wrapped)
        assert secret not in out and json.dumps(secret)[1:-1] not in out, wrapped


def test_every_extra_rule_catches_a_token_the_generated_rules_miss() -> None:
    """An extension earns its place: drop it once gitleaks catches its witness."""
    extra = {rule for rule, _ in EXTENSION}
    assert set(WITNESSES) <= extra
    for rule in sorted(extra):
        text, secret = WITNESSES.get(rule) or SAMPLES[rule]
        assert not _covered(_gitleaks_only(text), text, secret), rule
        assert rule in {m.rule for m in find_secrets(text)}, rule
        assert secret not in redact(text), rule


def test_context_and_format_rules_live_apart() -> None:
    """Token formats in one generated table, core's extension first; context rules apart."""
    context = {rule for rule, _ in CONTEXT_RULES}
    formats = {rule for rule, _ in EXTENSION}
    assert len(formats) == len(EXTENSION) >= 30
    assert not context & formats
    assert context == GENERIC_RULES - {"generic-api-key"}
    assert redact_mod._RULES == CONTEXT_RULES
    origins = [rule[10] for rule in RULES]
    assert origins == ["core"] * len(EXTENSION) + ["gitleaks"] * (len(RULES) - len(EXTENSION))


def test_an_extension_rule_names_a_span_gitleaks_also_finds() -> None:
    """First in the table: on the same span the extension's id is reported, as before."""
    text, secret = SAMPLES["slack-token"]
    start = text.index(secret)
    assert (start, start + len(secret)) in _gitleaks_only(text)  # slack-bot-token's too
    assert [m.rule for m in find_secrets(text)] == ["slack-token"]


def test_generic_context_is_kept_readable() -> None:
    assert redact("export API_KEY=abcdef123456") == f"export API_KEY={REDACTED}"
    assert redact("Authorization: Bearer " + rep(ALNUM, 40)) == f"Authorization: Bearer {REDACTED}"
    assert redact("mysql -uroot -pS3cretFAKE db") == f"mysql -uroot -p{REDACTED} db"
    assert redact("--token=abcd1234efgh") == f"--token={REDACTED}"


def test_generic_vs_specific() -> None:
    specific = find_secrets("token " + _ghp)
    assert [m.generic for m in specific] == [False]
    generic = find_secrets("password: hunter2-FAKE-value")
    assert [(m.rule, m.generic) for m in generic] == [("secret-assignment", True)]
    generated = {rule[0] for rule in redact_mod.RULES}
    assert {rule for rule, _ in redact_mod._RULES} | generated >= GENERIC_RULES


def test_mixed_case_and_short_names_of_secret_assignments() -> None:
    for text in (
        "PassWord=hunter2abc",
        "pAsSwOrD=hunter2abc",
        "DB_PWD=hunter22x",
        "pwd=hunter22x",
        "smtp_pass: 'FAKEpass99'",
        'clientSecret = "s3cr3t-value"',
        "Credentials=abcdef0123",
    ):
        assert REDACTED in redact(text), text


def test_token_followed_by_underscore_is_still_found() -> None:
    assert redact(_ghp + "_backup") == REDACTED + "_backup"


def test_truncated_private_key_is_redacted_to_the_end() -> None:
    text = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA" + rep(ALNUM, 200)
    assert redact(text) == REDACTED


@pytest.mark.parametrize(
    "text",
    [
        "API_KEY=${API_KEY}",
        "password=changeme",
        "token=<your-token>",
        "--password xxxx",
        "--password ****",
        "DB_PASSWORD=your_password_here",
        "postgres://user:${PGPASS}@db/app",
        "password=********",
        "Authorization: Bearer $TOKEN",
        "SECRET_KEY=[REDACTED]",
        "api_key: None",
        "password = null",
        "token=$(cat ~/.token)",
    ],
)
def test_placeholders_are_not_redacted(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        "mkdir -p build/out && cp -r src build/out",
        "ssh -p 2222 deploy@host",
        "max_tokens=4096",
        "model.generate(max_tokens=4096, temperature=0.2)",
        "tokenizer=bert-base-uncased",
        "TOKEN_LIMIT=100000",
        "git log --oneline\n9fceb02d0ae598e95dc970b74767f19372d61af8 fix the parser",
        "commit 9fceb02d0ae598e95dc970b74767f19372d61af8\nAuthor: Dev <dev@example.com>",
        "request id 123e4567-e89b-12d3-a456-426614174000",
        "/home/dev/projects/auth/token_store.py",
        "src/secrets/README.md",
        "cat ~/.ssh/known_hosts",
        "passthrough=true",
        "secret_santa = true",
        "npm_config_cache=/tmp/npm",
        "hf_hub_download(repo_id='bert-base')",
        "Bearer token is required",
        "the key-value store",
        "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "http://localhost:8080/path@v2",
        "docker run -e PASSWORD postgres",
        "pytest -k 'test_password_reset'",
        # the shell's working directory, not a password: docker's -v spelling (rt88)
        "docker run --rm -v $(pwd):/usr/src aztec-keychain-builder",
        "docker run --rm -v $PWD:/workspace -w /workspace node:20 npm test",
        "docker run -v ${PWD}:/usr/src/app img",
        "echo $PASSWORD:appended-text",
        "",
    ],
)
def test_innocent_strings_are_untouched(text: str) -> None:
    assert redact(text) == text
    assert not has_secret(text)


def test_redact_obj_nested() -> None:
    value = {
        "tool_input": {
            "command": f"curl -H 'Authorization: Bearer {_ghp}' https://api.github.com",
            "env": [{"name": "OPENAI", "value": _openai}],
        },
        "password": "hunter2-FAKE",
        "apiKey": "plain-looking-value",
        "GITHUB_TOKEN": "plain-looking-value",
        "client_secret": "plain-looking-value",
        "db-password": "plain-looking-value",
        "Authorization": "Basic Zm9vOmJhcg==",
        "pin_password": 12345678,
        "password_placeholder": "",
        "token": "${TOKEN}",
        "max_tokens": 4096,
        "max_tokens_str": "4096",
        "tokenizer": "gpt2",
        "token_type": "bearer",
        "key": "ArrowUp",
        _ghp: "a secret used as a key",
        "count": 3,
        "flag": True,
        "nothing": None,
        "tuple": ("x", _npm),
    }
    out = redact_obj(value)
    assert isinstance(out, dict)
    text = repr(out)
    for secret in (_ghp, _openai, _npm, "hunter2-FAKE", "plain-looking-value", "Zm9vOmJhcg=="):
        assert secret not in text
    assert out["password"] == REDACTED
    assert out["pin_password"] == REDACTED
    assert out["password_placeholder"] == ""
    assert out["token"] == "${TOKEN}"
    assert out["max_tokens"] == 4096
    assert out["max_tokens_str"] == "4096"
    assert out["tokenizer"] == "gpt2"
    assert out["token_type"] == "bearer"
    assert out["key"] == "ArrowUp"
    assert out["count"] == 3 and out["flag"] is True and out["nothing"] is None
    assert out["tuple"] == ["x", REDACTED]
    assert REDACTED in out  # the secret key itself was redacted
    inner = out["tool_input"]
    assert isinstance(inner, dict)
    assert inner["command"] == f"curl -H 'Authorization: Bearer {REDACTED}' https://api.github.com"


def test_redact_obj_depth_limit() -> None:
    deep: object = "leaf"
    for _ in range(40):
        deep = [deep]
    out = redact_obj(deep)
    probe = out
    depth = 0
    while isinstance(probe, list):
        probe = probe[0]
        depth += 1
    assert probe == REDACTED
    assert depth <= 34


def test_matches_are_sorted_and_disjoint() -> None:
    # a netrc line ends its line
    inline = " ".join(t for r, (t, _) in SAMPLES.items() if r != "netrc-password")
    text = inline + "\n" + SAMPLES["netrc-password"][0]
    matches = find_secrets(text)
    for a, b in itertools.pairwise(matches):
        assert a.end <= b.start
    out = redact(text)
    for _, secret in SAMPLES.values():
        assert secret not in out


# ------------------------------------------------------------------ properties

# Tokens of fixed formats that must never survive, whatever surrounds them.
PLANTABLE = [
    SAMPLES[r][1]
    for r in (
        "aws-access-key-id",
        "github-pat",
        "gitlab-pat",
        "slack-token",
        "stripe-key",
        "anthropic-key",
        "openai-key",
        "huggingface-token",
        "google-api-key",
        "npm-token",
        "jwt",
        "digitalocean-token",
    )
] + [secret for items, _ in LEFT_TO_GITLEAKS.values() for _, secret in items]

_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=80) | st.sampled_from(
    [
        "password=",
        "Authorization: Bearer ",
        "export TOKEN=",
        "https://user:",
        "-----BEGIN RSA PRIVATE KEY-----\n",
        "mysql -p",
        '"api_key": "',
        "--token ",
        "[REDACTED]",
        "${X}",
    ]
)
_sep = st.sampled_from([" ", "\n", "\t", "'", '"', "=", ":", ",", ";", "(", ")", "<", ">", "/"])


@settings(max_examples=300, deadline=None, database=None)
@given(st.lists(_text, max_size=6).map("".join))
@example("PASSWORD=00000\\0]")  # hypothesis found: "[REDACTED]]" was read as a new value
@example("PASSWORD=00000\\0}0")  # and "[REDACTED]}0", the text's own scan taking it whole
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


@settings(max_examples=300, deadline=None, database=None)
@given(
    before=_text,
    after=_text,
    token=st.sampled_from(PLANTABLE),
    left=_sep,
    right=_sep,
)
def test_a_planted_token_never_survives(
    before: str, after: str, token: str, left: str, right: str
) -> None:
    text = before + left + token + right + after
    out = redact(text)
    assert token not in out
    assert redact(out) == out


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_random_text_round_trips_or_only_loses_spans(text: str) -> None:
    out = redact(text)
    if not find_secrets(text):
        assert out == text
    else:
        # everything outside the matches is preserved, in order
        pieces = re.split(re.escape(REDACTED), out)
        pos = 0
        for piece in pieces:
            found = text.find(piece, pos)
            assert found >= 0
            pos = found + len(piece)


@settings(max_examples=300, deadline=None, database=None)
@given(before=_text, after=_text, token=st.sampled_from(PLANTABLE), left=_sep, right=_sep)
def test_hints_never_hide_a_match_in_mixed_text(
    before: str, after: str, token: str, left: str, right: str
) -> None:
    text = before + left + token + right + after
    for name, pattern in OWN_RULES:
        for m in pattern.compiled.finditer(text):
            assert pattern.possible(m.group(0)), (name, text)


def test_turkish_i_spelling_does_not_hide_a_secret_name() -> None:
    for text in (
        "export DB_CREDENT\u0130ALS=hunter2-FAKE-value",
        "author\u0131zation: bearer " + rep(ALNUM, 30),
    ):
        assert REDACTED in redact(text), text


def test_no_rule_matches_text_shorter_than_the_early_exit() -> None:
    """find_secrets skips texts under SHORTEST_SECRET_TEXT: every rule needs at least that."""
    import re._parser as sre_parse  # the stdlib's own parser gives a pattern's width

    patterns = [p.pattern for _, p in redact_mod._RULES] + [rule[1] for rule in RULES]
    shortest = min(sre_parse.parse(p).getwidth()[0] for p in patterns)
    assert shortest >= redact_mod.SHORTEST_SECRET_TEXT


def test_no_hint_word_holds_a_closing_bracket() -> None:
    """The bracket-free view is scanned with the text's candidates: no hint word may hold one."""
    from agentreflex.core.redaction.secret_rules import EXACT_WORDS, FOLDED_WORDS

    own = [word for _, pattern in redact_mod._RULES for word in pattern.hints]
    words = own + [w for w, _ in FOLDED_WORDS] + [w for w, _ in EXACT_WORDS]
    assert not [w for w in words if set(w) & set("])} ")]


@pytest.mark.parametrize("closer", ["]", ")", "}"])
def test_a_secret_closed_by_a_bracket_is_found_with_no_backslash_in_the_text(
    closer: str,
) -> None:
    text = f"(token=ghp_{rep(ALNUM, 36)}{closer} and more"
    assert REDACTED in redact(text)
    assert "ghp_" not in redact(text)


def test_only_clean_short_texts_are_remembered() -> None:
    redact_mod._CLEAN.clear()
    secret = f"pwd={rep(ALNUM, 12)}"
    assert find_secrets("destructive category") == []
    assert find_secrets(secret)
    assert find_secrets(secret)  # found again: a secret is never remembered as clean
    assert "destructive category" in redact_mod._CLEAN
    assert secret not in redact_mod._CLEAN
    assert not [t for t in redact_mod._CLEAN if len(t) > redact_mod._CLEAN_MEMO_CHARS]


def test_the_clean_memo_stays_bounded() -> None:
    redact_mod._CLEAN.clear()
    for i in range(redact_mod._CLEAN_MEMO_SIZE + 10):
        find_secrets(f"plain words {i}")
    assert 0 < len(redact_mod._CLEAN) <= redact_mod._CLEAN_MEMO_SIZE


def test_two_secrets_one_delimiter_apart_are_both_found() -> None:
    """gitleaks' azure-ad-client-secret needs a delimiter before and consumes one after:
    the second line of a secrets file must not hide behind the first one's line break."""
    first, second = "aB34Q~" + rep(ALNUM, 32), "zY05Q~" + rep(ALNUM[::-1], 32)
    for text in (f"{first}\n{second}", f"{first} {second}", f"{first},{second}"):
        assert [m.rule for m in find_secrets(text)] == ["azure-ad-client-secret"] * 2, text
        assert first not in redact(text) and second not in redact(text)


@pytest.mark.parametrize("escape", ["\\0", "\\\\0", "\\u00e9", "\\x41"])
def test_an_escape_right_after_a_redaction_does_not_make_a_new_value(escape: str) -> None:
    """Found by test_redaction_is_idempotent: "PASSWORD=00000}\\0" once redacted ends in
    "[REDACTED]\\0", whose unescaped view "[REDACTED]0" looked like a new password."""
    once = redact(f"PASSWORD=00000}}{escape}")
    assert once == f"PASSWORD={REDACTED}{escape}"
    assert redact(once) == once


_ENCODED_TOKEN = "ghp_" + rep(ALNUM, 36)


def _b64(text: str) -> str:
    import base64

    return base64.b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "text",
    [
        f"echo {_b64(_ENCODED_TOKEN)} | base64 -d",  # base64
        f"TOKEN_B64={_b64(_ENCODED_TOKEN).rstrip('=')}",  # unpadded, after a NAME=
        _b64(_b64("user:" + _ENCODED_TOKEN)),  # twice (a docker config's auth)
        _ENCODED_TOKEN.encode().hex(),  # xxd -p
        "".join(f"\\x{b:02x}" for b in _ENCODED_TOKEN.encode()),  # printf's escapes
        "".join(f"\\\\x{b:02x}" for b in _ENCODED_TOKEN.encode()),  # the same through repr
        "curl -d token%3D" + _ENCODED_TOKEN.replace("_", "%5F"),  # percent escapes
    ],
)
def test_a_secret_under_a_reversible_encoding_is_redacted(text: str) -> None:
    """gitleaks decodes before it scans (https://github.com/gitleaks/gitleaks#decoding):
    an encoded token is the token to anyone who decodes it, so no spelling survives."""
    out = redact(text)
    assert REDACTED in out
    for spelling in (
        _ENCODED_TOKEN,
        _b64(_ENCODED_TOKEN).rstrip("="),
        _ENCODED_TOKEN.encode().hex(),
    ):
        assert spelling[8:40] not in out
    assert redact(out) == out


@pytest.mark.parametrize(
    "text",
    [
        "3f786850e387550fdab836ed7e6dc881de23001b",  # a git SHA is hex of no text
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUR/Lk+Q==",
        _b64("the build passed; token refresh works"),  # base64 of text without a secret
        "how%20to%20rotate%20a%20token%3F",
        "550e8400-e29b-41d4-a716-446655440000",
    ],
)
def test_encoded_text_without_a_secret_is_untouched(text: str) -> None:
    assert redact(text) == text


@pytest.mark.parametrize(
    "text",
    [
        f'TOKEN="{_ENCODED_TOKEN[:20]}"\\\n"{_ENCODED_TOKEN[20:]}"',  # shell continuation
        f"export T={_ENCODED_TOKEN[:18]}\\\n{_ENCODED_TOKEN[18:]}",  # inside a word
        f'key = "{_ENCODED_TOKEN[:24]}" + "{_ENCODED_TOKEN[24:]}"',  # concatenation
        f'KEY = ("{_ENCODED_TOKEN[:20]}"\n       "{_ENCODED_TOKEN[20:]}")',  # adjacent literals
    ],
)
def test_a_secret_split_across_literals_or_lines_is_redacted(text: str) -> None:
    """Each half alone matches no format; the program that runs the text joins them."""
    for view in (text, __import__("json").dumps(text)):
        out = redact(view)
        assert _ENCODED_TOKEN[:12] not in out and _ENCODED_TOKEN[-12:] not in out, out
        assert redact(out) == out


@pytest.mark.parametrize(
    "text",
    [
        'print("hello " + name + " world")',
        "docker run \\\n  -e LOG_LEVEL=debug \\\n  -p 8080:8080 app",
        'msg = ("the build passed "\n       "and the token was refreshed")',
    ],
)
def test_split_literals_without_a_secret_are_untouched(text: str) -> None:
    assert redact(text) == text


def test_a_bounded_head_keeps_no_piece_of_a_cut_token() -> None:
    """redact_head: what a cut divides is dropped, even where tokens redacted before
    the cut (each 40 characters made 10) pull it into the kept part."""
    from agentreflex.core.redaction.redact import redact_head

    many = " ".join("ghs_" + rep(ALNUM, 36) for _ in range(40))
    for lead in ("", many + " "):
        for pad in range(0, 1700, 97):
            text = lead + "x" * pad + " ghp_" + rep(ALNUM, 36) + " tail" * 400
            for limit in (50, 200, 400, 600):
                out = redact_head(text, limit)
                assert len(out) <= limit
                assert "ghs_" not in out and "ghp_" not in out, (pad, limit, out)
    assert redact_head("short ghp_" + rep(ALNUM, 36), 600) == "short [REDACTED]"


@pytest.mark.parametrize("size", [1000, 4096, 65536])
def test_text_redacted_in_pieces_loses_what_straddles_them(size: int) -> None:
    """redact_chunks: a token cut by a piece's edge, and a private key whose BEGIN line
    ends a piece, are found whole; the pieces join to what redact gives the whole."""
    from agentreflex.core.redaction.redact import redact_chunks

    key = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join([rep(ALNUM, 64)] * 30)
    key += "\n-----END RSA PRIVATE KEY-----\n"
    text = ("log line ok\n" * 900) + "x" * 77 + _ENCODED_TOKEN + "\n" + key + ("done\n" * 900)
    for start in range(0, size, max(1, size // 7)):
        pieces = [text[:start]] + [text[i : i + size] for i in range(start, len(text), size)]
        out = "".join(redact_chunks(pieces))
        assert out == redact(text)
        assert _ENCODED_TOKEN[4:14] not in out and rep(ALNUM, 64) not in out


_STRIPE_KEY = "sk_live_51" + rep(ALNUM, 40)
_ARGVS = [
    (["mysql", "-uroot", "-pS3cretPw9FAKE", "app"], "S3cretPw9FAKE"),
    (["curl", "-u", "admin:S3cretPw9FAKE", "https://h"], "S3cretPw9FAKE"),
    (["tool", "--password", "S3cretPw9FAKE"], "S3cretPw9FAKE"),
    (["sshpass", "-p", "S3cretPw9FAKE", "ssh", "deploy@h"], "S3cretPw9FAKE"),
    (["docker", "login", "-u", "me", "-p", "S3cretPw9FAKE"], "S3cretPw9FAKE"),
    # a token split across two items (a concatenation's halves, split on spaces)
    # (the first half alone is a stripe key already: its placeholder must not hide the rest)
    (["KEY", "=", f'("{_STRIPE_KEY[:24]}"\n', f'"{_STRIPE_KEY[24:]}")'], _STRIPE_KEY[24:]),
]


@pytest.mark.parametrize(("argv", "secret"), _ARGVS)
def test_a_secret_in_an_argv_list_is_redacted(argv: list[str], secret: str) -> None:
    """A tool's argv list (an MCP tool's args, an exec call's command) holds the password
    in an item of its own, beside the flag that says so in the one before: read as the
    command line it is, as a value, in its repr and as a JSON array."""
    import json

    out = redact_obj({"args": argv})
    assert isinstance(out, dict) and secret not in str(out) and len(out["args"]) == len(argv)
    for text in (str(argv), json.dumps(argv), json.dumps({"args": argv})):
        assert secret not in redact(text), text


@pytest.mark.parametrize(
    "argv",
    [
        ["git", "log", "--oneline", "3f786850e387550fdab836ed7e6dc881de23001b"],
        ["npm", "install", "--save-dev", "typescript@5.3.3"],
        ["docker", "run", "-u", "1000:1000", "-p", "8080:8080", "app"],
        ["the", "token", "was", "refreshed"],
    ],
)
def test_an_argv_list_without_a_secret_is_untouched(argv: list[str]) -> None:
    import json

    assert redact_obj({"args": argv}) == {"args": argv}
    assert redact(str(argv)) == str(argv) and redact(json.dumps(argv)) == json.dumps(argv)


@pytest.mark.parametrize(
    "text",
    [
        # the token's own word (ghp_) only in the joined view, and in a longer text whose
        # other joins make no word, so the view's words are looked up near its seams only
        'x = 1\nTOKEN = "gh" "p_' + rep(ALNUM, 36)[:12] + '"\\\n  "' + rep(ALNUM, 36)[12:] + '"\n',
        "print('a', 'b')\n" * 20 + 'TOKEN = "gh" "p_' + rep(ALNUM, 36) + '"\n',
        # a URL's credentials whose :// only the unescaped view holds (JSON's \/), among
        # escaped line breaks and quotes that make none
        '{"out": "line\\n\\"q\\"\\nDATABASE_URL=postgres:\\/\\/app:s3cr3t-Passw0rd@db:5432\\/app\\n"}',
    ],
)
def test_a_word_only_a_view_holds_still_finds_its_rule(text: str) -> None:
    """A view's rules are looked up from its text's and the words around its seams: a
    secret whose rule's word exists only across a seam is still found."""
    out = redact(text)
    assert "p_" + rep(ALNUM, 36)[:12] not in out.replace('" "', "") and "s3cr3t" not in out, out
