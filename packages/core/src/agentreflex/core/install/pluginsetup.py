"""What the Claude Code plugin's first-run setup used to reach the package index.

The plugin's bootstrap (``plugins/shared/bootstrap.py``) records in
``DATA/setup.json`` which certificate and proxy settings were in effect and
whether uv was put on the system trust store. ``doctor`` reads it back so a user on
a network whose TLS a local authority re-signs can see why setup worked, or not.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def setup_state_path(environ: dict[str, str] | None = None, prefix: str = "") -> str:
    """``setup.json`` of the plugin this runs from: CLAUDE_PLUGIN_DATA, else the data
    folder holding this interpreter's environment (``DATA/envs/<id>.<random>``)."""
    source = os.environ if environ is None else environ
    data = source.get("CLAUDE_PLUGIN_DATA", "")
    if not data:
        envs = os.path.dirname(os.path.abspath(prefix or sys.prefix))
        if os.path.basename(envs) != "envs":
            return ""
        data = os.path.dirname(envs)
    path = os.path.join(data, "setup.json")
    return path if os.path.isfile(path) else ""


def describe_network(path: str) -> str:
    """One line: the setup's state and the trust store, certificates and proxies it used."""
    try:
        with open(path, encoding="utf-8") as handle:
            state: Any = json.load(handle)
    except (OSError, ValueError) as exc:
        return f"{path}: unreadable ({exc.__class__.__name__})"
    if not isinstance(state, dict):
        return f"{path}: not a setup record"
    network = state.get("network")
    if not isinstance(network, dict):
        return f"{state.get('state', 'unknown')}; network settings not recorded"
    store = "system trust store" if network.get("system_trust_store") else "uv's bundled roots"
    certs = network.get("certificates") or {}
    cert_text = ", ".join(f"{k}={v}" for k, v in certs.items()) if isinstance(certs, dict) else ""
    proxies = network.get("proxies") or []
    proxy_text = ", ".join(str(p) for p in proxies) if isinstance(proxies, list) else ""
    return (
        f"{state.get('state', 'unknown')} via {state.get('installer', 'uv or pip')}; {store}; "
        f"certificates: {cert_text or 'none set'}; proxies: {proxy_text or 'none set'}"
    )
