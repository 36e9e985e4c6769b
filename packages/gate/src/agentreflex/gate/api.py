"""What agentreflex-gate promises its sibling packages: the names they may import.

The instructions reflex checks a project's written rules ("never edit generated/",
"only use pnpm") with the gate's own shell analysis and constraint checks, so that
a rule in AGENTS.md means exactly what the same words typed in a prompt mean.
Those are the only names a sibling may use; everything else in the gate may
change in any release (``tests/test_declared_apis.py`` fails on a sibling that
reaches past this module, and pins ``__all__``).

Names resolve on first use (PEP 562), so importing this module costs nothing
on the hook path: a sibling pays for the gate's shell analyser only when it
really analyses a command, as before.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself is not imported on the hook path
if TYPE_CHECKING:
    from typing import Any

    from agentreflex.gate.files import added_lines as added_lines
    from agentreflex.gate.model import DESCENDANT as DESCENDANT
    from agentreflex.gate.model import REMOTE as REMOTE
    from agentreflex.gate.model import UNKNOWN as UNKNOWN
    from agentreflex.gate.model import Cmd as Cmd
    from agentreflex.gate.reflex import shell_analysis as shell_analysis
    from agentreflex.gate.reflex import where_for as where_for
    from agentreflex.gate.rules.constraints import check_command as check_command
    from agentreflex.gate.rules.constraints import check_manifest_edit as check_manifest_edit
    from agentreflex.gate.rules.constraints import check_paths as check_paths
    from agentreflex.gate.rules.constraints import extract as extract_constraints
    from agentreflex.gate.rules.protected import DELETE as DELETE
    from agentreflex.gate.rules.protected import MOVE as MOVE
    from agentreflex.gate.shell.changes import effects as command_effects
    from agentreflex.gate.shell.paths import Where as Where

# name -> (defining module, name there)
_EXPORTS: dict[str, tuple[str, str]] = {
    # the shell model: one simple command, where it runs, placeholders in paths
    "Cmd": ("agentreflex.gate.model", "Cmd"),
    "Where": ("agentreflex.gate.shell.paths", "Where"),
    "DESCENDANT": ("agentreflex.gate.model", "DESCENDANT"),
    "REMOTE": ("agentreflex.gate.model", "REMOTE"),
    "UNKNOWN": ("agentreflex.gate.model", "UNKNOWN"),
    # the analysis of one command line, shared with the gate within an event
    "shell_analysis": ("agentreflex.gate.reflex", "shell_analysis"),
    "where_for": ("agentreflex.gate.reflex", "where_for"),
    # what a command changes, and the kinds of change
    "command_effects": ("agentreflex.gate.shell.changes", "effects"),
    "DELETE": ("agentreflex.gate.rules.protected", "DELETE"),
    "MOVE": ("agentreflex.gate.rules.protected", "MOVE"),
    # constraints in the user's words, and the checks against them
    "extract_constraints": ("agentreflex.gate.rules.constraints", "extract"),
    "check_command": ("agentreflex.gate.rules.constraints", "check_command"),
    "check_paths": ("agentreflex.gate.rules.constraints", "check_paths"),
    "check_manifest_edit": ("agentreflex.gate.rules.constraints", "check_manifest_edit"),
    # the lines a patch adds
    "added_lines": ("agentreflex.gate.files", "added_lines"),
}

__all__ = (
    "DELETE",
    "DESCENDANT",
    "MOVE",
    "REMOTE",
    "UNKNOWN",
    "Cmd",
    "Where",
    "added_lines",
    "check_command",
    "check_manifest_edit",
    "check_paths",
    "command_effects",
    "extract_constraints",
    "shell_analysis",
    "where_for",
)


def __getattr__(name: str) -> Any:
    """Resolve a declared name from its defining module on first use."""
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"agentreflex.gate.api has no {name!r} (see __all__)") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
