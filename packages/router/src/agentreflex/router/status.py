"""What the router did: recent decisions with their reasons, and totals per lane.

Why: "I can't see why a request went where it did" is the complaint users
make of existing routers. Every request leaves a record here (lane, the
rule that chose it, each lane tried and what happened, latency, time to
first byte, tokens, cost), served at ``/status``. Bounded in memory; no
request content and no key is ever kept.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from agentreflex.core.state.usage import TokenUsage
from agentreflex.core.util.record import field as record_field
from agentreflex.core.util.record import record as core_record
from agentreflex.routing import Decision, Features, Policy

RECENT = 200
SESSIONS = 10_000
CLIENT_GONE = 499  # the client hung up: not the lane's failure, not the session's


@dataclass
class Record:
    api: str
    model: str
    session: str
    lane: str | None
    reason: str
    considered: list[str]
    estimated_input_tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    attempts: list[str] = field(default_factory=list)
    served_by: str | None = None
    status: int = 0
    latency_ms: float = 0.0
    ttfb_ms: float | None = None
    spent: TokenUsage = field(default_factory=TokenUsage)  # cost_usd: set when it is served
    error: str | None = None
    recorded: str | None = None  # the request's file under --record, for `routing explain`

    def as_dict(self) -> dict[str, Any]:
        """The record as ``/status`` shows it: what it spent as three keys of its own."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if key == "spent":
                out["input_tokens"] = value.input_tokens
                out["output_tokens"] = value.output_tokens
                out["cost_usd"] = value.cost_usd
            elif key != "started":
                out[key] = value
        return out


@core_record
class LaneTotals(TokenUsage):
    """A lane's requests, failures and spend since the router started, with recent latencies."""

    requests: int = 0
    failures: int = 0
    latency_ms: deque[float] = record_field(default_factory=lambda: deque(maxlen=1000))

    def as_dict(self) -> dict[str, Any]:
        ordered = sorted(self.latency_ms)
        p50 = ordered[len(ordered) // 2] if ordered else None
        return {
            "requests": self.requests,
            "failures": self.failures,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "latency_p50_ms": p50,
        }


class Status:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.recent: deque[Record] = deque(maxlen=RECENT)
        self.lanes = {name: LaneTotals() for name in policy.lanes}
        self._failures: OrderedDict[str, int] = OrderedDict()

    def begin(self, features: Features, decision: Decision) -> Record:
        considered = [f"{'MATCH' if t.matched else 'no'} {t.step}: {t.why}" for t in decision.trace]
        record = Record(
            features.api,
            features.model,
            features.session[:40],
            decision.lane,
            decision.reason,
            considered,
            features.input_tokens,
        )
        self.recent.append(record)
        return record

    def failures(self, session: str) -> int:
        return self._failures.get(session, 0) if session else 0

    def spent(self) -> dict[str, float]:
        return {name: totals.cost_usd for name, totals in self.lanes.items()}

    def attempt_failed(self, record: Record, lane: str, why: str) -> None:
        record.attempts.append(f"{lane}: {why}")
        self.lanes[lane].failures += 1

    def finish(self, record: Record, status: int, error: str | None = None) -> None:
        record.status = status
        record.error = error
        record.latency_ms = round((time.monotonic() - record.started) * 1000, 2)
        lane = record.served_by
        if lane is not None:
            totals = self.lanes[lane]
            totals.requests += 1
            prices = self.policy.lanes[lane]
            spent = record.spent
            spent.cost_usd = (
                spent.input_tokens * prices.price_in_per_mtok
                + spent.output_tokens * prices.price_out_per_mtok
            ) / 1_000_000
            totals.add(spent.input_tokens, spent.output_tokens, spent.cost_usd)
            totals.latency_ms.append(record.latency_ms)
        if error is not None and status != CLIENT_GONE and record.session:
            self._failures[record.session] = self._failures.get(record.session, 0) + 1
            self._failures.move_to_end(record.session)
            while len(self._failures) > SESSIONS:
                self._failures.popitem(last=False)

    def first_byte(self, record: Record) -> None:
        record.ttfb_ms = round((time.monotonic() - record.started) * 1000, 2)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lanes": {name: totals.as_dict() for name, totals in self.lanes.items()},
            "recent": [r.as_dict() for r in reversed(self.recent)],
        }
