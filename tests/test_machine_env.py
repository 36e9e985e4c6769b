"""The scrubbed-environment helper keeps the machine's trust and proxy settings, nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine_env import scrubbed_env, workspace_uv


def test_trust_and_proxy_settings_survive_the_scrub() -> None:
    machine = {
        "SSL_CERT_FILE": "/etc/corp-ca.pem",
        "SSL_CERT_DIR": "/etc/ssl/certs",
        "REQUESTS_CA_BUNDLE": "/etc/corp-ca.pem",
        "PIP_CERT": "/etc/corp-ca.pem",
        "https_proxy": "http://proxy.example:3128",
        "NO_PROXY": "127.0.0.1",
        "UV_SYSTEM_CERTS": "1",
        "AWS_SECRET_ACCESS_KEY": "not-for-children",
        "PYTHONPATH": "/elsewhere",
    }
    env = scrubbed_env({"PATH": "/usr/bin:/bin", "HOME": "/tmp/h"}, source=machine)
    for kept in ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "PIP_CERT"):
        assert env[kept] == machine[kept]
    assert env["https_proxy"] == "http://proxy.example:3128"
    assert env["NO_PROXY"] == "127.0.0.1"
    assert env["UV_SYSTEM_CERTS"] == "1"
    assert "AWS_SECRET_ACCESS_KEY" not in env
    assert "PYTHONPATH" not in env
    assert env["HOME"] == "/tmp/h"


def test_the_test_sets_own_values_win() -> None:
    env = scrubbed_env({"SSL_CERT_FILE": "/test/ca.pem"}, source={"SSL_CERT_FILE": "/etc/ca.pem"})
    assert env == {"SSL_CERT_FILE": "/test/ca.pem"}


def test_workspace_uv_runs() -> None:
    done = subprocess.run([*workspace_uv(), "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("uv ")
