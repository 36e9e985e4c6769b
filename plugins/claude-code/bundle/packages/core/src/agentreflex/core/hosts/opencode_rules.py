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
    in_files = _agent_file_rules(project, env)
    if in_files is None:
        return None
    agents += in_files
    found_sets = [(top, "allow")] + [(top + rules, "allow") for rules in agents]
    if newer:
        found_sets.append((listed, "ask"))
    return found_sets


def _agent_file_rules(project: str, env: Mapping[str, str]) -> list[Rules] | None:
    """The shell rules each agent file (markdown with front matter) sets; None if one
    can't be read.  A file whose front matter has no ``permission`` key sets none: a
    ``tools: {bash: true}`` or a description that says "bash" turned every command of
    every agent out of the boundary when any mention counted (red-team rt32)."""
    found: list[Rules] = []
    for folder in _agent_folders(project, env):
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            continue
        for name in names:
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    head = f.read(1 << 16)
            except OSError:
                return None
            rules = _front_matter_rules(head)
            if rules is None:
                return None
            if rules:
                found.append(rules)
    return found


def _front_matter_rules(text: str) -> Rules | None:
    """The shell rules of one agent file's ``permission`` key, read from the block YAML
    OpenCode's docs write (``permission:`` / ``  bash: ask`` or ``  bash:`` / ``    "git
    push": ask``); [] without the key; None for any other spelling of it (flow style,
    anchors, a value we can't tell), which the caller counts as unreadable."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return []
    body: list[str] = []
    for line in lines[1:]:
        if line.strip() == "---":
            break
        body.append(line)
    else:
        return None  # no end to the front matter: OpenCode's reader would not agree with ours
    keyed = [(i, ln.split(" #", 1)[0].rstrip()) for i, ln in enumerate(body)]
    keyed = [(i, ln) for i, ln in keyed if ln.startswith("permission")]
    if not keyed:
        return []
    if len(keyed) > 1 or not keyed[0][1].startswith("permission:"):
        return None
    start, line = keyed[0]
    scalar = _unquoted(line[len("permission:") :].strip())
    if scalar:  # `permission: ask`: every tool's answer
        return None if "\0" in scalar else _permission_rules(scalar)
    block: list[tuple[int, str, str]] = []
    for line in body[start + 1 :]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            break
        pair = _key_value(line.strip())
        if pair is None or "\t" in line[:indent]:
            return None
        key, value = pair
        block.append((indent, key, _unquoted(value.split(" #", 1)[0].strip())))
    if any("\0" in key + value for _, key, value in block):
        return None
    return _permission_block(block)


def _permission_block(block: list[tuple[int, str, str]]) -> Rules | None:
    if not block:
        return None
    top = block[0][0]
    table: dict[str, object] = {}
    current: dict[str, str] | None = None
    for indent, key, value in block:
        if indent == top:
            if value:
                table[key], current = value, None
            else:
                current = {}
                table[key] = current
        elif current is not None and value:
            current[key] = value
        else:
            return None
    if any(v is None or v == "" for v in table.values()) or any(
        not isinstance(v, str | dict) or v == {} for v in table.values()
    ):
        return None
    return _permission_rules(table)


def _key_value(text: str) -> tuple[str, str] | None:
    """A mapping line's key and value; a quoted key may hold a colon (``"curl https://*"``)."""
    if text[:1] in "\"'":
        end = text.find(text[0], 1)
        if end < 0 or text[end + 1 : end + 2] != ":":
            return None
        return text[1:end], text[end + 2 :]
    key, sep, value = text.partition(":")
    return (_unquoted(key.strip()), value) if sep else None


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text[:1] in ("[", "{", "&", "*", "|", ">"):
        return "\0"  # flow style, an anchor, a block scalar: not read here
    return text


def matches(pattern: str, text: str, trailing_optional: bool = False) -> bool:
    """OpenCode's wildcard: ``*`` any run of characters, ``?`` one, over the whole text."""
    import re

    regex = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
    if re.fullmatch(regex, text, re.DOTALL):
        return True
    return trailing_optional and pattern.endswith(" *") and matches(pattern[:-2], text)


def _commands(command: str) -> set[str]:
    """The simple commands ``command`` runs, each from its program on (``touch x`` of
    ``env A=1 touch x``), as far as its words tell: past assignments, a subshell's or a
    group's opening, and the wrappers that run a later word (``env``, ``sudo``, ``nohup``,
    ``xargs``...: from each word after one, as its options decide which); a shell's ``-c``
    text and ``eval``'s words are read the same way.  A segment whose words can't be split
    counts from each of its words."""
    found: set[str] = set()
    for segment in _segments(command)[1:] or [command]:
        found |= _segment_commands(segment, depth=0)
    return found


_WRAPPERS = frozenset(
    {"env", "command", "builtin", "exec", "nohup", "sudo", "doas", "time", "nice", "ionice",
     "timeout", "xargs", "stdbuf", "setsid", "unbuffer", "chronic", "caffeinate", "watch",
     "strace", "ltrace", "chroot", "flock", "npx", "bunx", "pnpx", "uvx"}
)  # fmt: skip
_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "busybox"})


def _segment_commands(segment: str, depth: int) -> set[str]:
    import re
    import shlex

    try:
        words = shlex.split(segment, comments=False, posix=True)
    except ValueError:
        words = [w for w in re.split(r"[\s;&|()`$<>\"'{}]+", segment) if w]
        return {_led(words, i) for i in range(len(words))}
    i = 0
    while i < len(words):
        words[i] = words[i].lstrip("({!")  # a subshell's, a group's, a negation's program
        if not words[i] or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[i], re.DOTALL):
            i += 1  # an assignment before the program
            continue
        break
    if i >= len(words):
        return set()
    found = {_led(words, i)}
    name = words[i].rsplit("/", 1)[-1]
    rest = words[i + 1 :]
    if name in _SHELLS and "-c" in rest and depth < 4:
        after = rest[rest.index("-c") + 1 :]
        for inner in (_segments(after[0])[1:] or [after[0]]) if after else []:
            found |= _segment_commands(inner, depth + 1)
    elif name == "eval" and depth < 4:
        found |= _segment_commands(" ".join(rest), depth + 1)
    elif name in _WRAPPERS:
        found |= {_led(words, j) for j in range(i + 1, len(words))}
    return found


def _led(words: list[str], i: int) -> str:
    """The words from ``i`` on, the program by its name (``/usr/bin/touch`` is ``touch``)."""
    return " ".join([words[i].rsplit("/", 1)[-1].lstrip("\\"), *words[i + 1 :]])


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
    return decide(command, project, env, since) == "contain"


def decide(command: str, project: str, env: Mapping[str, str], since: int | None = None) -> str:
    """What the hook does with ``command`` in enforced mode, by OpenCode's rules:

    - ``"contain"``: they run it as written without asking, so its contained form changes
      nothing but the boundary;
    - ``"host"``: a rule denies it or asks about it as OpenCode reads it, or a rule can't be
      read: OpenCode decides on the command as written;
    - ``"refuse"``: OpenCode would run it, but a rule other than "allow" is about a program
      it runs in a spelling OpenCode's matching passes over (``env touch x``, ``x; touch y``
      under ``"touch *": "deny"``): the hook holds the rule itself.  Only a program a
      command runs counts, not any word of it: a word anywhere (``python3 w.py touch``) left
      the command as written, and OpenCode ran it outside the boundary (red-team rt32).
    """
    found = rulesets(project, env, since)
    # bash's blanks: Python's whitespace (\x1c-\x1f, \x85) is a program's name to bash, and
    # False here leaves that command as written, outside the boundary (red-team rt30)
    text = command.strip(" \t\n")
    if found is None or not text:
        return "host" if text else "contain"
    segments = _segments(text)
    for rules, default in found:
        for segment in segments:
            if any(_resolves(rules, default, segment, loose) != "allow" for loose in (False, True)):
                return "host"
    runs = _commands(text)
    for rules, _ in found:
        for pattern, effect in rules:
            if effect == "allow" or pattern.strip("*?") == "":
                continue
            if any(matches(pattern, run, loose) for run in runs for loose in (False, True)):
                return "refuse"  # a rule about what the command runs, however spelled
    return "contain"
