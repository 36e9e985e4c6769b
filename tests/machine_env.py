"""One helper for tests that hand a child process a scrubbed environment.

A test that builds an environment (uv, pip) with a minimal ``env=`` still needs the
machine's certificate and proxy settings: on a network whose TLS is re-signed by a
local authority (corporate proxies do this) uv otherwise fails with ``UnknownIssuer``,
and behind a proxy it cannot reach the index at all. Everything else stays scrubbed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path

TRUST_AND_PROXY = (
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PIP_CERT",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "UV_SYSTEM_CERTS",
    "UV_NATIVE_TLS",
    "UV_INDEX_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "UV_INSECURE_HOST",
    "UV_HTTP_TIMEOUT",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
)


def machine_trust(source: Mapping[str, str] | None = None) -> dict[str, str]:
    """The certificate, proxy and index settings of ``source`` (default: this process)."""
    origin = os.environ if source is None else source
    return {name: origin[name] for name in TRUST_AND_PROXY if origin.get(name)}


def scrubbed_env(
    base: Mapping[str, str], source: Mapping[str, str] | None = None
) -> dict[str, str]:
    """``base`` plus the machine's trust and proxy settings; ``base`` wins on a clash."""
    return {**machine_trust(source), **base}


def workspace_uv() -> list[str]:
    """The uv the project itself installs: the one beside the running interpreter (the
    workspace's venv), else the ``uv`` module of that interpreter, else the one on PATH.
    Not ``--offline``: a cache filled by another uv version (or none) must not fail a test."""
    beside = Path(sys.executable).parent / "uv"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    if importlib.util.find_spec("uv") is not None:
        return [sys.executable, "-m", "uv"]
    found = shutil.which("uv")
    assert found, "uv is needed: install it with `python3 -m pip install uv`"
    return [found]
