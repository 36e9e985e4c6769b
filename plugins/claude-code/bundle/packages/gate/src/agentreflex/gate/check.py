"""Use the gate alone: check one shell command without a host or session.

``check_command("rm -rf ~", cwd="/home/me/proj")`` returns the verdict the
gate would propose and the proposals behind it.  The corpus tests, the
``tools/gate_corpus.py`` evaluation and ad-hoc scripts use this; hosts go
through :class:`agentreflex.gate.reflex.GateReflex`.
"""

from __future__ import annotations

import os
import time

from agentreflex.gate import policy
from agentreflex.gate.analyze import analyse
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_THRESHOLDS: dict[str, float] = {
    "constraint_violation_block": 0.70,
    "secret_exposure_block": 0.70,
    "destructive_block": 0.75,
    "destructive_warn": 0.50,
    "redundant_warn": 0.85,
    "evidence_insufficient_warn": 0.85,
    "goal_alignment_warn": 0.20,
}
_RANK = {"ALLOW": 0, "WARN": 1, "ASK_USER": 2, "BLOCK": 3}


def verdict_of(proposals: list[policy.Proposal]) -> str:
    """The most restrictive verdict among ``proposals`` (ALLOW when none)."""
    best = "ALLOW"
    for p in proposals:
        if _RANK[p.verdict] > _RANK[best]:
            best = p.verdict
    return best


def check_command(
    command: str,
    cwd: str = "",
    home: str = "",
    project: str = "",
    budget_s: float = 0.2,
    thresholds: Mapping[str, float] | None = None,
    profile: str = "balanced",
) -> tuple[str, list[policy.Proposal]]:
    """The gate's verdict for one shell command in ``profile``, and why."""
    cwd = cwd or os.getcwd()
    home = home or os.environ.get("HOME", "/")
    where = Where(cwd=cwd, project=project or cwd, home=home)
    env = {"HOME": home, "PWD": cwd}
    analysis = analyse(command, where, env, time.monotonic() + budget_s)
    proposals = policy.decide(analysis.hits, None, thresholds or DEFAULT_THRESHOLDS, profile)
    return verdict_of(proposals), proposals
