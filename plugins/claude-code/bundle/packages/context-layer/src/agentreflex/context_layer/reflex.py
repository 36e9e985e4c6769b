"""The context layer as a reflex: it decides nothing, it shapes what the agent sees.

* Session start (any source: ``startup``, ``resume``, ``clear``,
  ``compact``) and each user prompt: a session recap, when it has something
  beyond the goal and differs from the one last injected (after a
  compaction, or a PreCompact, it is injected again whatever it was).
* PreCompact: no host lets a hook add context there, so it forgets what was
  injected; the SessionStart ``compact`` (or the next prompt) re-injects.  One
  the host's adapter knows compacts nothing (``event.compacts``: Gemini CLI's
  ``PreCompress`` fires before every request, below its threshold too) is let be.
* PostToolUse: a tool output over ``saver_min_chars`` on a host where the
  shortened output is proven is replaced by the lines that matter plus the
  path of the saved copy.

It returns no findings; what it adds travels on ``ctx.recap`` and
``ctx.updated_output`` and each host's adapter spells it.  Any failure is
reported as degraded and changes nothing (fail open: a convenience).
"""

from __future__ import annotations

from agentreflex.context_layer.plugin import PLUGIN
from agentreflex.core.events import EventKind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.core.decision import Finding
    from agentreflex.core.reflex import ReflexContext

NAME = "context"
# Tool kinds whose output is left whole: reads and searches (the agent asked for
# exactly that text, and it is on disk already) and file changes.
_ASKED_FOR = frozenset({"read", "search", "write", "edit", "patch"})
SHA_NOTE = "context_recap_sha"  # state.notes key: hash of the recap last injected ("" = none)


class ContextReflex:
    name = NAME
    floor = False
    events = PLUGIN.reflex("context").event_kinds()  # declared once, in plugin.py

    def evaluate(self, ctx: ReflexContext) -> list[Finding]:
        from agentreflex.context_layer import settings

        try:
            conf = settings.load(ctx.config)
        except ValueError as exc:  # ConfigError
            ctx.degraded.append(f"context: {exc}")
            return []
        kind = ctx.event.kind
        if kind is EventKind.POST_TOOL:
            if ctx.event.host in conf.saver_hosts:
                _save(ctx, conf)
        elif kind is EventKind.PRE_COMPACT:
            if ctx.event.compacts:  # Gemini's PreCompress below its threshold compacts nothing
                ctx.note(NAME, SHA_NOTE, "")
        elif conf.recap:
            _recap(ctx, conf.recap_tokens)
        return []


def _recap(ctx: ReflexContext, budget: int) -> None:
    from agentreflex.context_layer import recap
    from agentreflex.core.recap import render_plain
    from agentreflex.core.util.digest import sha256_hex

    built = recap.build(ctx.state, ctx.config, ctx.state_dir, budget)
    if all(not s.lines for s in built.sections if s.title != recap.GOAL):
        return  # nothing beyond the goal: the agent has that in front of it
    sha = sha256_hex(render_plain(built), 24)
    last = ctx.state.notes.get(SHA_NOTE, [])
    source = ctx.event.raw.get("source")
    if last and last[-1] == sha and source != "compact":
        return
    built.trigger = source if isinstance(source, str) and source else ctx.event.kind.value
    ctx.recap = built
    ctx.note(NAME, SHA_NOTE, sha)


def _save(ctx: ReflexContext, conf: Any) -> None:
    from agentreflex.context_layer import shape

    tool_call = ctx.event.tool
    if tool_call is not None and tool_call.kind.value in _ASKED_FOR:
        return  # file contents and search hits are what the agent asked to see
    response = ctx.event.raw.get("tool_response")
    if shape.longest_text(response) <= conf.saver_min_chars:
        return
    tool = tool_call.name if tool_call is not None else "tool"
    replaced, warning = shape.shorten_response(response, ctx, conf, tool)
    if warning:
        ctx.degraded.append(f"context: {tool} output left whole: {warning}")
    if replaced is not None:
        ctx.updated_output = replaced
