"""Secret exposure: secret files read into the transcript or a network sink,
credentials sent out, real secrets written into files or typed on command lines.

Secret *literals* are found by :func:`agentreflex.gate.rules.literals.find_secrets`
(core's redaction rules, so the gate and the log redactor agree on what a
secret is).
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import SECRET, UNKNOWN, Cmd, Hit, OtherFd, has_marker
from agentreflex.gate.rules.literals import find_secrets
from agentreflex.gate.shell.paths import Where, classify, is_secret_file, real_file
from agentreflex.gate.shell.wrappers import peel

__all__ = [
    "dumps_environment",
    "env_file_dumped",
    "find_secrets",
    "line_loop",
    "loaded_env",
    "network_fed",
    "option_values",
    "secret_printer",
    "shell_hits",
    "shown_through_pipes",
    "stored_through_pipes",
    "summarises",
    "written_secret",
]

P_SECRET = 0.9

_READERS = frozenset(
    {
        "cat",
        "less",
        "more",
        "head",
        "tail",
        "bat",
        "batcat",
        "nl",
        "tac",
        "strings",
        "xxd",
        "od",
        "hexdump",
        "base64",
        "grep",
        "rg",
        "ag",
        "awk",
        "gawk",
        "sed",
        "jq",
        "yq",
        "cut",
        "sort",
        "uniq",
        "column",
        "fold",
        "pr",
        "diff",
        "cmp",
        "view",
        "type",
        "Get-Content",
        "gpg",
        "openssl",
        "ssh-keygen",
        "pbcopy",
        "xclip",
        "wl-copy",
        "zcat",
        "tee",
        "cp",
        "git",
        "tar",
        "zip",
        "7z",
        "gzip",
    }
)
_NETWORK = frozenset(
    {
        "curl",
        "wget",
        "nc",
        "ncat",
        "netcat",
        "socat",
        "telnet",
        "ssh",
        "scp",
        "sftp",
        "rsync",
        "ftp",
        "http",
        "https",
        "xh",
        "aws",
        "gsutil",
        "rclone",
        "openssl",
        "mail",
        "sendmail",
        "nslookup",
        "dig",
        "host",
    }
)
_ENV_DUMPERS = frozenset({"env", "printenv", "set", "export", "declare"})
_SECRET_VAR = LazyPattern(
    r"(KEY|TOKEN|SECRET|PASSW|PASSWD|CREDENTIAL|PRIVATE|AUTH|SESSION)", re.IGNORECASE
)
_DATA_FLAGS = (
    "-d",
    "--data",
    "--data-raw",
    "--data-binary",
    "--data-urlencode",
    "--data-ascii",
    "--json",
    "--url-query",
    "-F",
    "--form",
    "-T",
    "--upload-file",
    "--post-data",
    "--post-file",
    "--body-data",
    "--body-file",
)


def _hit(rule: str, cmd_text: str, message: str, p: float = P_SECRET) -> Hit:
    return Hit(rule, SECRET, p, cmd_text, message)


def _secret(path: str, where: Where, cwd: str) -> str:
    """``path`` as a message names it when it is a credential file, else ``""``.

    Known by its name, or by the file a symlink there leads to now (``ln -s
    ~/.ssh/id_rsa notes.txt`` made earlier).
    """
    if is_secret_file(classify(path, where, cwd)[1]):
        return path
    real = real_file(path, where, cwd)
    return f"{real} through {path}" if is_secret_file(real) else ""


def shell_hits(
    cmd: Cmd,
    where: Where,
    net_fed: set[int],
    shown: set[int] | None = None,
    into_store: set[int] | None = None,
) -> list[Hit]:
    """Secret files read, environment dumped, credentials sent to the network; ``shown``
    holds the commands whose output reaches the transcript through a pipe of filters,
    ``into_store`` those whose output goes into a secret store instead
    (:func:`stored_through_pipes`)."""
    hits: list[Hit] = []
    name = cmd.name
    printed_out = not cmd.pipes_out or (shown is not None and id(cmd) in shown)
    named = [*_file_args(cmd), *_filter_picks(cmd), *(t for op, t in cmd.redirects if op == "<")]
    secret_files = [found for a in named if (found := _secret(a, where, cmd.cwd))]
    feeds_network = id(cmd) in net_fed
    if name.startswith("python") and "http.server" in cmd.args:
        served = _served_folder(cmd, where)
        if served:
            hits.append(
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This serves {served} (credentials) over HTTP: http.server listens on "
                    "every interface, so anyone who can reach this machine can download "
                    "them. Serve only the folder you mean to share (a build output), bound "
                    "to 127.0.0.1 (--bind 127.0.0.1).",
                )
            )
            return hits
    if name in _TRANSFER_CLIENTS:
        put = _put_in_script(cmd, where)
        if put:
            hits.append(
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This uploads {put} (a credential) to another machine with {name}'s "
                    "put. Never copy credentials off the machine; ask the user.",
                )
            )
            return hits
    if name in _STORES:
        stored = _stored_off(cmd, where)
        if stored:
            folder, _, held = stored.partition(", which holds ")
            what = (
                f"{folder}, and {held} in it (a credential),"
                if held
                else f"{stored} (a credential)"
            )
            instead = (
                "Upload only what you mean to publish (the build output), or leave it out "
                f"({_LEAVE_OUT.get(name, '--exclude {}').format(held)}). "
                if held
                else ""
            )
            hits.append(
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This uploads {what} to {_STORES[name]}, where it "
                    "outlives the session and is readable by whoever can read that place. "
                    f"{instead}Give a service its credentials through its secret store "
                    "(gh secret set, aws secretsmanager, gcloud secrets), or ask the user.",
                )
            )
            return hits
    if name in _NETWORK:
        hits.extend(_network(cmd, where, secret_files))
    elif (
        secret_files
        and (name in _READERS or line_loop(cmd) or _xargs_echoes(cmd))
        and name not in ("source", ".")
    ):
        if (
            name in ("cp", "git", "tee", "tar", "zip", "7z", "gzip", "ssh-keygen")
            or _imports_key(cmd)
        ) and not feeds_network:
            return hits
        if feeds_network:
            hits.append(
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    "This sends a credential file to the network. Never send secrets "
                    "off the machine.",
                )
            )
        elif (
            not _to_file(cmd)
            and not _says_only_whether(cmd)
            and (into_store is None or id(cmd) not in into_store)
        ):
            hits.append(
                _hit(
                    "GATE-SECRET-READ",
                    cmd.text,
                    f"This prints {secret_files[0]} (a credential) into the transcript. "
                    "Ask the user for the value you need, or read the matching "
                    ".example file.",
                )
            )
    printed = secret_printer(cmd) or secret_fetcher(cmd)
    if printed and feeds_network:
        hits.append(
            _hit(
                "GATE-EXFIL-SECRET",
                cmd.text,
                f"This sends {printed} to the network. Never send secrets off the machine.",
            )
        )
    elif printed and printed_out and not _to_file(cmd) and cmd.via != "substitution":
        hits.append(
            _hit(
                "GATE-SECRET-PRINT",
                cmd.text,
                f"This prints {printed} into the transcript. Pass it straight to the tool "
                'that needs it (a pipe or "$(...)"), or check it is set without showing it.',
            )
        )
    if name in _ENV_DUMPERS and not cmd.args and feeds_network:
        hits.append(
            _hit(
                "GATE-EXFIL-SECRET",
                cmd.text,
                "This sends the environment (which holds credentials) to the network.",
            )
        )
    if _prints_variables(cmd) and printed_out and not _to_file(cmd):
        secret_vars = [v for v in cmd.vars_used if _SECRET_VAR.search(v)]
        if name == "printenv" or name in _LISTERS:
            secret_vars += [a for a in cmd.args if _SECRET_VAR.search(a)]
        if secret_vars:
            hits.append(
                _hit(
                    "GATE-SECRET-ENV-PRINT",
                    cmd.text,
                    f"This prints ${secret_vars[0]} into the transcript. Check that it "
                    'is set with `test -n "$VAR"` instead.',
                )
            )
    return hits


def _xargs_echoes(cmd: Cmd) -> bool:
    """``xargs < .env``: xargs hands what it reads to echo, its default command, or to
    the echo or printf it names, which print it (red-team rt93)."""
    if cmd.name != "xargs":
        return False
    command = next((a for a in cmd.args if not a.startswith("-")), "")
    return command in ("", "echo", "printf")


def _prints_variables(cmd: Cmd) -> bool:
    """Whether ``cmd`` prints the values of the variables it uses or names: echo,
    printf, printenv, ``declare -p NAME`` (and typeset, export, readonly, local), or a
    filter printing its own here-string or heredoc (``cat <<< "$TOKEN"``, red-team rt93)."""
    if cmd.name in ("echo", "printf", "printenv"):
        return True
    if cmd.name in _LISTERS:
        return "-p" in cmd.args or (cmd.name == "set" and not cmd.args)
    return cmd.stdin_text is not None and cmd.name in _PASS_ON and not _quiet(cmd)


_GPG_PRINTS = ("-d", "--decrypt", "--export", "--export-secret", "--show-keys", "--list-packets")


def _imports_key(cmd: Cmd) -> bool:
    """``gpg --import KEYFILE``: the key goes into the keyring and gpg prints only its
    id; a print of it (``--decrypt``, ``--export-secret-keys``) in the same call still
    counts."""
    if cmd.name not in ("gpg", "gpg2") or "--import" not in cmd.args:
        return False
    return not any(a.startswith(_GPG_PRINTS) for a in cmd.args if a != "--import")


# the options of `security find-*-password` that take a value (its man page): a cluster
# ends at one (-wa github is -w -a github; -aw is -a w)
_KEYCHAIN_VALUED = frozenset("ascCDGjlrtk")
# npm settings that hold a credential (npm-config: _authToken, _auth, _password)
_NPM_CREDENTIAL = LazyPattern(r"(?:^|:)_(?:authToken|auth|password)$", hints="_")


def _keychain_shows(args: list[str]) -> bool:
    """Whether ``security find-*-password`` prints the password (``-w``, ``-g``), in any
    getopt spelling."""
    for a in args:
        if not a.startswith("-") or a.startswith("--"):
            continue
        for ch in a[1:]:
            if ch in "wg":
                return True
            if ch in _KEYCHAIN_VALUED:
                break
    return False


def secret_printer(cmd: Cmd) -> str:
    """What credential a command prints to stdout (``""`` when none).

    Tools whose purpose is to reveal a stored secret: private key exports,
    credential getters, token printers.
    """
    name, args = cmd.name, cmd.args
    words = [a for a in args if not a.startswith("-")]
    if name in ("gpg", "gpg2") and any(
        a.startswith(("--export-secret-keys", "--export-secret-subkeys")) for a in args
    ):
        return "a private GPG key"
    if (
        name == "aws"
        and words[:2] == ["configure", "get"]
        and any(_SECRET_VAR.search(w) for w in words[2:])
    ):
        return "an AWS credential"
    if name == "aws" and words[:2] == ["configure", "export-credentials"]:
        return "AWS credentials"
    keychain = ("find-generic-password", "find-internet-password")
    if name == "security" and words[:1] and words[0] in keychain and _keychain_shows(args):
        return "a keychain password"
    if (
        name == "npm"
        and words[:2] == ["config", "get"]
        and any(_NPM_CREDENTIAL.search(w) for w in words[2:])
    ):
        return "the npm registry token"
    if name == "gh" and words[:2] == ["auth", "token"]:
        return "the GitHub token"
    if (
        name == "gh"
        and words[:2] == ["auth", "status"]
        and any(a in ("-t", "--show-token") for a in args)
    ):
        return "the GitHub token"
    if (
        name == "gcloud"
        and "auth" in words[:2]
        and any(w in ("print-access-token", "print-identity-token") for w in words)
    ):
        return "a Google Cloud access token"
    if name == "az" and words[:2] == ["account", "get-access-token"]:
        return "an Azure access token"
    issued = _issued_credential(name, words, args)
    if issued:
        return issued
    if name == "heroku" and words[:1] == ["auth:token"]:
        return "the Heroku token"
    if (
        name in ("terraform", "tofu", "terragrunt")
        and words[:1] == ["output"]
        and any(_SECRET_VAR.search(w) for w in words[1:2])
        and any(a.startswith(("-raw", "-json", "--raw", "--json")) for a in args)
    ):
        return f"the Terraform output {words[1]}, a credential (-raw/-json show sensitive ones)"
    # the credential helpers' protocol: `git credential fill` answers password=...,
    # a helper's `get` (git credential-store get, docker-credential-desktop get) the same
    helper = name.startswith(("git-credential-", "docker-credential-")) and words[:1] == ["get"]
    if name == "git" and "credential" in words:
        helper = words[words.index("credential") + 1 : words.index("credential") + 2] == ["fill"]
    elif name == "git":
        helper = any(
            w.startswith("credential-") and words[k + 1 : k + 2] == ["get"]
            for k, w in enumerate(words)
        )
    if helper:
        return "a stored git or registry password"
    if (
        name in ("kubectl", "oc")
        and words[:2] == ["config", "view"]
        and any(
            a in ("--raw", "--flatten") or a.startswith(("--raw=t", "--flatten=t")) for a in args
        )
    ):
        return "the kubeconfig's credentials (--raw and --flatten show them unredacted)"
    secrets = words[:2] in (["get", "secret"], ["get", "secrets"])
    if name in ("kubectl", "oc") and secrets and _shows_secret_data(args):
        return "a Kubernetes secret"
    return ""


# Calls whose answer is a fresh credential (docs of each): STS's temporary keys
# (https://docs.aws.amazon.com/cli/latest/reference/sts/assume-role.html), a new IAM
# access key, ECR's registry password, CodeArtifact's token, ACR's --expose-token.
_AWS_ISSUERS = {
    ("sts", "assume-role"): ("temporary AWS credentials", "Credentials"),
    ("sts", "assume-role-with-web-identity"): ("temporary AWS credentials", "Credentials"),
    ("sts", "assume-role-with-saml"): ("temporary AWS credentials", "Credentials"),
    ("sts", "get-session-token"): ("temporary AWS credentials", "Credentials"),
    ("sts", "get-federation-token"): ("temporary AWS credentials", "Credentials"),
    ("iam", "create-access-key"): ("a new AWS secret access key", "AccessKey"),
    ("ecr", "get-login-password"): ("the ECR registry password", ""),
    ("ecr-public", "get-login-password"): ("the ECR registry password", ""),
    ("codeartifact", "get-authorization-token"): ("a CodeArtifact token", "authorizationToken"),
}


def _issued_credential(name: str, words: list[str], args: list[str]) -> str:
    """The credential an issuing call prints (``""`` when none, or when its ``--query``
    picks only metadata: ``aws sts assume-role ... --query AssumedRoleUser.Arn``)."""
    if name == "az" and words[:2] == ["acr", "login"] and "--expose-token" in args:
        return "an Azure Container Registry token"
    if name != "aws":
        return ""
    found = _AWS_ISSUERS.get((words[0], words[1])) if len(words) >= 2 else None
    if found is None:
        return ""
    what, field = found
    query = " ".join(
        args[i + 1] if a == "--query" and i + 1 < len(args) else a.partition("=")[2]
        for i, a in enumerate(args)
        if a == "--query" or a.startswith("--query=")
    )
    if query and field and field.lower() not in query.lower() and "Secret" not in query:
        return ""
    return what


def _shows_secret_data(args: list[str]) -> bool:
    """Whether ``kubectl get secret``'s output format shows the values: ``-o yaml``/``json``
    and templates or columns that read ``.data``; ``-o name``, ``-o wide`` and a
    ``jsonpath`` of metadata show none (the value may be attached, after ``=``, or the
    next word)."""
    formats: list[str] = []
    for i, a in enumerate(args):
        if a in ("-o", "--output"):
            formats.append(args[i + 1] if i + 1 < len(args) else "")
        elif a.startswith("--output="):
            formats.append(a.split("=", 1)[1])
        elif a.startswith("-o") and not a.startswith("--"):
            formats.append(a[2:].removeprefix("="))
    for fmt in formats:
        kind = fmt.split("=", 1)[0].lower()
        if kind in ("name", "wide"):
            continue
        if kind.startswith(("jsonpath", "custom-columns", "go-template", "template")):
            bare = fmt.replace(" ", "")
            whole = "{.}" in bare or re.search(r"\.items(?:\[[^\]]*\])?\}", bare)
            if re.search(r"(?<![A-Za-z])(?:data|stringData)\b", fmt) or whole:
                return True
            continue
        return True
    return False


def secret_fetcher(cmd: Cmd) -> str:
    """What stored secret a secret manager's read writes to stdout (``""`` when none).

    Reading one into a variable (``DB_PASS=$(aws secretsmanager ...)``) or a pipe to the
    tool that needs it is everyday work; printed into the transcript it is a
    ``GATE-SECRET-PRINT`` as ``gh auth token`` is (rt100), and sent to the network or an
    encoder an exfiltration.  A ``--query`` that picks metadata only (``--query Name``)
    prints no secret.
    """
    name, args = cmd.name, cmd.args
    words = [a for a in args if not a.startswith("-")]
    query = " ".join(
        args[i + 1] if a == "--query" and i + 1 < len(args) else a.partition("=")[2]
        for i, a in enumerate(args)
        if a == "--query" or a.startswith("--query=")
    )
    if name == "aws" and words[:2] == ["secretsmanager", "get-secret-value"]:
        if not query or "Secret" in query:
            return "a secret from AWS Secrets Manager"
    elif name == "aws" and words[:1] == ["ssm"] and "--with-decryption" in args:
        if words[1:2] and words[1].startswith("get-parameter") and (not query or "Value" in query):
            return "a decrypted SSM parameter"
    elif name == "gcloud" and words[:3] == ["secrets", "versions", "access"]:
        return "a Google Secret Manager secret"
    elif name == "az" and words[:2] == ["keyvault", "secret"] and words[2:3] == ["show"]:
        if not query or "value" in query:
            return "an Azure Key Vault secret"
    elif name == "vault" and (words[:2] == ["kv", "get"] or words[:1] == ["read"]):
        return "a Vault secret"
    elif name == "op" and (
        words[:1] == ["read"] or (words[:2] == ["item", "get"] and "--reveal" in args)
    ):
        return "a 1Password secret"
    elif name == "doppler" and words[:2] in (["secrets", "download"], ["secrets", "get"]):
        return "Doppler secrets"
    elif name == "infisical" and words[:1] in (["export"], ["secrets"]):
        return "Infisical secrets"
    return ""


def net_args(cmd: Cmd) -> list[str]:
    """``cmd``'s words with curl's short clusters split as curl reads them: ``-sF f=@x`` is
    ``-s -F f=@x``, ``-T.env`` is ``-T .env``, ``-fsSLT x`` is ``... -T x`` (other tools'
    words as given)."""
    if cmd.name != "curl" or not any(
        a[:1] == "-" and a[1:2] not in ("-", "") and len(a) > 2 for a in cmd.args
    ):
        return cmd.args
    from agentreflex.gate.rules.http import CURL_VALUED

    out: list[str] = []
    words = iter(cmd.args)
    for a in words:
        if a[:1] != "-" or a[1:2] in ("-", "") or len(a) == 2:
            out.append(a)
            continue
        for k, ch in enumerate(a[1:], 1):
            out.append("-" + ch)
            if ch in CURL_VALUED:
                rest = a[k + 1 :]
                out.append(rest if rest else next(words, ""))
                break
    return out


# Copy clients' options that take a value: an identity file (scp -i ~/.ssh/key), a
# remote shell (rsync -e 'ssh -i ~/.ssh/key'), a filter (--exclude .env) is not sent.
_COPY_VALUED = {
    "scp": frozenset({"-i", "-o", "-F", "-P", "-c", "-l", "-S", "-J", "-D", "-X"}),
    "sftp": frozenset(
        {"-i", "-o", "-F", "-P", "-b", "-c", "-D", "-l", "-R", "-S", "-s", "-J", "-X", "-B"}
    ),
    "rsync": frozenset(
        {
            "-e",
            "-f",
            "-T",
            "-B",
            "-M",
            "--rsh",
            "--exclude",
            "--include",
            "--exclude-from",
            "--include-from",
            "--filter",
            "--files-from",
            "--rsync-path",
            "--log-file",
            "--password-file",
            "--backup-dir",
            "--suffix",
            "--temp-dir",
            "--partial-dir",
            "--link-dest",
            "--compare-dest",
            "--copy-dest",
            "--chmod",
            "--chown",
            "--timeout",
            "--bwlimit",
            "--port",
            "--max-size",
            "--min-size",
            "--out-format",
            "--remote-option",
        }
    ),
}


def _copy_sources(cmd: Cmd) -> list[str]:
    """The local files scp, rsync or sftp sends: the operands before the last one when
    that one is remote (``host:path``, ``rsync://``), never an option's value."""
    valued = _COPY_VALUED[cmd.name]
    words: list[str] = []
    skip = False
    for a in cmd.args:
        if skip:
            skip = False
        elif a.startswith("-") and len(a) > 1:
            skip = a in valued
        else:
            words.append(a)
    if cmd.name == "sftp" or len(words) < 2 or not _remote_path(words[-1]):
        return []
    return [w for w in words[:-1] if not _remote_path(w)]


def _remote_path(word: str) -> bool:
    """``host:path``, ``user@host:``, ``rsync://host/mod`` (not ``./a:b`` or ``/x:y``)."""
    if word.startswith("rsync://"):
        return True
    head, sep, _ = word.partition(":")
    return bool(sep and head and "/" not in head)


def _network(cmd: Cmd, where: Where, secret_files: list[str]) -> list[Hit]:
    args = net_args(cmd)
    for op, target in cmd.redirects:
        if op == "<" and _secret(target, where, cmd.cwd):
            return [
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This feeds {target} (a credential) to a network tool. Never send "
                    "secrets off the machine.",
                )
            ]
    for i, a in enumerate(args):
        value = ""
        flag = a
        if a in _DATA_FLAGS and i + 1 < len(args):
            value = args[i + 1]
        elif a.startswith("--") and a.partition("=")[0] in _DATA_FLAGS:
            flag, _, value = a.partition("=")
        elif a.startswith("-d") and len(a) > 2:
            value = a[2:]
        if not value:
            continue
        path = (
            value.split("@", 1)[1] if "@" in value else (value[1:] if value.startswith("<") else "")
        )
        if flag in ("-T", "--upload-file", "--post-file", "--body-file"):
            path = value
        if path and _secret(path.split(";", 1)[0], where, cmd.cwd):
            return [
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    "This uploads a credential file. Never send secrets off the machine.",
                )
            ]
    if cmd.name in ("http", "https", "xh", "xhs"):
        for path in _httpie_files(args):
            if _secret(path, where, cmd.cwd):
                return [
                    _hit(
                        "GATE-EXFIL-SECRET",
                        cmd.text,
                        f"This uploads {path} (a credential) in the request. Never send "
                        "secrets off the machine.",
                    )
                ]
    if cmd.name in _COPY_VALUED:
        sent = [shown for a in _copy_sources(cmd) if (shown := _secret(a, where, cmd.cwd))]
        if sent:
            return [
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This copies {sent[0]} (a credential) to another machine. Copy only the "
                    "files the other machine needs, or ask the user.",
                )
            ]
    if cmd.name in ("curl", "wget", "http", "https", "xh", "nc", "ncat"):
        data_vars = _data_vars(cmd)
        if data_vars:
            return [
                _hit(
                    "GATE-EXFIL-SECRET",
                    cmd.text,
                    f"This sends ${data_vars[0]} in a request body or URL. Send credentials "
                    "only in the auth header of the service they belong to.",
                )
            ]
    src = cmd.stdin_from
    if src is not None and (src.name in _ENV_DUMPERS and not src.args):
        return [
            _hit(
                "GATE-EXFIL-SECRET",
                cmd.text,
                "This sends the environment (which holds credentials) to the network.",
            )
        ]
    return []


_STORES = {
    "aws": "an S3 bucket",
    "gsutil": "a Cloud Storage bucket",
    "gcloud": "a Cloud Storage bucket",
    "rclone": "a cloud remote",
    "az": "an Azure storage account",
    "gh": "GitHub (a gist, an issue, a pull request or a release)",
    "glab": "GitLab (a snippet or a release)",
    "s3cmd": "an S3 bucket",
    "b2": "a Backblaze B2 bucket",
    "azcopy": "an Azure storage account",
}
# options of those tools that take no value (every other long option takes one)
_NO_VALUE = frozenset(
    {
        "--recursive",
        "--dryrun",
        "--quiet",
        "--delete",
        "--no-progress",
        "--follow-symlinks",
        "--no-follow-symlinks",
        "--only-show-errors",
        "--exact-timestamps",
        "--size-only",
        "--no-guess-mime-type",
        "--no-sign-request",
        "--no-verify-ssl",
        "--debug",
        "--public",
        "--web",
        "--clobber",
        "--progress",
        "--verbose",
        "--overwrite",
        "--checksum",
        "--update",
        "--copy-links",
        "--dry-run",
    }
)
_VALUED_SHORT = {
    "gh": frozenset({"-d", "-f", "-R", "-n", "-t", "-F", "-a"}),
    "glab": frozenset({"-t", "-d", "-f", "-v", "-R", "-n", "-N", "-m"}),
    "s3cmd": frozenset({"-c"}),
    "gsutil": frozenset({"-o", "-h", "-x", "-p", "-a", "-z", "-j", "-s"}),
}


def _operands(args: list[str], valued_short: frozenset[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a.startswith("--"):
            skip = "=" not in a and a not in _NO_VALUE
        elif a.startswith("-") and len(a) > 1:
            skip = a in valued_short
        else:
            out.append(a)
    return out


def _stored_off(cmd: Cmd, where: Where) -> str:
    """The credential file or folder a storage command uploads (``""`` when none):
    ``aws s3 cp|mv|sync``, ``gsutil cp|mv|rsync``, ``gcloud storage cp|mv|rsync`` and
    ``rclone copy|copyto|move|moveto|sync`` to a bucket or remote; ``az storage blob
    upload --file`` / ``upload-batch --source``; ``gh gist create FILE``, ``gh gist edit
    --add FILE``, ``gh release create|upload TAG FILE``."""
    name, args = cmd.name, cmd.args
    from agentreflex.gate.shell import inert

    if inert.inert(name, args):
        return ""
    words = _operands(args, _VALUED_SHORT.get(name, frozenset()))
    sources: list[str] = []
    if name == "az":
        if words[:2] in (["storage", "blob"], ["storage", "file"]) and words[2:3] in (
            ["upload"],
            ["upload-batch"],
        ):
            for i, a in enumerate(args[:-1]):
                if a in ("--file", "-f", "--source", "-s"):
                    sources.append(args[i + 1])
            sources += [a.split("=", 1)[1] for a in args if a.startswith(("--file=", "--source="))]
    elif name == "gh":
        if words[:2] == ["gist", "create"]:
            sources = words[2:]
        elif words[:2] == ["gist", "edit"]:
            sources = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--add", "-a")]
        elif words[:2] in (["release", "create"], ["release", "upload"]):
            sources = [w.split("#", 1)[0] for w in words[3:]]
        if words[:1] in (["issue"], ["pr"], ["release"]):  # a body or notes read from a file
            sources += option_values(args, ("--body-file", "--notes-file", "-F"))
        elif words[:1] == ["api"]:  # gh api -F body=@FILE, --input FILE
            fields = option_values(args, ("-F", "--field"))
            sources += [f.split("=@", 1)[1] for f in fields if "=@" in f]
            sources += option_values(args, ("--input",))
    elif name == "glab":  # glab snippet create FILE..., glab release create|upload TAG FILE...
        if words[:2] == ["snippet", "create"]:
            sources = words[2:]
        elif words[:2] in (["release", "create"], ["release", "upload"]):
            sources = [w.split("#", 1)[0] for w in words[3:]]
    else:
        if name == "gcloud":
            words = words[1:] if words[:1] == ["storage"] else []
        elif name == "aws":
            words = words[1:] if words[:1] == ["s3"] else []
        verbs = {
            "aws": ("cp", "mv", "sync"),
            "gsutil": ("cp", "mv", "rsync"),
            "gcloud": ("cp", "mv", "rsync"),
            "rclone": ("copy", "copyto", "move", "moveto", "sync"),
            "s3cmd": ("put", "sync"),
            "b2": ("sync",),
            "azcopy": ("copy", "cp", "sync"),
        }[name]
        if len(words) >= 3 and words[0] in verbs and _remote(name, words[-1]):
            sources = [w for w in words[1:-1] if not _remote(name, w)]
    for src in sources:
        shown = _secret(src.rstrip("/") or src, where, cmd.cwd)
        if shown:
            return shown
    for src in sources:
        held = _held_secret(cmd, words, src, where)
        if held:
            return f"{src}, which holds {held}"
    return ""


# how each tool leaves a file out of a folder it uploads
_LEAVE_OUT = {
    "aws": "--exclude '{}'",
    "rclone": "--exclude '{}'",
    "gsutil": "-x with a pattern for {}",
    "gcloud": "--exclude with a pattern for {}",
    "az": "--pattern naming only the files to send, not {}",
    "s3cmd": "--exclude '{}'",
    "b2": "--exclude-regex with a pattern for {}",
    "azcopy": "--exclude-path '{}'",
}


def option_values(args: list[str], options: tuple[str, ...]) -> list[str]:
    """The values given to ``options`` (``-F V``, ``--body-file V``, ``--body-file=V``)."""
    out = [args[i + 1] for i, a in enumerate(args[:-1]) if a in options]
    out += [a.split("=", 1)[1] for a in args if a.split("=", 1)[0] in options and "=" in a]
    return out


_MAX_FILES = 5000  # files looked at in a folder an upload sends


def _held_secret(cmd: Cmd, words: list[str], src: str, where: Where) -> str:
    """A credential file the upload of folder ``src`` sends, as a path below it, after
    the command's own filters (``--exclude``/``--include``, ``-x``, ``--pattern``,
    ``--filter``); ``""`` when none or when the filters are in a file.  The home folder
    (or one above it) holds ``.ssh`` and ``.aws`` whatever is on this disk."""
    import os

    from agentreflex.gate.rules.protected import walk_files

    name, args = cmd.name, cmd.args
    if not _recursive(name, words[0] if words else "", args) or has_marker(src):
        return ""
    full = classify(src, where, cmd.cwd)[1]
    top = full.rstrip("/") or "/"
    home = where.home.rstrip("/")
    if home and (top == home or home.startswith(top.rstrip("/") + "/")):
        prefix = home[len(top) :].strip("/")
        found = [f"{prefix}/{f}".lstrip("/") for f in (".ssh/id_rsa", ".aws/credentials")]
    elif os.path.isdir(top):
        flat = name in ("gsutil", "gcloud") and words[:1] == ["rsync"]
        found = [
            os.path.relpath(f, top)
            for f in walk_files(top, _MAX_FILES)
            if is_secret_file(f) and not (flat and _flat_only(args) and "/" in f[len(top) + 1 :])
        ]
    else:
        return ""
    for rel in found:
        if _sent(name, args, rel):
            return rel
    return ""


def _recursive(name: str, verb: str, args: list[str]) -> bool:
    """Whether the command sends a folder's files (a cp without -r sends none)."""
    if name in ("az", "rclone") or verb in ("sync", "rsync"):
        return True
    if name == "aws":
        return "--recursive" in args
    return any(a in ("-r", "-R", "--recursive", "--recursive=true") for a in args)


def _flat_only(args: list[str]) -> bool:
    """``gsutil rsync`` without ``-r`` sends the folder's own files, not its subfolders'."""
    return not any(
        a in ("-r", "-R", "--recursive")
        or (a[:1] == "-" and "r" in a[1:] and not a.startswith("--"))
        for a in args
    )


def _sent(name: str, args: list[str], rel: str) -> bool:
    """Whether the file ``rel`` (below the folder sent) passes the command's filters."""
    import fnmatch

    pairs = [(a, args[i + 1]) for i, a in enumerate(args[:-1])]
    for a in args:
        if a.startswith("--") and "=" in a:
            opt, _, value = a.partition("=")
            pairs.append((opt, value))
    if name == "aws":  # in order, the last filter that matches decides
        sent = True
        for opt, pattern in pairs:
            if opt in ("--exclude", "--include") and fnmatch.fnmatchcase(rel, pattern):
                sent = opt == "--include"
        return sent
    if name == "az":
        patterns = [v for o, v in pairs if o == "--pattern"]
        return not patterns or any(fnmatch.fnmatchcase(rel, p) for p in patterns)
    if name in ("gsutil", "gcloud"):  # -x / --exclude: a regular expression
        for opt, pattern in pairs:
            if opt in ("-x", "--exclude"):
                try:
                    if re.search(pattern, rel):
                        return False
                except re.error:
                    return False
        return True
    if name == "rclone":
        if any(o in _RCLONE_FILE_FILTERS for o, _ in pairs):
            return False  # filters in a file: not read here
        rules: list[tuple[str, str]] = []
        for opt, value in pairs:
            if opt in ("--exclude", "--include"):
                rules.append(("-" if opt == "--exclude" else "+", value))
            elif opt in ("--filter", "-f") and value[:2] in ("- ", "+ "):
                rules.append((value[0], value[2:]))
        for sign, pattern in rules:  # the first rule that matches decides
            if _rclone_match(pattern, rel):
                return sign == "+"
        return not any(sign == "+" for sign, _ in rules)
    if name == "s3cmd":  # --exclude GLOB / --rexclude REGEX, an --include taking a file back
        if any(o in ("--exclude-from", "--rexclude-from") for o, _ in pairs):
            return False
        out = any(o == "--exclude" and fnmatch.fnmatchcase(rel, v) for o, v in pairs)
        out = out or any(o == "--rexclude" and _searches(v, rel) for o, v in pairs)
        back = any(o == "--include" and fnmatch.fnmatchcase(rel, v) for o, v in pairs)
        return not out or back
    if name == "b2":  # --exclude-regex / --exclude-dir-regex: regular expressions
        return not any(
            o in ("--exclude-regex", "--exclude-dir-regex") and _searches(v, rel) for o, v in pairs
        )
    if name == "azcopy":  # --exclude-pattern 'a;b' (file names), --exclude-path 'dir;file'
        base = rel.rsplit("/", 1)[-1]
        names = [p for o, v in pairs if o == "--exclude-pattern" for p in v.split(";")]
        paths = [p.strip("/") for o, v in pairs if o == "--exclude-path" for p in v.split(";")]
        return not (
            any(fnmatch.fnmatchcase(base, n) for n in names)
            or any(rel == p or rel.startswith(p + "/") for p in paths if p)
        )
    return True


def _searches(pattern: str, text: str) -> bool:
    """``pattern`` (a tool's regular expression) found in ``text``; a pattern Python cannot
    read counts as found, so a filter the gate cannot judge never blocks."""
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return True


_RCLONE_FILE_FILTERS = frozenset(
    {"--exclude-from", "--include-from", "--filter-from", "--files-from", "--files-from-raw"}
)


def _rclone_match(pattern: str, rel: str) -> bool:
    """rclone's glob: ``*`` stays within a folder, ``**`` crosses them, a pattern without
    a leading ``/`` matches at any depth, one ending in ``/`` matches a folder's files."""
    if pattern.endswith("/"):
        pattern += "**"
    body = ""
    k = 0
    while k < len(pattern):
        if pattern.startswith("**", k):
            body, k = body + ".*", k + 2
        elif pattern[k] == "*":
            body, k = body + "[^/]*", k + 1
        elif pattern[k] == "?":
            body, k = body + "[^/]", k + 1
        else:
            body, k = body + re.escape(pattern[k]), k + 1
    if pattern.startswith("/"):  # anchored at the folder sent
        return bool(re.fullmatch(body.lstrip("\\/"), rel))
    return bool(re.fullmatch(f"(?:.*/)?{body}", rel))


_TRANSFER_CLIENTS = frozenset({"sftp", "lftp", "smbclient", "ftp", "tnftp"})


def _put_in_script(cmd: Cmd, where: Where) -> str:
    """The credential file a transfer client's script uploads (``put``, ``mput``,
    ``reput``, ``mirror -R``): the script comes from stdin (heredoc, here-string, a
    pipe) or from ``-c``/``-e`` (smbclient, lftp); ``""`` when none."""
    from agentreflex.gate.shell import pipes

    args = cmd.args
    texts = [cmd.stdin_text or "", pipes.output_text(cmd.stdin_from, {}) or ""]
    texts += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "-e", "--command")]
    for text in texts:
        for line in text.replace(";", "\n").splitlines():
            words = line.split()
            if not words or words[0] not in ("put", "mput", "reput", "mirror"):
                continue
            if words[0] == "mirror" and not any(w in ("-R", "--reverse") for w in words):
                continue
            for w in words[1:]:
                if w[:1] != "-":
                    shown = _secret(w.strip("'\""), where, cmd.cwd)
                    if shown:
                        return shown
    return ""


def _served_folder(cmd: Cmd, where: Where) -> str:
    """The credential folder ``python -m http.server`` serves (``-d/--directory DIR``, else
    the folder it runs in), ``""`` when it is not one."""
    args = cmd.args
    k = args.index("http.server")
    if k == 0 or args[k - 1] != "-m":
        return ""
    folder = ""
    for i, a in enumerate(args[k + 1 :], k + 1):
        if a in ("-d", "--directory") and i + 1 < len(args):
            folder = args[i + 1]
        elif a.startswith("--directory="):
            folder = a.split("=", 1)[1]
    full = classify(folder, where, cmd.cwd)[1] if folder else cmd.cwd
    home = where.home.rstrip("/")
    if home and (full.rstrip("/") == home or home.startswith(full.rstrip("/") + "/")):
        return f"{folder or full} (it holds ~/.ssh and ~/.aws)"
    if folder:
        return _secret(folder.rstrip("/") or folder, where, cmd.cwd)
    return cmd.cwd if is_secret_file(cmd.cwd) else ""


def _remote(name: str, word: str) -> bool:
    if name == "rclone":
        head, sep, _ = word.partition(":")
        return bool(sep and head and "/" not in head and not head.startswith((".", "~")))
    if name == "azcopy":
        return word.startswith("https://")
    return word.startswith(("s3://", "gs://", "b2://"))


_HTTPIE_FILE = LazyPattern(r"^[^:=@]*(?::=@|=@|@)(.+)$")


def _httpie_files(args: list[str]) -> list[str]:
    """Files an HTTPie or xh request sends: request items ``name@PATH`` (a form upload),
    ``name=@PATH`` and ``name:=@PATH`` (the file's text or JSON), and ``@PATH`` (the body).
    An item's first separator decides: ``email=a@b.example`` is a string field."""
    return [m.group(1) for a in args if not a.startswith("-") and (m := _HTTPIE_FILE.match(a))]


def secret_named(text: str) -> bool:
    """Whether ``text`` names a credential (``API_KEY``, ``token``, ``password``...)."""
    return bool(_SECRET_VAR.search(text))


def _data_vars(cmd: Cmd) -> list[str]:
    """Secret-named variables used outside header arguments."""
    secret = [v for v in cmd.vars_used if _SECRET_VAR.search(v)]
    if not secret:
        return []
    from agentreflex.gate.rules.exfil import HEADER_FLAGS, sent_to_own_service

    secret = [v for v in secret if not sent_to_own_service(cmd, v)]
    if not secret:
        return []
    args = net_args(cmd)
    in_headers = " ".join(args[i + 1] for i, a in enumerate(args[:-1]) if a in HEADER_FLAGS)
    if UNKNOWN in in_headers and not any(
        UNKNOWN in a
        for i, a in enumerate(args)
        if i == 0 or args[i - 1] not in ("-H", "--header", "-u", "--user", "--oauth2-bearer")
    ):
        return []
    return secret


def line_loop(cmd: Cmd) -> bool:
    """``perl -ne print FILE``, ``perl -pe 1 FILE``, ``ruby -ne 'puts $_' FILE``: the
    interpreter loops over the lines of its file operands and prints them (perlrun -n/-p,
    https://perldoc.perl.org/perlrun#-n); ``-i`` edits the files instead."""
    if cmd.name not in ("perl", "ruby"):
        return False
    clusters = [a[1:] for a in cmd.args if a[:1] == "-" and a[1:2] not in ("-", "")]
    looping = any(set(c.split("e", 1)[0]) & set("np") for c in clusters)
    return looping and not any("i" in c.split("e", 1)[0] for c in clusters)


def _file_args(cmd: Cmd) -> list[str]:
    """The words that may name files the command reads: not its options, and not the
    pattern or program of a search or an editor (``grep -rn "server.key" config/``
    looks for the text server.key; it reads config/), nor an option's value (``-m 1``)."""
    valued = _PROGRAM_FIRST.get(cmd.name, frozenset())
    args = cmd.args
    words = [
        a
        for i, a in enumerate(args)
        if a and not a.startswith("-") and not (i and args[i - 1] in valued)
    ]
    for program in _program_words(cmd):
        if program in words:
            words.remove(program)
    return words


# The options that take a value, per family of tools whose first operand is a pattern
# or a program unless -e/--regexp/--expression (or -f, a file read) gives it.
_GREP_VALUED = frozenset(
    {
        *("-A", "-B", "-C", "-m", "-d", "-D", "--include", "--exclude", "--exclude-dir"),
        *("--max-count", "--context", "--after-context", "--before-context", "--label"),
    }
)
_RG_VALUED = frozenset(
    {
        *("-A", "-B", "-C", "-m", "-g", "-t", "-T", "-j", "-M", "-E", "-r", "--glob"),
        *("--iglob", "--type", "--type-not", "--max-count", "--threads", "--encoding"),
        *("--max-columns", "--replace", "--sort", "--sortr", "--context"),
    }
)
_PROGRAM_FIRST: dict[str, frozenset[str]] = {
    **dict.fromkeys(("grep", "egrep", "fgrep", "ugrep", "ug", "ag", "ack"), _GREP_VALUED),
    "rg": _RG_VALUED,
    **dict.fromkeys(("sed", "gsed"), frozenset({"-l", "--line-length"})),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk"), frozenset({"-F", "-v", "--assign"})),
}
_PROGRAM_GIVEN = frozenset({"-e", "--regexp", "--expression"})


def _program_words(cmd: Cmd) -> list[str]:
    """The pattern or program words of ``cmd`` (``_PROGRAM_FIRST``): the values of -e
    and its long forms, else the first operand; none when -f names a file to read."""
    valued = _PROGRAM_FIRST.get(cmd.name)
    if valued is None:
        return []
    args = cmd.args
    given: list[str] = []
    from_file = False
    first = ""
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            if not first and i + 1 < len(args):
                first = args[i + 1]
            break
        if a in _PROGRAM_GIVEN or a in ("-f", "--file"):
            if a in _PROGRAM_GIVEN and i + 1 < len(args):
                given.append(args[i + 1])
            from_file = from_file or a in ("-f", "--file")
            i += 2
            continue
        if a.startswith(("--regexp=", "--expression=", "--file=")) or (
            a.startswith(("-e", "-f")) and len(a) > 2
        ):
            from_file = from_file or a.startswith(("-f", "--file="))
            given.append("")
            i += 1
            continue
        if a.startswith("-") and a != "-":
            i += 2 if a in valued else 1
            continue
        first = first or a
        i += 1
    if given or from_file:
        return [g for g in given if g]
    return [first] if first else []


# A search's file filter: grep's ``--include``, ripgrep's ``-g``/``--glob``/``--iglob``,
# ugrep's and ag's ``-G``/``--file-search-regex`` aside (regular expressions)
_SEARCHERS = frozenset({"grep", "egrep", "fgrep", "rg", "ugrep", "ug"})
_FILTER_OPTIONS = ("--include", "--glob", "--iglob", "-g")


def _filter_picks(cmd: Cmd) -> list[str]:
    """The credential files a search's file filter picks (``grep -r --include=.env KEY .``,
    ``rg --glob=.e* KEY``), named in the working folder as the search tools' ``glob`` is
    (gate/files.py ``filtered_reads``; issue #28).  A filter given as its own word
    (``-g .env``) is an operand already; a folder searched that is a credential's
    (``~/.ssh``) is one by itself."""
    if cmd.name not in _SEARCHERS:
        return []
    from agentreflex.gate.shell.paths import filter_picks_secrets

    found: list[str] = []
    args = cmd.args
    for i, a in enumerate(args):
        value = ""
        for opt in _FILTER_OPTIONS:
            if a.startswith(opt + "="):
                value = a[len(opt) + 1 :]
            elif a == opt and i + 1 < len(args) and any(c in args[i + 1] for c in "*?[{"):
                value = args[i + 1]
            elif opt == "-g" and a.startswith("-g") and len(a) > 2 and cmd.name == "rg":
                value = a[2:]
        found += [n for n in filter_picks_secrets(value) if n not in found]
    return found


def _to_file(cmd: Cmd) -> bool:
    """Whether what the command prints goes to a file; ``2>/dev/null`` (an ``OtherFd``)
    sends only the errors away, so ``cat .env 2>/dev/null`` still prints the file (rt77)."""
    return any(
        op in (">", ">>", ">|", "&>")
        and t not in ("/dev/stdout", "/dev/stderr")
        and not isinstance(r, OtherFd)
        for r in cmd.redirects
        for op, t in (r,)
    )


def _into_secret_store(cmd: Cmd) -> bool:
    """``gh secret set NAME`` reading the value from its input: GitHub's secret store for
    this repository, the place a credential should go (https://cli.github.com/manual/
    gh_secret_set); a value sent to a repository named with ``-R``/``--repo`` still counts."""
    words = [a for a in cmd.args if not a.startswith("-")]
    return (
        cmd.name == "gh"
        and words[:2] == ["secret", "set"]
        and not any(
            a in ("-R", "--repo", "--repos") or a.startswith(("--repo=", "--repos="))
            for a in cmd.args
        )
    )


def network_fed(cmds: list[Cmd]) -> set[int]:
    """Ids of the commands whose output reaches a network tool through pipes; a filter
    that :func:`summarises` its input passes none of it on (``cat .env | wc -l | curl
    -d @- URL`` sends a count)."""
    fed: set[int] = set()
    for c in cmds:
        if (c.name in _NETWORK or c.name == "gh") and not _into_secret_store(c):
            src = c.stdin_from
            for _ in range(16):
                if src is None:
                    break
                fed.add(id(src))
                if summarises(src):
                    break
                src = src.stdin_from
    return fed


# Commands that pass what they read on to their own output: a secret piped through
# them still lands in the transcript (``kubectl get secret -o jsonpath=... | base64 -d``).
# Their opposite is :func:`summarises` (a count, a status, names): what those print
# holds none of the secret, wherever it goes next.  Every pipe walk below (printed,
# stored, sent) reads a filter by these two.
_PASS_ON = frozenset(
    {
        "cat", "tac", "grep", "egrep", "fgrep", "rg", "head", "tail", "cut", "tr", "sed",
        "awk", "gawk", "mawk", "jq", "yq", "base64", "base32", "xxd", "od", "hexdump",
        "sort", "uniq", "tee", "column", "fold", "rev", "nl", "paste", "strings", "less",
        "more", "xargs", "fmt",
    }
)  # fmt: skip


def summarises(cmd: Cmd) -> bool:
    """A filter that prints about its input, not the input: ``wc`` (counts), ``grep
    -c``/``-l``/``-q``, ``diff -q``, ``cmp -s``.  A secret piped into one goes no
    further (``cat .env | wc -l | gh secret set N`` stores a number)."""
    return cmd.name == "wc" or _says_only_whether(cmd)


def _says_only_whether(cmd: Cmd) -> bool:
    """A read that shows no content: ``grep -c``/``-l``/``-q`` (a count, names, a status),
    ``diff -q``/``--brief``, ``cmp -s``."""
    if cmd.name == "diff":
        return any(a in ("-q", "--brief") for a in cmd.args)
    if cmd.name == "cmp":
        return any(a in ("-s", "--silent", "--quiet") for a in cmd.args)
    return cmd.name != "xargs" and _quiet(cmd)


def _quiet(cmd: Cmd) -> bool:
    """A filter that prints only a status, a count or names (``grep -q``/``-c``/``-l``)
    or, for xargs, runs a command other than its default echo."""
    if cmd.name == "xargs":
        return any(not a.startswith("-") for a in cmd.args)
    return cmd.name in ("grep", "egrep", "fgrep", "rg") and any(
        a in ("--quiet", "--count", "--files-with-matches", "--silent")
        or (a[:1] == "-" and a[1:2] != "-" and a[1:].isalpha() and bool(set(a[1:]) & set("qcl")))
        for a in cmd.args
    )


_JQ_SECRET = LazyPattern(
    r"^\s*\.?\s*$|\.\[\]|\.\.|to_entries|@base64d|"
    r"(?<![A-Za-z])(?:data|stringData|secret|passw|token|credential|key|auth)",
    re.IGNORECASE,
)


def _selects_secret(cmd: Cmd) -> bool:
    """Whether a jq/yq program may pass a secret on: the whole document (``.``), every
    value, or a field named like one (``.data.password``, ``.Credentials``); a program
    that picks ``.metadata.name`` or ``.AssumedRoleUser.Arn`` prints none."""
    words = [a for a in cmd.args if not a.startswith("-")]
    return not words or bool(_JQ_SECRET.search(words[0]))


def stored_through_pipes(cmds: list[Cmd]) -> set[int]:
    """Ids of the commands whose output is not printed: piped, straight or through
    commands that pass it on (grep, sed, jq...), into this repository's secret store
    (``cat .env | gh secret set -f -``, ``gh secret set -f - < <(cat .env)``), or into
    a filter that :func:`summarises` it (``cat .env | wc -l``, ``... | grep -c KEY``).
    ``tee`` copies it elsewhere too (``tee /dev/stderr``), so a chain through it is not
    counted."""
    consumer = {id(c.stdin_from): c for c in cmds if c.stdin_from is not None}
    stored: set[int] = set()
    for c in cmds:  # a pipe, or a redirect from a process substitution (``< <(cat .env)``)
        nxt = consumer.get(id(c))
        for _ in range(16):
            if nxt is None:
                break
            if _into_secret_store(nxt) or summarises(nxt):
                stored.add(id(c))
                break
            if nxt.name not in _PASS_ON or nxt.name == "tee" or not nxt.pipes_out:
                break
            nxt = consumer.get(id(nxt))
    return stored


# What prints the shell's variables, or a variable's value, back to the screen.
_VARIABLE_PRINTERS = frozenset({"echo", "printf", "printenv", "env", "set", "declare", "typeset"})


def loaded_env(
    cmds: list[Cmd], captured: set[int], names: set[str], shown: set[int] | None = None
) -> set[int]:
    """Ids of the commands that read a project's env file (``.env``, ``.env.local``)
    into variables: ``export $(cat .env | xargs)``, ``KEY=$(grep KEY .env | cut -d= -f2)``
    load it as ``set -a; source .env`` does, and nothing reaches the transcript.  None
    when the line also prints variables (``env``, ``echo``) or hands such a variable to
    another command (``X=$(cat .env); cat <<< "$X"``), and never a key or other
    credential file (only exfiltration would need one in a variable)."""
    if not captured or any(
        id(c) not in captured  # xargs's own echo inside $(...) prints into it
        and (
            c.name in _VARIABLE_PRINTERS
            or _dump_shown(c, shown)
            or (
                bool(names.intersection(c.vars_used))
                and not _sent_in_header(c, [k for k in cmds if id(k) in captured])
            )
            or bool(names and "${!" in c.text)  # ${!n}: a variable named by another
            or _names_in_code(c, names)
        )
        for c in cmds
    ):
        return set()
    return {id(c) for c in cmds if id(c) in captured and _env_files_only(c)}


# What makes curl or wget print the request it sends, its headers among them; curl's
# -K reads options the line does not show.
_SHOWS_REQUEST = frozenset(
    {"-v", "--verbose", "--trace", "--trace-ascii", "--libcurl", "-d", "--debug", "-K", "--config"}
)
_NAME_WORD = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")
# A key of an env file as a read picks it: grep's pattern (API_TOKEN, ^API_TOKEN=) and
# sed's substitution (s/^API_TOKEN=//p).
_KEY_PATTERN = LazyPattern(r"\^?[A-Z][A-Z0-9_]*=?")
# grep's options that keep its output to the lines matching its one pattern: not -v, -e,
# -f, a context (-A100, -5), or -z (the whole file one line).
_GREP_NARROW = LazyPattern(
    r"-[hiswxEFGPoqH]+|-m ?\d+|--(?:max-count=\d+|ignore-case|no-filename|word-regexp"
    r"|line-regexp|only-matching|extended-regexp|fixed-strings|perl-regexp|no-messages)",
    hints="-",
)
_SED_KEY = LazyPattern(r"s(.)\^?[A-Z][A-Z0-9_]*=?\1\1p", hints="s")
# curl's options that send the request to another host than its URL's.
_REROUTES = frozenset(
    {"-x", "--proxy", "--preproxy", "--connect-to", "--resolve", "--socks4", "--socks4a"}
    | {"--socks5", "--socks5-hostname"}
)
# Services that answer with the request's own headers (httpbin's /headers, Postman Echo):
# a header sent there comes back into the transcript.
_ECHO_HOSTS = ("httpbin.org", "httpbingo.org", "postman-echo.com", "echo.hoppscotch.io")
# The variables curl and wget take a proxy from (wget -e https_proxy=... as well).
_PROXY_VARIABLES = frozenset({"http_proxy", "https_proxy", "all_proxy"})
# wget's short options that take a value: a d after them is that value, not --debug.
_WGET_VALUED = frozenset("oaeiBtOTwQPlARDIXU")


def _wget_debug(args: list[str]) -> bool:
    """Whether a cluster of wget's short options holds -d (``-dq``); -nd is -n's."""
    for a in args:
        if a[:1] != "-" or a[1:2] in ("-", ""):
            continue
        chars = iter(a[1:])
        for ch in chars:
            if ch == "d":
                return True
            if ch == "n":
                next(chars, "")
            elif ch in _WGET_VALUED:
                break
    return False


def _request_hosts(cmd: Cmd, args: list[str]) -> list[str]:
    """Every host a curl or wget request's headers may reach: each URL's (curl sends
    -H with all of them), and a proxy (``-x``, ``https_proxy=``, wget's ``-e``),
    ``--connect-to`` or ``--resolve`` target; ``""`` (unknown) first after
    ``--location-trusted`` or for a word only known at run time."""
    from agentreflex.gate.rules.exfil import HEADER_FLAGS, request_host

    env = {**cmd.shell_vars, **cmd.assigns}
    words = [*args, *(f"--proxy={v}" for n, v in env.items() if n.lower() in _PROXY_VARIABLES)]
    hosts = ["" if "--location-trusted" in words else request_host(cmd)]
    for k, a in enumerate(words):
        flag, eq, value = a.partition("=") if a.startswith("--") else ("", "", "")
        if not eq:
            flag, value = (words[k - 1] if k else ""), a
        if flag == "-e" and value.partition("=")[0].lower() in _PROXY_VARIABLES:
            flag, value = "--proxy", value.partition("=")[2]
        if flag in _REROUTES:
            fields = value.split(":")  # HOST1:PORT1:HOST2:PORT2, HOST:PORT:ADDRESS
            target = {"--connect-to": fields[2:3], "--resolve": fields[2:]}.get(flag)
            hosts.append(_host_of(":".join(target) if target else value))
        elif "://" in a and flag not in HEADER_FLAGS:
            hosts.append(_host_of(a))
    return ["" if UNKNOWN in h else h for h in hosts]


def _host_of(url: str) -> str:
    """The host a URL or ``host:port`` names (``[::1]`` kept whole)."""
    rest = url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1]
    return (rest if rest.startswith("[") else rest.split(":", 1)[0]).lower()


def _picks_keys(readers: list[Cmd]) -> bool:
    """Whether the read picks one key of the env file by name (``grep API_TOKEN .env``,
    ``cat .env | grep '^KEY='``, ``sed -n 's/^KEY=//p' .env``), not the whole file or
    every value (``cat .env``, ``cut -d= -f2 .env``, ``grep -v ZZZ .env``): each command
    that reads the file picks a key itself or pipes it into one that does."""
    picks = [_picks_a_key(r) for r in readers]
    reads = [
        any(".env" in a for a in r.args) or any(".env" in t for _, t in r.redirects)
        for r in readers
    ]
    return any(picks) and all(
        p or r.pipes_out for p, r, f in zip(picks, readers, reads, strict=True) if f
    )


def _picks_a_key(cmd: Cmd) -> bool:
    """A grep whose one pattern is a key (``^KEY=``) with only options that keep to the
    matching lines (not ``-v``, ``-e``, ``-f``, ``-A100``, ``-z``); or a
    ``sed -n 's/^KEY=//p'``."""
    args = _joined_counts(cmd.args) if cmd.name in ("grep", "egrep", "fgrep", "rg") else cmd.args
    opts = [a for a in args if a.startswith("-")]
    words = [a for a in args if not a.startswith("-")]
    if cmd.name in ("grep", "egrep", "fgrep", "rg"):
        narrow = all(_GREP_NARROW.fullmatch(a) for a in opts)
        return narrow and bool(words) and bool(_KEY_PATTERN.fullmatch(words[0]))
    if cmd.name == "sed":
        quiet = any(a == "--quiet" or (a[1:2] != "-" and "n" in a[1:]) for a in opts)
        return quiet and any(_SED_KEY.fullmatch(w) for w in words)
    return False


def _joined_counts(args: list[str]) -> list[str]:
    """grep's ``-m 1`` and ``--max-count 1`` as one word each (``-m1``), so the count is not
    read as the pattern."""
    out: list[str] = []
    for a in args:
        if out and out[-1] in ("-m", "--max-count") and a.isdigit():
            out[-1] = f"-m{a}"
        else:
            out.append(a)
    return out


def _sent_in_header(cmd: Cmd, readers: list[Cmd]) -> bool:
    """Whether ``cmd`` hands what was read from .env only to a server, in a request
    header (``curl -H "Authorization: Bearer $X" https://api...``): it reaches the server,
    not the transcript, as ``source .env; curl -H "... $API_TOKEN"`` does.  Not when the
    request is printed (``-v``, wget's ``-dq``), its options are in a file (``-K``) or
    its host answers with the request's headers (httpbin.org),
    the value stands anywhere else (a body, the URL), the read took the whole file
    rather than a key (``X=$(cat .env)``: every secret at once), or the key the read
    picked names a service (``grep OPENAI_API_KEY .env``) and some host the request
    reaches is not that service's (another URL, ``--proxy``, ``--connect-to``)."""
    if cmd.name not in ("curl", "wget"):
        return False
    from agentreflex.gate.rules.exfil import (
        HEADER_FLAGS,
        host_in,
        names_a_token,
        token_hosts,
    )

    args = net_args(cmd)
    hosts = _request_hosts(cmd, args)
    if (
        not hosts[0]
        or any(host_in(h, _ECHO_HOSTS) for h in hosts)
        or not _picks_keys(readers)
        or any(a in _SHOWS_REQUEST or a.startswith(("--trace", "--config=")) for a in args)
        or (cmd.name == "wget" and _wget_debug(args))
    ):
        return False
    if any(
        UNKNOWN in a
        and not (k and args[k - 1] in HEADER_FLAGS)
        and a.partition("=")[0] not in HEADER_FLAGS  # wget --header="...: $X"
        for k, a in enumerate(args)
    ):
        return False
    keys = {w for r in readers for a in r.args for w in _NAME_WORD.findall(a)}
    owned = [token_hosts(w) for w in keys if names_a_token(w) and token_hosts(w)]
    return all(host_in(h, owners) for owners in owned for h in hosts)


# The wrapper that is itself a dump of the environment, kept when wrappers are peeled.
_ENV_ITSELF = frozenset({"env"})
# Each shell builtin's options that list the variables with their values.
_LISTERS = {
    "export": {"-p"},
    "declare": {"-p", "-x", "-px", "-xp"},
    "typeset": {"-p", "-x", "-px", "-xp"},
    "readonly": {"-p"},
    "local": {"-p"},
    "set": set(),
}
_INLINE_CODE = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print"})
_WHOLE_ENVIRON = LazyPattern(r"(?:environ|process\.env|%ENV|\bENV)(?![\w\[.{])", hints="env ENV")
_ENVIRON_IN_CODE = ("environ", "process.env", "getenv", "ENV")


def dumps_environment(cmd: Cmd) -> bool:
    """Whether ``cmd`` prints every variable with its value: ``env``, ``printenv``,
    ``export -p``, ``declare -x``, ``set``, a process's ``/proc/*/environ``, ``ps e``,
    or an interpreter's inline code reading its environment (``os.environ``,
    ``process.env``), however the command is wrapped (``command env``, ``/usr/bin/env``).
    Harmless alone; once a project's .env is loaded it prints that file."""
    argv = peel(list(cmd.argv), stop_at=_ENV_ITSELF).argv
    if not argv:
        return False
    name, args = argv[0].rsplit("/", 1)[-1], argv[1:]
    if any(a.startswith("/proc/") and a.endswith("/environ") for a in args):
        return True
    if name in ("env", "printenv"):
        return all(a.startswith("-") for a in args)
    if name in _LISTERS:
        return all(a in _LISTERS[name] for a in args)
    if name == "ps":
        return any(not a.startswith("-") and "e" in a for a in args)
    code = _inline_code(args)
    return any(
        any(k in c for k in _ENVIRON_IN_CODE)
        # the whole environment, or one variable named like a credential; one such as
        # process.env.PORT prints no more than echo $PORT does
        and (_WHOLE_ENVIRON.search(c) is not None or _SECRET_VAR.search(c) is not None)
        for c in code
    )


def _inline_code(args: list[str]) -> list[str]:
    """The code an interpreter is handed on its command line (``python3 -c CODE``)."""
    return [args[i + 1] for i in range(len(args) - 1) if args[i] in _INLINE_CODE]


def _names_in_code(cmd: Cmd, names: set[str]) -> bool:
    """Whether an interpreter's inline code names one of ``names`` (``export X; python3
    -c 'print(os.environ["X"])'``), which it reads from its environment."""
    code = " ".join(_inline_code(cmd.args))
    return any(re.search(rf"\b{re.escape(n)}\b", code) for n in names)


def _dump_shown(cmd: Cmd, shown: set[int] | None) -> bool:
    """``cmd`` prints the environment into the transcript: not into a file, nor through
    a pipe that only counts it (``env | wc -l``), as ``cat .env`` is judged."""
    return (
        dumps_environment(cmd)
        and not _to_file(cmd)
        and (not cmd.pipes_out or shown is None or id(cmd) in shown)
    )


def env_file_dumped(cmds: list[Cmd], shown: set[int] | None = None) -> list[Hit]:
    """A command that prints the environment after the line loaded a project's env
    file into it (``set -a; . ./.env; env``): the same class as ``export $(cat .env |
    xargs); env``, where the read itself blocks (:func:`loaded_env`)."""
    for k, cmd in enumerate(cmds):
        if cmd.name in ("source", ".") and cmd.args and _env_file(cmd.args[0]):
            for c in cmds[k + 1 :]:
                if _dump_shown(c, shown):
                    why = (
                        f"This prints the environment, which now holds {cmd.args[0]} "
                        "(credentials), into the transcript. Check a variable is set "
                        'with `test -n "$VAR"` instead.'
                    )
                    return [_hit("GATE-SECRET-READ", c.text, why)]
    return []


def captured_secret_shown(
    cmds: list[Cmd], fed_from: dict[str, set[int]], shown: set[int] | None = None
) -> list[Hit]:
    """A secret manager's read (or ``gh auth token``) kept out of the transcript by a
    capture or a file, then printed after all: ``X=$(vault kv get ...); echo "$X"``,
    ``echo "$(op read ...)"``, ``vault kv get ... > pw; cat pw`` (red-team rt104).  A
    capture handed to the tool that needs it (``docker login -p "$X"``), or a file it
    reads, stays allowed."""
    reads = {id(c): what for c in cmds if (what := secret_printer(c) or secret_fetcher(c))}
    if not reads:
        return []
    held = {v for v, ids in fed_from.items() if ids & reads.keys()}
    files = {t for c in cmds if id(c) in reads for op, t in c.redirects if op in (">", ">>")}
    for k, c in enumerate(cmds):
        if c.via == "substitution" or _to_file(c):
            continue
        if c.pipes_out and (shown is None or id(c) not in shown):
            continue
        what = _shows_held(c, cmds[:k], reads, held, files, fed_from)
        if what:
            why = (
                f"This prints {what} into the transcript. Pass it straight to the tool "
                'that needs it (a pipe or "$(...)"), or check it is set without showing it.'
            )
            return [_hit("GATE-SECRET-PRINT", c.text, why)]
    return []


def _shows_held(
    c: Cmd,
    before: list[Cmd],
    reads: dict[int, str],
    held: set[str],
    files: set[str],
    fed_from: dict[str, set[int]],
) -> str:
    """What read secret ``c`` prints: a variable holding one, a substitution of one in
    its own words, or a file one was written to (``""`` when none)."""
    first = next(iter(reads.values()))
    if _prints_variables(c) or c.name in ("env", "export", "set", "declare"):
        if held & set(c.vars_used) or (c.name == "printenv" and held & set(c.args)):
            return f"{first}, read into a variable"
        if held and dumps_environment(c):
            return f"the environment, which holds {first}"
        # its own word $(op read ...): the substitution run last before it, kept in no
        # variable
        own = next((b for b in reversed(before) if b.via == "substitution"), None)
        kept = own is not None and any(id(own) in ids for ids in fed_from.values())
        if own is not None and id(own) in reads and not kept and c.name in ("echo", "printf"):
            return reads[id(own)] if any(UNKNOWN in a for a in c.args) else ""
    named = {*_file_args(c), *(t for op, t in c.redirects if op == "<")}
    if (c.name in _READERS or c.name in _PASS_ON) and not c.pipes_out and files & named:
        return f"{first}, written to a file"
    return ""


def _env_file(path: str) -> bool:
    base = path.rstrip("/").rsplit("/", 1)[-1].lower()
    return base == ".env" or base.startswith(".env.")


def _env_files_only(cmd: Cmd) -> bool:
    named = [*_file_args(cmd), *(t for op, t in cmd.redirects if op == "<")]
    return bool(named) and all(_env_file(a) for a in named)


def shown_through_pipes(cmds: list[Cmd]) -> set[int]:
    """Ids of the commands whose output is piped only through commands that pass it
    on (cat, grep, base64 -d, jq, tee...) to the last one, which prints it."""
    consumer = {id(c.stdin_from): c for c in cmds if c.stdin_from is not None}
    shown: set[int] = set()
    for c in cmds:
        if not c.pipes_out:
            continue
        nxt = consumer.get(id(c))
        for _ in range(16):
            if nxt is None or nxt.name not in _PASS_ON or _quiet(nxt) or _to_file(nxt):
                break
            if nxt.name in ("jq", "yq") and not _selects_secret(nxt):
                break
            if nxt.via == "substitution":
                break
            if not nxt.pipes_out:
                shown.add(id(c))
                break
            nxt = consumer.get(id(nxt))
    return shown


def written_secret(text: str) -> list[str]:
    """Secret formats in file content an agent is about to write."""
    return find_secrets(text)
