"""The short list of rules an agent should see while editing one file.

For the context layer (``agentreflex.context_layer``), which decides when to
inject: this only answers "which rules govern this path", briefly.  Enforced
rules come first; advice is included only when it is specific to the path (a
nested file's, or a glob-scoped Cursor/Copilot rule's), because the
project-wide advice is already in the host's own instruction file.
"""

from __future__ import annotations

import os

from agentreflex.instructions import parse, ruleset


def rules_for_path(
    path: str,
    cwd: str | None = None,
    limit: int = 6,
    max_chars: int = 800,
    specific: bool = False,
) -> list[str]:
    """``["AGENTS.md:3: Never edit files under generated/.", ...]`` for ``path``.

    Empty when no rule applies, when ``path`` is outside the project, or when
    the rule files cannot be read (this is context, never a decision).
    ``specific``: only rules of a nested file or a glob-scoped rule, the ones
    the host's own instruction file at the root does not already carry.
    """
    from agentreflex.instructions.reflex import project_of

    base = cwd or os.getcwd()
    full = os.path.normpath(os.path.join(base, path))
    project = project_of(base)
    if not (full + "/").startswith(project.rstrip("/") + "/"):
        return []
    try:
        rs = ruleset.for_path(project, full)
    except (OSError, ValueError):
        return []

    def narrow(rule: parse.Rule) -> bool:
        return bool(rule.globs) or rule.scope != project

    enforced = [
        r
        for r in rs.rules
        if r.kind in (parse.PROHIBIT, parse.REQUIRE) and (narrow(r) or not specific)
    ]
    specific_advice = [r for r in rs.rules if r.kind == parse.ADVICE and narrow(r)]
    out: list[str] = []
    used = 0
    for rule in enforced + specific_advice:
        line = f"{rule.cite()}: {rule.text}"
        if len(out) >= limit or used + len(line) > max_chars:
            break
        out.append(line)
        used += len(line)
    return out
