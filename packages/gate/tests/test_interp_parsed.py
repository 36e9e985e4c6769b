"""Interpreter code read by a parser: Python through ``ast``, five languages through tree-sitter.

Each call that runs a program or deletes or writes a file is judged as the
shell command it amounts to; a value the gate cannot resolve asks; a string
that only mentions a command is data.  Code that does not parse (or a grammar
that cannot load) falls back to the regex scan.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentreflex.gate.code import interp, pycode, tscode
from agentreflex.gate.code.interp import Effect
from agentreflex.gate.model import UNKNOWN

from .conftest import corpus_check as _verdict

CWD, HOME = "/home/user/project", "/home/user"


# --- Python ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        # shell strings, folded
        ('import os; os.system("rm -rf /etc")', [Effect("shell", "rm -rf /etc")]),
        ('import os; p = "/etc"; os.system("rm -rf " + p)', [Effect("shell", "rm -rf /etc")]),
        ('import os; p = "/etc"; os.popen(f"rm -rf {p}")', [Effect("shell", "rm -rf /etc")]),
        ('import os; os.system("rm -rf %s" % "/etc")', [Effect("shell", "rm -rf /etc")]),
        ('import os; os.system("rm -rf {}".format("/etc"))', [Effect("shell", "rm -rf /etc")]),
        ('import os; os.system(" ".join(["rm", "-rf", "/etc"]))', [Effect("shell", "rm -rf /etc")]),
        ("import subprocess as sp; sp.run('ls', shell=True)", [Effect("shell", "ls")]),
        (
            "from subprocess import check_output as co; co('id', shell=True)",
            [Effect("shell", "id")],
        ),
        ("getattr(__import__('os'), 'sys' + 'tem')('ls')", [Effect("shell", "ls")]),
        ("import os; c = 'ls'; c += ' -la'; os.system(c)", [Effect("shell", "ls -la")]),
        # decoders
        (
            'import os, base64; os.system(base64.b64decode("bHM=").decode())',
            [Effect("shell", "ls")],
        ),
        ('import os; os.system(bytes.fromhex("6c73").decode())', [Effect("shell", "ls")]),
        (
            'import os, codecs; os.system(codecs.decode("6c73", "hex").decode())',
            [Effect("shell", "ls")],
        ),
        ('import os, codecs; os.system(codecs.decode("yf", "rot13"))', [Effect("shell", "ls")]),
        # argv forms
        (
            'import subprocess; subprocess.run(["rm", "-rf", "/etc"])',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        (
            'import os; os.execvp("rm", ["rm", "-rf", "/etc"])',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        (
            'import os; os.execlp("rm", "rm", "-rf", "/etc")',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        ('import pty; pty.spawn("bash")', [Effect("argv", "bash", ("bash",))]),
        # deletes and writes, names resolved
        ('import shutil as s; s.rmtree("/etc")', [Effect("delete-recursive", "/etc")]),
        ('from shutil import rmtree as r; r("/etc")', [Effect("delete-recursive", "/etc")]),
        ('import shutil; kill = shutil.rmtree; kill("/etc")', [Effect("delete-recursive", "/etc")]),
        ('import os; os.remove("/etc/hosts")', [Effect("delete", "/etc/hosts")]),
        ('import os; os.unlink("/etc/hosts")', [Effect("delete", "/etc/hosts")]),
        ('import os; os.rmdir("/etc")', [Effect("delete", "/etc")]),
        ('import pathlib; pathlib.Path("/etc/hosts").unlink()', [Effect("delete", "/etc/hosts")]),
        ('from pathlib import Path; (Path("/etc") / "x").rmdir()', [Effect("delete", "/etc/x")]),
        ('from pathlib import Path; Path("/etc/x").write_text("")', [Effect("write", "/etc/x")]),
        ('from pathlib import Path; Path("/etc/x").write_bytes(b"")', [Effect("write", "/etc/x")]),
        ('open("/etc/x", "w").write("")', [Effect("write", "/etc/x")]),
        ('open("/etc/x", mode="a").write("")', [Effect("append", "/etc/x")]),
        ('import os; os.remove(os.path.join("/etc", "x"))', [Effect("delete", "/etc/x")]),
        (
            'import shutil; shutil.rmtree(Path.home() / ".ssh")',
            [Effect("delete-recursive", "~/.ssh")],
        ),
        (
            'import os\nfor d in ["/a", "/b"]:\n    os.remove(d)',
            [Effect("delete", "/a"), Effect("delete", "/b")],
        ),
        (
            'import glob, os\n[os.remove(f) for f in glob.glob("/etc/*.conf")]',
            [Effect("delete", "/etc/*.conf")],
        ),
        ('exec("import os; os.system(\\"ls\\")")', [Effect("shell", "ls")]),
        (
            'import os\n[os.remove(f) for f in os.listdir("/etc") if f.endswith(".conf")]',
            [Effect("delete", "/etc/\x00")],
        ),
        (
            'import subprocess, sys; subprocess.run(["pytest", *sys.argv[1:]])',
            [Effect("argv", "pytest '\x00'", ("pytest", UNKNOWN))],
        ),
        # data, not calls
        ('print("rm -rf /")', []),
        ("x = \"os.system('rm -rf /')\"; print(x)", []),
        ('import re; re.sub("rm -rf", "", "rm -rf /")', []),
        ("import json, sys; print(json.load(sys.stdin)['x'])", []),
    ],
)
def test_python_calls_and_their_folded_arguments(code: str, expected: list[Effect]) -> None:
    assert pycode.effects(code) == expected


@pytest.mark.parametrize(
    ("code", "api"),
    [
        ("import os, sys; os.system(sys.argv[1])", "os.system"),
        ("import os; os.system(input())", "os.system"),
        ("import os; os.system('rm -rf ' + os.environ['TARGET'])", "os.system"),
        ("import subprocess, sys; subprocess.run(sys.argv[1], shell=True)", "subprocess.run"),
        ("import subprocess, sys; subprocess.run([sys.argv[1], 'x'])", "subprocess.run"),
        ("import shutil, sys; shutil.rmtree(sys.argv[1])", "shutil.rmtree"),
        ("import os; d = os.environ['X']; os.remove(d)", "os.remove"),
        ("import sys; exec(sys.stdin.read())", "exec"),
        ("def f(p):\n    import shutil; shutil.rmtree(p)", "shutil.rmtree"),
        ("import os, sys; getattr(os, sys.argv[1])('ls')", "getattr(os, ...)"),
    ],
)
def test_python_calls_fed_unknown_values_are_unresolved(code: str, api: str) -> None:
    found = pycode.effects(code)
    assert found is not None
    assert [e.kind for e in found] == ["unresolved"]
    assert found[0].value.startswith(api)


def test_python_partly_known_arguments_keep_the_known_words() -> None:
    found = pycode.effects("import subprocess, sys; subprocess.run(['rm', '-rf', sys.argv[1]])")
    assert found == [Effect("argv", "rm -rf '\x00'", ("rm", "-rf", UNKNOWN))]


def test_python_that_does_not_parse_is_none() -> None:
    assert pycode.effects("import os; os.system('rm -rf /'") is None
    assert pycode.effects("if True print(1)") is None


# --- tree-sitter languages ---------------------------------------------------------


@pytest.mark.parametrize(
    ("grammar", "code", "expected"),
    [
        # JavaScript (node -e, deno eval, bun -e)
        ("javascript", 'require("child_process").execSync("ls")', [Effect("shell", "ls")]),
        (
            "javascript",
            'const cp = require("node:child_process"); cp.exec("rm -rf " + "/etc")',
            [Effect("shell", "rm -rf /etc")],
        ),
        (
            "javascript",
            'const {execSync: run} = require("child_process"); const d = "/etc"; run(`rm -rf ${d}`)',
            [Effect("shell", "rm -rf /etc")],
        ),
        ("javascript", 'child_process.execSync("\\x6cs")', [Effect("shell", "ls")]),
        (
            "javascript",
            'require("child_process").spawnSync("rm", ["-rf", "/etc"])',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        (
            "javascript",
            'require("child_process").execFileSync("rm", ["/etc/x"])',
            [Effect("argv", "rm /etc/x", ("rm", "/etc/x"))],
        ),
        (
            "javascript",
            'require("fs").rmSync("/etc", {recursive: true})',
            [Effect("delete-recursive", "/etc")],
        ),
        ("javascript", 'fs.unlinkSync("/etc/hosts")', [Effect("delete", "/etc/hosts")]),
        (
            "javascript",
            'fs.rmdirSync("/etc")',
            [Effect("argv", "rmdir /etc", ("rmdir", "/etc"))],
        ),
        ("javascript", 'fs.writeFileSync("/etc/hosts", "x")', [Effect("write", "/etc/hosts")]),
        (
            "javascript",
            'require("fs").rmSync(require("os").homedir(), {recursive: true})',
            [Effect("delete-recursive", "~")],
        ),
        (
            "javascript",
            'Deno.removeSync("/etc", {recursive: true})',
            [Effect("delete-recursive", "/etc")],
        ),
        (
            "javascript",
            'Bun.spawnSync(["rm", "-rf", "/etc"])',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        (
            "javascript",
            'import {execSync as run} from "node:child_process"; run("ls")',
            [Effect("shell", "ls")],
        ),
        (
            "javascript",
            'import * as cp from "child_process"; cp.exec("ls")',
            [Effect("shell", "ls")],
        ),
        (
            "javascript",
            'import fs from "fs"; fs.unlinkSync("/etc/x")',
            [Effect("delete", "/etc/x")],
        ),
        ("javascript", 'console.log("git reset --hard")', []),
        ("javascript", '/rm -rf/.exec("rm -rf /")', []),
        # Ruby
        ("ruby", 'system("ls")', [Effect("shell", "ls")]),
        (
            "ruby",
            'system("rm", "-rf", "/etc")',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        ("ruby", 'd = "/etc"; exec "rm -rf #{d}"', [Effect("shell", "rm -rf /etc")]),
        ("ruby", "`ls`", [Effect("shell", "ls")]),
        ("ruby", "%x(ls)", [Effect("shell", "ls")]),
        ("ruby", 'require "open3"; Open3.capture2("ls")', [Effect("shell", "ls")]),
        ("ruby", 'FileUtils.rm_rf("/etc")', [Effect("delete-recursive", "/etc")]),
        (
            "ruby",
            'File.delete("/etc/a", "/etc/b")',
            [Effect("delete", "/etc/a"), Effect("delete", "/etc/b")],
        ),
        ("ruby", 'FileUtils.rm_rf(Dir.glob("/etc/*"))', [Effect("delete-recursive", "/etc/*")]),
        ("ruby", 'File.write("/etc/hosts", "x")', [Effect("write", "/etc/hosts")]),
        ("ruby", 'puts "rm -rf /"', []),
        # Perl
        ("perl", 'system("ls")', [Effect("shell", "ls")]),
        ("perl", 'my $c = "ls"; system $c', [Effect("shell", "ls")]),
        (
            "perl",
            'my $d = "/etc"; system("rm", "-rf", $d)',
            [Effect("argv", "rm -rf /etc", ("rm", "-rf", "/etc"))],
        ),
        ("perl", 'my $d = "/etc"; exec "rm -rf $d"', [Effect("shell", "rm -rf /etc")]),
        ("perl", "qx(ls)", [Effect("shell", "ls")]),
        ("perl", "`ls`", [Effect("shell", "ls")]),
        (
            "perl",
            'unlink "/etc/a", "/etc/b"',
            [Effect("delete", "/etc/a"), Effect("delete", "/etc/b")],
        ),
        ("perl", 'use File::Path; rmtree("/e" . "tc")', [Effect("delete-recursive", "/etc")]),
        ("perl", 'unlink glob("/etc/*")', [Effect("delete", "/etc/*")]),
        ("perl", 'print "rm -rf /\\n"', []),
        # PHP
        ("php", 'system("ls");', [Effect("shell", "ls")]),
        ("php", 'shell_exec("rm -rf " . "/etc");', [Effect("shell", "rm -rf /etc")]),
        ("php", '$d = "/etc"; passthru("rm -rf {$d}");', [Effect("shell", "rm -rf /etc")]),
        ("php", '$d = "/etc"; exec("rm -rf $d");', [Effect("shell", "rm -rf /etc")]),
        ("php", "echo `ls`;", [Effect("shell", "ls")]),
        ("php", 'proc_open("ls", [], $p);', [Effect("shell", "ls")]),
        ("php", 'unlink("/etc/hosts");', [Effect("delete", "/etc/hosts")]),
        ("php", 'file_put_contents("/etc/hosts", "x");', [Effect("write", "/etc/hosts")]),
        ("php", 'echo "rm -rf /";', []),
        # Lua
        ("lua", 'os.execute("ls")', [Effect("shell", "ls")]),
        ("lua", 'local d = "/etc"; os.execute("rm -rf " .. d)', [Effect("shell", "rm -rf /etc")]),
        ("lua", 'io.popen("\\108\\115")', [Effect("shell", "ls")]),
        ("lua", "local run = os.execute; run([[ls]])", [Effect("shell", "ls")]),
        ("lua", 'os.remove("/etc/hosts")', [Effect("delete", "/etc/hosts")]),
        ("lua", 'print("rm -rf /")', []),
        ("lua", 'io.open("/etc/hosts", "w")', [Effect("write", "/etc/hosts")]),
        ("lua", 'io.open("data.txt")', []),
        # calls spelled indirectly, and files opened for writing or as pipes
        ("php", '$f = "system"; $f("ls");', [Effect("shell", "ls")]),
        ("php", 'call_user_func("shell_exec", "ls");', [Effect("shell", "ls")]),
        ("php", 'fopen("/etc/hosts", "a");', [Effect("append", "/etc/hosts")]),
        ("javascript", 'require("child_process")["execSync"]("ls")', [Effect("shell", "ls")]),
        ("ruby", 'send(:system, "ls")', [Effect("shell", "ls")]),
        ("ruby", 'Kernel.public_send("exec", "ls")', [Effect("shell", "ls")]),
        ("ruby", 'open("|ls")', [Effect("shell", "ls")]),
        (
            "ruby",
            'File.open("/etc/hosts", "w") { |f| f.puts "x" }',
            [Effect("write", "/etc/hosts")],
        ),
        ("ruby", 'File.open("README.md").read', []),
        ("perl", 'open(my $fh, "-|", "ls")', [Effect("shell", "ls")]),
        ("perl", 'open(F, "ls -la |")', [Effect("shell", "ls -la")]),
        ("perl", 'open(my $o, ">", "/etc/hosts")', [Effect("write", "/etc/hosts")]),
        ("perl", 'open(O, ">>/etc/hosts")', [Effect("append", "/etc/hosts")]),
        ("perl", 'open(my $i, "<", "data.txt")', []),
    ],
)
def test_tree_sitter_calls_and_their_folded_arguments(
    grammar: str, code: str, expected: list[Effect]
) -> None:
    assert tscode.effects(code, grammar) == expected


@pytest.mark.parametrize(
    ("grammar", "code", "api"),
    [
        (
            "javascript",
            'require("child_process").execSync(process.argv[2])',
            "child_process.execSync",
        ),
        ("javascript", 'require("child_process").exec("rm -rf " + x)', "child_process.exec"),
        ("javascript", "fs.rmSync(process.env.TARGET, {recursive: true})", "fs.rmSync"),
        ("ruby", "system(ARGV[0])", "system"),
        ("ruby", "FileUtils.rm_rf(ENV['X'])", "FileUtils.rm_rf"),
        ("perl", "system($ARGV[0])", "system"),
        ("perl", "my $c = <STDIN>; system($c)", "system"),
        ("php", "system($argv[1]);", "system"),
        ("php", "unlink($_GET['f']);", "unlink"),
        ("lua", "os.execute(arg[1])", "os.execute"),
        ("lua", "os.remove(os.getenv('X'))", "os.remove"),
        ("php", "$f = $argv[1]; $f('ls');", "a function"),
        ("php", "call_user_func($argv[1], 'ls');", "call_user_func"),
        ("ruby", "send(ARGV[0], 'ls')", "send"),
        ("perl", 'open(F, "|sh"); print F $ARGV[0]', "open"),
    ],
)
def test_tree_sitter_calls_fed_unknown_values_are_unresolved(
    grammar: str, code: str, api: str
) -> None:
    found = tscode.effects(code, grammar)
    assert found is not None
    assert [e.kind for e in found] == ["unresolved"], found
    assert found[0].value.startswith(api)


def test_tree_sitter_code_that_does_not_parse_is_none() -> None:
    assert tscode.effects("this is not ((( js", "javascript") is None
    assert tscode.effects("os.execute(", "lua") is None
    assert tscode.effects("x", "cobol") is None


def test_a_grammar_that_fails_to_load_leaves_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentreflex.gate.shell import parser as _tree

    def broken(*_: Any) -> Any:
        raise OSError("grammar missing")

    monkeypatch.setattr(_tree, "grammar_parser", broken)
    code = 'system("rm -rf /")'
    assert tscode.effects(code, "ruby") is None
    assert interp.effects(code, "ruby") == interp.scan(code)
    assert _verdict(f"ruby -e '{code}'")[0] == "BLOCK"


def test_a_parser_that_fails_unexpectedly_leaves_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_: Any) -> Any:
        raise AttributeError("a shape nobody foresaw")

    monkeypatch.setattr(pycode, "effects", broken)
    code = 'import os; os.system("rm -rf /")'
    assert interp.effects(code, "python3") == interp.scan(code)
    assert _verdict(f"python3 -c '{code}'")[0] == "BLOCK"


@pytest.mark.parametrize(
    ("lang", "code"),
    [
        ("python3", "import redis; redis.Redis().flushall()"),
        ("python3", 'import boto3; boto3.client("s3").delete_bucket(Bucket="b")'),
        ("node", "const c = algoliasearch('a', 'k'); c.deleteIndex('prod')"),
        ("node", "algolia.clearObjects('products')"),
        ("ruby", "Redis.new.flushdb"),
        ("php", "$r = new Redis(); $r->flushAll();"),
        ("lua", "r:flushall()"),
    ],
)
def test_sdk_calls_that_destroy_a_store_block(lang: str, code: str) -> None:
    assert [e.kind for e in interp.effects(code, lang)] == ["sdk"]
    verdict, codes = _verdict(
        f"{lang} {'-r' if lang == 'php' else '-e' if lang != 'python3' else '-c'} '{code}'"
    )
    assert (verdict, codes) == ("BLOCK", ["GATE-INTERP-SDK-DESTRUCTIVE"])


@pytest.mark.parametrize(
    ("lang", "code"),
    [
        ("python3", "import redis; redis.Redis().get('k'); print('flushall')"),
        ("node", "client.search('deleteIndex')"),
        ("php", '$r->get("x");'),
        ("ruby", "Redis.new.delete('k')"),
    ],
)
def test_ordinary_sdk_calls_and_mentions_are_not_destructive(lang: str, code: str) -> None:
    assert not [e for e in interp.effects(code, lang) if e.kind == "sdk"]


# --- whole commands ------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected", "code"),
    [
        ('python3 -c \'import os; p="/etc"; os.system("rm -rf " + p)\'', "BLOCK", "GATE-RM-SYSTEM"),
        ("python3 -c 'from shutil import rmtree as r; r(\"/etc\")'", "BLOCK", "GATE-RM-SYSTEM"),
        (
            "python3 -c 'import os,base64; os.system(base64.b64decode(\"Z2l0IHJlc2V0IC0taGFyZA==\").decode())'",
            "BLOCK",
            "GATE-GIT-RESET-HARD",
        ),
        ('python3 -c \'open("/etc/passwd", "w").write("")\'', "BLOCK", "GATE-OVERWRITE-SYSTEM"),
        (
            "python3 <<'EOF'\nimport shutil\np = '/etc'\nshutil.rmtree(p)\nEOF",
            "BLOCK",
            "GATE-RM-SYSTEM",
        ),
        (
            "python3 -c 'import os,sys; os.system(sys.argv[1])' x",
            "ASK_USER",
            "GATE-INTERP-UNRESOLVED",
        ),
        ("python3 -c 'print(\"rm -rf /\")'", "ALLOW", ""),
        ("python3 -c 'import shutil; shutil.rmtree(\"build\")'", "ALLOW", ""),
        (
            'node -e \'require("child_process").execSync("git push --force")\'',
            "BLOCK",
            "GATE-GIT-FORCE-PUSH",
        ),
        ("node -e 'console.log(\"git reset --hard\")'", "ALLOW", ""),
        ("deno eval 'Deno.removeSync(\"/etc\", {recursive: true})'", "BLOCK", "GATE-RM-SYSTEM"),
        ('bun -e \'Bun.spawnSync(["rm", "-rf", "/etc"])\'', "BLOCK", "GATE-RM-SYSTEM"),
        ('ruby -e \'system("rm", "-rf", "/etc")\'', "BLOCK", "GATE-RM-SYSTEM"),
        ("ruby -e 'puts \"rm -rf /\"'", "ALLOW", ""),
        ("perl -e 'my $x = \"git reset --hard\"; system($x)'", "BLOCK", "GATE-GIT-RESET-HARD"),
        ("perl -e 'print \"rm -rf /\"'", "ALLOW", ""),
        ('php -r \'shell_exec("rm -rf " . "/etc");\'', "BLOCK", "GATE-RM-SYSTEM"),
        ("php -r 'system($argv[1]);'", "ASK_USER", "GATE-INTERP-UNRESOLVED"),
        ('lua -e \'local d = "/etc"; os.execute("rm -rf " .. d)\'', "BLOCK", "GATE-RM-SYSTEM"),
        ("lua -e 'print(\"rm -rf /\")'", "ALLOW", ""),
    ],
)
def test_commands_are_judged_by_what_their_code_does(
    command: str, expected: str, code: str
) -> None:
    verdict, codes = _verdict(command)
    assert verdict == expected, codes
    if code:
        assert code in codes


def test_code_that_does_not_parse_still_gets_the_scan() -> None:
    assert _verdict("python3 -c 'import os; os.system(\"rm -rf /\"'")[0] == "BLOCK"
    assert _verdict('node -e \'require("child_process").execSync("rm -rf /") (((\'')[0] == "BLOCK"
    assert _verdict("python3 -c 'if True print(1)'")[0] == "ALLOW"


def test_huge_code_asks() -> None:
    code = "x = 1\n" * 20_000  # 120,000 characters of harmless code
    verdict, codes = _verdict(f"python3 -c '{code}'")
    assert (verdict, codes) == ("ASK_USER", ["GATE-INTERP-UNRESOLVED"])


@pytest.mark.parametrize(
    "code",
    [
        "print('\udcff')",  # a lone surrogate (undecodable bytes in the command)
        "print('\x00')",
        "(" * 5_000 + ")" * 5_000,  # deeply nested: the parser's recursion limit
    ],
)
def test_malformed_python_gets_an_answer(code: str) -> None:
    effects = interp.effects(code, "python3")
    assert all(e.kind in ("unresolved", "read", "exfil", "fork-bomb") for e in effects)


@pytest.mark.parametrize("grammar", ["javascript", "ruby", "perl", "php", "lua"])
def test_malformed_code_of_every_grammar_gets_an_answer(grammar: str) -> None:
    for code in ("\udcff\udcfe", "\x00" * 10, "(" * 3_000, "'unterminated"):
        found = tscode.effects(code, grammar)
        assert found is None or all(e.kind == "unresolved" for e in found)
