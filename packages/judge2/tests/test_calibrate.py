"""The calibration audit and the ``agentreflex judge2`` command."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from agentreflex.judge2.calibrate import Sample, brier, evaluate, reliability_bins
from agentreflex.judge2.cli import main


def write_calibrated(path: Path, n: int = 400, seed: int = 7) -> None:
    """Probabilities drawn uniformly, outcomes drawn with exactly that probability."""
    rng = random.Random(seed)
    with path.open("w") as fh:
        for i in range(n):
            p = round(rng.random(), 3)
            row = {
                "question": ["unresolved_failure", "destructive_irreversible"][i % 2],
                "state": f"s{i}",
                "probability": p,
                "outcome": rng.random() < p,
            }
            fh.write(json.dumps(row) + "\n")


def test_metrics_on_known_values() -> None:
    samples = [
        Sample("q", 1.0, True),
        Sample("q", 0.0, False),
        Sample("q", 0.5, True),
        Sample("q", 0.5, False),
    ]
    assert brier(samples) == pytest.approx(0.125)
    report = evaluate(samples, n_bins=2, thresholds=[0.5, 0.9])
    assert report.ece == pytest.approx(0.0)
    assert report.thresholds[0.5] == (3, pytest.approx(2 / 3))
    overconfident = [Sample("q", 0.9, False)] * 5 + [Sample("q", 0.9, True)] * 5
    assert evaluate(overconfident).ece == pytest.approx(0.4)


def test_last_bin_includes_one() -> None:
    bins = reliability_bins([Sample("q", 1.0, True)], 10)
    assert bins[-1].count == 1


def test_calibrate_command_writes_report_and_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "decisions.jsonl"
    write_calibrated(data)
    assert main(["calibrate", str(data), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["count"] == 400
    assert 0.0 < out["brier"] < 0.25
    assert out["ece"] < 0.1
    assert set(out["per_question"]) == {"unresolved_failure", "destructive_irreversible"}
    png = Path(out["png"])
    assert png == tmp_path / "decisions.reliability.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_text_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "d.jsonl"
    write_calibrated(data, n=50)
    assert main(["calibrate", str(data), "--no-plot", "--threshold", "0.7"]) == 0
    out = capsys.readouterr().out
    assert "Brier score:" in out and "expected calibration error:" in out
    assert "0.70" in out
    assert not (tmp_path / "d.reliability.png").exists()


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ('{"question": "q", "probability": 0.5, "outcome": true}\n{oops\n', "line 2: not JSON"),
        ('{"question": "q", "probability": 1.5, "outcome": true}\n', "line 1: probability 1.5"),
        ('{"question": "q", "probability": 0.5, "outcome": "maybe"}\n', "outcome 'maybe'"),
        ("\n\n", "no labelled decisions"),
    ],
)
def test_bad_input_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, reason: str
) -> None:
    data = tmp_path / "bad.jsonl"
    data.write_text(content)
    assert main(["calibrate", str(data), "--no-plot"]) == 2
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err


def test_missing_file_and_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "/nonexistent/x.jsonl"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert main([]) == 2


def test_questions_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", "completion"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert next(iter(data["completion"])) == "unresolved_failure"
    assert main(["questions", "nope"]) == 2
