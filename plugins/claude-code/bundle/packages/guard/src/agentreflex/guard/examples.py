"""A worked Evidence-Check directive, shared by the docs, the tests and the benchmark.

The claim "the selected adapter is active" is evidenced by a successful
``adapter-status`` tool result whose JSON says ``"active": true``; until then,
the guard blocks a completion claim (``blocking``). Copy it as a starting point:
``agentreflex guard validate-directive`` checks an edited one.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXAMPLE_DIRECTIVE: dict[str, Any] = {
    "version": 1,
    "kind": "evidence-check",
    "claim": "The selected adapter is active.",
    "required_evidence": [
        {
            "type": "tool-result",
            "tool": "adapter-status",
            "acceptance": [
                {"predicate": "outcome_is", "value": "success"},
                {"predicate": "json_field_equals", "path": "active", "value": True},
            ],
        }
    ],
    "expected_result": {"active": True},
    "blocking": True,
}
