"""The exact-repeat floor: seed 001's ``countUnresolvedRepeats``.

An agent that runs the very same call again after it failed, having learnt
nothing in between, is looping.  This count is deterministic so the loop
reflex fires on the Nth identical attempt even when the judge is down or
miscalibrated.  It is deliberately narrow, because it may BLOCK:

* only failures count; a success of the same call resolves it, and blocked,
  pending or unknown outcomes neither count nor reset.  Nor does a call the
  user interrupted: stopping a command is not the command failing;
* only failures with the *same* error signature as the latest one count: a
  different error means the attempts are getting somewhere;
* any new evidence between the attempts ends the count: a successful call
  not seen earlier in the window (a new read, a file change, a new command)
  or a failure with an error signature not seen before.  Re-reading the same
  file, or rewriting it with the same content, is not new evidence; a call
  the work tree shows changed files (core's observation, ``changed``) is,
  even one made before (``sed -i`` run again on a file edited since).
"""

from __future__ import annotations

from agentreflex.core.util.record import record
from agentreflex.runaway.history import BLOCKED, FAILURE, SUCCESS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from agentreflex.core.state.model import ActionRecord


@record(frozen=True)
class RepeatCount:
    """How many unresolved identical failures precede the proposed call."""

    count: int
    signature: str = ""
    last_seq: int = 0


def _interrupted(a: ActionRecord) -> bool:
    return a.outcome == FAILURE and "interrupt" in a.error_signature.lower()


def _first_seen(actions: Sequence[ActionRecord]) -> tuple[dict[str, int], dict[str, int]]:
    fingerprints: dict[str, int] = {}
    signatures: dict[str, int] = {}
    for i, a in enumerate(actions):
        fingerprints.setdefault(a.fingerprint, i)
        if a.outcome == FAILURE and a.error_signature:
            signatures.setdefault(a.error_signature, i)
    return fingerprints, signatures


def is_new_evidence(
    index: int, actions: Sequence[ActionRecord], first_fp: dict[str, int], first_sig: dict[str, int]
) -> bool:
    """Did ``actions[index]`` teach the agent something it had not seen in the window?"""
    a = actions[index]
    if _interrupted(a):
        return False
    if a.outcome == FAILURE:
        return bool(a.error_signature) and first_sig.get(a.error_signature) == index
    if a.outcome == BLOCKED:
        return False
    if a.changed:
        return True  # the work tree really changed: the next attempt runs on new code
    # success, unknown or pending: a call not made before may have shown something new
    return first_fp.get(a.fingerprint) == index


def count_unresolved_repeats(actions: Sequence[ActionRecord], fingerprint: str) -> RepeatCount:
    """Identical failed attempts of ``fingerprint`` since it last succeeded or anything new."""
    first_fp, first_sig = _first_seen(actions)
    count = 0
    signature: str | None = None
    last_seq = 0
    for i in range(len(actions) - 1, -1, -1):
        a = actions[i]
        if a.fingerprint == fingerprint:
            if a.outcome == SUCCESS:
                break
            if a.outcome != FAILURE or _interrupted(a):
                continue
            if signature is None:
                signature, last_seq = a.error_signature, a.seq
            elif a.error_signature != signature:
                break
            count += 1
        elif is_new_evidence(i, actions, first_fp, first_sig):
            break
    return RepeatCount(count=count, signature=signature or "", last_seq=last_seq)
