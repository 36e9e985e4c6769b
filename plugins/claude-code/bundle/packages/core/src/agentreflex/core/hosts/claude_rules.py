"""Claude Code's Bash permission rules, read so that a contained command keeps the user's answer.

Why this exists: outside bypassed permissions Claude Code matches the user's
rules (``"allow": ["Bash(npm test:*)"]``) against the command it is about to
run.  A command the hook puts inside agentreflex's boundary no longer matches
them, so every allowed command would turn into a question (in ``-p``, a
refusal).  The hook therefore answers "allow" itself with the contained
command, and only where Claude Code certainly would have allowed the command
as the agent wrote it:

- the command is one plain command: no operator, substitution, redirection,
  glob, variable, or path that could lead out of the project (an absolute
  path, ``~``, ``..``), where Claude Code runs checks of its own beyond the
  rules;
- an allow rule in a settings file matches it (Claude Code's rule forms:
  ``Bash``, ``Bash(*)``, ``Bash(exact)``, ``Bash(prefix:*)``, ``Bash(glob *)``);
- no deny or ask rule could match it: none matches, and none names its
  program.

Claude Code applies its rules to the command it runs, the replaced one
(seen in 2.1.328: a ``--disallowedTools`` rule no longer stopped a contained
command), so every rule must be in view.  Where some may not be, nothing is
replaced: a managed tier (``managed-settings.json``, its ``.d`` folder, the
server-managed cache), or a session started with flags that add rules or
settings (``--disallowedTools``, ``--settings``, ``--setting-sources``,
``--permission-prompt-tool``).  A deny or ask rule of another tool
(``Read(./.env)``, which Claude Code also applies to shell commands naming
the file) that the command may name leaves it as written too.

Everything else is left as written, for Claude Code to decide as it would
without agentreflex (and uncontained, as ``doctor`` says).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

__all__ = ["allowed_by_rules", "plain_words", "rule_matches", "unseen_rules"]

# Any of these makes a command something other than one plain command, or reaches out of the
# project: Claude Code's own checks (operators split, substitutions and paths outside the
# working folders ask) could then answer differently from a rule.
_NOT_PLAIN = frozenset(";&|<>$`(){}[]*?!#~\\\n\r\t")


def plain_words(command: str) -> list[str] | None:
    """The words of ``command`` when it is one plain command that stays in the project; else None."""
    text = command.strip()
    if not text or any(char in _NOT_PLAIN for char in text):
        return None
    import shlex

    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if not words or "=" in words[0]:
        return None  # an environment assignment before the program
    for word in words:
        if word.startswith("/") or ".." in word or "=/" in word:
            return None
    return words


def rule_matches(spec: str | None, command: str) -> bool:
    """Whether a ``Bash(...)`` rule's ``spec`` (None for a bare ``Bash``) matches ``command``."""
    if spec is None or spec in ("", "*"):
        return True
    if spec.endswith(":*"):
        prefix = spec[:-2]
        return command == prefix or command.startswith(prefix + " ")
    if "*" not in spec:
        return command == spec
    import re

    pattern = ".*".join(re.escape(part) for part in spec.split("*"))
    if re.fullmatch(pattern, command, re.DOTALL):
        return True
    # a single trailing " *" also matches the bare command (``Bash(ls *)`` matches ``ls``)
    return spec.count("*") == 1 and spec.endswith(" *") and command == spec[:-2]


def _bash_specs(rules: Iterable[object]) -> list[str | None]:
    """The Bash rules among a settings list: None for a bare ``Bash``, else the text in brackets."""
    specs: list[str | None] = []
    for rule in rules:
        if not isinstance(rule, str):
            continue
        rule = rule.strip()
        if rule == "Bash":
            specs.append(None)
        elif rule.startswith("Bash(") and rule.endswith(")"):
            specs.append(rule[5:-1].strip())
    return specs


def _names_program(spec: str | None, program: str) -> bool:
    """Whether a deny or ask rule could be about ``program`` (its first word, or a leading glob)."""
    if spec is None or spec.startswith("*"):
        return True
    head = spec.split(" ", 1)[0].split(":", 1)[0].rstrip("*")
    return head == program or (spec.split(" ", 1)[0].endswith("*") and program.startswith(head))


# How Claude Code's process is named: its native binary, or Node running its cli.js.
_CLAUDE_PROGRAMS = ("claude", "claude.exe", "cli.js")
# Flags of ``claude`` that add rules or settings no file shows.
_UNSEEN_RULE_FLAGS = (
    "--disallowedTools",
    "--disallowed-tools",
    "--settings",
    "--setting-sources",
    "--permission-prompt-tool",
)


def unseen_rules(
    config_dir: str, managed: Sequence[str], proc: str = "/proc", start: int = 0
) -> bool:
    """Whether Claude Code may hold rules that no settings file the hook reads shows.

    A managed tier (any of ``managed``, or the server-managed cache in ``config_dir``),
    or the ``claude`` process this hook runs under (found by walking up from the hook's
    parent) started with a flag that adds rules; True when that process can't be
    found, so that nothing is replaced on a guess.
    """
    import os

    if any(os.path.lexists(path) for path in managed):
        return True
    if os.path.lexists(os.path.join(config_dir, "remote-settings.json")):
        return True  # server-managed settings, cached
    from agentreflex.core.hosts.hostprocess import host_argv

    argv = host_argv(_CLAUDE_PROGRAMS, proc, start)
    if argv is None:
        return True
    return any(w.split("=", 1)[0] in _UNSEEN_RULE_FLAGS for w in argv)


def _rules(files: Sequence[str]) -> dict[str, list[str | None]]:
    """Every settings file's Bash rules, by kind (allow, deny, ask); an unreadable file has none.

    Deny and ask rules of other tools that name a path come back as ``"path:<text>"``.
    """
    from agentreflex.core.util import fastjson

    found: dict[str, list[str | None]] = {"allow": [], "deny": [], "ask": []}
    for path in files:
        try:
            with open(path, "rb") as handle:
                data = handle.read(1 << 20)
        except OSError:
            continue
        if b'"permissions"' not in data:
            continue
        try:
            permissions = fastjson.loads(data).get("permissions")
        except (ValueError, AttributeError):
            continue
        if not isinstance(permissions, dict):
            continue
        for kind, specs in found.items():
            listed = permissions.get(kind)
            if isinstance(listed, list):
                specs.extend(_bash_specs(listed))
                if kind != "allow":
                    specs.extend(f"path:{p}" for p in _path_specs(listed))
    return found


def _path_specs(rules: Iterable[object]) -> list[str]:
    """The paths named by rules of tools other than Bash (``Read(./.env)`` gives ``./.env``)."""
    paths: list[str] = []
    for rule in rules:
        if isinstance(rule, str) and "(" in rule and rule.endswith(")"):
            tool, spec = rule[:-1].split("(", 1)
            if tool.strip() != "Bash" and spec.strip():
                paths.append(spec.strip())
    return paths


def _may_name(path_spec: str, command: str) -> bool:
    """Whether ``command`` may name a path a rule's pattern covers: any literal piece of it."""
    import re

    pieces = [p for p in re.split(r"[*/?\[\]{}]+", path_spec) if p not in ("", ".", "..", "~")]
    return not pieces or any(piece in command for piece in pieces)


def allowed_by_rules(command: str, files: Sequence[str]) -> bool:
    """Whether Claude Code would certainly allow ``command`` by a rule in ``files``, with no question.

    False whenever in doubt: the caller then leaves the command as the agent wrote it.
    """
    words = plain_words(command)
    if words is None:
        return False
    text = command.strip()
    rules = _rules(files)
    for spec in rules["deny"] + rules["ask"]:
        if spec is not None and spec.startswith("path:"):
            if _may_name(spec[5:], text):
                return False
        elif rule_matches(spec, text) or _names_program(spec, words[0]):
            return False
    return any(rule_matches(spec, text) for spec in rules["allow"])
