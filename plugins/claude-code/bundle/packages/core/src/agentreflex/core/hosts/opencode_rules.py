"""OpenCode's shell permission rules, read so that a contained command keeps the user's answer.

Why this exists: OpenCode checks its ``permission`` rules (``"bash": {"rm *":
"deny"}``) against the command it runs, after the plugin's
``tool.execute.before`` has replaced it.  A command put inside agentreflex's
boundary no longer matches them, so a user's "deny" or "ask" rule would be
passed over (seen in OpenCode 1.18.33: ``"touch *": "deny"`` no longer stopped
a contained ``touch``).  The hook therefore replaces a command only where every
rule it can see lets the command as written run without asking:

- each ruleset (the top-level ``permission``, each agent's on top of it, and
  the newer ``permissions`` list) resolves the command to "allow", the last
  matching rule winning, read both with and without a trailing `` *`` being
  optional;
- no rule other than "allow" names a program the command runs.

Where a rule can't be read (a file that does not parse, an agent file that
sets permissions), nothing is replaced: OpenCode decides on the command as
written, as it would without agentreflex.

OpenCode reads its settings when it starts: a project ``opencode.json`` made
or changed since the session began is not what it decides by, and one a
contained command can make (the project root's, where no mount can hold a
missing file) would otherwise turn the containment off.  So those are left
out (``since``: red-team rt30 had a process left running keep a broken one
there, and every later command ran as written, outside the boundary).
"""

from __future__ import annotations

import os

from agentreflex.core.util import jsonc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

__all__ = ["config_files", "permits", "rulesets"]

Rules = list[tuple[str, str]]
_NAMES = ("opencode.json", "opencode.jsonc", "config.json")


def config_files(project: str, env: Mapping[str, str], since: int | None = None) -> list[str]:
    """OpenCode's config files for ``project``, lowest precedence first; with ``since`` (the
    session's start, ns), not the project's own ``opencode.json`` made or changed after it."""
    config_home = env.get("XDG_CONFIG_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".config"
    )
    files = [os.path.join(config_home, "opencode", name) for name in _NAMES]
    custom = env.get("OPENCODE_CONFIG")
    if custom:
        files.append(custom)
    if project:
        files += [p for p in (os.path.join(project, n) for n in _NAMES[:2]) if _older(p, since)]
        files += [os.path.join(project, ".opencode", name) for name in _NAMES[:2]]
    return files


def _older(path: str, since: int | None) -> bool:
    """Was ``path`` last made or changed (its ctime: no command can set it) before ``since``?"""
    if since is None:
        return True
    try:
        return os.lstat(path).st_ctime_ns < since
    except OSError:
        return True  # missing: nothing to read either way


def _agent_folders(project: str, env: Mapping[str, str]) -> list[str]:
    config_home = env.get("XDG_CONFIG_HOME") or os.path.join(
        env.get("HOME") or os.path.expanduser("~"), ".config"
    )
    roots = [os.path.join(config_home, "opencode")]
    if project:
        roots.append(os.path.join(project, ".opencode"))
    return [os.path.join(root, sub) for root in roots for sub in ("agent", "agents")]


def _permission_rules(value: object) -> Rules | None:
    """The shell rules of one ``permission`` value (a string, or a per-tool table)."""
    if isinstance(value, str):
        return [("*", value)]
    if not isinstance(value, dict):
        return None
    rules: Rules = []
    for key in ("*", "bash"):
        entry = value.get(key)
        if isinstance(entry, str):
            rules.append(("*", entry))
        elif isinstance(entry, dict):
            rules += [(str(p), str(a)) for p, a in entry.items()]
        elif entry is not None:
            return None
    return rules


def _list_rules(value: object) -> Rules | None:
    """The shell rules of the newer ``permissions`` list (action, resource, effect)."""
    if not isinstance(value, list):
        return None
    rules: Rules = []
    for item in value:
        if not isinstance(item, dict):
            return None
        action, resource, effect = item.get("action"), item.get("resource"), item.get("effect")
        if not all(isinstance(v, str) for v in (action, resource, effect)):
            return None
        if matches(str(action), "bash") or matches(str(action), "shell"):
            rules.append((str(resource), str(effect)))
    return rules


_UNREADABLE = object()  # a document that does not parse: no rule in it can be known


def _documents(project: str, env: Mapping[str, str], since: int | None) -> Iterator[object]:
    for path in config_files(project, env, since):
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read(1 << 20)
        except OSError:
            continue
        yield _parsed(text)
    if env.get("OPENCODE_CONFIG_CONTENT"):
        yield _parsed(env["OPENCODE_CONFIG_CONTENT"])
    if env.get("OPENCODE_PERMISSION"):
        value = _parsed(env["OPENCODE_PERMISSION"])
        yield {"permission": value} if value is not _UNREADABLE else value


def _parsed(text: str) -> object:
    try:
        return jsonc.loads(text)
    except ValueError:
        return _UNREADABLE


def rulesets(
    project: str, env: Mapping[str, str], since: int | None = None
) -> list[tuple[Rules, str]] | None:
    """Every ruleset that may decide a shell command, with its default; None if unreadable.

    The top level's rules, then each agent's on top of them; the newer
    ``permissions`` list, whose default is "ask".
    """
    top: Rules = []
    agents: list[Rules] = []
    listed: Rules = []
    newer = False
    for doc in _documents(project, env, since):
        if doc is _UNREADABLE or not isinstance(doc, dict):
            return None
        if "permission" in doc:
            rules = _permission_rules(doc["permission"])
            if rules is None:
                return None
            top += rules
        if "permissions" in doc:
            found = _list_rules(doc["permissions"])
            if found is None:
                return None
            listed += found
            newer = True
        agent_table = doc.get("agent") or {}
        if not isinstance(agent_table, dict):
            return None
        for agent in agent_table.values():
            if isinstance(agent, dict) and "permission" in agent:
                rules = _permission_rules(agent["permission"])
                if rules is None:
                    return None
                agents.append(rules)
    if _agent_files_set_permissions(project, env):
        return None
    found_sets = [(top, "allow")] + [(top + rules, "allow") for rules in agents]
    if newer:
        found_sets.append((listed, "ask"))
    return found_sets


def _agent_files_set_permissions(project: str, env: Mapping[str, str]) -> bool:
    """Whether an agent file (markdown with front matter) may set its own permissions."""
    for folder in _agent_folders(project, env):
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    head = f.read(1 << 16)
            except OSError:
                return True
            if "permission" in head or "bash" in head:
                return True
    return False


def matches(pattern: str, text: str, trailing_optional: bool = False) -> bool:
    """OpenCode's wildcard: ``*`` any run of characters, ``?`` one, over the whole text."""
    import re

    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    if re.fullmatch(regex, text, re.DOTALL):
        return True
    return trailing_optional and pattern.endswith(" *") and matches(pattern[:-2], text)


def _programs(command: str) -> set[str]:
    """Every word of ``command`` that could be a program: split on blanks and operators."""
    import re

    return {w for w in re.split(r"[\s;&|()`$<>\"']+", command) if w}


def _segments(command: str) -> list[str]:
    """The command and each simple command in it, as OpenCode checks each one."""
    import re

    parts = re.split(r"&&|\|\||[;|\n`]|\$\(|\)", command)
    return [command, *(p.strip() for p in parts if p.strip() and p.strip() != command)]


def _resolves(rules: Rules, default: str, text: str, loose: bool) -> str:
    action = default
    for pattern, effect in rules:
        if matches(pattern, text, loose):
            action = effect  # the last matching rule wins
    return action


def permits(command: str, project: str, env: Mapping[str, str], since: int | None = None) -> bool:
    """Whether OpenCode would certainly run ``command`` as written without asking anyone
    (``since``: when the session began, see the module)."""
    found = rulesets(project, env, since)
    # bash's blanks: Python's whitespace (\x1c-\x1f, \x85) is a program's name to bash, and
    # False here leaves that command as written, outside the boundary (red-team rt30)
    text = command.strip(" \t\n")
    if found is None or not text:
        return False
    programs = _programs(text)
    segments = _segments(text)
    for rules, default in found:
        for segment in segments:
            if any(_resolves(rules, default, segment, loose) != "allow" for loose in (False, True)):
                return False
        for pattern, effect in rules:
            head = pattern.split(" ", 1)[0].rstrip("*?")
            if effect != "allow" and head and head in programs:
                return False  # a rule about a program the command runs, however spelled
    return True
