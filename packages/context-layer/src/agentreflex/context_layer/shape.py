"""A tool response in its own shape, with its long text fields shortened.

Claude Code accepts ``updatedToolOutput`` only in the tool's own shape
(Bash: ``{stdout, stderr, interrupted, isImage}``), so the replacement is
the response itself with each long text field swapped for its shortened
view; every other key is kept as it was.  A plain string response becomes
a shorter string.  Shapes not listed here (image blocks, MCP content lists)
are left alone.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.context_layer.settings import ContextSettings
    from agentreflex.core.reflex import ReflexContext

TEXT_KEYS = ("stdout", "stderr", "output", "content")


def longest_text(response: Any) -> int:
    """Length of the longest text field (0 for shapes the saver leaves alone)."""
    if isinstance(response, str):
        return len(response)
    if isinstance(response, dict) and response.get("isImage") is not True:
        return max(
            (len(response[k]) for k in TEXT_KEYS if isinstance(response.get(k), str)), default=0
        )
    return 0


def shorten_response(
    response: Any, ctx: ReflexContext, conf: ContextSettings, tool: str
) -> tuple[Any, str]:
    """(replacement or None, warning): every text field over the threshold shortened."""
    from agentreflex.context_layer import lines, saver

    limits = saver.Limits(
        keep_chars=conf.saver_keep_chars,
        max_files=conf.outputs_max_files,
        max_bytes=conf.outputs_max_mb * 1024 * 1024,
    )
    terms = lines.goal_terms(ctx.state.goal)
    try:
        if isinstance(response, str):
            return saver.shorten_text(response, ctx.state_dir, tool, limits, terms).text, ""
        out = dict(response)
        for key in TEXT_KEYS:
            value = out.get(key)
            if isinstance(value, str) and len(value) > conf.saver_min_chars:
                out[key] = saver.shorten_text(value, ctx.state_dir, tool, limits, terms).text
        return out, ""
    except saver.PassThrough as exc:
        return None, str(exc)
