"""Prohibitions stay in force for the session when a rule file loses them unseen.

A command can rewrite ``AGENTS.md`` under a spelling no parse reads
(``open('AGE'+'NTS.md','w')``), so the edit is never asked about, and the
next call's forbidden edit would pass.  Holding the files read-only was
rejected (a ``git checkout`` of another branch must still work), so the
reflex remembers instead: each prohibition it reads is kept in the session's
sealed notes, and one that is no longer in its file still applies, unless the
change was one the user approved (a call the reflex asked about with
INSTR-RULES-EDIT, whose PostToolUse then arrived).  Rules only add blocks: a
new rule applies at once, and only an approved change takes one away.

The notes hold, per rule file, the prohibitions remembered for it (the latest
entry per file wins), and per asked call the rule files it would change.
"""

from __future__ import annotations

from agentreflex.instructions import parse, reflex
from agentreflex.instructions.parse import Rule

TYPE_CHECKING = False
if TYPE_CHECKING:
    from agentreflex.core.events import ToolCall
    from agentreflex.core.reflex import ReflexContext
    from agentreflex.core.state.model import SessionState

RULES_NOTE = reflex.RULES_NOTE  # {"file": rel, "rules": [...]}: the latest per file wins
ASKED_NOTE = "instructions_asked"  # {"call": key, "files": [rel, ...]}: INSTR-RULES-EDIT asked
MAX_RULES = 64  # prohibitions remembered per file (a note stays small)

Meaning = tuple[str, str, str, tuple[str, ...]]


def meaning(rule: Rule) -> Meaning:
    """What a prohibition forbids, whatever line or wording it has now."""
    return (rule.action, rule.target.lower(), rule.scope, tuple(rule.globs))


def _to_note(rule: Rule) -> dict[str, object]:
    return {**rule.to_json(), "scope": rule.scope}


def _from_note(data: object) -> Rule | None:
    """A remembered prohibition, or None for a note of another shape."""
    if not isinstance(data, dict):
        return None
    try:
        start, end = (int(x) for x in data.get("lines", [0, 0]))
        return Rule(
            file=str(data["file"]),
            start=start,
            end=end,
            text=str(data["text"]),
            kind=parse.PROHIBIT,
            scope=str(data.get("scope", "")),
            globs=[str(g) for g in data.get("globs", [])],
            action=str(data.get("action", "")),
            target=str(data.get("target", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None


def remembered(state: SessionState) -> dict[str, list[Rule]]:
    """The prohibitions remembered this session, per rule file (project-relative)."""
    out: dict[str, list[Rule]] = {}
    for entry in state.notes.get(RULES_NOTE, []):
        if isinstance(entry, dict) and isinstance(entry.get("rules"), list):
            rules = [_from_note(r) for r in entry["rules"]]
            out[str(entry.get("file", ""))] = [r for r in rules if r is not None]
    return out


def in_force(state: SessionState) -> list[Rule]:
    """Every remembered prohibition (:mod:`comply` keeps those its files no longer hold)."""
    return [r for rules in remembered(state).values() for r in rules]


def record(ctx: ReflexContext, read: dict[str, list[Rule]]) -> None:
    """Remember the prohibitions read for this call, added to those already remembered.

    Noted only when a file brings a prohibition not yet remembered, so a
    session whose rules do not change writes nothing more.
    """
    known = remembered(ctx.state)
    for rel, rules in read.items():
        before = known.get(rel, [])
        seen = {meaning(r) for r in before}
        fresh = [r for r in rules if meaning(r) not in seen]
        if fresh:
            keep = (before + fresh)[:MAX_RULES]
            ctx.note(
                "instructions", RULES_NOTE, {"file": rel, "rules": [_to_note(r) for r in keep]}
            )


def replace(ctx: ReflexContext, rel: str, rules: list[Rule]) -> None:
    """The user approved a change of ``rel``: remember what it says now, nothing older."""
    keep = rules[:MAX_RULES]
    ctx.note("instructions", RULES_NOTE, {"file": rel, "rules": [_to_note(r) for r in keep]})


def call_key(tool: ToolCall) -> str:
    """The same tool call at PreToolUse and PostToolUse: its id, or its name and input."""
    if tool.tool_use_id:
        return tool.tool_use_id
    import hashlib  # only for a host without call ids: not on every hook's path

    said = f"{tool.name}\0{tool.command}\0{tool.path}\0{tool.content}"
    return hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def asked(ctx: ReflexContext, tool: ToolCall, files: list[str]) -> None:
    """INSTR-RULES-EDIT asked the user about ``tool``, which would change ``files``."""
    if files:
        ctx.note("instructions", ASKED_NOTE, {"call": call_key(tool), "files": sorted(set(files))})


def approved_files(state: SessionState, tool: ToolCall) -> list[str]:
    """The rule files of an asked call whose PostToolUse arrived (the user approved it)."""
    key = call_key(tool)
    for entry in reversed(state.notes.get(ASKED_NOTE, [])):
        if isinstance(entry, dict) and entry.get("call") == key:
            return [str(f) for f in entry.get("files", []) if isinstance(f, str)]
    return []
