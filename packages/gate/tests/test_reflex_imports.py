"""What a hook call imports of the gate, per event, and the shortcuts that keep it so.

Every hook call is a new process, and each gate module costs it ~0.1-0.3 ms
to import: ``GateReflex`` imports the shell analyser for shell commands only,
``files`` for file tools, ``constraints`` once the user has stated one,
``allow`` when the project has an allow-list or rules of its own, ``policy``
when there is something to decide, and each command's rules modules when a
parsed command needs them.  The first half of this file pins those sets (in
fresh processes); the second proves each shortcut decides as the module it
skips would have.
"""

from __future__ import annotations

import contextlib
import json
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate import allow, analyze, files, policy, reflex
from agentreflex.gate.check import DEFAULT_THRESHOLDS
from agentreflex.gate.model import DESTRUCTIVE, Cmd, Hit
from agentreflex.gate.rules import fs as rules_fs
from agentreflex.gate.rules import infra as rules_remote
from agentreflex.gate.rules import programs, selfguard
from agentreflex.gate.shell.paths import Place, Where
from agentreflex.gate.shell.walker import Walker

CORPUS = Path(__file__).parent / "corpus"

# Runs GateReflex on one event per argument ({"prompt": ...}, {"tool": ..., "input":
# ...}, optionally "noted": constraints in the state) in this fresh process and
# prints the agentreflex.gate modules each call added.
_PROBE = """
import json, sys
from agentreflex.core.testing import make_context, pre_tool, prompt
import agentreflex.gate.reflex
project = sys.argv[1]
GROUPS = {"agentreflex.gate.shell", "agentreflex.gate.rules", "agentreflex.gate.code"}
def gate_modules(names):
    # the group packages hold only a docstring; their modules are what counts
    return sorted(m for m in names if m.startswith("agentreflex.gate") and m not in GROUPS)
seen = {"import": gate_modules(sys.modules)}
for raw in sys.argv[2:]:
    case = json.loads(raw)
    before = set(sys.modules)
    if "prompt" in case:
        event = prompt(case["prompt"], cwd=project)
    else:
        event = pre_tool(case["tool"], case["input"], cwd=project)
    ctx = make_context(event)
    if case.get("noted"):
        ctx.state.notes["constraints"] = case["noted"]
    found = agentreflex.gate.reflex.GateReflex().evaluate(ctx)
    added = gate_modules(set(sys.modules) - before)
    seen[raw] = {"modules": added, "codes": [f.code for f in found]}
print(json.dumps(seen))
"""

# plugin: the package's declaration (the reflex's events are declared there; core
# imports it before every tool call anyway)
ALWAYS = {
    "agentreflex.gate",
    "agentreflex.gate.plugin",
    "agentreflex.gate.reflex",
    "agentreflex.gate.shell.paths",
}
MODEL = "agentreflex.gate.model"


def _gate(name: str) -> str:
    return f"agentreflex.gate.{name}"


def _probe(project: Path, *cases: dict[str, Any]) -> dict[str, Any]:
    args = [json.dumps(c) for c in cases]
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(project), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout)
    return {
        "import": seen["import"],
        **{k: seen[a] for k, a in zip(_keys(cases), args, strict=True)},
    }


def _keys(cases: tuple[dict[str, Any], ...]) -> list[str]:
    return [c.get("prompt") or c["input"].get("command") or c["tool"] for c in cases]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    proj = tmp_path / "proj"
    (proj / ".git").mkdir(parents=True)
    return proj


def _bash(command: str) -> dict[str, Any]:
    return {"tool": "Bash", "input": {"command": command}}


def test_importing_the_reflex_loads_four_modules(project: Path) -> None:
    assert set(_probe(project)["import"]) == ALWAYS | {MODEL}


def test_an_everyday_command_imports_the_analyser_and_nothing_else(project: Path) -> None:
    everyday = ("ls -la", "git status", "git diff --stat", "mkdir -p dist")
    seen = _probe(project, *(_bash(c) for c in everyday))
    for command in everyday:
        assert seen[command]["codes"] == [], command
        # the first call adds the analyser and the secret-literal scan; later ones nothing
        want = {_gate("analyze"), _gate("rules.literals")} if command == everyday[0] else set()
        assert set(seen[command]["modules"]) == want, command


def test_a_command_that_runs_a_project_file_reads_it(project: Path) -> None:
    """``npm test``, ``make`` and ``pytest`` look harmless but run what a file says:
    the pre-filter sends them to the analyser, which reads the file (issue 22 item 1)."""
    (project / "package.json").write_text('{"scripts": {"test": "rm -rf ~"}}')
    (project / "Makefile").write_text("all:\n\tgit reset --hard\n")
    (project / "conftest.py").write_text("import shutil\nshutil.rmtree('/etc')\n")
    seen = _probe(project, _bash("npm test"), _bash("make"), _bash("pytest -q"))
    assert "GATE-RM-ROOT" in seen["npm test"]["codes"]
    assert _gate("code.scripts") in seen["npm test"]["modules"]
    assert seen["make"]["codes"] == ["GATE-GIT-RESET-HARD"]
    assert seen["pytest -q"]["codes"] == ["GATE-RM-SYSTEM"]


def test_file_tools_and_prompts_import_only_their_modules(project: Path) -> None:
    source = str(project / "src" / "app.py")
    seen = _probe(
        project,
        {"tool": "Read", "input": {"file_path": source}},
        {"tool": "Write", "input": {"file_path": source, "content": "print(1)\n"}},
        {"prompt": "add a --verbose flag to the cli"},
    )
    assert seen["Read"]["modules"] == [_gate("files")]
    # files came with Read; a write is checked against agentreflex's own files
    want = [_gate("rules.literals"), _gate("rules.protected"), _gate("rules.selfguard")]
    assert seen["Write"]["modules"] == want
    assert seen["add a --verbose flag to the cli"]["modules"] == [_gate("rules.constraints")]
    for key in ("Read", "Write"):
        assert seen[key]["codes"] == []


def test_a_parsed_command_imports_the_rules_it_needs(project: Path) -> None:
    curl = "curl -s https://example.com/api | jq ."
    seen = _probe(
        project, _bash(curl), _bash("docker ps"), _bash("rm -rf build"), _bash("git push origin x")
    )
    parsed = {"shell.walker", "shell.parser", "shell.inert", "rules.secrets"}
    assert {_gate(m) for m in parsed} <= set(seen[curl]["modules"])
    rules = {"rules.fs", "rules.infra", "rules.git", "rules.system", "rules.constraints", "files"}
    rare = {"policy", "allow", "shell.fallback", "shell.remote"}
    assert not set(seen[curl]["modules"]) & {_gate(m) for m in rules | rare}
    # every parsed command is checked against agentreflex's own files (selfguard);
    # docker: its rules (and the container parser); rm: its rules; git: its rules
    assert {_gate("rules.selfguard"), _gate("rules.protected"), _gate("shell.changes")} <= set(
        seen[curl]["modules"]
    )
    assert set(seen["docker ps"]["modules"]) == {_gate("rules.infra"), _gate("shell.remote")}
    # rm asks git about uncommitted changes only for files that exist (issue 30): not here
    assert set(seen["rm -rf build"]["modules"]) == {_gate("rules.fs")}
    assert set(seen["git push origin x"]["modules"]) == {_gate("rules.git")}
    for command in (curl, "docker ps", "rm -rf build", "git push origin x"):
        assert seen[command]["codes"] == [], command


def test_interpreter_code_imports_its_own_parser_only(project: Path) -> None:
    python = "python3 -c 'import shutil; shutil.rmtree(\"build\")'"
    node = 'node -e \'require("fs").rmSync("dist", {recursive: true})\''
    seen = _probe(project, _bash("rm -rf build"), _bash(python), _bash(node))
    assert not {_gate("code.pycode"), _gate("code.tscode")} & set(seen["rm -rf build"]["modules"])
    assert _gate("code.pycode") in seen[python]["modules"]
    assert _gate("code.tscode") not in seen[python]["modules"]
    assert _gate("code.tscode") in seen[node]["modules"]  # grammars: test_lazy_loading.py
    for command in (python, node):
        assert seen[command]["codes"] == [], command


def test_what_brings_constraints_allow_and_policy_in(project: Path) -> None:
    noted = [{"action": "push", "target": "*", "text": "never push"}]
    seen = _probe(project, {**_bash("ls"), "noted": noted})
    assert set(seen["ls"]["modules"]) >= {_gate("rules.constraints")}
    assert _gate("policy") not in seen["ls"]["modules"]  # no hit: nothing to decide
    (project / ".agentreflex").mkdir()
    (project / ".agentreflex" / "allow.toml").write_text("")
    seen = _probe(project, {**_bash("git push origin x"), "noted": noted})
    assert {_gate("allow"), _gate("policy")} <= set(seen["git push origin x"]["modules"])
    assert seen["git push origin x"]["codes"] == ["GATE-CONSTRAINT"]


# --- the shortcuts decide as the modules they skip ---------------------------

_PLAIN = LazyPattern(r"[A-Za-z0-9_][A-Za-z0-9_./:=,@+%\- ]*")


def _corpus_commands() -> list[str]:
    out = []
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                out.append(json.loads(line)["command"])
    return out


def test_the_plain_word_test_is_the_regex() -> None:
    rnd = random.Random(7)
    alphabet = "aZ09_./:=,@+%- \t\n'\"$;|&><é\x00*?~"
    samples = [*_corpus_commands(), "", " ", "-x", "_x", "x\n", "é", "git status", "a b"]
    samples += [
        "".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 12))) for _ in range(5000)
    ]
    for text in samples:
        assert analyze.is_plain(text) is bool(_PLAIN.fullmatch(text)), repr(text)


def _walked_commands() -> list[Cmd]:
    where = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")
    env = {"HOME": "/home/user", "PWD": where.cwd}
    extra = ["touch a b", "git checkout -- x", "git -C r rm x", "git mv a b", "tee -a f", "ls > f"]
    extra += [
        "sed -n 1p f",
        "sed -e x -i f",
        "sed --in-place x f",
        "perl -pi -e x f",
        "perl -i.b f",
    ]
    cmds: list[Cmd] = []
    for command in _corpus_commands() + extra:
        walker = Walker(where, env, 10**12)
        with contextlib.suppress(Exception):  # budget, recursion: what was seen still counts
            walker.run(command)
        cmds.extend(walker.cmds)
    return cmds


def test_the_rules_tables_name_existing_rules() -> None:
    table = analyze._rule_table()
    assert len(table) > 100
    for name in [*table, "mkfs.ext4", "wipefs", "ls"]:
        for rule in analyze._rules_of(name):
            assert callable(rule), name


def test_the_disk_and_database_rules_fire_only_on_the_programs_named() -> None:
    where = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")
    for cmd in _walked_commands():
        if not (cmd.name.startswith(programs.DISK_PREFIXES) or cmd.name in programs.DISK_TOOLS):
            assert rules_fs.disk(cmd, where) == [], cmd.argv
        if cmd.name not in programs.DATABASE_TOOLS:
            assert rules_remote.database(cmd, where, {}) == [], cmd.argv


def test_the_prefilter_passes_no_command_that_reaches_the_guards_files() -> None:
    """What the pre-filter decides alone, selfguard would have let through too."""
    where = Where(cwd="/home/user/project", project="/home/user/project", home="/home/user")
    protected = ["touch .agentreflex/x", "mkdir ~/.claude/plugins/x", "pip uninstall agentreflex"]
    protected += ["cat /home/user/.local/state/agentreflex/key", "touch alias/x", "mkdir .codex"]
    quick = 0
    for command in [*_corpus_commands(), *protected, "mkdir build", "touch a.py"]:
        cmd = analyze.prefilter(command, where)
        if cmd is not None:
            quick += 1
            assert selfguard.command_hits([cmd], where) == [], command
    assert quick > 30
    for command in protected:
        assert analyze.prefilter(command, where) is None, command


def test_file_tools_ask_for_exactly_the_protected_paths() -> None:
    where = Where(cwd="/p", project="/p", home="/h")
    protected = ["/p/.agentreflex/allow.toml", "/p/policies/gate/x", "/h/.claude/settings.json"]
    # what the boundary keeps read-only because it runs later, outside any sandbox
    protected += ["/h/.bashrc", "/p/.git/hooks/pre-commit", "/p/.git/config"]
    ordinary = ["/etc/passwd", "/p/src/a.py", "/p/.git/HEAD", "/h/notes.md", ""]
    for p in protected + ordinary:
        asks = [h for h in files.write_hits([p], "", where) if h.rule == selfguard.RULE]
        assert bool(asks) is (p in protected), p
        assert all(p in h.message for h in asks)


def test_no_hit_and_no_judge_decide_nothing_unless_a_threshold_is_zero() -> None:
    hit = Hit("X", DESTRUCTIVE, 0.8, "rm", "m")
    odd = (0.0, -1.0, math.nan, 0.5, 1.0)
    variants = [dict(DEFAULT_THRESHOLDS)]
    for key in reflex._FLOOR_THRESHOLDS:
        variants += [{**DEFAULT_THRESHOLDS, key: value} for value in odd]
    for thresholds in variants:
        for hits, judge in (([], None), ([hit], None), ([], {"redundant_action": 0.9})):
            want = policy.decide(hits, judge, thresholds)
            assert reflex._decide(hits, judge, thresholds) == want, (thresholds, hits, judge)
    missing = dict(DEFAULT_THRESHOLDS)
    del missing["destructive_warn"]
    for decide in (policy.decide, reflex._decide):
        with pytest.raises(KeyError):
            decide([], None, missing)


def test_the_files_allow_reads_are_the_ones_the_reflex_looks_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    read: list[str] = []
    monkeypatch.setattr(allow, "_load_toml", lambda path: read.append(path))
    allow.allow_entries("/p")
    assert read == ["/p/" + "/".join(parts) for parts in reflex._ALLOW_LIST]
    read.clear()
    allow.user_rules("/p")
    assert read == ["/p/" + "/".join(parts) for parts in reflex._USER_RULES]


def test_places_are_distinct_strings() -> None:
    names = [n for n in vars(Place) if n.isupper()]
    places = [getattr(Place, n) for n in names]
    assert len(names) == 14 and len(set(places)) == 14
    assert all(type(p) is Place and isinstance(p, str) for p in places)
    assert Place.PROJECT_GIT == "project-git" and f"{Place.HOME_DOT}" == "home-dotfile"


def test_the_gate_reads_the_guards_own_files_from_cores_one_list() -> None:
    """The self-guard's code scan and the pre-filter both use core's list (issue 32, item 4)."""
    from agentreflex.core.state.userdirs import COMMON_PROTECTED_NAMES, PROTECTED_NAMES
    from agentreflex.gate.rules import selfguard
    from agentreflex.gate.shell import paths

    assert selfguard._FRAGMENTS is PROTECTED_NAMES
    for name in (*PROTECTED_NAMES, *COMMON_PROTECTED_NAMES):
        assert paths.names_protected(f"cat ~/{name}/x"), name
