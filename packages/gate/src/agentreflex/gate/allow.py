"""The user's own policy: a project allow-list with expiry, and extra rules.

``<project>/.agentreflex/allow.toml``::

    [[allow]]
    rule = "GATE-GIT-RESET-HARD"   # a rule id
    expires = "2026-12-31"         # required; past entries are ignored
    match = "reset --hard HEAD"    # optional: only segments containing this
    reason = "scratch repo"

``<project>/.agentreflex/gate-rules.toml`` and ``<project>/policies/gate/rules.toml``::

    [[rule]]
    id = "USER-NO-PROD-DB"
    command = "psql"               # optional: the executed command's name
    contains = "prod"              # optional: text in the executed segment
    regex = "--host=prod"          # optional
    path = "infra/"                # optional: for file tools, a path prefix/substring
    verdict = "block"              # block | ask | warn
    message = "Never touch the production database."

User rules can only add blocks, asks and warnings; allow entries only remove
named rule hits, for a limited time, and never the ones that protect the
policy itself or the fail-closed parse budget, and only once the user has
approved the allow-list's exact content (``agentreflex trust
.agentreflex/allow.toml``).  The agent cannot edit these
files without the user (see ``GATE-SELF-PROTECT``).
"""

from __future__ import annotations

import os
import re

from agentreflex.core.util.record import record
from agentreflex.gate.model import ASK, DESTRUCTIVE, P_BLOCK, P_WARN, Cmd, Hit

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as _dt
    from typing import Any

NOT_ALLOWABLE = frozenset(
    {
        "GATE-SELF-PROTECT",
        "GATE-SELF-DISABLE",
        "GATE-SELF-KEY",
        "GATE-PARSE-BUDGET",
        "GATE-INTERNAL-ERROR",
    }
)

_CACHE: dict[str, tuple[float, Any]] = {}


@record(frozen=True)
class AllowEntry:
    rule: str
    expires: _dt.datetime
    match: str = ""
    reason: str = ""


@record(frozen=True)
class UserRule:
    id: str
    verdict: str
    message: str
    command: str = ""
    contains: str = ""
    regex: str = ""
    path: str = ""


def _load_toml(path: str) -> dict[str, Any] | None:
    """Parse a TOML file, cached by mtime; ``None`` when absent or invalid."""
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == mtime:
        return cached[1]  # type: ignore[no-any-return]
    import tomllib

    try:
        with open(path, "rb") as fh:
            data: dict[str, Any] | None = tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        data = None
    _CACHE[path] = (mtime, data)
    return data


def _expiry(value: Any) -> _dt.datetime | None:
    import datetime as _dt

    if isinstance(value, _dt.datetime):
        return value if value.tzinfo else value.replace(tzinfo=_dt.UTC)
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day, 23, 59, 59, tzinfo=_dt.UTC)
    if isinstance(value, str):
        try:
            return _expiry(_dt.date.fromisoformat(value.strip()))
        except ValueError:
            try:
                return _expiry(_dt.datetime.fromisoformat(value.strip()))
            except ValueError:
                return None
    return None


def allow_list_path(project: str) -> str:
    return os.path.join(project, ".agentreflex", "allow.toml")


def approved(path: str) -> bool:
    """Whether the user approved this exact content of ``path`` (``agentreflex trust PATH``).

    An allow-list only weakens the gate, and the project is written by the
    agent (or by whoever wrote a repository the user cloned): its entries
    count only once the user approved the file's exact bytes, recorded
    outside the project (``agentreflex.core.config.trust``).
    """
    from agentreflex.core.config.trust import lookup

    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return False
    return lookup(path, raw).approved


def allow_entries(
    project: str, now: _dt.datetime | None = None, require_approval: bool = True
) -> list[AllowEntry]:
    """Active allow entries of a project (expired and malformed ones are dropped).

    None at all while the allow-list's content is not approved by the user,
    unless ``require_approval`` is False (to say what is being withheld).
    """
    path = allow_list_path(project)
    data = _load_toml(path) or {}
    items = data.get("allow", []) if isinstance(data.get("allow"), list) else []
    if not items:
        return []  # no allow-list (the usual case): datetime is not even imported
    if require_approval and not approved(path):
        return []
    import datetime as _dt

    now = now or _dt.datetime.now(_dt.UTC)
    out = []
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("rule"), str):
            continue
        expires = _expiry(item.get("expires"))
        if expires is None or expires < now or item["rule"] in NOT_ALLOWABLE:
            continue
        out.append(
            AllowEntry(
                item["rule"], expires, str(item.get("match", "")), str(item.get("reason", ""))
            )
        )
    return out


def apply_allow(hits: list[Hit], entries: list[AllowEntry]) -> tuple[list[Hit], list[Hit]]:
    """Split hits into (kept, allowed by an active entry)."""
    if not entries:
        return hits, []
    kept, allowed = [], []
    for h in hits:
        if h.rule not in NOT_ALLOWABLE and any(
            e.rule == h.rule and (not e.match or e.match in h.shown_segment()) for e in entries
        ):
            allowed.append(h)
        else:
            kept.append(h)
    return kept, allowed


def user_rules(project: str) -> list[UserRule]:
    """Extra rules from the project's ``.agentreflex/gate-rules.toml`` and ``policies/gate``."""
    rules: list[UserRule] = []
    for path in (
        os.path.join(project, ".agentreflex", "gate-rules.toml"),
        os.path.join(project, "policies", "gate", "rules.toml"),
    ):
        data = _load_toml(path) or {}
        items = data.get("rule", [])
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                continue
            verdict = str(item.get("verdict", "block")).lower()
            if verdict not in ("block", "ask", "warn"):
                continue
            regex = str(item.get("regex", ""))
            if regex:
                try:
                    re.compile(regex)
                except re.error:
                    continue
            rules.append(
                UserRule(
                    item["id"],
                    verdict,
                    str(item.get("message", "")),
                    str(item.get("command", "")),
                    str(item.get("contains", "")),
                    regex,
                    str(item.get("path", "")),
                )
            )
    return rules


def user_hits(rules: list[UserRule], cmds: list[Cmd], paths: list[str]) -> list[Hit]:
    """Hits of user rules on executed commands and touched paths."""
    hits = []
    for r in rules:
        for cmd in cmds:
            if r.path:
                continue
            joined = " ".join(cmd.argv)
            if r.command and cmd.name != r.command:
                continue
            if r.contains and r.contains not in joined and r.contains not in cmd.text:
                continue
            if r.regex and not re.search(r.regex, joined):
                continue
            if r.command or r.contains or r.regex:
                hits.append(_user_hit(r, cmd.text))
                break
        if r.path and any(r.path in p for p in paths):
            hits.append(_user_hit(r, next(p for p in paths if r.path in p)))
    return hits


def _user_hit(r: UserRule, segment: str) -> Hit:
    message = r.message or f"Blocked by the project's rule {r.id}."
    if r.verdict == "ask":
        return Hit(r.id, ASK, 1.0, segment, message)
    return Hit(r.id, DESTRUCTIVE, P_BLOCK if r.verdict == "block" else P_WARN, segment, message)
