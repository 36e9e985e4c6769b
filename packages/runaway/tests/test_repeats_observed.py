"""Runaway's "new evidence" counts the changes the work tree really shows."""

from __future__ import annotations

from agentreflex.core.state.model import ActionRecord
from agentreflex.runaway.repeats import count_unresolved_repeats


def rec(seq: int, fp: str, outcome: str = "failure", changed: int = 0) -> ActionRecord:
    return ActionRecord(
        seq=seq,
        ts=float(seq),
        tool="Bash",
        kind="shell",
        summary=f"Bash: {fp}",
        fingerprint=fp,
        outcome=outcome,
        error_signature="E: boom" if outcome == "failure" else "",
        changed=changed,
    )


def test_a_repeated_edit_that_really_changed_files_is_new_evidence() -> None:
    # the same `sed -i` twice: by its words a repeat; the work tree shows the second changed code
    edit = "sed -i s/a/b/ src/x.py"
    actions = [rec(1, "T"), rec(2, edit, "success", 1), rec(3, "T"), rec(4, edit, "success", 1)]
    assert count_unresolved_repeats(actions, "T").count == 0


def test_a_repeated_call_that_changed_nothing_is_not() -> None:
    edit = "sed -i s/a/b/ src/x.py"
    actions = [rec(1, "T"), rec(2, edit, "success", 1), rec(3, "T"), rec(4, edit, "success", 0)]
    assert count_unresolved_repeats(actions, "T").count == 1
