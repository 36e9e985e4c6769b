"""Both error directions of core's redaction, on tools/secrets_eval.py's sets.

Every command shape of issue #23 loses its secret; no look-alike (git SHAs,
UUIDs, digests, integrity strings, image digests, paths, versions, URLs
without a password, placeholders, prose) is touched.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from agentreflex.core.redaction.redact import redact

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import secrets_eval

LOOKALIKES = [(family, text) for family, items in secrets_eval.LOOKALIKES.items() for text in items]


@pytest.mark.parametrize(("text", "secret"), secrets_eval.COMMAND_SHAPES)
def test_every_command_shape_loses_its_secret(text: str, secret: str) -> None:
    assert secret not in redact(text)


@pytest.mark.parametrize(("family", "text"), LOOKALIKES)
def test_lookalikes_stay_readable(family: str, text: str) -> None:
    assert redact(text) == text, family


def test_generated_positives_are_found_for_a_sample_of_rules() -> None:
    positives = secrets_eval.rule_positives(per_rule=1, seed=5)
    assert sum(1 for items in positives.values() if items) >= 260
    for rid, items in positives.items():
        for text, secret in items:
            assert secret not in redact(f'echo "{text}"'), rid
