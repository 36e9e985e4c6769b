"""``serve --record DIR``: redacted request bodies that ``routing explain`` can read back."""

import contextlib
import io
import json
import stat
from pathlib import Path

from agentreflex.router.recorder import Recorder
from agentreflex.routing.cli import main as routing_cli
from router_world import World, message, run

SECRET = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


def test_recorded_requests_are_redacted_private_and_explainable(tmp_path: Path) -> None:
    folder = tmp_path / "recorded"
    seen: dict[str, object] = {}

    async def check(w: World) -> None:
        body = {
            "model": "claude-haiku-4-5",
            "max_tokens": 10,
            "system": "Generate a concise title for this session.",
            "messages": [{"role": "user", "content": f"my token is {SECRET}"}],
        }
        status, _, _ = await w.post("/v1/messages", body, **{"x-api-key": "sk-client"})
        assert status == 200
        seen["record"] = (await w.get("/status"))["recent"][0]
        seen["policy"] = w.policy_text

    run(check, record_dir=folder)
    record = seen["record"]
    assert isinstance(record, dict)
    files = list(folder.glob("*.json"))
    assert [f.name for f in files] == [record["recorded"]]
    saved = files[0].read_text()
    assert SECRET not in saved and "[REDACTED]" in saved
    assert "sk-client" not in saved  # headers are never written
    assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    policy_file = tmp_path / "routing.toml"
    policy_file.write_text(str(seen["policy"]))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert routing_cli(["explain", str(files[0]), "--policy", str(policy_file), "--json"]) == 0
    explained = json.loads(out.getvalue())
    assert explained["lane"] == record["lane"] == "o"
    assert explained["reason"] == record["reason"]


def test_the_recorder_keeps_only_the_newest_and_survives_an_unwritable_folder(
    tmp_path: Path,
) -> None:
    recorder = Recorder(tmp_path / "r", keep=3)
    names = [recorder.save("/v1/messages", "anthropic", message(str(n))) for n in range(5)]
    assert sorted(p.name for p in (tmp_path / "r").glob("*.json")) == names[2:]
    for old in (tmp_path / "r").iterdir():  # the folder is replaced by a file (root ignores modes)
        old.unlink()
    (tmp_path / "r").rmdir()
    (tmp_path / "r").write_text("not a folder")
    assert recorder.save("/v1/messages", "anthropic", message()) is None
