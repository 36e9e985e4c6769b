"""agentreflex inside the real OpenCode (1.18.33 from npm), offline.

Each scenario installs the plugin the user's way (``agentreflex install opencode``:
the npm-style ``"plugin"`` entry in ``opencode.json`` for ``--user``, a
``.opencode/plugins/`` file for ``--project``, with ``@opencode-ai/plugin``
pre-installed), then runs ``opencode run`` against the scripted fake
chat-completions model inside ``unshare -n``.  The scenarios are shared with pi
(``hostharness/js_scenarios.py``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostharness.claude import HostUnavailableError
from hostharness.fakemodel import say
from hostharness.js_scenarios import (
    guard_skipped,
    test_contained_shell_holds_and_everyday_work_goes_on,
    test_destructive_blocked_benign_runs_and_context_reaches_the_model,
    test_do_not_modify_tests_blocks_a_test_edit_project_install,
    test_done_reflex_follow_up_reaches_the_model_once,
    test_fails_closed_when_agentreflex_is_missing,
)
from hostharness.jshosts import JsHostProject, install_host

pytestmark = pytest.mark.integration

__all__ = [
    "test_contained_shell_holds_and_everyday_work_goes_on",
    "test_destructive_blocked_benign_runs_and_context_reaches_the_model",
    "test_do_not_modify_tests_blocks_a_test_edit_project_install",
    "test_done_reflex_follow_up_reaches_the_model_once",
    "test_fails_closed_when_agentreflex_is_missing",
]


@pytest.fixture(scope="session")
def opencode_binary() -> Path:
    try:
        return install_host("opencode")
    except HostUnavailableError as exc:
        pytest.fail(f"OpenCode is not available, so the plugin cannot be proven: {exc}")


@pytest.fixture
def js(tmp_path: Path, opencode_binary: Path, agentreflex_script: Path) -> JsHostProject:
    project = JsHostProject(tmp_path, "opencode", opencode_binary)
    project.set_mode("enforced")
    return project


def test_user_install_preinstalls_the_plugin_package_and_pure_skips_it(js: JsHostProject) -> None:
    done = js.install()
    config_dir = js.xdg / "config" / "opencode"
    assert "installed @opencode-ai/plugin@1.18.33" in done.stdout, done.stdout
    assert (config_dir / "node_modules" / "@opencode-ai" / "plugin" / "package.json").is_file()
    run = guard_skipped(js, "--pure")
    assert run.wall_s < 45, run.describe()  # no npm wait at start


def test_the_session_recap_reaches_the_next_prompts_system_prompt(js: JsHostProject) -> None:
    """The context layer's recap (the user's constraint in their words) joins the system
    prompt of the next prompt's turn: a second ``opencode run --continue``."""
    constraint = "Do not touch the public API in api.py."
    first = js.run(f"Fix the parser bug. {constraint}", [say("Noted.")])
    assert "agentreflex session recap" not in json.dumps(first.main_requests), first.describe()
    second = js.run("Now run the tests.", [say("On it.")], "--continue")
    text = json.dumps(second.main_requests)
    assert "agentreflex session recap" in text, second.describe()
    assert "public API in api.py" in text.split("agentreflex session recap", 1)[1], (
        second.describe()
    )
