"""``plugins/codex/``: the hand-wiring forms stay the handlers ``install codex`` writes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from agentreflex.core.install import codex, codex_trust, hookentries

BUNDLE = Path(__file__).resolve().parents[3] / "plugins" / "codex"


def test_hooks_json_is_what_install_writes() -> None:
    expected = hookentries.wire({}, codex.specs("agentreflex"), "codex", "hooks.json")
    assert json.loads((BUNDLE / "hooks.json").read_text()) == expected


def test_config_toml_form_has_the_same_handlers_and_trust_identity() -> None:
    as_json = json.loads((BUNDLE / "hooks.json").read_text())
    as_toml = {"hooks": tomllib.loads((BUNDLE / "config.toml").read_text())["hooks"]}
    assert as_toml == as_json
    # Codex hashes the handler, not the file: one approval identity for both forms
    keys_json = codex_trust.our_entries("/x/hooks.json", as_json, "codex")
    keys_toml = codex_trust.our_entries("/x/config.toml", as_toml, "codex")
    assert sorted(keys_json.values()) == sorted(keys_toml.values()) and len(keys_json) == 7
