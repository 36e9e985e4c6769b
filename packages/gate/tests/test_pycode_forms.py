"""Python code in every statement form the reader follows, judged as the shell command it amounts to.

Each case is ``python3 -c CODE`` through the whole gate: the form must neither hide
a deletion or a shell-out (with, star imports, annotated and augmented assignment,
unpacking, loops over literals and globs, exec*/spawn*, asyncio, class, match and
try bodies) nor turn harmless code into a finding.
"""

from __future__ import annotations

import shlex

import pytest
from agentreflex.gate.check import check_command

CASES = [
    # (code, verdict, the first finding's code or "")
    ("with open('/etc/passwd', 'w') as f: f.write('x')", "BLOCK", "GATE-OVERWRITE-SYSTEM"),
    ("from shutil import *\nrmtree('/etc')", "BLOCK", "GATE-RM-SYSTEM"),
    ("from os import *\nsystem('rm -rf /')", "BLOCK", "GATE-RM-ROOT"),
    ("p: str = '/etc'\nimport shutil\nshutil.rmtree(p)", "BLOCK", "GATE-RM-SYSTEM"),
    ("import shutil\np = '/'\np += 'etc'\nshutil.rmtree(p)", "BLOCK", "GATE-RM-SYSTEM"),
    ("import shutil\na, b = '/etc', '/tmp/x'\nshutil.rmtree(a)", "BLOCK", "GATE-RM-SYSTEM"),
    ("import shutil\na, b = '/etc', '/tmp/x'\nshutil.rmtree(b)", "ALLOW", ""),
    ("import shutil\nx = y = '/etc'\nshutil.rmtree(x)", "BLOCK", "GATE-RM-SYSTEM"),
    (
        "import shutil, glob\nfor d in glob.glob('/etc/*'):\n    shutil.rmtree(d)",
        "BLOCK",
        "GATE-RM-SYSTEM",
    ),
    ("import shutil\nfor d in ['/etc', '/usr']:\n    shutil.rmtree(d)", "BLOCK", "GATE-RM-SYSTEM"),
    (
        "import shutil\nfor d in get_dirs():\n    shutil.rmtree(d)",
        "ASK_USER",
        "GATE-INTERP-UNRESOLVED",
    ),
    ("import os\nos.execvp('rm', ['rm', '-rf', '/'])", "BLOCK", "GATE-RM-ROOT"),
    ("import os\nos.execve('/bin/rm', ['rm', '-rf', '/'], {})", "BLOCK", "GATE-RM-ROOT"),
    ("import os\nos.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', '/')", "BLOCK", "GATE-RM-ROOT"),
    (
        "import asyncio\nasyncio.run(asyncio.create_subprocess_exec('rm', '-rf', '/'))",
        "BLOCK",
        "GATE-RM-ROOT",
    ),
    ("import shutil\nshutil.copytree('/tmp/evil', '/etc')", "BLOCK", "GATE-OVERWRITE-SYSTEM"),
    ("import shutil\nshutil.move('/etc', '/tmp/x')", "BLOCK", "GATE-MOVE-AWAY"),
    ("from pathlib import *\nPath(input()).unlink()", "ASK_USER", "GATE-INTERP-UNRESOLVED"),
    ("import subprocess\nsubprocess.run(['rm -rf /'], shell=True)", "BLOCK", "GATE-RM-ROOT"),
    (
        "import subprocess\ntry:\n    subprocess.run('rm -rf /', shell=True)\nexcept Exception:\n    pass",
        "BLOCK",
        "GATE-RM-ROOT",
    ),
    ("import os\nclass C:\n    os.system('rm -rf /')", "BLOCK", "GATE-RM-ROOT"),
    ("import os\nmatch 1:\n    case 1:\n        os.system('rm -rf /')", "BLOCK", "GATE-RM-ROOT"),
    ("import os\nif True:\n    os.system('rm -rf /')\nelse:\n    pass", "BLOCK", "GATE-RM-ROOT"),
    # conditions are not evaluated: code that could run is judged as if it does
    ("import os\nwhile False:\n    os.remove('/etc/passwd')", "BLOCK", "GATE-RM-SYSTEM"),
    # a lambda's parameter is a value known only when it is called
    ("import os\nf = lambda x: os.system(x)\nf('ls')", "ASK_USER", "GATE-INTERP-UNRESOLVED"),
    ("import shutil\nshutil.rmtree(*['/etc'])", "ASK_USER", "GATE-INTERP-UNRESOLVED"),
    ("print('hello')", "ALLOW", ""),
    ("import os\nwith os.scandir('.') as it:\n    print(list(it))", "ALLOW", ""),
]


@pytest.mark.parametrize(("code", "verdict", "code_id"), CASES)
def test_statement_forms(code: str, verdict: str, code_id: str) -> None:
    found, proposals = check_command(
        "python3 -c " + shlex.quote(code), cwd="/home/user/project", home="/home/user"
    )
    assert str(found) == verdict, (code, [p.code for p in proposals])
    if code_id:
        assert proposals[0].code == code_id
