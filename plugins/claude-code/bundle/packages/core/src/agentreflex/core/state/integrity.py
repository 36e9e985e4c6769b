"""What the session store found wrong with its own files: stable codes, findings, recovery.

Why one module: the store detects, the runtime reports (a WARN finding once,
in the host's reply and ``reflex.log``), ``status``/``doctor`` list what is
remembered in the snapshot, and the done reflex's stop is refused while the
session's history is lost.  Each code is defined once here (the catalogue).
"""

from __future__ import annotations

from agentreflex.core.decision import Finding, Verdict

# code -> what it means (the catalogue; README "state" section lists the same)
CODES = {
    "CORE-STATE-FORGED": "a session-log line without a valid MAC (forged, edited, or copied "
    "from another session or project) was ignored",
    "CORE-STATE-REPLAYED": "a genuine session-log line appeared again or out of order "
    "(replayed) and was ignored",
    "CORE-STATE-SNAPSHOT": "the session snapshot's MAC was wrong; it was rebuilt from the log",
    "CORE-STATE-LOST": "session records the anchor outside the project vouches for are "
    "missing or unreadable (deleted, truncated, chmod)",
    "CORE-STATE-KEY": "the per-user state key cannot be read: no record can be trusted",
    "CORE-STATE-HOME": "the project's .agentreflex is a symlink leaving the project: refused",
}

TAMPER_NOTE = "tamper"  # state.notes key: what was detected, kept for status/doctor
LOST_NOTE = "state_lost"  # state.notes key: set while history is lost, until acknowledged


def recovery(session_id: str) -> str:
    """The command that tells agentreflex the user has seen a lost history."""
    return f"agentreflex state acknowledge --session {session_id}"


def report_finding(code: str, message: str) -> Finding:
    """A detection, reported once (WARN: the forged record was simply not believed)."""
    return Finding(
        reflex="core",
        code=code,
        verdict=Verdict.WARN,
        title="SESSION STATE TAMPERING DETECTED",
        message=f"{message}. Nothing was believed from it; the user should check "
        "who wrote to .agentreflex/ (`agentreflex status`).",
    )


def lost_finding(session_id: str, reason: str) -> Finding:
    """The stop is refused while the session's history is lost (fail closed)."""
    return Finding(
        reflex="core",
        code="CORE-STATE-LOST",
        verdict=Verdict.BLOCK,
        title="SESSION HISTORY LOST: CANNOT CONFIRM THE WORK IS DONE",
        message=f"agentreflex cannot confirm this session's work: {reason}. "
        "Do not try to repair .agentreflex/ yourself; tell the user. The user can "
        f"inspect it and then run `{recovery(session_id)}` in a terminal to accept "
        "the loss and let stops through again.",
    )


def tamper_findings(detected: list[tuple[str, str]]) -> list[Finding]:
    """One WARN per code, however many lines were forged (a flood is one report)."""
    by_code: dict[str, list[str]] = {}
    for code, message in detected:
        by_code.setdefault(code, []).append(message)
    out = []
    for code, messages in by_code.items():
        more = f" (and {len(messages) - 1} more)" if len(messages) > 1 else ""
        out.append(report_finding(code, f"{CODES[code]}: {messages[0]}{more}"))
    return out


def home_finding(problem: str, fail_closed: bool) -> Finding:
    """A state dir redirected out of the project: refused; pre-tool calls fail closed."""
    return Finding(
        reflex="core",
        code="CORE-STATE-HOME",
        verdict=Verdict.BLOCK if fail_closed else Verdict.WARN,
        title="STATE FOLDER REDIRECTED OUT OF THE PROJECT",
        message=f"{problem}. Tool calls are refused until it is fixed; ask the user.",
    )
