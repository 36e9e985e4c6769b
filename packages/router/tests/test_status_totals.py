"""A lane's totals count each served request's tokens and cost, as core's TokenUsage."""

from __future__ import annotations

from agentreflex.core.state.usage import TokenUsage
from agentreflex.router.status import LaneTotals, Record, Status
from agentreflex.routing.policy import Policy


def _policy() -> Policy:
    return Policy.model_validate(
        {
            "default_lane": "a",
            "lanes": {
                "a": {
                    "provider": "anthropic",
                    "api": "anthropic",
                    "base_url": "https://a.example",
                    "model": "m",
                    "price_in_per_mtok": 2.0,
                    "price_out_per_mtok": 10.0,
                }
            },
        }
    )


def _served(status: Status, tokens_in: int, tokens_out: int) -> Record:
    record = Record("anthropic", "m", "s", "a", "default", [])
    record.served_by = "a"
    record.spent.input_tokens, record.spent.output_tokens = tokens_in, tokens_out
    status.finish(record, 200)
    return record


def test_a_lanes_totals_add_each_served_requests_tokens_and_cost() -> None:
    status = Status(_policy())
    first = _served(status, 1_000_000, 100_000)
    second = _served(status, 500_000, 0)
    assert (first.spent.cost_usd, second.spent.cost_usd) == (3.0, 1.0)
    shown_first = first.as_dict()
    assert list(shown_first)[list(shown_first).index("ttfb_ms") + 1 :][:4] == [
        "input_tokens",
        "output_tokens",
        "cost_usd",
        "error",
    ]
    assert (shown_first["input_tokens"], shown_first["cost_usd"]) == (1_000_000, 3.0)
    assert "started" not in shown_first and "spent" not in shown_first
    totals = status.lanes["a"]
    assert isinstance(totals, TokenUsage)
    assert (totals.requests, totals.input_tokens, totals.output_tokens) == (2, 1_500_000, 100_000)
    assert totals.cost_usd == 4.0 and totals.tokens == 1_600_000
    shown = status.as_dict()["lanes"]["a"]
    assert shown["input_tokens"] == 1_500_000 and shown["output_tokens"] == 100_000
    assert shown["cost_usd"] == 4.0 and shown["requests"] == 2 and shown["failures"] == 0
    assert shown["latency_p50_ms"] is not None
    assert status.spent() == {"a": 4.0}


def test_new_lane_totals_start_at_zero_with_a_bounded_latency_window() -> None:
    totals = LaneTotals()
    assert totals.empty and (totals.requests, totals.failures) == (0, 0)
    assert totals.latency_ms.maxlen == 1000 and LaneTotals().latency_ms is not totals.latency_ms
