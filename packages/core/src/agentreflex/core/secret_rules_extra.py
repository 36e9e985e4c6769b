"""Provider token formats that gitleaks' generated rules miss: the extension of ``secret_rules``.

Why: ``secret_rules`` (generated from gitleaks' maintained configuration) is
the rule set; a format is written here only where gitleaks has no rule for
it, or where its rule misses real tokens this one catches.  The comment
above each rule says which.  A format gitleaks covers fully is not repeated
here (``tests/test_redact.py`` proves the generated rules still redact the
samples of the rules that were dropped for that reason).

``agentreflex.core.redact`` runs these with the context rules
(``secret_rules_context``) and the generated rules in one pass.  Hints as
everywhere: a rule runs only when one of its words occurs in the text, and
every match holds one (``tests/test_pattern_hints.py``).  When a pattern has
a named group ``s`` only that group is the secret.
"""

from __future__ import annotations

from agentreflex.core.lazyre import LazyPattern

# (rule id, pattern with hints); the id is what a finding reports.
EXTRA_RULES: tuple[tuple[str, LazyPattern], ...] = (
    # gitleaks' private-key needs 64+ characters of body and the END line; a key cut off before
    # its END line (a truncated log or excerpt) is redacted here to the end of the text.
    (
        "private-key",
        LazyPattern(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            hints="PRIVATE",
        ),
    ),
    # gitleaks' aws-access-token allows only base32 ([A-Z2-7]) after the prefix and skips ids
    # ending in EXAMPLE; this one also takes the digits 0, 1, 8, 9 and documentation-style ids.
    (
        "aws-access-key-id",
        LazyPattern(
            r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])",
            hints="AKIA ASIA ABIA ACCA A3T",
        ),
    ),
    # gitleaks has no rule for the secret access key by its name (generic-api-key needs a digit
    # and an entropy floor).
    (
        "aws-secret-access-key",
        LazyPattern(
            r"(?i)aws_?secret_?access_?key\\?[\"']?\s*[:=]\s*\\?[\"']?(?P<s>[A-Za-z0-9/+=]{40})",
            hints="secret",
        ),
    ),
    # gitleaks' github-pat, -oauth, -refresh-token and -app-token want exactly 36 characters
    # (ghu_/ghs_ only after a keyword); a longer token would keep its tail, so this takes 20 to
    # 255, whole.
    (
        "github-pat",
        LazyPattern(
            r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{20,255}(?![A-Za-z0-9])",
            hints="gh",
        ),
    ),
    # gitleaks' gitlab-pat takes exactly 20 characters (its routable variant needs the .xx.xxxxxxx
    # suffix): a longer glpat- token would keep its tail.
    (
        "gitlab-pat",
        LazyPattern(r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9])", hints="glpat-"),
    ),
    # gitleaks' gitlab-runner-authentication-token takes exactly 20 characters: a longer glrt-
    # token would keep its tail.
    (
        "gitlab-runner-token",
        LazyPattern(r"(?<![A-Za-z0-9])glrt-[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9])", hints="glrt-"),
    ),
    # gitleaks has no ATBB rule (its bitbucket rules need the word bitbucket before a 32- or
    # 64-character value).
    (
        "bitbucket-app-password",
        LazyPattern(r"(?<![A-Za-z0-9])ATBB[A-Za-z0-9_\-=]{32,}(?![A-Za-z0-9])", hints="ATBB"),
    ),
    # gitleaks' slack rules each want one documented shape (xoxb-<digits>-..., xoxs-/xoxo- with
    # four hex groups, xoxp- with three digit groups); this takes any xox[abposr]- token of 10+
    # characters.
    (
        "slack-token",
        LazyPattern(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9-]{10,}(?![A-Za-z0-9])", hints="xox"),
    ),
    # gitleaks' slack-webhook-url wants a path of 43 to 56 characters: a shorter one is missed and
    # a longer one keeps its tail.
    (
        "slack-webhook",
        LazyPattern(
            r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9+/]{20,}",
            hints="hooks.slack.com",
        ),
    ),
    # gitleaks has no Discord webhook URL rule (its discord rules need the word discord before a
    # hex or digit value).
    (
        "discord-webhook",
        LazyPattern(
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]{30,}",
            hints="discord",
        ),
    ),
    # gitleaks' telegram-bot-api-token needs the word telegr before the token; a bare token
    # (Bot('...'), /bot<token>/) is missed.
    (
        "telegram-bot-token",
        LazyPattern(
            r"(?:(?<![A-Za-z0-9])|(?<=bot))\d{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9])",
            hints=":AA",
        ),
    ),
    # gitleaks has no rule for ya29. OAuth access tokens.
    (
        "google-oauth-access-token",
        LazyPattern(r"(?<![A-Za-z0-9])ya29\.[A-Za-z0-9_\-]{20,}", hints="ya29."),
    ),
    # gitleaks has no rule for Stripe whsec_ webhook signing secrets.
    (
        "stripe-webhook-secret",
        LazyPattern(r"(?<![A-Za-z0-9])whsec_[A-Za-z0-9+/=]{24,}", hints="whsec_"),
    ),
    # gitleaks has no rule for the sig= of an Azure shared access signature URL.
    (
        "azure-sas-signature",
        LazyPattern(r"[?&;]sig=(?P<s>[A-Za-z0-9%+/=]{20,})", hints="sig="),
    ),
    # gitleaks' stripe-access-token must be followed by a quote, a space, ; or the end: a key
    # before , . & | < > / : # (a URL query, a sentence, a pipe) is missed.
    (
        "stripe-key",
        LazyPattern(
            r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}(?![A-Za-z0-9])",
            hints="live test",
        ),
    ),
    # gitleaks' square-access-token covers sq0atp- only (and the same narrow ending as stripe-
    # key); sq0csp- client secrets are missed.
    (
        "square-token",
        LazyPattern(
            r"(?<![A-Za-z0-9])sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,}(?![A-Za-z0-9])", hints="sq0"
        ),
    ),
    # gitleaks has no rule for Braintree access tokens.
    (
        "paypal-braintree-token",
        LazyPattern(
            r"(?<![A-Za-z0-9])access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}(?![A-Za-z0-9])",
            hints="access_token$",
        ),
    ),
    # gitleaks' sendgrid-api-token must be followed by a quote, a space, ; or the end (a key
    # before , . & | < > / : # is missed).
    (
        "sendgrid-key",
        LazyPattern(
            r"(?<![A-Za-z0-9])SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}(?![A-Za-z0-9])",
            hints="SG.",
        ),
    ),
    # gitleaks' mailgun-private-api-token needs the word mailgun before the key; a bare key- value
    # is missed.
    ("mailgun-key", LazyPattern(r"(?<![A-Za-z0-9])key-[0-9a-f]{32}(?![A-Za-z0-9])", hints="key-")),
    # gitleaks' anthropic rules want exactly api03/admin01 with 93 characters and AA; other key
    # versions and lengths are missed.
    (
        "anthropic-key",
        LazyPattern(
            r"(?<![A-Za-z0-9])sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_\-]{80,}(?![A-Za-z0-9])",
            hints="sk-ant-",
        ),
    ),
    # gitleaks' openai-api-key wants exact lengths (58 or 74 around T3BlbkFJ, or 20 for legacy
    # keys) and the narrow ending of stripe-key.
    (
        "openai-key",
        LazyPattern(
            r"(?<![A-Za-z0-9])sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}T3BlbkFJ[A-Za-z0-9_\-]{20,}(?![A-Za-z0-9])",
            hints="T3BlbkFJ",
        ),
    ),
    # gitleaks has no rule for sk-proj-/sk-svcacct-/sk-admin- keys without the T3BlbkFJ marker.
    (
        "openai-project-key",
        LazyPattern(
            r"(?<![A-Za-z0-9])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}(?![A-Za-z0-9])",
            hints="sk-",
        ),
    ),
    # gitleaks has no OpenRouter rule.
    (
        "openrouter-key",
        LazyPattern(r"(?<![A-Za-z0-9])sk-or-v1-[a-f0-9]{64}(?![A-Za-z0-9])", hints="sk-or-v1-"),
    ),
    # gitleaks has no Groq rule.
    ("groq-key", LazyPattern(r"(?<![A-Za-z0-9])gsk_[A-Za-z0-9]{48,}(?![A-Za-z0-9])", hints="gsk_")),
    # gitleaks' huggingface-access-token takes exactly 34 letters (no digit) and the narrow ending
    # of stripe-key.
    (
        "huggingface-token",
        LazyPattern(r"(?<![A-Za-z0-9])hf_[A-Za-z0-9]{34,}(?![A-Za-z0-9])", hints="hf_"),
    ),
    # gitleaks' gcp-api-key must be followed by a quote, a space, ; or the end: a key in a URL
    # query (?key=AIza...&) or before , . | is missed.
    (
        "google-api-key",
        LazyPattern(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9])", hints="AIza"),
    ),
    # gitleaks has no rule for GOCSPX- OAuth client secrets.
    (
        "google-oauth-secret",
        LazyPattern(r"(?<![A-Za-z0-9])GOCSPX-[A-Za-z0-9_\-]{28}(?![A-Za-z0-9])", hints="GOCSPX-"),
    ),
    # gitleaks has no rule for a service account's private_key_id.
    (
        "gcp-service-account-key",
        LazyPattern(
            r"\"private_key_id\\?\"\s*:\s*\\?\"(?P<s>[a-f0-9]{40})\\?\"", hints="private_key_id"
        ),
    ),
    # gitleaks has no AccountKey= rule.  Its generic-api-key catches most keys, but drops a
    # value holding one of its 1,446 stopwords (about one real key in twenty holds one:
    # `home`, `java`...) or followed by `&`, and reports a generic finding.
    (
        "azure-storage-key",
        LazyPattern(r"(?i)AccountKey=(?P<s>[A-Za-z0-9+/=]{80,100})", hints="accountkey="),
    ),
    # gitleaks' npm-access-token must be followed by a quote, a space, ; or the end (a token
    # before , . & | < > / : # is missed).
    ("npm-token", LazyPattern(r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", hints="npm_")),
    # gitleaks' pypi-upload-token needs the whole pypi.org macaroon prefix (pypi-AgEIcHlwaS5vcmc);
    # tokens of other indexes (test.pypi.org) are missed.
    (
        "pypi-token",
        LazyPattern(
            r"(?<![A-Za-z0-9])pypi-AgE[A-Za-z0-9_\-]{50,}(?![A-Za-z0-9])", hints="pypi-AgE"
        ),
    ),
    # gitleaks has no Docker Hub dckr_pat_ rule.
    (
        "docker-hub-pat",
        LazyPattern(
            r"(?<![A-Za-z0-9])dckr_pat_[A-Za-z0-9_\-]{27,}(?![A-Za-z0-9])", hints="dckr_pat_"
        ),
    ),
    # gitleaks' digitalocean rules must be followed by a quote, a space, ; or the end (a token
    # before , . & | < > / : # is missed).
    (
        "digitalocean-token",
        LazyPattern(
            r"(?<![A-Za-z0-9])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])",
            hints="_v1_",
        ),
    ),
    # gitleaks' databricks-api-token must be followed by a quote, a space, ; or the end (a token
    # before , . & | < > / : # is missed).
    (
        "databricks-token",
        LazyPattern(r"(?<![A-Za-z0-9])dapi[a-f0-9]{32}(?:-\d)?(?![A-Za-z0-9])", hints="dapi"),
    ),
    # gitleaks' vault rules want 90-120 (hvs.) or 138-300 (hvb.) characters and an entropy floor;
    # shorter tokens are missed.
    (
        "vault-token",
        LazyPattern(r"(?<![A-Za-z0-9])hv[sb]\.[A-Za-z0-9_\-]{24,}(?![A-Za-z0-9])", hints="hv"),
    ),
    # gitleaks' jwt wants 17+ characters in the header part without - or _, and the narrow ending
    # of stripe-key.
    (
        "jwt",
        LazyPattern(
            r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
            hints="eyJ",
        ),
    ),
)
