"""agentreflex.laya — a local System One backend speaking the Jev wire.

``agentreflex laya serve`` runs an aiohttp server on 127.0.0.1 with
``POST /v1/systemone`` (and ``/batch``), ``GET /v1/models`` and ``GET /healthz``,
answering judge2's questions with the built-in rules engine (no torch) or,
with the ``model`` extra, a local Laya checkpoint.  Point judge2 at it with
``JEV_BASE_URL=http://127.0.0.1:8787``.

Nothing here is imported by a hook: importing this package itself is cheap,
and the server modules (aiohttp, pydantic) load only when ``serve`` runs.
"""

STATUS = "working"
"""The server and the built-in engine work; see README.md for what is measured."""
