"""A 10 MiB tool output is redacted in bounded memory, every planted secret gone.

Time goals live in ``tools/secrets_eval.py --bounds`` (this machine is shared,
a timing assertion here would be noise); memory is deterministic enough to
assert: the redactor holds the text, its case-folded copy and the output, never
a structure per character or per match candidate.
"""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path

from agentreflex.core.redaction.redact import REDACTED, redact

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import secrets_eval


def test_ten_mib_output_is_redacted_in_bounded_memory() -> None:
    size = 10 * 1024 * 1024
    text, secrets = secrets_eval.big_output(size)
    planted = [s for s in secrets if s in text]
    assert len(text) == size and len(planted) >= 5
    redact("warm up " + text[:1000])  # compile what the text needs outside the measurement
    tracemalloc.start()
    try:
        out = redact(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert not [s for s in planted if s in out]
    assert REDACTED in out
    assert peak < 3 * size  # the folded copy and the output, nothing per character
    # look-alikes in the output (SHAs, paths) stay: only the planted secrets went
    assert len(out) > size - 200 * len(planted) * 40
