"""The Jev backend: ``POST {base}/v1/systemone`` over HTTP.

The same client talks to TypeSafe's hosted Jev, to any service speaking the
System One wire (OpenRouter's decisions endpoint) and to a local laya server;
only the base URL, model and key change.  Rules:

- one hard time budget per call (``timeout_ms``), shared by every attempt and
  every pause between attempts, so a hook never waits longer than that;
- retries (at most ``retries``) only on 408, 429, 5xx and 529 and on network
  errors, with exponential backoff, honouring ``Retry-After`` when it fits in
  the budget;
- no retry on any other 4xx (a bad key or a bad request will not improve);
- a 200 whose body is not a valid answer to every question is rejected.

httpx is imported when the first request is made, never on import, so the
hook path does not pay for it unless this backend is used.  The key goes in
the ``Authorization`` header only; it is never part of an error message.
"""

from __future__ import annotations

import json
import time

from agentreflex.core.systemone.wire import WireError, parse_response
from agentreflex.core.util.deadline import left as reflexes_left
from agentreflex.judge2.backend import BackendError
from agentreflex.judge2.redaction import redact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    import httpx
    from agentreflex.core.systemone.wire import SystemOneRequest, SystemOneResponse
    from agentreflex.judge2.backend import Subject

RETRY_STATUSES = frozenset({408, 429, 529}) | frozenset(range(500, 600))
BACKOFF_BASE_S = 0.05
BACKOFF_CAP_S = 1.0
PATH = "/v1/systemone"


def endpoint(base_url: str) -> str:
    """``{base}/v1/systemone``; a base that already ends with the path is kept."""
    base = base_url.rstrip("/")
    return base if base.endswith(PATH) else base + PATH


def is_loopback(base_url: str) -> bool:
    """A local server (laya) needs no key: core's one definition of loopback."""
    from agentreflex.core.config.settings import is_loopback_url

    return is_loopback_url(base_url)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: a number, or an HTTP date.  ``None`` if absent or bad."""
    if not value:
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        import email.utils  # only for the rare HTTP-date form

        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, seconds) if seconds == seconds else None


class JevBackend:
    """System One over HTTP with a hard per-call budget and bounded retries."""

    name = "jev"
    cacheable = True

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout_ms: int = 1500,
        retries: int = 2,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.url = endpoint(base_url)
        self.model = model
        self._key = api_key
        self.timeout_s = timeout_ms / 1000.0
        self.retries = max(0, retries)
        self._sleep = sleep
        self._transport = transport
        self.attempts = 0

    def __repr__(self) -> str:
        return f"JevBackend(url={self.url!r}, model={self.model!r}, key={'set' if self._key else 'unset'})"

    def answer(self, request: SystemOneRequest, subject: Subject) -> SystemOneResponse:
        if not self._key and not is_loopback(self.url):
            raise BackendError("JEV_API_KEY is not set")
        body = json.dumps(request, ensure_ascii=False).encode("utf-8")
        data = self._post(body)
        try:
            return parse_response(data, request["questions"])
        except WireError as exc:
            raise BackendError(f"malformed answer: {exc}") from None

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        return headers

    def _post(self, body: bytes) -> Any:
        import httpx

        # no more than the reflexes have left of the hook's time (runtime.FLOOR_HARD_LIMIT):
        # on the warm daemon's threads nothing else stops a wait for the server
        given = reflexes_left(self.timeout_s)
        deadline, timed_out = time.monotonic() + given, self._timed_out(given)
        with httpx.Client(transport=self._transport, follow_redirects=False) as client:
            attempt = 0
            while True:
                attempt += 1
                self.attempts += 1
                outcome = self._attempt(client, body, deadline, timed_out)
                if isinstance(outcome, _Done):
                    return outcome.data
                if attempt > self.retries:
                    raise BackendError(f"{outcome.reason} (after {attempt} attempts)")
                pause = outcome.retry_after
                if pause is None:
                    pause = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
                if time.monotonic() + pause >= deadline:
                    raise BackendError(f"{outcome.reason}; no time left to retry")
                self._sleep(pause)

    def _timed_out(self, given: float) -> str:
        """What a call given ``given`` seconds says when they run out: that time, and the
        configured timeout where the reflexes' time left cut it (never one it did not have)."""
        said = f"timed out after {given * 1000:.0f} ms"
        if given < self.timeout_s:
            said += f" (the reflexes' time left; {self.timeout_s * 1000:.0f} ms configured)"
        return said

    def _attempt(
        self, client: httpx.Client, body: bytes, deadline: float, timed_out: str
    ) -> _Done | _Retry:
        import httpx

        left = deadline - time.monotonic()
        if left <= 0:
            raise BackendError(timed_out)
        try:
            resp = client.post(
                self.url, content=body, headers=self._headers(), timeout=httpx.Timeout(left)
            )
        except httpx.TimeoutException:
            raise BackendError(timed_out) from None
        except httpx.HTTPError as exc:
            return _Retry(f"network error: {type(exc).__name__}", None)
        if resp.status_code == 200:
            return _Done(_json_body(resp))
        reason = f"HTTP {resp.status_code}{_detail(resp, self._key)}"
        if resp.status_code in RETRY_STATUSES:
            return _Retry(reason, retry_after_seconds(resp.headers.get("retry-after")))
        if resp.status_code in (401, 403):
            reason += " (check JEV_API_KEY)"
        raise BackendError(reason)


class _Done:
    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


class _Retry:
    __slots__ = ("reason", "retry_after")

    def __init__(self, reason: str, retry_after: float | None) -> None:
        self.reason = reason
        self.retry_after = retry_after


def _json_body(resp: httpx.Response) -> Any:
    try:
        return resp.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise BackendError("malformed answer: body is not JSON") from None


def _detail(resp: httpx.Response, key: str) -> str:
    """A short, redacted hint from an error body (servers put the reason there)."""
    try:
        text = resp.text
    except Exception:
        return ""
    if key:
        text = text.replace(key, "[REDACTED]")
    text = " ".join(redact(text).split())[:160]
    return f": {text}" if text else ""
