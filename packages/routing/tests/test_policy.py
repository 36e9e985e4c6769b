"""The policy file: a valid one loads; every mistake is refused with its file, line and key."""

from pathlib import Path

import pytest
from agentreflex.routing import PolicyError, load_policy, parse_policy

REPO = Path(__file__).resolve().parents[3]

BASE = """
default_lane = "main"

[lanes.main]
provider = "anthropic"
api = "anthropic"
base_url = "http://127.0.0.1:9/"
model = "m"
key_env = "MAIN_KEY"

[lanes.fast]
provider = "openai"
api = "openai-chat"
base_url = "http://127.0.0.1:9/v1"
model = "f"
"""


def test_the_shipped_policy_loads() -> None:
    policy = load_policy(REPO / "policies" / "routing.toml")
    assert policy.default_lane == "main"
    assert [r.name for r in policy.rules][:2] == ["background", "long-context"]


def test_base_url_loses_its_trailing_slash() -> None:
    assert parse_policy(BASE).lanes["main"].base_url == "http://127.0.0.1:9"


def test_an_unknown_key_names_file_line_and_key() -> None:
    text = BASE + '\n[[rules]]\nname = "r"\nlane = "fast"\nwhen = { backgorund = true }\n'
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "routing.toml")
    message = str(caught.value)
    assert "routing.toml:20: rules.0.when.backgorund" in message
    assert "Extra inputs are not permitted" in message


def test_an_unknown_lane_in_a_rule_is_refused_at_its_line() -> None:
    text = BASE + '\n[[rules]]\nname = "r"\nlane = "fsat"\n'
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "p.toml")
    assert "p.toml:19: rules.0.lane: unknown lane 'fsat' (known lanes: fast, main)" in str(
        caught.value
    )


def test_unknown_lanes_in_fallbacks_ladder_and_default_are_each_reported() -> None:
    text = (
        BASE.replace('default_lane = "main"', 'default_lane = "nope"').replace(
            'key_env = "MAIN_KEY"', 'key_env = "MAIN_KEY"\nfallbacks = ["gone"]'
        )
        + '\n[ladder]\nlanes = ["fast", "huge"]\n'
    )
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "p.toml")
    lines = str(caught.value).splitlines()
    assert lines[0].startswith("p.toml:2: default_lane: unknown lane 'nope'")
    assert lines[1].startswith("p.toml:10: lanes.main.fallbacks.0: unknown lane 'gone'")
    assert lines[2].startswith("p.toml:19: ladder.lanes.1: unknown lane 'huge'")


def test_a_key_pasted_where_its_variable_name_belongs_is_refused() -> None:
    text = BASE.replace('key_env = "MAIN_KEY"', 'key_env = "sk-ant-abc/def+ghi"')
    with pytest.raises(PolicyError) as caught:
        parse_policy(text, "p.toml")
    assert "p.toml:9: lanes.main.key_env" in str(caught.value)
    assert "environment variable" in str(caught.value)


def test_bad_values_and_bad_toml_are_refused() -> None:
    with pytest.raises(PolicyError, match=r"p.toml:6: lanes.main.api"):
        parse_policy(BASE.replace('api = "anthropic"', 'api = "gemini"'), "p.toml")
    with pytest.raises(PolicyError, match=r"lanes.main.base_url"):
        parse_policy(BASE.replace("http://127.0.0.1:9/", "ftp://x"), "p.toml")
    with pytest.raises(PolicyError, match="not valid TOML"):
        parse_policy("default_lane = ", "p.toml")
    with pytest.raises(PolicyError, match=r"\(top level\)|lanes: Field required"):
        parse_policy('default_lane = "x"', "p.toml")


def test_an_unreadable_file_is_a_policy_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(tmp_path / "missing.toml")
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(PolicyError, match="cannot read"):
        load_policy(bad)
