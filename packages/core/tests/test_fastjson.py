"""fastjson gives what json gives, for every input, valid or not."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from agentreflex.core.util import fastjson
from hypothesis import given, settings
from hypothesis import strategies as st

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"])),
)
documents = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(), inner, max_size=5)
    ),
    max_leaves=30,
)
OPTIONS = [
    {},
    {"sort_keys": True},
    {"ensure_ascii": False, "separators": (",", ":")},
    {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False},
]


def _same(a: object, b: object) -> bool:
    """Equal, with NaN equal to NaN."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@settings(max_examples=300, deadline=None, database=None)
@given(documents)
def test_dumps_is_byte_for_byte_json_dumps(value: object) -> None:
    for options in OPTIONS:
        assert fastjson.dumps(value, **options) == json.dumps(value, **options)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None, database=None)
@given(documents, st.sampled_from(["", " ", "\n\t ", "\r\n"]))
def test_loads_reads_what_json_reads(value: object, pad: str) -> None:
    text = pad + json.dumps(value) + pad
    assert _same(fastjson.loads(text), json.loads(text))
    assert _same(fastjson.loads(text.encode()), json.loads(text.encode()))


def _outcome(fn: object, text: object) -> tuple[str, object]:
    try:
        return "ok", json.dumps(fn(text), sort_keys=True)  # type: ignore[operator]
    except (ValueError, RecursionError, TypeError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=400, deadline=None, database=None)
@given(st.one_of(st.text(max_size=40), st.binary(max_size=40)))
def test_any_input_gives_the_same_value_or_the_same_error(text: str | bytes) -> None:
    assert _outcome(fastjson.loads, text) == _outcome(json.loads, text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "{",
        '{"a": 1} x',
        '{"a": 1}{"b": 2}',
        "\ufeff{}",
        b"\xef\xbb\xbf{}",
        '{"a": 1}'.encode("utf-16"),
        b'{"a": "\xff"}',
        "[NaN, Infinity, -Infinity]",
        '"\\ud800"',
        "[" * 100_000,
    ],
)
def test_edge_cases_match_json(text: str | bytes) -> None:
    assert _outcome(fastjson.loads, text) == _outcome(json.loads, text)


def test_special_floats_and_non_serialisable_values() -> None:
    assert fastjson.dumps([math.inf, -math.inf]) == "[Infinity, -Infinity]"
    with pytest.raises(TypeError, match="not JSON serializable"):
        fastjson.dumps({"a": object()})
    assert fastjson.dumps({"a": {1}}, default=sorted) == '{"a": [1]}'
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        fastjson.dumps(loop)
    assert fastjson.dump_line({"é": "x", "n": {1}}) == '{"é":"x","n":"{1}"}'
    assert fastjson.dump_state({"b": 1, "a": "é"}) == '{"a":"\\u00e9","b":1}'


def test_importing_it_does_not_import_json() -> None:
    code = "import sys, agentreflex.core.util.fastjson as f; f.loads('[1]'); f.dumps([1]); print('json' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("text", ["{", '{"a" 1}', '{"a": }', "[1,]", '"\\x"', "tru", '{"a": 1} x'])
def test_errors_in_a_fresh_process_are_json_errors(text: str) -> None:
    """Before json.decoder is imported the C scanner cannot raise its error (SystemError)."""
    code = (
        "import sys, agentreflex.core.util.fastjson as f\n"
        "try:\n    f.loads(sys.argv[1])\n"
        "except ValueError as exc:\n    print(type(exc).__name__, exc.msg, exc.pos)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, text], capture_output=True, text=True)
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        assert out.stdout.strip() == f"JSONDecodeError {exc.msg} {exc.pos}", out.stderr


def test_scan_reads_one_value_at_an_index() -> None:
    text = '{"a":[1,2],"b":"x"}'
    assert fastjson.scan(text, 5) == ([1, 2], 10)
    assert fastjson.scan(text, 15) == ("x", 18)
    for bad in (0 + 4, 3):
        with pytest.raises(ValueError, match="no valid JSON value"):
            fastjson.scan('{"a" 1}', bad)
    code = "import agentreflex.core.util.fastjson as f\ntry:\n    f.scan('{x', 0)\nexcept ValueError:\n    print('ok')\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok"  # also before json.decoder is imported
