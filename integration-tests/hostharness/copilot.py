"""GitHub Copilot CLI (``@github/copilot``, pinned) driven offline through its own BYOK setting.

Copilot CLI 1.0.102 reads ``COPILOT_PROVIDER_BASE_URL`` / ``COPILOT_PROVIDER_TYPE=openai``
/ ``COPILOT_PROVIDER_MODEL_ID`` / ``COPILOT_PROVIDER_API_KEY`` (and
``COPILOT_OFFLINE=true``): a custom OpenAI-compatible provider, no GitHub login.
The scripted chat-completions fake (:mod:`hostharness.fake_openai_chat`, main-loop
tool ``bash``) answers it.  ``python -m hostharness.copilot SPEC.json`` runs inside
``unshare -n`` (see :func:`hostharness.claude.run_spec`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hostharness.claude import HOSTS_DIR, HostUnavailableError, npm_command
from hostharness.fake_openai_chat import ChatScript, FakeOpenAIChat
from hostharness.fakemodel import Turn
from hostharness.jail import bring_loopback_up

VERSION = "1.0.102"
PACKAGE = "@github/copilot"


def install_copilot() -> Path:
    """The pinned ``copilot`` launcher under ``integration-tests/.hosts`` (installed once)."""
    prefix = HOSTS_DIR / f"copilot-{VERSION}"
    binary = prefix / "node_modules" / ".bin" / "copilot"
    if binary.exists():
        return binary
    argv = [*npm_command(), "install", "--no-audit", "--no-fund", "--prefix", str(prefix)]
    done = subprocess.run(
        [*argv, f"{PACKAGE}@{VERSION}"], capture_output=True, text=True, timeout=900, check=False
    )
    if done.returncode != 0 or not binary.exists():
        raise HostUnavailableError(f"npm install {PACKAGE}@{VERSION} failed:\n{done.stderr}")
    return binary


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[1]).read_text())
    bring_loopback_up()
    script = ChatScript(
        [Turn.from_json(t) for t in spec["script"]],
        main_tool="bash",
        sub_turns=[Turn.from_json(t) for t in spec.get("sub_script", [])],
        sub_marker=spec.get("sub_marker", ""),
    )
    fake = FakeOpenAIChat(script)
    fake.start()
    step = spec["step"]
    env = {**step["env"], "COPILOT_PROVIDER_BASE_URL": fake.base_url}
    started = time.monotonic()
    try:
        done = subprocess.run(
            step["argv"],
            cwd=step["cwd"],
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=step.get("timeout", 150),
            check=False,
        )
        rc, out, err = done.returncode, done.stdout, done.stderr
    except subprocess.TimeoutExpired as exc:
        rc, out, err = -999, str(exc.stdout or ""), f"timed out after {exc.timeout} s"
    finally:
        fake.stop()
    result: dict[str, Any] = {"rc": rc, "stdout": out, "stderr": err, "requests": fake.requests}
    result["wall_s"] = round(time.monotonic() - started, 3)
    Path(spec["result"]).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
