"""A tool response in its own shape, with its long text fields shortened.

Claude Code accepts ``updatedToolOutput`` only in the tool's own shape
(Bash: ``{stdout, stderr, interrupted, isImage}``), so the replacement is
the response itself with each long text field swapped for its shortened
view; every other key is kept as it was.  A plain string response becomes
a shorter string.  Shapes not listed here (image blocks, MCP content lists)
are left alone.
"""

from __future__ import annotations

import os

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
        sizes = [len(response[k]) for k in TEXT_KEYS if isinstance(response.get(k), str)]
        saved = response.get("persistedOutputSize")
        if isinstance(saved, int) and not isinstance(saved, bool) and persisted_path(response):
            sizes.append(saved)
        return max(sizes, default=0)
    return 0


def persisted_path(response: dict[str, Any]) -> str:
    """The file where the host kept the whole output, when it cut what it hands the hook.

    Claude Code 2.1.328 hands a Bash hook only the first 30,000 characters of
    stdout (``BASH_MAX_OUTPUT_LENGTH``) and, past that, saves the whole output
    itself (``persistedOutputPath``, ``persistedOutputSize``).  The failing
    assertion of a test run is usually at the end, so the saver reads the
    whole output from there (streamed; shown to the agent, never trusted).
    """
    path = response.get("persistedOutputPath")
    if not isinstance(path, str) or not os.path.isabs(path):
        return ""
    return path if os.path.isfile(path) else ""


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
        whole = persisted_path(response)
        for key in TEXT_KEYS:
            value = out.get(key)
            if key == "stdout" and whole:
                with open(whole, "rb") as stream:
                    done = saver.shorten_stream(stream, ctx.state_dir, tool, limits, terms)
                out[key] = done.text
            elif isinstance(value, str) and len(value) > conf.saver_min_chars:
                out[key] = saver.shorten_text(value, ctx.state_dir, tool, limits, terms).text
        return out, ""
    except OSError as exc:
        return None, f"cannot read the host's saved output: {exc.strerror or exc}"
    except saver.PassThrough as exc:
        return None, str(exc)
