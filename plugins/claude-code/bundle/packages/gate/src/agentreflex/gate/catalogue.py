"""Every finding code of the gate, with its family, severity and reason: one catalogue.

    agentreflex gate rules [--json]
    python -m agentreflex.gate.catalogue [--json]

Severity is what the code answers by default: ``block``, ``ask`` (the user
decides), ``warn`` (runs, with a note), or two of them where the scope
decides (``block/warn``).  Service-pack codes (``GATE-PACK-<FAMILY>``) are
listed from the pack files, their grades (high/medium/low) with the decision
the ``balanced`` profile gives them (``--profile lean|thorough`` for others).  ``tests/test_catalogue.py`` holds every code
the gate's sources can emit to this list (issue 22 item 6: one catalogue
instead of codes scattered over the modules).  Not on any hot path.
"""

from __future__ import annotations

import json
import sys

_B, _A, _W = "block", "ask", "warn"

CATALOGUE: dict[str, tuple[str, str, str]] = {
    # deletes
    "GATE-RM-ROOT": ("deletes", _B, "deletes /, the home folder or a folder above the project"),
    "GATE-RM-PROJECT": ("deletes", _B, "deletes the project root or everything in it"),
    "GATE-RM-GIT-DIR": ("deletes", _B, "deletes the repository's .git"),
    "GATE-RM-SYSTEM": ("deletes", _B, "deletes a system path"),
    "GATE-RM-DOTFILE": ("deletes", _B, "deletes a dotfile or dot-folder of the home"),
    "GATE-RM-RECURSIVE-OUTSIDE": ("deletes", _B, "a recursive delete outside project and temp"),
    "GATE-RM-UNCOMMITTED": (
        "deletes",
        _A,
        "deletes project files git holds no copy of (uncommitted changes; files never added, for "
        "rm -r); where the project's .git leads nowhere, deletes or overwrites files older than "
        "the session",
    ),
    "GATE-RM-OUTSIDE": ("deletes", _W, "deletes a file outside the project"),
    "GATE-RM-UNRESOLVED": ("deletes", _A, "a recursive delete of a path known only at run time"),
    "GATE-SHRED": ("deletes", _B, "shreds files beyond recovery"),
    "GATE-RSYNC-DELETE": ("deletes", _B, "rsync --delete into a folder outside the project"),
    "GATE-MOVE-AWAY": ("deletes", _B, "moves important files away (to /dev/null, out of reach)"),
    "GATE-INTERP-DYNAMIC-DELETE": ("deletes", _W, "interpreter code deletes a computed path"),
    "GATE-INTERP-SDK-DESTRUCTIVE": (
        "remote code",
        _B,
        "interpreter code calls a client library's destroy-a-store method (deleteIndex...)",
    ),
    "GATE-INTERP-UNRESOLVED": (
        "remote code",
        _A,
        "interpreter code runs or deletes a value known only at run time",
    ),
    # overwrites and permissions
    "GATE-OVERWRITE-SYSTEM": ("overwrites", _B, "overwrites a system file"),
    "GATE-OVERWRITE-DOTFILE": ("overwrites", _B, "overwrites a dotfile of the home"),
    "GATE-APPEND-DOTFILE": ("overwrites", _W, "appends to a dotfile of the home"),
    "GATE-OVERWRITE-OUTSIDE": ("overwrites", _W, "overwrites a file outside the project"),
    "GATE-WRITE-DOTFILE": ("overwrites", _W, "edits a dotfile of the home"),
    "GATE-WRITE-GIT-HOOK": ("overwrites", _W, "writes a git hook (runs on later git commands)"),
    "GATE-HISTORY-WIPE": ("overwrites", _B, "wipes shell history"),
    "GATE-PERMS-SYSTEM": ("permissions", _B, "changes permissions or owners of system paths"),
    "GATE-PERMS-SENSITIVE": ("permissions", _W, "opens up a sensitive file"),
    "GATE-PERMS-SETUID": ("permissions", _W, "sets a setuid/setgid bit"),
    # disks and system
    "GATE-DISK-DD": ("disks", _B, "dd onto a disk device"),
    "GATE-DISK-FORMAT": ("disks", _B, "formats or partitions a disk"),
    "GATE-DISK-WRITE": ("disks", _B, "writes to a raw disk device"),
    "GATE-FORK-BOMB": ("system", _B, "a fork bomb"),
    "GATE-POWER": ("system", _B, "shuts down or reboots the machine"),
    "GATE-KILL-ALL": ("system", _B, "kills every process"),
    "GATE-KILL-SYSTEM": ("system", _B, "kills a system process"),
    "GATE-FIREWALL-FLUSH": ("system", _B, "flushes or disables the firewall"),
    "GATE-TUNNEL-EXPOSE": (
        "system",
        _A,
        "a tunnel puts a login or database port (SSH, RDP, a database) on the internet",
    ),
    "GATE-SSHD-STOP": ("system", _B, "stops the SSH server"),
    "GATE-CRONTAB-REMOVE": ("system", _B, "removes the user's crontab"),
    # git
    "GATE-GIT-RESET-HARD": ("git", _B, "git reset --hard/--merge throws away uncommitted work"),
    "GATE-GIT-DISCARD-TREE": ("git", _B, "discards every uncommitted change of the work tree"),
    "GATE-GIT-DISCARD-FILES": ("git", "block/ask", "discards uncommitted changes of files"),
    "GATE-GIT-CLEAN": (
        "git",
        "block/ask",
        "git clean -f deletes untracked files (ask: named paths)",
    ),
    "GATE-GIT-STASH-DROP": ("git", _B, "drops stashed work"),
    "GATE-GIT-BRANCH-FORCE-MOVE": (
        "git",
        _A,
        "git branch -f moves an existing branch; its newer commits are left in the reflog",
    ),
    "GATE-GIT-BRANCH-FORCE-DELETE": ("git", _B, "deletes an unmerged branch"),
    "GATE-GIT-FORCE-PUSH": ("git", _B, "force-pushes over the remote's history"),
    "GATE-GIT-FORCE-PUSH-PROTECTED": ("git", _W, "--force-with-lease to a shared branch"),
    "GATE-GIT-PUSH-MIRROR": ("git", _B, "push --mirror overwrites every remote ref"),
    "GATE-GIT-PUSH-DELETE": ("git", _B, "deletes a remote branch or tag"),
    "GATE-GIT-PUSH-MATCHING": ("git", _W, "pushes every matching branch"),
    "GATE-GIT-PUSH-ELSEWHERE": ("git", _A, "pushes to a repository named by its address"),
    "GATE-GIT-REWRITE-HISTORY": ("git", _B, "rewrites the whole history"),
    "GATE-GIT-REFLOG-EXPIRE": ("git", _B, "expires the reflog"),
    "GATE-GIT-GC-PRUNE": ("git", _B, "prunes unreachable commits now"),
    "GATE-GIT-UPDATE-REF-DELETE": ("git", _B, "deletes a ref directly"),
    "GATE-GIT-ABORT": ("git", _A, "merge/rebase --abort discards the work tree's changes since"),
    "GATE-GIT-WORKTREE-FORCE-REMOVE": ("git", "block/ask", "removes a worktree with its changes"),
    # code that runs other code
    "GATE-RCE-DOWNLOAD": ("remote code", _B, "runs code downloaded from the network"),
    "GATE-OBFUSCATED-EXEC": ("remote code", _B, "decodes a hidden payload and runs it"),
    "GATE-DYNAMIC-COMMAND": ("remote code", _A, "the command to run is computed at run time"),
    "GATE-DYNAMIC-SCRIPT": ("remote code", _A, "a script, code or option known only at run time"),
    "GATE-BRACE-COMMAND": ("remote code", _A, "a command name built by a brace expansion"),
    "GATE-REMOTE-SHELL": (
        "remote code",
        _B,
        "wires a shell to a network connection (a reverse or bind shell)",
    ),
    "GATE-PIPE-TO-SHELL": ("remote code", _A, "code of unknown content piped into a shell"),
    "GATE-DERIVED-COMMAND": ("remote code", _A, "an unknown program handed a protected command"),
    "GATE-GENERATED-CODE": ("remote code", _A, "eval/source of code generated at run time"),
    "GATE-STDIN-COMMAND": ("remote code", _A, "xargs/parallel build the command from their input"),
    "GATE-HIDDEN-PROGRAM": ("remote code", _A, "a setting runs a program the gate cannot read"),
    "GATE-GIT-CONFIG-ENV": ("remote code", _A, "git settings from GIT_CONFIG_COUNT not all known"),
    "GATE-SCRIPT-UNREADABLE": ("remote code", _W, "a script the command runs could not be read"),
    "GATE-SCRIPT-PARTLY-CHECKED": ("remote code", _W, "parts of a script on disk are computed"),
    "GATE-CODEX-STDIN": ("hosts", _A, "an interactive shell opened in Codex (stdin unchecked)"),
    # data stores, cloud, services
    "GATE-DB-DESTROY": (
        "data stores",
        "graded",
        "drops or empties a database or table (DROP, TRUNCATE, DELETE without WHERE, an ORM call "
        "on a whole model), replaces a "
        "login's password (ALTER USER ... PASSWORD), moves Redis's snapshot file (CONFIG SET "
        "dir), replaces its data (REPLICAOF) or loads code into it (MODULE LOAD); "
        "graded by the database named: prod/unknown block, dev asks, test warns",
    ),
    "GATE-DB-UPDATE-ALL": (
        "data stores",
        "graded",
        "UPDATE without WHERE overwrites every row; dev/unknown ask, test warns",
    ),
    "GATE-CLOUD-DESTROY": ("cloud", _B, "destroys a whole stack"),
    "GATE-CLOUD-DELETE": ("cloud", "block/warn", "deletes cloud resources"),
    "GATE-K8S-DELETE": (
        "cloud",
        _W,
        "kubectl drain evicts every pod of a node (deletes: pack cloud)",
    ),
    "GATE-HELM-UNINSTALL": ("cloud", _B, "uninstalls a Helm release"),
    "GATE-DOCKER-PRUNE": (
        "containers",
        "graded",
        "deletes volumes (compose down -v, volume rm/prune: ask) or every unused image and "
        "volume (system prune -a/--volumes, podman system reset: block)",
    ),
    "GATE-KV-DELETE": ("data stores", "block/warn", "deletes keys of etcd/consul"),
    "GATE-HTTP-DELETE": ("services", "block/ask", "an HTTP request that deletes data"),
    "GATE-PUBLISH": ("publishing", _B, "publishes a package"),
    "GATE-GH-DELETE": (
        "publishing",
        _B,
        "deletes a GitHub repository, release, secret or resource",
    ),
    # secrets
    "GATE-SECRET-READ": ("secrets", _B, "reads a secret file"),
    "GATE-SECRET-WRITE": ("secrets", _B, "writes or copies a secret file"),
    "GATE-SECRET-IN-COMMAND": ("secrets", _B, "a secret typed on the command line"),
    "GATE-SECRET-ENV-PRINT": ("secrets", _B, "prints the environment's secrets"),
    "GATE-SECRET-PRINT": ("secrets", _B, "prints a credential"),
    "GATE-EXFIL-DUMP": ("secrets", _A, "a database dump piped to a network client"),
    "GATE-EXFIL-SECRET": (
        "secrets",
        _B,
        "sends a secret to the network, an encoder on stdout or the clipboard, or a token "
        "to a host that is not its service",
    ),
    # constraints, the guard itself, parsing
    "GATE-CONSTRAINT": ("constraints", _B, "breaks a constraint the user stated"),
    "GATE-SELF-PROTECT": ("the guard", _A, "changes one of agentreflex's own files"),
    "GATE-SELF-DISABLE": ("the guard", _A, "uninstalls or disables agentreflex"),
    "GATE-SELF-KEY": ("the guard", _A, "reads the per-user key"),
    "GATE-ALLOWED": ("the guard", "allow", "an approved allow-list entry applied"),
    "GATE-ALLOW-LIST-UNAPPROVED": ("the guard", _W, "an allow-list the user has not approved"),
    "GATE-PARSE-ERROR": ("parsing", _A, "text the shell would run cannot be parsed"),
    "GATE-SYNTAX-REJECTED": ("parsing", _W, "bash rejects the line (syntax error): nothing runs"),
    "GATE-PARSE-TOO-COMPLEX": ("parsing", _A, "input too large to analyse"),
    "GATE-PARSE-TOO-DEEP": ("parsing", _A, "nesting too deep to analyse"),
    "GATE-PARSE-BUDGET": ("parsing", _B, "analysis ran out of time"),
    "GATE-INTERNAL-ERROR": ("parsing", _B, "the gate failed; it fails closed"),
    # judge-only signals
    "GATE-JUDGE-DESTRUCTIVE": ("judge", "block/warn", "the calibrated judge finds it destructive"),
    "GATE-JUDGE-SECRET": ("judge", _B, "the calibrated judge finds a secret exposure"),
    "GATE-JUDGE-CONSTRAINT": ("judge", _B, "the calibrated judge finds a constraint broken"),
    "GATE-REDUNDANT": ("judge", _W, "the call repeats earlier work"),
    "GATE-EVIDENCE-INSUFFICIENT": ("judge", _W, "not enough evidence for the step"),
    "GATE-GOAL-ALIGNMENT": ("judge", _W, "the call drifts from the goal"),
}


def rows(profile: str = "balanced") -> list[tuple[str, str, str, str]]:
    """(code, family, severity, reason) for every code, service packs included.

    A pack's severity is what its entries' grades (high/medium/low) decide in
    ``profile`` (``packs/severity.tsv``), the grades themselves in the reason.
    """
    from agentreflex.gate import packs as servicepacks
    from agentreflex.gate import severity

    out = [(code, *entry) for code, entry in CATALOGUE.items()]
    for family in sorted(set(servicepacks.programs().values())):
        data = servicepacks.family(family)
        progs = sorted(data.get("programs", {}))
        grades = sorted(
            {e.get("severity", "high") for es in data["programs"].values() for e in es},
            key=("high", "medium", "low").index,
        )
        decisions = dict.fromkeys(severity.decision(g, profile) for g in grades)
        out.append(
            (
                f"GATE-PACK-{family.upper()}",
                f"pack: {family}",
                "/".join(decisions),
                f"destructive {family} operations ({', '.join(progs)}); graded {'/'.join(grades)}",
            )
        )
    return out


def command(argv: list[str]) -> int:
    """``agentreflex gate rules [--json]``: the catalogue (the ``gate`` command's one action)."""
    if argv[:1] != ["rules"]:
        sys.stderr.write(
            "usage: agentreflex gate rules [--json] [--profile lean|balanced|thorough]\n"
        )
        return 2
    return main(argv[1:])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    profile = "balanced"
    if "--profile" in args and args.index("--profile") + 1 < len(args):
        profile = args[args.index("--profile") + 1]
    table = rows(profile)
    if "--json" in args:
        keys = ("code", "family", "severity", "reason")
        print(json.dumps([dict(zip(keys, r, strict=True)) for r in table], indent=1))
        return 0
    for code, family, severity, reason in table:
        print(f"{code:<34} {family:<14} {severity:<10} {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
