"""Gemini CLI: the user's shell-command rules, mirrored for the commands agentreflex contains.

Why: in enforced mode the ``BeforeTool`` hook answers each
``run_shell_command`` with the same command inside agentreflex's boundary
(``bwrap --args 9 -- bash -c '<command>' 9< <mounts file> 8< <filter>``).  Gemini CLI
0.61 applies the hook's arguments *before* its policy check
(``Scheduler._processToolCall``: ``evaluateBeforeToolHook``, then
``checkPolicy`` on ``toolCall.request.args``), and its rules only see
through a line that *starts* with ``sh|bash|zsh -c`` (``stripShellWrapper``),
which is also what it *executes* (``ShellToolInvocation.execute`` runs
``stripShellWrapper(command)``): no contained line can be seen through
without running the command outside the boundary.  So a user's rule
``run_shell_command(git status)`` no longer matches, and every allowed
command asks (interactive) or is refused (``gemini -p`` without ``--yolo``).

What this module does instead: for each of the user's prefix rules for
``run_shell_command`` it writes a twin rule, same decision and priority, that
matches the *contained* form of the commands the original matches, into
``~/.gemini/policies/agentreflex-contained.toml`` (Gemini's user policy tier).

* an allow twin matches only a contained line whose inner command is the
  prefix followed by plain words (``[\\w@%+=:,./-]`` and spaces: no
  ``;``, ``&&``, ``|``, redirections, quotes, substitutions or newlines), so
  it allows exactly what the original allows of a one-command line; anything
  else falls to the rules that match every shell command (asking, or refused
  headless), as before;
* a deny or ``ask_user`` twin matches the prefix anywhere in the contained
  command, at word boundaries: it says no (or asks) at least where the
  original would;
* the twins name the boundary's own engine, shell and mounts folder, exactly:
  a line matching one runs inside the boundary, whoever wrote it.

Sources: ``tools.allowed`` in the user's and the project's ``settings.json``
(Gemini gives them priority 4.3, above the deny-the-rest rule it adds at 4.29)
and the ``commandPrefix`` rules in ``~/.gemini/policies/*.toml`` (the user
tier, the "allow always and save" file included).  Not mirrored, and said by
``install``/``doctor``: ``argsPattern``/``commandRegex`` rules, prefixes with
characters beyond plain words, workspace and admin policy files.

A rule with no twin (``tools.exclude`` entries, which are not mirrored; a rule
added since the install) is the hook's to notice: it refuses what a refusing one
names, and contains the rest all the same (``hosts/gemini.py``).

Install and ``doctor`` only: never on the hook's path (the hook reads only
a changed policy file's rules, through :func:`toml_rules`).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agentreflex.core.contain import boundary
from agentreflex.core.hosts.gemini import TWINS_FILE as FILE_NAME
from agentreflex.core.hosts.gemini import policies_dir, settings_prefixes, twin_path
from agentreflex.core.install.settingsfile import Change, read_text
from agentreflex.core.state import userdirs

SHELL_TOOLS = ("run_shell_command", "ShellTool")  # Gemini's SHELL_TOOL_NAMES
SETTINGS_PRIORITY = 300  # tools.allowed: USER_POLICY_TIER + 0.3 = 4 + 300/1000
DECISIONS = ("allow", "deny", "ask_user")
WORD = r"[\w@%+=:,./-]"  # shlex's safe characters: a word it leaves unquoted
_PLAIN = re.compile(r"[\w@%+=:,./-]+(?: [\w@%+=:,./-]+)*", re.ASCII)
_SPECIAL = re.compile(r"([\\.^$*+?()\[\]{}|])")


@dataclass(frozen=True)
class Rule:
    """One of the user's prefix rules for the shell tool."""

    prefix: str
    decision: str
    priority: int
    source: str
    modes: tuple[str, ...] = ()
    interactive: bool | None = None


@dataclass(frozen=True)
class Boundary:
    """The parts of the contained line a twin names: engine, shell, mounts folder."""

    engine: str
    shell: str
    folder: str


def boundary_line(env: Mapping[str, str]) -> tuple[Boundary | None, str]:
    """What :func:`boundary.rewrite` will name, or None and why no twin can be written."""
    engine = boundary.engine_path()
    if engine is None:
        return None, "bubblewrap is not installed: shell commands are not contained"
    shell = shutil.which("bash", path=env.get("PATH")) or "/bin/sh"
    folder = os.path.join(userdirs.user_state_dir(env), "contain")
    for part in (engine, shell, folder):
        if shlex.quote(part) != part:
            return None, f"{part!r} needs shell quoting, which no twin rule spells"
    return Boundary(engine, shell, folder), ""


def rx(text: str) -> str:
    """``text`` as a JavaScript regular expression matching it literally (JSON-encoded)."""
    return _SPECIAL.sub(r"\\\1", json.dumps(text, ensure_ascii=False)[1:-1])


def twin_pattern(rule: Rule, where: Boundary) -> str | None:
    """The ``argsPattern`` matching the contained lines ``rule`` stands for, or None.

    Gemini tests it on ``stableStringify(args)``, where each top-level pair
    sits between NUL characters; ``\\x27`` is ``'``.  The line is checked
    whole and, since it has redirections (``9<`` the mounts, ``6<`` and ``7<``
    the project's namespaces, :mod:`agentreflex.core.contain.pidns`, ``8<`` the
    terminal filter, :mod:`agentreflex.core.contain.terminal`), once more without them
    (``checkShellCommand``): both shapes match.  No group is followed by a
    quantifier: Gemini drops such patterns as unsafe (``isSafeRegExp``).
    """
    head = rf'\x00"command":"{rx(where.engine)} --args 9 -- {rx(where.shell)} -c '
    if rule.decision == "allow":
        if not _PLAIN.fullmatch(rule.prefix):
            return None
        plain = rx(rule.prefix)
        bare = f"|{plain}" if " " not in rule.prefix else ""  # shlex leaves one word unquoted
        inner = rf"(?:\x27{plain}(?:\x27| [\w@%+=:,./ -]*\x27){bare})"
        held = rf" 9< {rx(where.folder)}/[0-9a-f]{{32}}\.args"
        seccomp = rf" 8< {rx(where.folder)}/[0-9a-f]{{32}}\.bpf"  # the terminal filter
        # the project's namespaces (agentreflex.core.contain.pidns), opened by pid
        spaces = r" 6< /proc/[0-9]{1,10}/ns/user 7< /proc/[0-9]{1,10}/ns/pid"
        tail = (
            rf'(?:{held}"\x00|{held}{seccomp}"\x00|{held}{spaces}"\x00'
            rf'|{held}{spaces}{seccomp}"\x00|"\x00)'
        )
        return head + inner + tail
    if "'" in rule.prefix or not rule.prefix.strip():
        return None  # shlex spells ' as '"'"' inside the line
    return rf"{head}[^\x00]*(?<!{WORD}){rx(rule.prefix)}(?!{WORD})"


def _settings_rules(path: str) -> list[Rule]:
    """``tools.allowed`` shell entries, read the one way the hook reads them too."""
    allowed, _ = settings_prefixes(path)
    return [Rule(prefix, "allow", SETTINGS_PRIORITY, path) for prefix in allowed]


def toml_rules(path: str) -> list[Rule]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    rules = []
    for raw in data.get("rule", []) if isinstance(data.get("rule"), list) else []:
        rule = _toml_rule(raw, path)
        rules.extend(rule)
    return rules


def _toml_rule(raw: Any, path: str) -> list[Rule]:
    if not isinstance(raw, dict) or raw.get("toolName") not in SHELL_TOOLS:
        return []
    if raw.get("mcpName") is not None or raw.get("toolAnnotations") is not None:
        return []
    decision, priority = raw.get("decision"), raw.get("priority")
    if decision not in DECISIONS or not isinstance(priority, int) or not 0 <= priority <= 999:
        return []
    given = raw.get("commandPrefix")
    prefixes: list[Any] = [given] if isinstance(given, str) else []
    if isinstance(given, list):
        prefixes = given
    given_modes = raw.get("modes")
    modes: list[Any] = given_modes if isinstance(given_modes, list) else []
    interactive = raw.get("interactive")
    return [
        Rule(
            p,
            decision,
            priority,
            path,
            tuple(m for m in modes if isinstance(m, str)),
            interactive if isinstance(interactive, bool) else None,
        )
        for p in prefixes
        if isinstance(p, str) and p
    ]


def user_rules(project: str, env: Mapping[str, str]) -> list[Rule]:
    """The user's prefix rules for the shell tool Gemini loads at its user tier."""
    home = env.get("HOME") or os.path.expanduser("~")
    rules = _settings_rules(os.path.join(home, ".gemini", "settings.json"))
    if project:
        rules += _settings_rules(os.path.join(project, ".gemini", "settings.json"))
    folder = policies_dir(env)
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".toml") and n != FILE_NAME)
    except OSError:
        names = []
    for name in names:
        rules += toml_rules(os.path.join(folder, name))
    return rules


def render(project: str, env: Mapping[str, str]) -> tuple[str | None, list[str]]:
    """The twin file's text (None: nothing to mirror) and what was left out, and why."""
    rules = user_rules(project, env)
    if not rules:
        return None, []
    where, why = boundary_line(env)
    if where is None:
        return None, [f"shell rules not mirrored for contained commands: {why}"]
    blocks, left = [], []
    seen: set[tuple[str, str, int, tuple[str, ...], bool | None]] = set()
    for rule in rules:
        key = (rule.prefix, rule.decision, rule.priority, rule.modes, rule.interactive)
        if key in seen:
            continue
        seen.add(key)
        if rule.decision == "allow" and os.path.basename(rule.prefix.split(" ")[0]) == "bwrap":
            left.append(
                f"{rule.source} allows every command starting with {rule.prefix!r}: every "
                'contained command (an "allow always" given to one): remove it to be asked again'
            )
            continue
        pattern = twin_pattern(rule, where)
        if pattern is None:
            left.append(
                f"not mirrored ({rule.source}): {rule.decision} {rule.prefix!r} has characters "
                "beyond plain words; contained, that command asks (refused without a terminal)"
            )
            continue
        lines = [
            f"# {rule.decision} {json.dumps(rule.prefix)} from {rule.source}",
            "[[rule]]",
            'toolName = "run_shell_command"',
            f"argsPattern = {_toml_literal(pattern)}",
            f'decision = "{rule.decision}"',
            f"priority = {rule.priority}",
        ]
        if rule.decision == "allow":
            lines.append(
                "allowRedirection = true  # the boundary's own 9< (mounts) and 8< (filter)"
            )
        if rule.modes:
            lines.append(f"modes = {json.dumps(list(rule.modes))}")
        if rule.interactive is not None:
            lines.append(f"interactive = {'true' if rule.interactive else 'false'}")
        blocks.append("\n".join(lines))
    if not blocks:
        return None, left
    head = (
        "# Written by `agentreflex install gemini`; `agentreflex uninstall gemini` removes it.\n"
        "# Your shell rules, mirrored for the commands agentreflex runs inside its boundary\n"
        "# (bubblewrap): edit your own rules, then run the install again.\n"
    )
    return head + "\n\n".join(blocks) + "\n", left


def _toml_literal(text: str) -> str:
    """A TOML literal string (no escapes: the pattern spells ' as \\x27)."""
    if "'" in text or "\n" in text:
        raise ValueError("a twin pattern never holds a quote or a newline")
    return f"'{text}'"


def install_change(project: str, env: Mapping[str, str]) -> tuple[Change, list[str]]:
    """The twin file as the user's rules are now (absent when there is nothing to mirror)."""
    path = twin_path(env)
    text, left = render(project, env)
    return Change(path, read_text(path), text), left


def uninstall_change(env: Mapping[str, str]) -> Change:
    path = twin_path(env)
    return Change(path, read_text(path), None)
