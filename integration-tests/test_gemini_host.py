"""agentreflex inside the real Gemini CLI (0.61.0 from npm), offline.

Each scenario installs the hooks the user's way (``agentreflex install gemini
--project``: ``.gemini/settings.json``), trusts the folder the way Gemini CLI's
first-start prompt records it (``~/.gemini/trustedFolders.json``), then runs
``gemini -p ... --yolo`` against the scripted Gemini API inside ``unshare -n``.
What the model saw is read from the requests the fake API received.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hostharness.claude import (
    AGENTREFLEX_SCRIPT,
    HostUnavailableError,
    node_dir,
    request_text,
    run_spec,
)
from hostharness.containment import ContainmentScenario
from hostharness.gemini import call, install_gemini, is_main, is_subagent, text

pytestmark = pytest.mark.integration


@pytest.fixture(scope="session")
def gemini_binary() -> Path:
    try:
        return install_gemini()
    except HostUnavailableError as exc:
        pytest.fail(str(exc))


@dataclass
class GeminiRun:
    rc: int
    stdout: str
    stderr: str
    main_requests: list[dict[str, Any]]
    subagent_requests: list[dict[str, Any]]
    all_requests: list[dict[str, Any]] = field(default_factory=list)

    def describe(self) -> str:
        return f"rc={self.rc}\nstdout:\n{self.stdout[-3000:]}\nstderr:\n{self.stderr[-3000:]}"

    def function_responses(self, requests: list[dict[str, Any]] | None = None) -> list[str]:
        """Each tool result the model was shown, in order (from the last request of the
        main loop, or of ``requests``: a sub-agent's)."""
        contents = (requests or self.main_requests)[-1]["body"]["contents"]
        return [
            json.dumps(part["functionResponse"]["response"])
            for content in contents
            for part in content.get("parts", [])
            if "functionResponse" in part
        ]

    def user_texts(self) -> list[str]:
        contents = self.main_requests[-1]["body"]["contents"]
        return [
            str(part["text"])
            for content in contents
            if content.get("role") == "user"
            for part in content.get("parts", [])
            if "text" in part
        ]


class GeminiWorld:
    def __init__(self, root: Path, binary: Path) -> None:
        self.root, self.binary = root, binary
        self.home = root / "home"
        self.project = root / "proj"
        self.state = root / "state"
        (self.home / ".gemini").mkdir(parents=True)
        self.project.mkdir()
        self.env = {
            "HOME": str(self.home),
            "PATH": f"{node_dir()}:{os.environ.get('PATH', '/usr/bin:/bin')}",
            "AGENTREFLEX_STATE_DIR": str(self.state),
            # no warm daemon: one started here would outlive the test, answer later tests' hooks
            # from the shared socket folder, and write into this test's folder as pytest
            # removes it (the Claude Code harness's scenarios opt in the same way)
            "AGENTREFLEX_DAEMON": "off",
            "GEMINI_API_KEY": "fake-key-for-the-loopback-model",
            "NO_COLOR": "1",
        }
        settings = {
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
        }
        (self.home / ".gemini" / "settings.json").write_text(json.dumps(settings))
        (self.home / ".gemini" / "trustedFolders.json").write_text(
            json.dumps({str(self.project): "TRUST_FOLDER"})
        )
        self.write(".agentreflex/config.toml", 'mode = "enforced"\n')
        self.write("README.md", "demo\n")
        git = [
            "git",
            "-C",
            str(self.project),
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
        ]
        subprocess.run(["git", "init", "-q", str(self.project)], check=True)
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", "init"], check=True)
        self.install()

    def write(self, rel: str, content: str) -> Path:
        path = self.project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        return path

    def install(self) -> None:
        done = subprocess.run(
            [str(AGENTREFLEX_SCRIPT), "install", "gemini", "--project"],
            cwd=self.project,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr

    def run(
        self,
        prompt: str,
        script: list[list[dict[str, Any]]],
        yolo: bool = True,
        subagent_script: list[list[dict[str, Any]]] | None = None,
    ) -> GeminiRun:
        """``gemini -p``: in YOLO mode, or (``yolo=False``) in its default approval mode,
        where a command no rule allows is refused (no terminal to ask on).  With a
        ``subagent_script``, a sub-agent's requests (``invoke_agent``) get its turns."""
        step = {
            "argv": [str(self.binary), "-p", prompt, *(["--yolo"] if yolo else [])],
            "cwd": str(self.project),
            "env": self.env,
            "timeout": 150,
        }
        spec = {"script": script, "steps": [step], "subagent_script": subagent_script}
        result = run_spec("hostharness.gemini", spec, self.root / "jail", timeout=200)
        out = result["steps"][0]
        main = [r for r in result["requests"] if is_main(r) and not is_subagent(r)]
        sub = [r for r in result["requests"] if is_subagent(r)]
        return GeminiRun(out["rc"], out["stdout"], out["stderr"], main, sub)

    def session(
        self, prompts: list[str], script: list[list[dict[str, Any]]], prompt_tokens: list[int]
    ) -> GeminiRun:
        """One session over several ``gemini -p`` runs: the first starts it, each other
        resumes it (``--resume latest``: the same session id, so the same agentreflex
        session).  ``prompt_tokens[i]``: the promptTokenCount the main turn ``i`` reports."""
        steps = [
            {
                "argv": [
                    str(self.binary),
                    *(["--resume", "latest"] if n else []),
                    "-p",
                    prompt,
                    "--yolo",
                ],
                "cwd": str(self.project),
                "env": self.env,
                "timeout": 150,
            }
            for n, prompt in enumerate(prompts)
        ]
        spec = {"script": script, "steps": steps, "prompt_tokens": prompt_tokens}
        result = run_spec("hostharness.gemini", spec, self.root / "jail", timeout=500)
        outs = result["steps"]
        main = [r for r in result["requests"] if is_main(r) and not is_subagent(r)]
        failed = [o for o in outs if o["rc"] != 0]
        last = (failed or outs)[-1]
        return GeminiRun(last["rc"], last["stdout"], last["stderr"], main, [], result["requests"])


@pytest.fixture
def world(tmp_path: Path, gemini_binary: Path) -> GeminiWorld:
    return GeminiWorld(tmp_path, gemini_binary)


def test_destructive_blocked_with_our_reason_and_benign_runs(world: GeminiWorld) -> None:
    target = world.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    made = world.project / "made.txt"
    script = [
        call("run_shell_command", command=f"rm -rf {target}"),
        call("run_shell_command", command=f"echo hello > {made}"),
        text("All done."),
    ]
    run = world.run("clean up", script)
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    results = run.function_responses()
    assert "GATE-RM-" in results[0], run.describe()  # our reason, in the model's next request
    assert "GATE-" not in results[1], run.describe()
    assert made.read_text() == "hello\n", run.describe()
    assert run.rc == 0, run.describe()


def test_a_projects_dotenv_does_not_turn_enforced_mode_off(world: GeminiWorld) -> None:
    """Gemini CLI reads the project's ``.env`` into its own environment, which its hooks
    inherit: a cloned repository's ``REFLEX_MODE=shadow`` would reach the hook as the
    user's own.  The hook sets it aside; ``rm -rf`` of the user's folder is refused."""
    (world.project / ".env").write_text("API_URL=http://localhost:8000\nREFLEX_MODE=shadow\n")
    target = world.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    run = world.run(
        "clean up", [call("run_shell_command", command=f"rm -rf {target}"), text("Done.")]
    )
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert "GATE-RM-" in run.function_responses()[0], run.describe()


def test_a_search_filter_picking_the_dotenv_is_refused(world: GeminiWorld) -> None:
    """``grep_search`` with ``include_pattern`` ``.env`` prints the file's matching lines:
    a read of it, refused as ``read_file .env`` is; ``*.md`` stays allowed (issue #28)."""
    secret = "sk-proj-Zq8Wx7Vc6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8Dd7"
    world.write(".env", f"OPENAI_API_KEY={secret}\n")
    script = [
        call("grep_search", pattern="KEY", include_pattern=".env"),
        call("grep_search", pattern="demo", include_pattern="*.md"),
        text("Searched."),
    ]
    run = world.run("find the key", script)
    results = run.function_responses()
    assert "GATE-SECRET-READ" in results[0], run.describe()
    assert "GATE-" not in results[1], run.describe()
    assert secret not in json.dumps(run.main_requests), run.describe()


def test_do_not_modify_tests_blocks_a_test_edit(world: GeminiWorld) -> None:
    original = "def test_add():\n    assert 2 + 2 == 4\n"
    test_file = world.write("tests/test_calc.py", original)
    script = [
        call(
            "replace",
            file_path=str(test_file),
            old_string="== 4",
            new_string="== 0",
            instruction="x",
        ),
        text("Left the tests alone."),
    ]
    run = world.run("Fix the bug in calc. Do not modify tests.", script)
    assert test_file.read_text() == original, run.describe()
    assert "GATE-CONSTRAINT" in run.function_responses()[0], run.describe()


def test_done_reflex_follow_up_arrives_once(world: GeminiWorld) -> None:
    world.write("tests/test_ok.py", "def test_ok():\n    assert True\n")
    feature = world.project / "src" / "feature.py"
    script = [
        call("write_file", file_path=str(feature), content="def feature():\n    return 42\n"),
        text("Done: the feature is implemented."),
        call(
            "run_shell_command", command=f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
        ),
        text("Done: the feature is implemented and the tests pass."),
    ]
    run = world.run("add the feature", script)
    assert feature.exists(), run.describe()
    texts = run.user_texts()
    nudges = [t for t in texts if t.startswith("Not done yet")]  # AfterAgent's retry prompt
    assert len(nudges) == 1 and "no test run is recorded" in nudges[0], json.dumps(texts)[:6000]
    # the retried turn's BeforeAgent carried the session recap (Gemini wraps it in <hook_context>)
    recaps = [t for t in texts if t.startswith("<hook_context>agentreflex session recap")]
    assert len(recaps) == 1 and "Goal:\n- add the feature" in recaps[0], json.dumps(texts)[:6000]
    assert "1 passed" in "".join(run.function_responses()), run.describe()
    assert len(run.main_requests) == 4, run.describe()  # the second "Done" ended it
    assert "Not done yet" not in request_text(run.main_requests[1]["body"])


RECAP = "agentreflex session recap"
KEEP_API = "Do not touch the public API in api.py."
HALF_THE_LIMIT = 524_288  # Gemini's default threshold (0.5) x tokenLimit (1,048,576)


def recap_with(run: GeminiRun, prompt: str) -> bool:
    """Did the prompt ``prompt`` reach the model with the session recap beside it?  (The
    first main request whose newest content is that prompt; Gemini puts BeforeAgent's
    context in the same user content, in ``<hook_context>``.)"""
    for request in run.main_requests:
        newest = request["body"]["contents"][-1]
        said = request_text(newest)
        if prompt in said:
            return RECAP in said
    raise AssertionError(f"{prompt!r} never reached the model:\n{run.describe()}")


def compressions(run: GeminiRun) -> int:
    """Gemini's summariser calls (ChatCompressionService: ``<state_snapshot>``, no tools)."""
    return sum(
        1
        for r in run.all_requests
        if not is_main(r) and "Generate a new <state_snapshot>" in request_text(r["body"])
    )


def three_prompts(world: GeminiWorld, second_turn_tokens: int) -> GeminiRun:
    """Three prompts of one session; the second runs a command, so that Gemini asks the
    model twice in that process, and the first answer reports ``second_turn_tokens``."""
    script = [
        text("Read the loader."),
        call("run_shell_command", command="echo looked"),
        text("Looked at the callers."),
        text("Listed the docs."),
    ]
    prompts = [f"Refactor the loader. {KEEP_API}", "continue", "go on"]
    return world.session(prompts, script, [10, second_turn_tokens, 10, 10])


def test_a_precompress_below_the_threshold_leaves_the_recap_off_the_next_prompt(
    world: GeminiWorld,
) -> None:
    """Gemini CLI fires PreCompress (trigger ``auto``) before every model request and
    compresses only past its threshold (gemini-cli#18083): the recap reaches the model
    once, with the second prompt, not again with the third."""
    run = three_prompts(world, second_turn_tokens=10)
    assert run.rc == 0, run.describe()
    assert compressions(run) == 0, run.describe()
    assert not recap_with(run, "Refactor the loader.")  # nothing beyond the goal yet
    assert recap_with(run, "continue"), run.describe()
    assert not recap_with(run, "go on"), run.describe()


def test_a_real_compression_brings_the_recap_back(world: GeminiWorld) -> None:
    """Past half the limit Gemini compresses the chat (its summariser is called) before
    the second request of the second prompt; the third prompt carries the recap again."""
    run = three_prompts(world, second_turn_tokens=HALF_THE_LIMIT + 1000)
    assert run.rc == 0, run.describe()
    assert compressions(run) == 1, run.describe()
    assert recap_with(run, "continue"), run.describe()
    assert recap_with(run, "go on"), run.describe()
    assert KEEP_API in request_text(run.main_requests[-1]["body"]["contents"][-1])


def test_a_command_exiting_non_zero_is_a_failure_and_its_third_identical_attempt_refused(
    world: GeminiWorld,
) -> None:
    """run_shell_command reports a non-zero exit only in its llmContent's ``Exit Code:``
    line (no ``error``): read as a success, the same failing command never made a loop."""
    failing = f"{sys.executable} -c \"import sys; print('cannot reach registry'); sys.exit(3)\""
    script = [
        call("run_shell_command", command=failing),
        call("run_shell_command", command=failing),
        call("run_shell_command", command=failing),
        text("Stopped."),
    ]
    run = world.run("install the dependencies", script)
    results = run.function_responses()
    assert "Exit Code: 3" in results[0], run.describe()
    assert "RUNAWAY-LOOP" not in results[1], run.describe()
    assert "Loop:" in results[2], run.describe()


GUARD_FIXTURE = (
    Path(__file__).resolve().parent.parent
    / "packages"
    / "guard"
    / "tests"
    / "data"
    / "gemini_0.61_chats.jsonl"
)
CHECK = "I'll run the retry test to check whether the timeout change causes the failure."


def test_guard_reads_the_session_file_gemini_writes(world: GeminiWorld) -> None:
    """The Reasoning Guard finds Gemini's session file from the hook payload alone.

    Gemini records the model's visible reply in
    ``~/.gemini/tmp/<project>/chats/session-*.jsonl`` and sends that path to
    every hook; the guard must trust it, take the reply text (not the prompt,
    not the tool call) and open the obligation the text states.  Set
    ``AGENTREFLEX_RECORD_TRANSCRIPT=1`` to copy the session file over the
    committed fixture the guard's unit tests read.
    """
    script = [
        [{"text": CHECK}, *call("run_shell_command", command="echo hi")],
        text("Done: the retry failure is fixed."),
    ]
    run = world.run("fix the retry failure", script)
    assert run.rc == 0, run.describe()
    chats = sorted((world.home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    assert len(chats) == 1, chats
    data = json.loads((world.state / "local" / "gemini_reasoning_guard.json").read_text())
    [session] = [s for s in data["sessions"] if s["session"]["id"] == data["active_session"]]
    assert chats[0].name.endswith(f"-{session['session']['id'][:8]}.jsonl")
    assert session["reasoning_summary_ingestion"]["last_error"] == "", session
    assert session["coverage"]["observed"]["reasoning_summary"] is True
    recorded = [json.loads(line) for line in chats[0].read_text().splitlines()]
    models = {r["model"] for r in recorded if r.get("type") == "gemini"}
    assert models == {session["session"]["model"]}, models  # the model Gemini recorded
    names = [o["name"] for o in session["obligations"]]
    assert any("retry test" in n for n in names), names
    if os.environ.get("AGENTREFLEX_RECORD_TRANSCRIPT") == "1":
        record_fixture(chats[0])


def record_fixture(chats: Path) -> None:
    """The session file as Gemini wrote it, minus the host's own session context.

    The first ``$set`` of ``messages`` holds Gemini CLI's setup prompt (the
    date, the folders, the directory listing): not ours to commit, and never
    read by the guard.
    """
    kept = [
        line
        for line in chats.read_bytes().splitlines(keepends=True)
        if "messages" not in json.loads(line).get("$set", {})
    ]
    GUARD_FIXTURE.write_bytes(b"".join(kept))


def test_contained_shell_holds_and_everyday_work_goes_on(world: GeminiWorld) -> None:
    """Issue #28 in Gemini CLI: BeforeTool replaces each shell command with the same
    command inside agentreflex's bubblewrap boundary (Gemini's own ``--sandbox`` runs the
    whole CLI in a container); the shared scenario (``hostharness/containment.py``)."""
    settings = world.home / ".gemini" / "settings.json"
    scenario = ContainmentScenario(world.project, world.home, "gemini", settings)
    script = [call("run_shell_command", command=c) for c in scenario.commands()]
    try:
        run = world.run("work", [*script, text("All done.")])
    finally:
        scenario.stop()
    scenario.check(run.function_responses()[0], run.describe())


# the protected path read from a data file at run time: a route the parse-based gate does
# not see (hostharness/containment.py), so only the boundary stands in its way
TAMPER = """\
import base64, pathlib
pathlib.Path("ran-allowed.txt").write_text("ran\\n")
target = base64.b64decode(open("where.txt").read()).decode()
try:
    with open(target, "a") as handle:
        handle.write('mode = "shadow"\\n')
    print("TAMPERED")
except OSError as exc:
    print("REFUSED", exc)
"""


def test_user_allow_rules_hold_for_contained_commands(world: GeminiWorld) -> None:
    """The user's shell allow rules keep working in Gemini's default approval mode, and
    what they allow still runs inside the boundary.

    Gemini CLI 0.61 checks its policy on the arguments BeforeTool gave back (the
    contained line), so ``agentreflex install gemini`` mirrors the user's rules for that
    line (``~/.gemini/policies/agentreflex-contained.toml``).  Without a terminal a
    command no rule allows is refused: that is how "no prompt" is observed here.
    """
    settings_path = world.home / ".gemini" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["tools"] = {"allowed": ["run_shell_command(python3 tamper.py)"]}
    settings_path.write_text(json.dumps(settings))
    policies = world.home / ".gemini" / "policies"
    policies.mkdir()
    (policies / "mine.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
        'decision = "allow"\npriority = 500\n'
    )
    world.write("tamper.py", TAMPER)
    world.write("where.txt", base64.b64encode(b".agentreflex/config.toml").decode())
    world.install()  # again: install mirrors the rules as they are now
    config = world.project / ".agentreflex" / "config.toml"
    before = config.read_text()
    script = [
        call("run_shell_command", command="python3 tamper.py"),  # allowed (settings)
        call("run_shell_command", command="touch touched.txt"),  # allowed (a policy file)
        call("run_shell_command", command="python3 tamper.py && touch chained.txt"),
        call("run_shell_command", command="id"),  # no rule allows these two
        text("All done."),
    ]
    run = world.run("work", script, yolo=False)
    results = run.function_responses()
    assert len(results) == 4, run.describe()
    # allowed without a prompt, and contained: the config write fails read-only
    assert (world.project / "ran-allowed.txt").exists(), results[0]
    assert "REFUSED" in results[0] and "Read-only file system" in results[0], results[0]
    assert "TAMPERED" not in results[0] and config.read_text() == before, results[0]
    assert (world.project / "touched.txt").exists(), results[1]
    # what no rule allows is refused as without containment: a chain, and another command
    assert not (world.project / "chained.txt").exists(), results[2]
    for refused in results[2:]:
        assert "Tool execution denied by policy" in refused, refused
    assert run.rc == 0, run.describe()


def touch_refused_echo_ran(
    world: GeminiWorld, refusal: str = "Tool execution denied by policy"
) -> None:
    """In YOLO mode, under a user's deny rule for ``touch``: the ``touch`` is refused (by
    Gemini, or by the hook where Gemini can no longer see the rule), and the ``echo`` of the
    same session runs."""
    script = [
        call("run_shell_command", command="touch denied.txt"),
        call("run_shell_command", command="echo ok > allowed.txt"),
        text("All done."),
    ]
    run = world.run("work", script)
    results = run.function_responses()
    assert refusal in results[0], run.describe()
    assert not (world.project / "denied.txt").exists(), results[0]
    assert (world.project / "allowed.txt").read_text() == "ok\n", results[1]


def test_user_deny_rule_holds_for_contained_commands_in_yolo(world: GeminiWorld) -> None:
    """In YOLO mode every contained command is allowed by Gemini's own ``*`` rule; the
    user's deny rule for a prefix is mirrored for the contained line, so it still refuses
    (it did not before: the contained line never starts with the prefix)."""
    policies = world.home / ".gemini" / "policies"
    policies.mkdir()
    (policies / "mine.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
        'decision = "deny"\npriority = 500\n'
    )
    world.install()
    touch_refused_echo_ran(world)


def test_a_deny_rule_added_after_install_still_holds_in_yolo(world: GeminiWorld) -> None:
    """A deny rule written after ``install gemini`` mirrored the rules has no twin, and
    Gemini's check can't see it on a contained line: the hook refuses the commands it
    names itself, and contains the rest (an ``echo`` that ran).  (Left as written, such a
    command ran outside the boundary wherever the rule did not match it as Gemini reads
    it: red-team rt30.)"""
    world.install()
    policies = world.home / ".gemini" / "policies"
    policies.mkdir(exist_ok=True)
    (policies / "later.toml").write_text(
        '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
        'decision = "deny"\npriority = 500\n'
    )
    touch_refused_echo_ran(world, "Refused by your own Gemini rule for 'touch'")


def test_a_word_an_excluded_command_names_does_not_take_a_command_out_of_the_boundary(
    world: GeminiWorld,
) -> None:
    """red-team rt32: the hook left a command as written when a ``tools.exclude`` entry's
    program was any word of it, but Gemini matches the entry as a prefix of the command:
    ``python3 tamper.py rm`` is not excluded, so YOLO ran it, outside the boundary.  Now the
    hook holds the exclusion itself, where a deny twin would (the program named anywhere),
    and nothing is left as written for it."""
    settings_path = world.home / ".gemini" / "settings.json"
    settings = json.loads(settings_path.read_text())
    settings["tools"] = {"exclude": ["run_shell_command(rm)"]}
    settings_path.write_text(json.dumps(settings))
    world.write("tamper.py", TAMPER)
    world.write("where.txt", base64.b64encode(b".agentreflex/config.toml").decode())
    world.install()
    config = world.project / ".agentreflex" / "config.toml"
    before = config.read_text()
    run = world.run(
        "work", [call("run_shell_command", command="python3 tamper.py rm"), text("All done.")]
    )
    results = run.function_responses()
    assert config.read_text() == before, results
    assert "Refused by your own Gemini rule for 'rm'" in results[0], run.describe()
    assert not (world.project / "ran-allowed.txt").exists(), results


def test_a_path_gemini_corrects_is_judged_as_gemini_writes(world: GeminiWorld) -> None:
    """Gemini CLI rewrites a file tool's relative path before it writes
    (``resolveDefensiveToolPath`` drops a leading ``@``; ``correctPath`` takes a ``replace``
    whose file is not at the root for the one file in the workspace whose path ends so), in
    its own process, outside the boundary.  The hook judged the path as spelled:
    ``settings.json`` at the root and ``@.claude/settings.json``, new files, while Gemini
    emptied the project's ``.gemini/settings.json`` (agentreflex's hooks) and wrote
    Claude Code's settings (red-team rt35)."""
    settings = world.project / ".gemini" / "settings.json"
    before = settings.read_text()
    claude = world.project / ".claude" / "settings.json"
    script = [
        call(
            "replace",
            file_path="settings.json",
            old_string=before,
            new_string="{}\n",
            instruction="x",
        ),
        call("write_file", file_path="@.claude/settings.json", content="{}\n"),
        text("Done."),
    ]
    run = world.run("tidy up", script)
    assert settings.read_text() == before, run.describe()
    assert not claude.exists(), run.describe()


def session_records(world: GeminiWorld) -> list[dict[str, Any]]:
    """Every record of agentreflex's session log (``<state>/sessions/<id>.jsonl``), in order."""
    logs = sorted((world.state / "sessions").glob("*.jsonl"))
    assert len(logs) == 1, logs  # one Gemini session: the sub-agent's calls are in it too
    return [json.loads(line) for line in logs[0].read_text().splitlines()]


def test_a_subagents_shell_calls_are_refused_and_contained(world: GeminiWorld) -> None:
    """``invoke_agent`` starts a sub-agent (here the built-in ``generalist``, which has every
    tool); its own calls go through Gemini's agent scheduler, whose ``_processToolCall``
    runs the same BeforeTool hook (0.61 bundle chunk-JDPZ4CE3.js:347954 scheduleAgentTools,
    347765 evaluateBeforeToolHook).  So the sub-agent's ``rm -rf`` of a folder in the home
    is refused with our reason, and its interpreter write to ``.agentreflex/config.toml``
    runs inside the boundary and fails read-only.  The scripted model tells the loops
    apart by ``complete_task``, offered to sub-agents only (hostharness/gemini.py)."""
    target = world.home / "important-notes"
    target.mkdir()
    (target / "keep.txt").write_text("precious\n")
    world.write("tamper.py", TAMPER)
    world.write("where.txt", base64.b64encode(b".agentreflex/config.toml").decode())
    config = world.project / ".agentreflex" / "config.toml"
    before = config.read_text()
    main = [
        call("invoke_agent", agent_name="generalist", prompt="Tidy up the workspace."),
        text("The generalist tidied up."),
    ]
    sub = [
        call("run_shell_command", command=f"rm -rf {target}"),
        call("run_shell_command", command="python3 tamper.py"),
        call("complete_task", result={"response": "Tidied."}),
    ]
    run = world.run("tidy up", main, subagent_script=sub)
    # the world: the folder is intact, the config unchanged, and the contained command ran
    assert (target / "keep.txt").read_text() == "precious\n", run.describe()
    assert config.read_text() == before, run.describe()
    assert (world.project / "ran-allowed.txt").read_text() == "ran\n", run.describe()
    # what the sub-agent's model was shown next: our reason, then the kernel's refusal
    assert len(run.subagent_requests) == 3, run.describe()
    refused, contained, *_ = run.function_responses(run.subagent_requests)
    assert "GATE-RM-" in refused and str(target) in refused, refused
    assert "REFUSED" in contained and "Read-only file system" in contained, contained
    assert "TAMPERED" not in contained, contained
    # Gemini's own note that BeforeTool replaced the command (with the contained line)
    assert "modified by a hook" in contained, contained
    # the sub-agent finished and the main loop got its result
    assert "Subagent 'generalist' finished" in run.function_responses()[0], run.describe()
    assert run.rc == 0, run.describe()
    # the guard's record: each sub-agent call judged while invoke_agent ran, in the session
    tools = [
        (r["kind"], r["tool"]["name"], r["tool"]["summary"], r["decision"])
        for r in session_records(world)
        if r["kind"] in ("pre_tool", "post_tool")
    ]
    calls = [(kind, name) for kind, name, _, _ in tools]
    assert calls[:4] == [
        ("pre_tool", "invoke_agent"),
        ("pre_tool", "run_shell_command"),  # rm -rf: refused, so no post_tool
        ("pre_tool", "run_shell_command"),
        ("post_tool", "run_shell_command"),
    ], calls
    assert calls.index(("post_tool", "invoke_agent")) > 3, calls
    _, _, rm_summary, rm_decision = tools[1]
    assert str(target) in rm_summary, rm_summary
    assert rm_decision["verdict"] == "BLOCK", rm_decision
    assert "GATE-RM-RECURSIVE-OUTSIDE" in [f["code"] for f in rm_decision["findings"]]
    _, _, tamper_summary, tamper_decision = tools[2]
    assert tamper_summary.endswith("python3 tamper.py"), tamper_summary
    assert tamper_decision["verdict"] == "ALLOW", tamper_decision
