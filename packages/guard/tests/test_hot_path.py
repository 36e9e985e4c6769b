"""What one guard call costs a new process: the modules it loads, the patterns it compiles.

A hook is a new process per event, so the engine imports its parts where an
event first needs them, and a few checks that every event makes use str
methods instead of a pattern. Each such check is compared here with the
pattern it replaced, and the imports and compiles of ordinary events are
checked in a fresh interpreter.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import unicodedata

import pytest
from agentreflex.guard import DEFERRED_WORD, RESOLVED_WORD, ROOT_WORD, classifier, closing
from agentreflex.guard.classifier import (
    _ACTIVE,
    _ALTERNATIVES,
    _CHECK_VERB,
    _COMMIT,
    _COSMETIC,
    _REPORT_LATER,
    _SIGNAL,
    _SPLIT,
    CLEAR,
    UNCERTAIN,
    Classification,
    subject_tokens,
)
from agentreflex.guard.sanitize import normalize_text
from agentreflex.guard.surface import clean_model
from agentreflex.guard.transcript import UUID, uuid_shaped
from hypothesis import given, settings
from hypothesis import strategies as st

TESTS_DIR = os.path.dirname(__file__)
SID = "0b7c2a8e-5d1f-4c3a-9e6b-2f4d8a1c7e90"
# the modules an ordinary event does not need (see engine.py's docstring)
LAZY = (
    "agentreflex.guard.obligations",
    "agentreflex.guard.directive",
    "agentreflex.guard.predicates",
    "agentreflex.guard.tools",
    "agentreflex.guard.closing",
    "shlex",
    "unicodedata",
    "math",
)

WORDS = [
    *["I'll", "i will", "Let me", "next, I'll", "we should", "going to", "planning to"],
    *["before changing the config,", "first", "now", "check", "verify", "run", "rerun"],
    *["look at", "find out", "Investigating", "either", "or", "could be", "two causes"],
    *["cause", "root cause", "fails", "failure", "regression", "why", "error", "changed"],
    *["change in", "typo", "docs", "lint", "report back", "follow up", "done", "fixed"],
    *["resolved", "all tests pass", "ruled out", "culprit is", "not", "might", "temporary"],
    *["mitigation", "workaround", "remains unresolved", "the", "build", "adapter", "tests"],
    # the letters re.IGNORECASE equates with ASCII ones: dotless i, dotted I, long s, Kelvin
    *["\u0131", "\u0130", "\u017f", "\u212a", "\u00e9"],
    "Resolved: x; evidence: y; conclusion: z.",
    "Deferred: x; reason: r; decision impact: i; reopen when: w.",
]
SEPARATORS = [" ", " ", ". ", "! ", "? ", ": ", "; ", "\n", "**", "__", ", ", "\t", "\u00a0", "."]
texts = st.lists(
    st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)), min_size=1, max_size=12
).map(lambda parts: "".join(w + s for w, s in parts)) | st.text(max_size=80)


# ---- the checks that replaced a pattern, against that pattern ----------------------------


@settings(max_examples=500, deadline=None, database=None)
@given(texts)
def test_clauses_split_exactly_where_the_split_pattern_does(text: str) -> None:
    reference = [c.strip() for c in _SPLIT.compiled.split(text[:20000]) if c and c.strip()]
    assert classifier.clauses(text) == reference


def test_the_split_precheck_knows_every_whitespace_the_pattern_does() -> None:
    space = re.compile(r"\s")
    split = _SPLIT.compiled
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert (space.match(char) is not None) == char.isspace()
        text = "done." + char + "x"
        assert classifier._may_split(text) == (split.search(text) is not None), hex(code)


def _reference_classify_clause(clause: str) -> Classification:
    """classify_clause as it was: the verb before the signal, _COMMIT without its lead hints."""
    if _ACTIVE.compiled.search(clause):
        form = "active"
    elif _COMMIT.compiled.search(clause):
        form = "commitment"
    elif _ALTERNATIVES.compiled.search(clause):
        form = "alternatives"
    else:
        return Classification(CLEAR)
    cosmetic = _COSMETIC.search(clause) and (
        classifier._DOCS.search(clause) or not classifier._CAUSAL.search(clause)
    )
    if cosmetic or (_REPORT_LATER.search(clause) and not _SIGNAL.search(clause)):
        return Classification(CLEAR)
    verb = _CHECK_VERB.search(clause)
    if verb is None or not _SIGNAL.search(clause):
        return Classification(UNCERTAIN, form=form, clause=clause)
    subjects = subject_tokens(clause)
    if not subjects:
        return Classification(UNCERTAIN, form=form, clause=clause)
    action = classifier._ACTIONS.get(verb[1].lower(), "inspect")
    return Classification("candidate", form, action, subjects, clause)


@settings(max_examples=800, deadline=None, database=None)
@given(texts)
def test_classify_clause_decides_as_before(text: str) -> None:
    for clause in classifier.clauses(text) or [text]:
        assert classifier.classify_clause(clause) == _reference_classify_clause(clause)


@settings(max_examples=500, deadline=None, database=None)
@given(
    st.text(alphabet="aAzZ09._:/@+-\u00e9\n \t\u212a", max_size=12)
    | st.sampled_from(["claude-sonnet-4-5", "gpt-5.1", "-x", "a b", "x\n", "A/b@c+d:e"])
)
def test_a_model_id_is_what_the_model_pattern_accepted(value: str) -> None:
    pattern = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$")
    text = value.strip()
    accepted = bool(text) and len(text) <= 128 and pattern.match(text) is not None
    expected = "" if not accepted or "synthetic" in text.lower() else text
    assert clean_model(value) == expected


@settings(max_examples=1000, deadline=None, database=None)
@given(
    st.lists(st.sampled_from("0123456789abcdefABCDEFgG-\n \u212a"), max_size=40).map("".join)
    | st.sampled_from([SID, SID.upper(), SID + "\n", SID + "\n\n", "\n" + SID, SID + " "])
    | st.integers(0, 35).flatmap(
        lambda at: st.sampled_from("-x\n\u212a0").map(lambda c: SID[:at] + c + SID[at + 1 :])
    )
)
def test_uuid_shaped_is_what_the_uuid_pattern_matched(value: str) -> None:
    assert uuid_shaped(value) == (UUID.compiled.match(value) is not None)


@settings(max_examples=300, deadline=None, database=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=60))
def test_ascii_text_needs_no_normalisation(text: str) -> None:
    assert normalize_text(text) == unicodedata.normalize("NFC", text) == text


def test_the_engine_looks_for_the_words_closing_patterns_are_hinted_with() -> None:
    # tests/test_pattern_hints.py proves the hints; the engine reads the same constants
    assert closing._RESOLVED.hints == (RESOLVED_WORD,)
    assert closing._DEFERRED.hints == (DEFERRED_WORD,)
    assert closing._ROOT_OPEN.hints == (ROOT_WORD,)


# ---- what an ordinary event loads and compiles, in a fresh interpreter -------------------

CALL = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    from agentreflex.core.testing import post_tool, pre_tool, prompt, stop
    from guard_testkit import guard_config, make_runner
    state, claude, kind, text = sys.argv[2:6]
    env = {"CLAUDE_CONFIG_DIR": claude, "HOME": claude}
    path = os.path.join(claude, "projects", "-p", "%s.jsonl" % sys.argv[6])
    os.makedirs(os.path.dirname(path), exist_ok=True)
    record = {"type": "assistant", "message": {"role": "assistant", "model": "claude-x",
              "content": [{"type": "text", "text": text}]}}
    with open(path, "a") as fh:
        fh.write(json.dumps(record) + "\\n")
    run = make_runner(state, guard_config("on"), env)
    kw = dict(session_id=sys.argv[6], transcript_path=path)
    tool = {"command": "ls -la", "description": "List the files"}
    if kind == "pre":
        event = pre_tool("Bash", tool, tool_use_id="toolu_1", **kw)
    elif kind == "post":
        event = post_tool("Bash", tool, ok=True, output="ok", tool_use_id="toolu_1", **kw)
    elif kind == "prompt":
        event = prompt("add a --verbose flag to the cli", **kw)
    else:
        event = stop("I added the flag.", **kw)
    before = set(sys.modules)
    found = run(event)
    loaded = sorted(set(sys.modules) - before)
    from agentreflex.guard import classifier, transcript
    patterns = {name: getattr(classifier, name)._compiled is not None
                for name in ("_SPLIT", "_COMMIT", "_CHECK_VERB", "_SIGNAL")}
    patterns["UUID"] = transcript.UUID._compiled is not None
    print(json.dumps({"found": [f.code for f in found], "patterns": patterns,
                      "loaded": loaded}))
    """
)


def _call(tmp_path: object, kind: str, text: str) -> dict[str, object]:
    folder = str(tmp_path)
    args = [os.path.join(folder, "state"), os.path.join(folder, "claude"), kind, text, SID]
    done = subprocess.run(
        [sys.executable, "-c", CALL, TESTS_DIR, *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out: dict[str, object] = json.loads(done.stdout)
    return out


@pytest.mark.parametrize("kind", ["pre", "post", "prompt", "stop"])
def test_an_ordinary_event_loads_no_obligation_directive_or_closing_code(
    tmp_path: object, kind: str
) -> None:
    out = _call(tmp_path, kind, "Next I will run `ls` to check the build.")
    loaded = out["loaded"]
    assert isinstance(loaded, list)
    assert "agentreflex.guard.engine" in loaded  # the engine did run
    assert "agentreflex.guard.classifier" in loaded  # the new text was classified
    assert [m for m in LAZY if m in loaded] == []
    assert out["found"] == []


def test_an_ordinary_text_compiles_only_the_patterns_it_needs(tmp_path: object) -> None:
    # a commitment (so _COMMIT compiles), one sentence, no decision signal
    out = _call(tmp_path, "pre", "Next I will run `ls` to check the build.")
    assert out["patterns"] == {
        "_SPLIT": False,
        "_COMMIT": True,
        "_CHECK_VERB": False,
        "_SIGNAL": False,
        "UUID": False,
    }


def test_a_check_verb_without_a_lead_word_compiles_no_commitment_pattern(
    tmp_path: object,
) -> None:
    out = _call(tmp_path, "pre", "Run the tests")
    patterns = out["patterns"]
    assert isinstance(patterns, dict)
    assert patterns["_COMMIT"] is False


def test_a_directive_still_loads_what_it_needs(tmp_path: object) -> None:
    from guard_testkit import marker

    out = _call(tmp_path, "stop", "Before deciding. " + marker())
    loaded = out["loaded"]
    assert isinstance(loaded, list)
    assert "agentreflex.guard.obligations" in loaded
    assert "agentreflex.guard.directive" in loaded
    assert out["found"] == ["RG-EVIDENCE-OPEN-001"]  # the stop is blocked on the new check
