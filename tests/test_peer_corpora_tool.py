"""tools/peer_corpora.py reads the peers' TSV suites and scores the gate on them."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "peer_corpora", ROOT / "tools" / "peer_corpora.py"
    )
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["peer_corpora"] = mod
    spec.loader.exec_module(mod)
    return mod


def _write(folder: Path) -> None:
    rows = [
        "# header",
        "block\trm -rf /\ttests/corpus/x.toml:3\t",
        "block\techo hi\ttests/corpus/x.toml:4\t",
        "allow\tgit status\ttests/e2e/safe.txt\t",
        "allow\tgit reset --hard\ttests/e2e/safe.txt\t",
        "block\tvault kv delete x\tscripts/e2e_test.sh [packs enabled]\t",
        "warn\tprintf 'a\\\\tb\\n'\ttests/e2e/safe.txt\t",
    ]
    (folder / "dcg_corpus.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def test_scores_per_scope_and_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _write(tmp_path)
    assert _tool().main(["--dir", str(tmp_path), "--json", "--by-source", "--no-overrides"]) == 0
    out = json.loads(capsys.readouterr().out)
    default = out["dcg-default"]["peer_labels"]
    assert (default["block"], default["caught"], default["recall"]) == (2, 1, 0.5)
    assert (default["allow"], default["false_positives"], default["fp_rate"]) == (2, 1, 0.5)
    assert out["dcg-all"]["peer_labels"]["block"] == 3
    assert set(out["dcg-default"]["sources"]) == {"tests/corpus/x.toml", "tests/e2e/safe.txt"}
    assert "safetynet" not in out


def test_unescape_and_missing_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tool = _tool()
    assert tool.unescape("a\\\\n\\nb\\tc\\q") == "a\\n\nb\tc\\q"
    assert tool.main(["--dir", str(tmp_path / "absent")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_overrides_change_only_our_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path)
    tool = _tool()
    over = tmp_path / "over.tsv"
    over.write_text("dcg_corpus\tallow\techo hi\tprints a word\n", encoding="utf-8")
    tool.OVERRIDES = over
    assert tool.main(["--dir", str(tmp_path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["dcg-default"]
    assert out["peer_labels"]["recall"] == 0.5
    assert out["overrides"] == 1
    assert out["with_overrides"]["recall"] == 1.0
    assert out["with_overrides"]["allow"] == 3
