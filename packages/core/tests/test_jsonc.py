"""JSONC as OpenCode reads its settings: comments and trailing commas, never inside a string."""

from __future__ import annotations

import json

import pytest
from agentreflex.core.util import jsonc
from hypothesis import given
from hypothesis import strategies as st


def test_comments_and_trailing_commas_go_and_strings_stay() -> None:
    text = '{\n  // a note\n  "a": ["x,]", "// not a comment", "/* nor this */",],\n  /* b */ "b": 1,\n}'
    assert jsonc.loads(text) == {"a": ["x,]", "// not a comment", "/* nor this */"], "b": 1}


def test_an_escaped_quote_does_not_end_the_string() -> None:
    assert jsonc.loads('{"a": "say \\"hi\\", }", }') == {"a": 'say "hi", }'}


@pytest.mark.parametrize("text", ["{", '{"a": }', "// only a comment", "{/* unclosed"])
def test_what_is_not_jsonc_is_a_value_error(text: str) -> None:
    with pytest.raises(ValueError):
        jsonc.loads(text)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON)
def test_plain_json_reads_as_json_does(value: object) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=2)):
        assert jsonc.loads(text) == value


def test_a_comment_between_a_trailing_comma_and_the_bracket() -> None:
    assert jsonc.loads('{"a": [1, 2, // the last\n], /* end */ }') == {"a": [1, 2]}
