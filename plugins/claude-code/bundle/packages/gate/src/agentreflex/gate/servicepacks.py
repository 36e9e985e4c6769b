"""Service CLIs judged from data: one JSON file per family in ``packs/``.

Each family file maps a program to its entries: ``words`` (the leading
non-option words, ``*`` for any one), optional ``flags`` (any of them
present), ``severity`` (``high`` -> block, ``medium`` -> warn), ``reason`` and
``instead`` (the safe alternative).  ``packs/index.tsv`` names the family of
each program; a family file is read only when one of its programs runs
(issue 22 item 6).  Finding codes are ``GATE-PACK-<FAMILY>``.
"""

from __future__ import annotations

import os

from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, P_WARN, Cmd, Hit
from agentreflex.gate.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIR = os.path.join(os.path.dirname(__file__), "packs")
_INDEX: dict[str, str] = {}
_FAMILIES: dict[str, dict[str, Any]] = {}


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


def _family(name: str) -> dict[str, Any]:
    if name not in _FAMILIES:
        import json

        with open(os.path.join(_DIR, f"{name}.json"), encoding="utf-8") as fh:
            _FAMILIES[name] = json.load(fh)
    return _FAMILIES[name]


def _matches(entry: dict[str, Any], words: list[str], args: list[str]) -> bool:
    want = entry.get("words", [])
    if len(words) < len(want) or any(
        w not in ("*", got) for w, got in zip(want, words, strict=False)
    ):
        return False
    flags = entry.get("flags")
    if not flags:
        return True
    return any(a == f or a.startswith(f + "=") for a in args for f in flags)


def check(cmd: Cmd, where: Where) -> list[Hit]:
    """The first entry of the program's family that the command matches."""
    family = programs().get(cmd.name)
    if family is None or any(a in ("--dry-run", "--dryrun") for a in cmd.args):
        return []
    entries = _family(family).get("programs", {}).get(cmd.name, [])
    words = [a for a in cmd.args if not a.startswith("-")]
    for entry in entries:
        if _matches(entry, words, cmd.args):
            high = entry.get("severity") == "high"
            instead = entry.get("instead") or "Ask the user first."
            return [
                Hit(
                    f"GATE-PACK-{family.upper()}",
                    DESTRUCTIVE,
                    P_BLOCK if high else P_WARN,
                    cmd.text,
                    f"{cmd.name}: {entry.get('reason', 'a destructive operation')}. {instead}",
                )
            ]
    return []
