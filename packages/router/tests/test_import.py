"""The router package is an honest skeleton for now: it imports and says so."""

import agentreflex.router as pkg


def test_skeleton_imports_and_declares_its_status() -> None:
    assert pkg.STATUS == "skeleton"
    assert "coming" in (pkg.__doc__ or "")
