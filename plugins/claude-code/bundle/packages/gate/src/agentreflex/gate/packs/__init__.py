"""Service CLIs judged from data: one JSON file per family in ``packs/``.

Each family file maps a program to its entries, tried in order (the widest
first, so a scoped form further down only matches when no wider one did):

* ``words``: the leading positional words (``*`` any one, ``a|b`` either,
  ``x*`` a prefix); option values named in ``valued`` are skipped;
* ``flags``: any of them present (``-f`` also inside ``-vf``); ``unless_flags``:
  none of them present (a narrow form: ``kubectl delete pod x`` but not ``--all``);
* ``rest``: a pattern every positional word after ``words`` matches (``pod/*``);
* ``options``: an option with one of the listed values (``-X DELETE``,
  ``--method=DELETE``, ``-jar jenkins-cli.jar``);
* ``contains``: text any argument holds; ``stdin``: text the piped input holds;
* ``target``: a regular expression the last positional word matches;
* a family with a ``scope`` section (``databases.json``) has each hit graded
  down to what the database the command names allows (:mod:`rules.dbscope`);
* ``severity`` (``high``/``medium``/``low``, mapped to a decision by profile in
  :mod:`agentreflex.gate.severity`), ``scope`` (what a narrower entry is
  limited to), ``reason`` and ``instead`` (the safe alternative).

A family file may also name ``valued`` options per program, ``dry_run``
options per program (the command changes nothing) and ``aliases`` (``oc`` is
``kubectl``).  ``packs/index.tsv`` names the family of each program; a family
file is read only when one of its programs runs (issue 22 item 6).  Finding
codes are ``GATE-PACK-<FAMILY>``.
"""

from __future__ import annotations

import os

from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, P_WARN, Cmd, Hit, positional
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIR = os.path.dirname(__file__)
_INDEX: dict[str, str] = {}
_FAMILIES: dict[str, dict[str, Any]] = {}
_DRY_RUN = ("--dry-run", "--dryrun")


def programs() -> dict[str, str]:
    """Program -> family, from the index (read once per process)."""
    if not _INDEX:
        # a plain text index: every parsed command reads it, and json is not
        # imported on the hook's hot path
        try:
            with open(os.path.join(_DIR, "index.tsv"), encoding="utf-8") as fh:
                for line in fh:
                    program, sep, family = line.strip().partition("\t")
                    if sep and not program.startswith("#"):
                        _INDEX[program] = family
        except OSError:
            return {}
    return _INDEX


def family(name: str) -> dict[str, Any]:
    """The parsed pack file of family ``name`` (read once per process)."""
    if name not in _FAMILIES:
        import json

        with open(os.path.join(_DIR, f"{name}.json"), encoding="utf-8") as fh:
            _FAMILIES[name] = json.load(fh)
    return _FAMILIES[name]


def _word_matches(pattern: str, word: str) -> bool:
    for alt in pattern.split("|"):
        if alt == "*" or alt == word:
            return True
        if "*" in alt[:-1]:  # ``*/*``: kind/name
            from fnmatch import fnmatchcase

            if fnmatchcase(word, alt):
                return True
        elif alt.endswith("*") and word.startswith(alt[:-1]):
            return True
    return False


def _has_flag(args: list[str], flag: str) -> bool:
    """``flag`` given alone, with ``=value``, or (a one-letter flag) inside ``-abc``."""
    for a in args:
        if a == flag or a.startswith(flag + "="):
            return True
        short = len(flag) == 2 and flag[0] == "-" and flag[1] != "-"
        if short and a[:1] == "-" and a[1:2] != "-" and a[1:].isalpha() and flag[1] in a[1:]:
            return True
    return False


def _option_value(args: list[str], option: str) -> list[str]:
    """The values given to ``option`` (``-X V``, ``-XV``, ``--opt=V``, ``--opt V``)."""
    out: list[str] = []
    for i, a in enumerate(args):
        if a == option and i + 1 < len(args):
            out.append(args[i + 1])
        elif a.startswith(option + "="):
            out.append(a[len(option) + 1 :])
        elif len(option) == 2 and option[1] != "-" and a.startswith(option) and len(a) > 2:
            out.append(a[2:])
    return out


def _matches(entry: dict[str, Any], words: list[str], cmd: Cmd) -> bool:
    want = entry.get("words", [])
    if len(words) < len(want) or not all(
        _word_matches(w, got) for w, got in zip(want, words, strict=False)
    ):
        return False
    rest = entry.get("rest")
    if rest and not all(_word_matches(rest, w) for w in words[len(want) :]):
        return False
    args = cmd.args
    flags = entry.get("flags")
    if flags and not any(_has_flag(args, f) for f in flags):
        return False
    unless = entry.get("unless_flags")
    if unless and any(_has_flag(args, f) for f in unless):
        return False
    options = entry.get("options")
    if options and not any(
        os.path.basename(v).lower() in [x.lower() for x in values]
        for option, values in options.items()
        for v in _option_value(args, option)
    ):
        return False
    contains = entry.get("contains")
    if contains and not any(c in a for a in args for c in contains):
        return False
    if "stdin" in entry and not _stdin_holds(cmd, entry["stdin"]):
        return False
    if "target" in entry:
        import re  # only for the few entries that name a target pattern

        if not words or not re.search(entry["target"], words[-1]):
            return False
    return True


def _stdin_holds(cmd: Cmd, needles: list[str]) -> bool:
    from agentreflex.gate.shell import pipes

    text = cmd.stdin_text or pipes.output_text(cmd.stdin_from, {}) or ""
    low = text.lower()
    return any(n.lower() in low for n in needles)


def check(cmd: Cmd, where: Where) -> list[Hit]:
    """The first entry of the program's family that the command matches."""
    name = programs().get(cmd.name)
    if name is None or any(a in _DRY_RUN for a in cmd.args):
        return []
    data = family(name)
    program = data.get("aliases", {}).get(cmd.name, cmd.name)
    if any(_has_flag(cmd.args, f) for f in data.get("dry_run", {}).get(program, [])):
        return []
    words = positional(cmd.args, data.get("valued", {}).get(program, []))
    for entry in data.get("programs", {}).get(program, []):
        if _matches(entry, words, cmd):
            if "scope" in data:  # databases: graded by the database the command names
                from agentreflex.gate.rules.dbscope import grade

                severity, scope = grade(entry.get("severity", "high"), cmd)
                entry = {**entry, "severity": severity, "scope": f"{scope} database"}
            return [_hit(name, entry, cmd)]
    return []


def _hit(name: str, entry: dict[str, Any], cmd: Cmd) -> Hit:
    severity = entry.get("severity", "high")
    instead = entry.get("instead") or "Ask the user first."
    scope = f" (scoped: {entry['scope']})" if entry.get("scope") else ""
    return Hit(
        f"GATE-PACK-{name.upper()}",
        DESTRUCTIVE,
        P_BLOCK if severity == "high" else P_WARN,
        cmd.text,
        f"{cmd.name}: {entry.get('reason', 'a destructive operation')}{scope}. {instead}",
        severity=severity,
    )
