"""core's generated secret rules: fresh, translated faithfully, every hint proved."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from agentreflex.core.redaction import secret_rules

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import gen_secret_rules as gen  # noqa: E402


@pytest.mark.parametrize("hash_seed", ["1", "2"])
def test_the_generated_module_is_not_stale(hash_seed: str) -> None:
    """Fresh, and the same whatever the string hash order (the tool must be deterministic)."""
    import os

    done = subprocess.run(
        [sys.executable, "tools/gen_secret_rules.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_fails_on_a_stale_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "secret_rules.py"
    stale.write_text(secret_rules.__doc__ or "")
    monkeypatch.setattr(gen, "TARGET", stale)
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1


def test_every_gitleaks_rule_is_generated_or_listed_with_a_reason() -> None:
    import tomllib

    config = tomllib.loads((ROOT / "tools/gitleaks/gitleaks.toml").read_text())
    ids = {rule["id"] for rule in config["rules"]}
    generated = {rule[0] for rule in secret_rules.RULES if rule[10] == "gitleaks"}
    skipped = dict(secret_rules.SKIPPED)
    assert generated | set(skipped) == ids
    assert all(reason for reason in skipped.values())
    assert len(generated) >= 215


def test_every_rule_compiles_and_is_gated() -> None:
    for rid, regex, hints, requires, *_, origin in secret_rules.RULES:
        re.compile(regex, re.ASCII if origin == "gitleaks" else 0)
        # proved hints, or gitleaks' own keyword precondition: none runs on every text
        assert hints or requires, rid
    assert secret_rules.UNHINTED == ()


def test_the_word_index_reaches_every_rule_through_its_hints() -> None:
    indexed: dict[int, set[str]] = {}
    for word, ids in secret_rules.FOLDED_WORDS + secret_rules.EXACT_WORDS:
        for i in ids:
            indexed.setdefault(i, set()).add(word)
    for i, (rid, _, hints, requires, *_) in enumerate(secret_rules.RULES):
        assert indexed[i] == set(hints.split()) | set(requires), rid


@pytest.mark.parametrize(
    ("re2", "python"),
    [
        (r"\b(p8e-(?i)[a-z0-9]{32})x", r"\b(p8e-(?i:[a-z0-9]{32}))x"),
        (r"a(?i)b|c", r"a(?i:b)|(?i:c)"),
        (r"(?i)ab", r"(?i)ab"),
        (r"x[[:alnum:]]\z", r"x[a-zA-Z0-9]\Z"),
        (r"[(?i)]", r"[(?i)]"),
    ],
)
def test_re2_constructs_translate(re2: str, python: str) -> None:
    assert gen.translate(re2) == python


def test_mid_pattern_ignorecase_keeps_re2_scope() -> None:
    pattern = re.compile(gen.translate(r"\b(LTAI(?i)[a-z0-9]{4})\b"), re.ASCII)
    assert pattern.search("LTAIaBcD")
    assert not pattern.search("ltaiabcd")  # the prefix stays case-sensitive, as in RE2


def test_dropping_the_identifier_prefix_keeps_the_secret() -> None:
    rule = r"(?i)[\w.-]{0,50}?(?:adobe)(?:[ \t\w.-]{0,20})[\s'\"]{0,3}(?:=|:)\s*([a-f0-9]{8})\b"
    stripped, width = gen.strip_lazy_prefix(rule)
    assert width == 50 and not stripped.startswith(r"(?i)[\w")
    text = "x my_adobe_client = 0123abcd and ADOBE_ID: deadbeef"
    secrets = [m.group(1) for m in re.finditer(rule, text)]
    assert secrets == [m.group(1) for m in re.finditer(stripped, text)] == ["0123abcd", "deadbeef"]


def test_core_extension_comes_first_with_its_reasons() -> None:
    """tools/secret_rules_extra.toml: every rule says why, in the table before gitleaks'."""
    import tomllib

    extension = tomllib.loads((ROOT / "tools/secret_rules_extra.toml").read_text())["rules"]
    assert all(len(rule["why"]) > 24 for rule in extension)
    first = secret_rules.RULES[: len(extension)]
    assert [rule[0] for rule in first] == [rule["id"] for rule in extension]
    assert {rule[10] for rule in first} == {"core"}
    assert {rule[10] for rule in secret_rules.RULES[len(extension) :]} == {"gitleaks"}


_NO_WHY = 'id = "x-key"\nregex = "xk_[a-z]{20}"\nkeywords = ["xk_"]'
_UNPROVED = (
    'id = "x-key"\nwhy = "gitleaks has none"\nregex = "(?:xk|yk)_[a-z]{20}"\nkeywords = ["xk_"]'
)


@pytest.mark.parametrize(("row", "complaint"), [(_NO_WHY, "not why"), (_UNPROVED, "may hold none")])
def test_an_extension_rule_without_a_reason_or_with_unproved_hints_is_refused(
    tmp_path: Path, row: str, complaint: str
) -> None:
    path = tmp_path / "extra.toml"
    path.write_text(f"[[rules]]\n{row}\n")
    with pytest.raises(SystemExit, match=complaint):
        gen.extension_rules(path)


def test_an_extension_rule_reports_its_named_group_as_the_secret(tmp_path: Path) -> None:
    path = tmp_path / "extra.toml"
    path.write_text(
        '[[rules]]\nid = "x-key"\nwhy = "gitleaks has none"\n'
        'regex = "xk=(?P<s>[a-z]{8})"\nkeywords = ["xk="]\n'
    )
    (row,) = gen.extension_rules(path)
    assert row[0] == "x-key" and row[5] == 1 and row[10] == "core" and row[2] == "xk="
