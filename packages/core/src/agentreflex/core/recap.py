"""The session recap: what the context layer wants the agent to remember, as data.

Why a separate word: ``agentreflex.core.util.digest`` is SHA-256 hashing, and the
session state's ``output_digest`` is a hash too; the summary of a session
that is re-injected after a compaction is a *recap*.  The context layer
(``agentreflex.context_layer``) decides what goes in it and when; each
host's adapter decides how it is spelled for its host (``render_recap``),
so core's logic never writes host text and a new host only adds a renderer.

Stdlib only: imported on the hook path.
"""

from __future__ import annotations

from agentreflex.core.util.record import field, record


@record
class RecapSection:
    """One titled part of a recap (``Constraints``, ``Open obligations`` ...)."""

    title: str
    lines: list[str] = field(default_factory=list)


@record
class Recap:
    """A recap to inject on this event; ``trigger`` says why (``compact``, ``prompt`` ...)."""

    sections: list[RecapSection] = field(default_factory=list)
    trigger: str = ""

    @property
    def empty(self) -> bool:
        return not any(s.lines for s in self.sections)


def render_plain(recap: Recap) -> str:
    """The host-neutral spelling: a heading, then ``Title:`` and ``- line`` lists.

    Used by the Claude Code and Codex adapters (both wrap ``additionalContext``
    as a system reminder); a host with another convention renders its own.
    """
    out = ["agentreflex session recap (what this session must keep in mind):"]
    for section in recap.sections:
        if section.lines:
            out.append(f"{section.title}:")
            out.extend(f"- {line}" for line in section.lines)
    return "\n".join(out)


def declared_parts(state_dir: str, session_id: str) -> list[tuple[str, list[str], bool]]:
    """Every installed package's parts of the recap (``Plugin.recap``), in plugin-name order.

    A recap is shown to the agent, never trusted for a decision: a part that
    fails or has the wrong shape is left out (judgment fails open).
    """
    from agentreflex.core import registry

    parts: list[tuple[str, list[str], bool]] = []
    for _name, spec in registry.entries(registry.RECAPS):
        try:
            found = registry.load_object(spec)(state_dir, session_id)
            parts += [
                (str(title), [str(line) for line in lines], bool(keep))
                for title, lines, keep in found
                if isinstance(lines, list)
            ]
        except Exception:
            continue
    return parts
