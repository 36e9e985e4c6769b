"""The large tool output saver: what it keeps, what it saves, and when it leaves the output alone."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest
from agentreflex.context_layer import lines, outputs
from agentreflex.context_layer.saver import Limits, PassThrough, shorten_stream, shorten_text

sys.path.insert(0, os.path.dirname(__file__))
from logs import pytest_log


def test_keeps_every_error_line_the_assertion_and_the_summary(tmp_path: Path) -> None:
    text = pytest_log()
    done = shorten_text(text, str(tmp_path), "Bash", Limits(keep_chars=3000))
    assert len(done.text) < len(text) / 10
    for line in text.splitlines():
        if lines.is_error(line):
            assert line in done.text
    assert "E       assert 3 == 4" in done.text
    assert "1 failed, 4000 passed" in done.text
    assert done.path in done.text
    assert Path(done.path).read_text() == text  # the whole output, byte for byte
    assert "*" in (tmp_path / ".gitignore").read_text()  # never committed
    assert "omitted" in done.text


def test_the_saved_copy_and_the_view_are_redacted(tmp_path: Path) -> None:
    secret = "AKIA" + "ABCDEFGHIJKLMNOP"
    text = pytest_log(500).replace("test_case_7 PASSED", f"test_case_7 PASSED key={secret}")
    text += f"Error: login failed with {secret}\n"
    done = shorten_text(text, str(tmp_path), "Bash", Limits())
    assert secret not in Path(done.path).read_text()
    assert secret not in done.text
    assert "login failed" in done.text


def test_ansi_codes_are_stripped_from_the_view_and_errors_still_found(tmp_path: Path) -> None:
    text = "\n".join(f"\x1b[32mok {i}\x1b[0m" for i in range(3000))
    text += "\n\x1b[31m\x1b[1mFAIL\x1b[0m src/app.test.js\n"
    done = shorten_text(text, str(tmp_path), "Bash", Limits())
    assert "FAIL src/app.test.js" in done.text
    assert "\x1b[" not in done.text


def test_python_tracebacks_are_kept_whole(tmp_path: Path) -> None:
    trace = [
        "Traceback (most recent call last):",
        '  File "app.py", line 3, in <module>',
        "    main()",
        '  File "app.py", line 2, in main',
        "    return compute(x)",
        "ZeroDivisionError: division by zero",
    ]
    text = "\n".join([*(f"progress {i}" for i in range(5000)), *trace, "done"])
    done = shorten_text(text, str(tmp_path), "Bash", Limits(keep_chars=800))
    for line in trace:
        assert line in done.text


def test_goal_terms_are_kept_when_the_budget_allows(tmp_path: Path) -> None:
    text = "\n".join(f"compiling module_{i}" for i in range(4000)) + "\n"
    text = text.replace("module_1234\n", "module_1234 frobnicator ready\n")
    terms = lines.goal_terms("Make the frobnicator start faster")
    done = shorten_text(text, str(tmp_path), "Bash", Limits(), terms)
    assert "frobnicator ready" in done.text


def test_binary_output_passes_through(tmp_path: Path) -> None:
    with pytest.raises(PassThrough, match="binary"):
        shorten_text("x" * 20000 + "\x00\x01", str(tmp_path), "Bash", Limits())
    assert os.listdir(outputs.outputs_dir(str(tmp_path))) == []  # the partial copy is removed


def test_invalid_utf8_passes_through(tmp_path: Path) -> None:
    data = b"line\n" * 5000 + b"bad \xff\xfe byte\n"
    with pytest.raises(PassThrough, match="UTF-8"):
        shorten_stream(io.BytesIO(data), str(tmp_path), "Bash", Limits())
    with pytest.raises(PassThrough, match="UTF-8"):
        shorten_text("ok\n" * 5000 + "lone \ud800 surrogate\n", str(tmp_path), "Bash", Limits())


def test_read_only_directory_passes_through(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        # root writes through permissions: a file where the directory belongs stands in
        (tmp_path / "outputs").write_text("not a directory")
    else:
        tmp_path.chmod(0o500)
    try:
        with pytest.raises(PassThrough):
            shorten_text(pytest_log(), str(tmp_path), "Bash", Limits())
    finally:
        tmp_path.chmod(0o700)


def test_a_full_disk_passes_through(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    folder = Path(outputs.outputs_dir(str(tmp_path)))
    folder.mkdir()
    real = outputs.create

    def full(state_dir: str, tool: str) -> tuple[str, int]:
        path, fd = real(state_dir, tool)
        os.close(fd)
        return path, os.open("/dev/full", os.O_WRONLY)

    outputs_create = outputs.create
    outputs.create = full  # type: ignore[assignment]
    try:
        with pytest.raises(PassThrough, match="No space"):
            shorten_text(pytest_log(), str(tmp_path), "Bash", Limits())
    finally:
        outputs.create = outputs_create  # type: ignore[assignment]
    assert list(folder.iterdir()) == []


def test_a_symlinked_outputs_dir_is_refused(tmp_path: Path) -> None:
    protected = tmp_path / "local"
    protected.mkdir()
    (protected / "ledger.json").write_text("{}")
    os.symlink(protected, tmp_path / "outputs")
    with pytest.raises(PassThrough, match="symlink"):
        shorten_text(pytest_log(), str(tmp_path), "Bash", Limits())
    assert os.listdir(protected) == ["ledger.json"]


def test_oldest_copies_go_first_and_foreign_files_stay(tmp_path: Path) -> None:
    folder = Path(outputs.outputs_dir(str(tmp_path)))
    folder.mkdir()
    (folder / "notes.txt").write_text("the agent's own file")
    old = folder / "20200101-000000-00000000-bash.log"
    old.write_text("old")
    paths = [shorten_text(pytest_log(100), str(tmp_path), "Bash", Limits(max_files=2)).path]
    paths.append(shorten_text(pytest_log(100), str(tmp_path), "Bash", Limits(max_files=2)).path)
    left = sorted(p.name for p in folder.iterdir())
    assert not old.exists()
    assert "notes.txt" in left
    assert all(os.path.basename(p) in left for p in paths)


def test_too_many_error_lines_pass_through_rather_than_drop_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lines, "MAX_ERROR_CHARS", 2000)
    text = "\n".join(f"error {i}: broken" for i in range(1000))
    with pytest.raises(PassThrough, match="error lines"):
        shorten_text(text, str(tmp_path), "Bash", Limits())


def test_a_huge_line_is_read_in_bounded_pieces(tmp_path: Path) -> None:
    data = b"a" * (3 * 1024 * 1024) + b"\nerror: at the end\n"
    done = shorten_stream(io.BytesIO(data), str(tmp_path), "Bash", Limits())
    assert "error: at the end" in done.text
    assert os.path.getsize(done.path) == len(data)


def test_pruning_a_state_dir_with_no_saved_outputs_removes_nothing(tmp_path: Path) -> None:
    assert outputs.prune(str(tmp_path / "never-written"), max_files=1, max_bytes=1) == 0


_KEY_BODY = [
    "MIIEowIBAAKCAQEA" + "aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zQ" + f"{i:02d}FAKE" for i in range(26)
]
_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_KEY_BODY) + "\n-----END RSA PRIVATE KEY-----\n"
)
_TOKEN = "ghp_" + "Zq8v3Lm9pXw2Rt7Ky4Hs6Jd1Fg5Nb0Qc2We4"


@pytest.mark.parametrize(
    "text",
    [
        # a key printed, then the error after it: its body lines are the error's context
        "".join(f"ok {i}\n" for i in range(5000))
        + _KEY
        + "Error: Permission denied (publickey)\n"
        + "".join(f"ok {i}\n" for i in range(3000)),
        # a token in one long line, across the stream's 64 KiB pieces and the batch edge
        "x" * (256 * 1024 - 10) + _TOKEN + "y" * 1000 + "\nError: failed\n",
        "y" * (64 * 1024 - 7)
        + _TOKEN
        + "\n"
        + "".join(f"ok {i}\n" for i in range(3000))
        + "FAIL\n",
    ],
    ids=["key-then-error", "token-across-batches", "token-across-read-pieces"],
)
def test_no_piece_of_a_secret_straddling_lines_or_batches_is_saved_or_shown(
    tmp_path: Path, text: str
) -> None:
    for done in (
        shorten_text(text, str(tmp_path), "Bash", Limits()),
        shorten_stream(io.BytesIO(text.encode()), str(tmp_path), "Bash", Limits()),
    ):
        for piece in ("MIIEowIBAAKCAQEA", "FAKE", _TOKEN[4:20], _TOKEN[20:]):
            assert piece not in Path(done.path).read_text()
            assert piece not in done.text
