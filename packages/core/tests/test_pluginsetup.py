"""doctor says which trust store, certificates and proxies the plugin's setup used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from agentreflex.core.cli.doctor import diagnose, render
from agentreflex.core.install.pluginsetup import describe_network, setup_state_path


def _record(data: Path, network: object) -> Path:
    data.mkdir(parents=True, exist_ok=True)
    path = data / "setup.json"
    path.write_text(json.dumps({"state": "ready", "installer": "uv", "network": network}))
    return path


def test_doctor_names_the_settings_the_setup_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    network = {
        "system_trust_store": True,
        "certificates": {"SSL_CERT_FILE": "/etc/corp-ca.pem"},
        "proxies": ["https_proxy"],
    }
    _record(tmp_path / "data", network)
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "data"))
    text = render(diagnose(str(tmp_path)))
    line = next(x for x in text.splitlines() if "plugin setup" in x)
    assert "system trust store" in line
    assert "SSL_CERT_FILE=/etc/corp-ca.pem" in line
    assert "https_proxy" in line


def test_the_data_folder_is_found_from_the_plugins_own_environment(tmp_path: Path) -> None:
    path = _record(tmp_path, {"system_trust_store": False, "certificates": {}, "proxies": []})
    prefix = tmp_path / "envs" / "abc.123"
    prefix.mkdir(parents=True)
    assert setup_state_path({}, prefix=str(prefix)) == str(path)
    assert setup_state_path({}, prefix=str(tmp_path)) == ""
    assert "uv's bundled roots" in describe_network(str(path))
    assert "certificates: none set; proxies: none set" in describe_network(str(path))


def test_bad_records_get_a_plain_answer(tmp_path: Path) -> None:
    bad = tmp_path / "setup.json"
    bad.write_text("{not json")
    assert "unreadable" in describe_network(str(bad))
    bad.write_text("[1]")
    assert "not a setup record" in describe_network(str(bad))
    bad.write_text('{"state": "failed"}')
    assert describe_network(str(bad)) == "failed; network settings not recorded"
