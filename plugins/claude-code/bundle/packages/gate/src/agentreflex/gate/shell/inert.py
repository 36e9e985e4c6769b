"""Commands that only report what they would do: dry runs, help, analysis.

``git push --dry-run --force``, ``rsync -an --delete``, ``kubectl delete
--dry-run=server``, ``terraform destroy -help``, ``aws s3 rb help`` and
``git filter-repo --analyze`` change nothing.  Every tool spells "only tell
me" its own way (``-n`` is a dry run for rsync and ``git push`` but the
namespace for kubectl and helm; aws takes a trailing ``help`` word,
terraform ``-help``), so this module holds one table of spellings per tool
(and per git subcommand) and one detector that :mod:`analyze` applies to
every command before that tool's own rules.  Only the tool's own options
count: words after ``--`` are operands, and a command the tool runs (a
container's command, an ssh command) is a separate command judged on its own.
Everything a command does besides its own action (redirects, secrets read,
commands it runs) is still checked.
"""

from __future__ import annotations

from agentreflex.core.util.record import record

# Package managers whose publish verbs the publish rule knows.  Shared by the
# analyser, the dry-run detector and the rules (kept here, not in ``rules/infra.py``:
# every parsed command goes through this module, not every one through those rules).
PACKAGE_MANAGERS = (
    "npm",
    "yarn",
    "pnpm",
    "bun",
    "cargo",
    "twine",
    "poetry",
    "uv",
    "flit",
    "hatch",
    "pdm",
    "rye",
    "gem",
    "dotnet",
    "nuget",
)

# Cloud and hosting CLIs whose delete/destroy verbs the cloud rule knows (beyond
# aws, gcloud and az).  One list, shared by the analyser and the dry-run detector.
HOSTING_CLIS = (
    "doctl",
    "linode-cli",
    "hcloud",
    "scw",
    "oci",
    "ibmcloud",
    "flyctl",
    "fly",
    "heroku",
    "vercel",
    "netlify",
    "railway",
    "render",
    "gsutil",
)

_FALSY = frozenset({"none", "false", "0", "no", "off"})


@record(frozen=True)
class Spelling:
    """How one tool says "dry run / help / analysis only"."""

    words: frozenset[str] = frozenset()  # whole option words (``--analyze``, ``--preview-only``)
    short: str = ""  # letters that mean dry-run inside short clusters (``-n`` in ``-fdn``)
    dry_run: bool = True  # ``--dry-run[=v]`` / ``--dryrun`` (v not none/false)
    short_help: bool = True  # ``-h`` means help (not rsync's human-readable, docker run's host)
    help_word: str = ""  # "first": ``tool help ...``; "last": ``aws s3 rb help``


_HELP = frozenset({"--help", "-help"})
_NO_DRY = Spelling(dry_run=False)

_GIT = {
    "push": Spelling(short="n"),
    "clean": Spelling(short="n"),
    "reflog": Spelling(short="n"),
    "prune": Spelling(short="n"),
    "rm": Spelling(short="n"),
    "mv": Spelling(short="n"),
    "worktree": Spelling(short="n"),
    "filter-repo": Spelling(words=frozenset({"--analyze"})),
    "gc": _NO_DRY,
    "reset": _NO_DRY,
    "checkout": _NO_DRY,
    "restore": _NO_DRY,
    "switch": _NO_DRY,
    "stash": _NO_DRY,
    "branch": _NO_DRY,
    "filter-branch": _NO_DRY,
    "update-ref": _NO_DRY,
}

_TOOLS: dict[str, Spelling] = {
    "rsync": Spelling(short="n", short_help=False),
    "kubectl": Spelling(help_word="first"),
    "oc": Spelling(help_word="first"),
    "k": Spelling(help_word="first"),
    "helm": Spelling(help_word="first"),
    "terraform": Spelling(dry_run=False, help_word="first"),
    "tofu": Spelling(dry_run=False, help_word="first"),
    "terragrunt": Spelling(dry_run=False, help_word="first"),
    "pulumi": Spelling(words=frozenset({"--preview-only"}), dry_run=False, help_word="first"),
    "cdk": Spelling(dry_run=False),
    "cdktf": Spelling(dry_run=False),
    "aws": Spelling(help_word="last"),
    "gcloud": Spelling(help_word="first"),
    "az": Spelling(words=frozenset({"--what-if"})),
    "docker": Spelling(short_help=False, help_word="first"),
    "podman": Spelling(short_help=False, help_word="first"),
    "nerdctl": Spelling(short_help=False, help_word="first"),
    "docker-compose": Spelling(short_help=False, help_word="first"),
    "lerna": Spelling(dry_run=False),
    "semantic-release": Spelling(short="d"),
    "goreleaser": Spelling(words=frozenset({"--snapshot", "--skip=publish"}), dry_run=False),
}
for _name in (
    *HOSTING_CLIS,
    *PACKAGE_MANAGERS,
    "gh",
    "etcdctl",
):
    _TOOLS.setdefault(_name, Spelling())


def _git_sub(args: list[str]) -> tuple[str, list[str]]:
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"):
            i += 2
        elif a.startswith("-"):
            i += 1
        else:
            return a, args[i + 1 :]
    return "", []


def inert(name: str, args: list[str]) -> str:
    """Why ``name args`` only reports ("dry run", "help", "analysis"), or ``""``."""
    if name == "git":
        sub, args = _git_sub(args)
        spelling = _GIT.get(sub)
        if spelling is None:
            return ""
    else:
        found = _TOOLS.get(name)
        if found is None:
            return ""
        spelling = found
    positional: list[str] = []
    dry = ""  # the last of --dry-run / --no-dry-run wins
    for a in args:
        if a == "--":
            break
        if a in _HELP or (a == "-h" and spelling.short_help):
            return "help"
        if a == "--version" and name == "git":
            return "help"  # not an option of any subcommand: git stops with an error
        if a in spelling.words:
            return "analysis" if "analy" in a else "dry run"
        if spelling.dry_run and (a == "--dryrun" or a.startswith("--dry-run")):
            value = a.partition("=")[2]
            on = a in ("--dry-run", "--dryrun") or bool(value and value.lower() not in _FALSY)
            dry = "dry run" if on else ""
        elif spelling.dry_run and a in ("--no-dry-run", "--no-dryrun"):
            dry = ""
        short_cluster = a.startswith("-") and not a.startswith("--") and a[1:].isalpha()
        if spelling.short and short_cluster and any(ch in spelling.short for ch in a[1:]):
            return "dry run"
        if not a.startswith("-"):
            positional.append(a)
    if spelling.help_word == "first" and positional[:1] == ["help"]:
        return "help"
    if spelling.help_word == "last" and args and args[-1] == "help":
        return "help"
    return dry
