"""Look inside interpreter one-liners for what they would do to the system.

``python3 -c 'import shutil; shutil.rmtree("/etc")'`` is ``rm -r /etc`` in
another spelling.  Instead of a separate rule set per language, the calls
that matter are found and each is translated back into the shell command it
amounts to, which then goes through the ordinary rules.  :func:`effects` reads
the code with a parser where there is one (Python's ``ast`` in
:mod:`agentreflex.gate.code.pycode`, tree-sitter grammars in
:mod:`agentreflex.gate.code.tscode`), which folds names and concatenations and
tells a call from a string that merely mentions one; the regex :func:`scan`
below is the fallback for code that does not parse and other interpreters,
and still supplies reads, exfiltration and fork loops:

- shell-outs (``os.system``, ``subprocess.*``, ``execSync``, ``system``,
  backticks, ``%x()``) -> their string literal, parsed as shell;
- deletes (``rmtree``, ``rmSync(recursive)``, ``unlink``, ``FileUtils.rm_rf``)
  -> ``rm [-r] PATH``;
- reads of literal paths (``open("~/.ssh/id_rsa")``) -> ``cat PATH``;
- fork loops -> a fork bomb.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record

# Patterns compile on first use: most commands run no interpreter code at all.
# The code-scanning ones carry hints (the calls they look for): most interpreter
# code (``json.load(sys.stdin)``) calls none of them, and compiling them costs
# more than the whole scan (see agentreflex.core.util.lazyre).
_STR = r"""(?:'([^'\\]*(?:\\.[^'\\]*)*)'|"([^"\\]*(?:\\.[^"\\]*)*)"|`([^`]*)`)"""
_STR_ITEMS = LazyPattern(_STR)  # each string literal of a list-form argv

_SHELL_CALLS = LazyPattern(
    r"(?:os\.system|os\.popen|subprocess\.(?:run|call|check_call|check_output|Popen|getoutput|getstatusoutput)"
    r"|(?<![\w.])system|exec(?:Sync)?|spawn(?:Sync)?|shell_exec|passthru|popen|proc_open|%x|Open3\.\w+"
    r"|pty\.spawn|commands\.getoutput)\s*\(\s*(?:\[\s*)?" + _STR,
    hints="system popen subprocess exec spawn passthru proc_open %x Open3. getoutput",
)
_BACKTICK = LazyPattern(
    r"`([^`]+)`|%x\{([^}]*)\}|qx\{([^}]*)\}|qx\(([^)]*)\)",
    hints="` x{ qx(",
)
_RECURSIVE_DELETE = LazyPattern(
    r"(?:shutil\.rmtree|rmtree|remove_tree|rm_rf|rm_r|remove_dir_all|rimraf(?:\.sync)?|fs\.rm(?:Sync)?|"
    r"fsp?\.promises\.rm|\brm(?:Sync)?|remove_entry_secure|FileUtils\.remove_dir|del_tree|"
    r"Deno\.remove|removeSync|emptyDirSync|emptyDir)\s*\(\s*" + _STR,
    hints="rm remove rimraf del_tree emptyDir",
)
_FILE_DELETE = LazyPattern(
    r"(?:os\.remove|os\.unlink|os\.rmdir|\bunlink(?:Sync)?|\bunlink|rmdirSync|File\.delete|"
    r"FileUtils\.rm|Path\(\s*" + _STR + r"\s*\)\.unlink)\s*\(?\s*" + _STR + r"?",
    hints="remove unlink rm File.delete",
)
# Deleting what a glob yields: perl ``unlink glob("/etc/*")``, ruby
# ``FileUtils.rm_rf(Dir.glob("..."))`` / ``Dir["..."]``.
_GLOB_DELETE = LazyPattern(
    r"(?:\bunlink|FileUtils\.rm(?:_rf|_r|_f)?|File\.delete)\s*\(?\s*\*?\s*"
    r"(?:glob|Dir\.glob|Dir\[|<)\s*\(?\s*" + _STR,
    hints="unlink FileUtils File.delete",
)
_DYNAMIC_DELETE = LazyPattern(
    r"(?:rmtree|remove_tree|rm_rf|rm_r|rmSync|rimraf|remove_dir_all|fs\.rm|Deno\.remove)"
    r"\s*\(\s*(?!['\"`])",
    hints="rm remove rimraf",
)
# The home directory or the root, spelled as code: rmtree(Path.home()) is rm -r ~.
_HOME_EXPR = LazyPattern(
    r"(?:str\()?(?:(?:pathlib\.)?Path\.home\(\)|os\.path\.expanduser\(['\"]~/?['\"]\)|"
    r"(?:require\(['\"](?:node:)?os['\"]\)|os)\.homedir\(\)|Dir\.home|Etc\.getpwuid\.dir|"
    r"ENV\[['\"]HOME['\"]\]|ENV\.fetch\(['\"]HOME['\"]\)|\$ENV\{HOME\}|"
    r"os\.environ\[['\"]HOME['\"]\]|os\.(?:environ\.get|getenv)\(['\"]HOME['\"]\)|"
    r"process\.env\.HOME|process\.env\[['\"]HOME['\"]\]|getenv\(['\"]HOME['\"]\)|"
    r"Deno\.env\.get\(['\"]HOME['\"]\)|dirs::home_dir\(\)|File::HomeDir->my_home)"
    r"(?:\)?\.(?:resolve|absolute|expanduser)\(\))?\)?"
)
_ROOT_EXPR = LazyPattern(r"(?:(?:pathlib\.)?Path|File)\(\s*['\"]/['\"]\s*\)|Path\.cwd\(\)\.anchor")
# Code that sends data off the machine, and code that takes the whole environment
# (or a credential-named variable) -- together they are exfiltration.
_NET_SEND = LazyPattern(
    r"urlopen|urllib\.request|requests\.(?:post|put|get|patch|request)|httpx\.|http\.client|"
    r"aiohttp|socket\.|\bfetch\s*\(|https?\.request|https?\.get|axios|XMLHttpRequest|"
    r"Net::HTTP|HTTParty|Faraday|LWP|HTTP::Tiny|IO::Socket|curl_exec|fsockopen|"
    r"file_get_contents\(\s*['\"]https?:|TCPSocket|Socket\.new",
    hints="urlopen urllib requests. http socket fetch axios XMLHttp HTTP Faraday LWP Socket curl_exec sockopen",
)
# A socket opened, and a shell handed to it: the reverse shells of every language
# (https://github.com/swisskyrepo/PayloadsAllTheThings/blob/master/
# Methodology%20and%20Resources/Reverse%20Shell%20Cheatsheet.md).
_SOCKET_OPEN = LazyPattern(
    r"socket\.socket|\bsocket\s*\(|TCPSocket|fsockopen|stream_socket_client|IO::Socket|"
    r"\bnet\.(?:connect|createConnection|Socket)|require\(\s*['\"](?:node:)?net['\"]\s*\)|"
    r"Socket\.new|/dev/tcp/|/dev/udp/",
    hints="socket Socket sockopen stream_socket net /dev/",
)
_SHELL_HANDED = LazyPattern(
    r"\bdup2\s*\(|pty\.spawn|\bopen\s*\(\s*STD(?:IN|OUT)\s*,\s*['\"][<>]&|"
    r"['\"](?:/bin/|/usr/bin/)?(?:ba|z|da|k)?sh(?:\s+-i)?['\"]|['\"](?:/bin/)?(?:ba|z|da)?sh\s+-i\b|"
    r"cmd\.exe",
    hints="dup2 pty open sh cmd.exe",
)
_ENV_ALL = LazyPattern(
    r"os\.environ(?!\s*(?:\[|\.get\b|\.setdefault\b|\.pop\b|\.update\b))|"
    r"process\.env(?!\s*(?:\.|\[))|\bENV\.(?:to_h|to_a|each|map|inspect|keys)\b|%ENV\b|"
    r"\$_ENV\b|\$_SERVER\b|getenv\(\s*\)|Deno\.env\.toObject|os\.environ\b\s*\)"
)
_ENV_SECRET = LazyPattern(
    r"(?:environ|env|ENV|getenv)\W{0,3}['\"]?\w*(?:KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE)\w*",
    re.IGNORECASE,
)
_OPEN_READ = LazyPattern(
    r"(?:open|read_text|read_bytes|readFileSync|readFile|File\.read|file_get_contents|"
    r"Path)\s*\(\s*" + _STR,
    hints="open read file_get_contents Path",
)
_FORK_LOOP = LazyPattern(
    r"(?:while\s*(?:True|1|\(\s*1\s*\)|\(\s*true\s*\))\s*:?\s*\{?\s*(?:os\.)?fork\s*\(|"
    r"fork\s+while\s+1|fork\s*\(\s*\)\s*while|loop\s*\{\s*fork|for\s*\(\s*;\s*;\s*\)\s*\{?\s*fork)",
    hints="fork",
)


@record(frozen=True)
class Effect:
    """One thing the code would do, as a shell-equivalent action."""

    # "shell", "argv", "delete", "delete-recursive", "write", "append", "read",
    # "fork-bomb", "dynamic-delete", "exfil", "unresolved", "chdir" (later relative
    # paths are relative to it), "remote-shell" (a shell handed to a socket), "sdk" (a
    # client library's call that destroys a store), "orm" (an ORM call on a whole model)
    kind: str
    value: str = ""
    words: tuple[str, ...] = ()  # "argv": the words run (no shell between)


# What a parser finds better than the scan: the scan's own findings of these
# kinds are dropped when the code parses (the rest -- reads, exfiltration,
# fork loops -- are kept from the scan).
_PARSED_KINDS = frozenset({"shell", "delete", "delete-recursive", "dynamic-delete"})
PYTHONS = frozenset({"python", "python2", "python3", "pypy", "pypy3"})
AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})  # their program is code too
# interpreter -> the tree-sitter grammar its code is read with
GRAMMARS = {
    "node": "javascript",
    "nodejs": "javascript",
    "bun": "javascript",
    "deno": "javascript",
    "ruby": "ruby",
    "perl": "perl",
    "php": "php",
    "lua": "lua",
}


def effects(code: str, lang: str) -> list[Effect]:
    """The effects of ``code`` in language ``lang``: parsed where a parser is
    available (Python's ``ast``, a tree-sitter grammar), else scanned."""
    scanned = scan(code) + (command_words(code) if lang in COMMAND_LANGS else [])
    if len(code) > _MAX_PARSED:
        why = f"the code is longer than {_MAX_PARSED:,} characters, too long to check in full"
        return [*scanned, Effect("unresolved", why)]
    parsed = _parsed(code, lang)
    if parsed is None:
        return scanned
    kept = [e for e in scanned if e.kind not in _PARSED_KINDS and e not in parsed]
    return parsed + kept


_MAX_PARSED = 100_000  # longer code is only scanned (and asked about)

# Client-library methods that destroy a whole store: the SDK spelling of a
# service CLI's worst command (``client.deleteIndex("prod")`` is ``algolia
# indices delete prod``).  Method names only this specific, so an ordinary
# ``.delete()`` or ``.drop()`` is never taken for one.
SDK_DESTRUCTIVE = {
    "deleteIndex": "deletes a search index",
    "delete_index": "deletes a search index",
    "clearObjects": "empties a search index",
    "clear_objects": "empties a search index",
    "clearIndex": "empties a search index",
    "dropDatabase": "drops a database",
    "drop_database": "drops a database",
    "flushall": "empties every Redis database",
    "flushAll": "empties every Redis database",
    "flushdb": "empties a Redis database",
    "flushDb": "empties a Redis database",
    "deleteBucket": "deletes a storage bucket",
    "delete_bucket": "deletes a storage bucket",
}


# An ORM call on a whole model, no filter before it: every row of its table goes.
# Rails ``User.delete_all``/``User.all.destroy_all``, Django ``User.objects.all().delete()``,
# Laravel ``User::truncate()``/``User::query()->delete()``/``DB::table('users')->delete()``,
# Prisma ``prisma.user.deleteMany()``, Sequelize ``User.destroy({truncate: true})``,
# SQLAlchemy ``session.query(User).delete()``, and the schema helpers that drop or empty
# a table.  ``User.where(...).delete_all`` and
# ``User.objects.filter(...).delete()`` name the rows they mean and are ordinary work.
_ORM_EVERY_ROW = LazyPattern(
    r"(?<![\w.>])[A-Z]\w*(?:::[A-Z]\w*)*(?:\.(?:all|unscoped))?\.(?:delete_all|destroy_all)\b|"
    r"(?<![\w.])[A-Z]\w*\.objects(?:\.all\(\s*\))?\.delete\(\s*\)|"
    r"(?<![\w>])[A-Z]\w*(?:\\[A-Z]\w*)*::(?:truncate\(\s*\)|query\(\s*\)->(?:delete|truncate)\(\s*\))|"
    r"\bDB::table\(\s*['\"][\w.]+['\"]\s*\)->(?:delete|truncate)\(\s*\)|"
    r"\bSchema::(?:drop|dropIfExists)\(|"
    r"\.connection\.(?:drop_table|truncate|truncate_tables|drop_database)\b|"
    # Prisma's and MongoDB's deleteMany with no filter, Sequelize's truncate or empty where,
    # SQLAlchemy's query of a whole model deleted
    r"\.deleteMany\(\s*(?:\{\s*\})?\s*\)|"
    r"\.destroy\(\s*\{\s*(?:truncate\s*:\s*true|where\s*:\s*\{\s*\})|"
    r"\.query\(\s*[A-Z][\w.]*\s*\)\.delete\(\s*\)|(?<![\w.])[A-Z]\w*\.query\.delete\(\s*\)"
)


def _parsed(code: str, lang: str) -> list[Effect] | None:
    """Parsed effects, or ``None`` when there is no parser or the code does not parse.

    A parser that fails in a way nobody foresaw (code shaped like nothing seen
    in testing) leaves the scan to decide, as before the parsers existed,
    rather than ending the hook with a traceback.
    """
    try:
        return _parse(code, lang)
    except Exception:
        return None


def _parse(code: str, lang: str) -> list[Effect] | None:
    if lang in PYTHONS:
        from agentreflex.gate.code import pycode  # only for Python code

        return pycode.effects(code)
    if lang not in GRAMMARS:
        return None
    from agentreflex.gate.code import tscode  # only for code of the other languages

    return tscode.effects(code, GRAMMARS[lang])


def _literal(match: re.Match[str]) -> str:
    for group in match.groups():
        if group is not None:
            return group.replace("\\'", "'").replace('\\"', '"')
    return ""


def scan(code: str) -> list[Effect]:
    """The effects of interpreter ``code`` that the shell rules should judge."""
    effects: list[Effect] = []
    code = code[:100_000]
    for m in _SHELL_CALLS.finditer(code):
        text = _literal(m)
        if text:
            effects.append(Effect("shell", _join_argv_literal(code, m, text)))
    for m in _BACKTICK.finditer(code):
        text = next((g for g in m.groups() if g), "")
        if text.strip():
            effects.append(Effect("shell", text))
    for m in _RECURSIVE_DELETE.finditer(code):
        name = m.group(0).split("(", 1)[0]
        recursive = (
            "rmtree" in name
            or "rm_r" in name
            or "rimraf" in name
            or "remove_dir" in name
            or "recursive" in code[m.end() : m.end() + 80]
            or "Deno.remove" in name
            or "emptyDir" in name
        )
        effects.append(Effect("delete-recursive" if recursive else "delete", _literal(m)))
    for m in _GLOB_DELETE.finditer(code):
        path = next((g for g in m.groups() if g), "")
        recursive = "_rf" in m.group(0) or "_r" in m.group(0)
        if path:
            effects.append(Effect("delete-recursive" if recursive else "delete", path))
    for m in _FILE_DELETE.finditer(code):
        path = next((g for g in m.groups() if g), "")
        if path:
            effects.append(Effect("delete", path))
    for m in _DYNAMIC_DELETE.finditer(code):
        spelled = spelled_home_or_root(_argument(code, m.end()))
        if spelled:
            effects.append(Effect("delete-recursive", spelled))
        else:
            effects.append(Effect("dynamic-delete"))
            break
    for m in _ORM_EVERY_ROW.finditer(code):
        effects.append(Effect("orm", m.group(0).strip()))
    if _NET_SEND.search(code) and (_ENV_ALL.search(code) or _ENV_SECRET.search(code)):
        effects.append(Effect("exfil", "the environment"))
    for m in _OPEN_READ.finditer(code):
        path = _literal(m)
        if path and ("/" in path or path.startswith(".")):
            effects.append(Effect("read", path))
    if _FORK_LOOP.search(code):
        effects.append(Effect("fork-bomb"))
    if _SOCKET_OPEN.search(code) and _SHELL_HANDED.search(code):
        effects.append(Effect("remote-shell"))
    return effects


def command_words(code: str) -> list[Effect]:
    """Shell commands and deletes spelled as words (:data:`COMMAND_LANGS`)."""
    effects: list[Effect] = []
    for m in _WORD_SHELL.finditer(code[:100_000]):
        text = next((g for g in m.groups() if g), "").strip()
        if text:
            effects.append(Effect("shell", text))
    for m in _TCL_DELETE.finditer(code[:100_000]):
        effects.append(Effect("delete-recursive" if m.group(1) else "delete", m.group(2)))
    return effects


def spelled_home_or_root(expression: str) -> str:
    """``~`` or ``/`` when code spells the home folder or the root
    (``os.homedir()``, ``Dir.home``, ``$ENV{HOME}``, ``Path("/")``), else ``""``."""
    if len(expression) > 80:
        return ""
    if _HOME_EXPR.fullmatch(expression):
        return "~"
    return "/" if _ROOT_EXPR.fullmatch(expression) else ""


def _argument(code: str, start: int) -> str:
    """The first argument expression of a call whose ``(`` ends just before ``start``."""
    level = 0
    for i in range(start, min(len(code), start + 200)):
        ch = code[i]
        if ch in "([{":
            level += 1
        elif ch in ")]}":
            if level == 0:
                return code[start:i].strip()
            level -= 1
        elif ch == "," and level == 0:
            return code[start:i].strip()
    return ""


def _join_argv_literal(code: str, m: re.Match[str], first: str) -> str:
    """``subprocess.run(["rm", "-rf", "/"])`` -> ``rm -rf /`` (list form)."""
    start = m.start()
    bracket = code.find("[", start, m.end())
    if bracket == -1:
        return first
    close = code.find("]", bracket)
    if close == -1:
        return first
    items = _STR_ITEMS.findall(code[bracket : close + 1])
    words = ["".join(g for g in item if g) for item in items]
    return " ".join(_quote(w) for w in words) if words else first


def _quote(word: str) -> str:
    if word and all(c.isalnum() or c in "-_./=:@%+,~" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


INTERPRETERS = {
    "python": "-c",
    "python2": "-c",
    "python3": "-c",
    "pypy": "-c",
    "pypy3": "-c",
    "node": "-e",
    "nodejs": "-e",
    "bun": "-e",
    "deno": "eval",
    "perl": "-e",
    "ruby": "-e",
    "php": "-r",
    "lua": "-e",
    "osascript": "-e",
    "Rscript": "-e",
    "julia": "-e",
    # read only by the scan (no parser): Tcl and expect, Scheme, Lisp (PowerShell is
    # parsed as a shell of its own: rules/windows.py)
    "tclsh": "-c",
    "wish": "-c",
    "expect": "-c",
    "guile": "-c",
    "racket": "-e",
    "sbcl": "--eval",
}
# Languages whose commands are words, not calls: Tcl's ``exec rm -rf x`` and
# ``file delete -force x``, expect's ``spawn``, AppleScript's ``do shell script``,
# Scheme's ``(system "...")``.  Only their code is scanned for these.
COMMAND_LANGS = frozenset({"tclsh", "wish", "expect", "osascript", "guile", "racket"})
_WORD_SHELL = LazyPattern(
    r"(?:^|[\[;\n{])\s*(?:exec|spawn)\s+(?:-(?!-)\S+\s+)*(?:--\s+)?([^\]\[;\n}]+)"
    r"|do\s+shell\s+script\s+" + _STR + r"|\(\s*system\*?\s+" + _STR,
    hints="exec spawn shell system",
)
_TCL_DELETE = LazyPattern(
    r"\bfile\s+delete\s+(-force\s+)?(?:--\s+)?([^\s\]\[;}]+)", hints="file delete"
)
_VERSIONED = LazyPattern(r"(python[23]?|pypy3?|ruby|perl|php|node)[\d.]*")
_VERSIONED_PREFIXES = ("python", "pypy", "ruby", "perl", "php", "node")
_CODE_FLAGS = frozenset(
    {"-c", "-e", "-E", "-r", "--eval", "-pe", "-ne", "-le", "-lne", "-ple", "-pie"}
)


# The code glued to its switch: perl and ruby after flags that take no value
# (-le, -ne, -pe), lua's and php's alone.  Not ruby's -E (an encoding), nor perl's -i
# (its backup suffix is glued to it: -pie is -p -i with suffix "e").
_ATTACHED = {
    "perl": LazyPattern(r"-([lnpaswWTUX]*)[eE](.+)", re.DOTALL),
    "ruby": LazyPattern(r"-([lnpasw]*)e(.+)", re.DOTALL),
    "lua": LazyPattern(r"-()e(.+)", re.DOTALL),
    "php": LazyPattern(r"-()r(.+)", re.DOTALL),
}


def _attached_code(name: str, word: str) -> str | None:
    pattern = _ATTACHED.get(name)
    if pattern is None or word.startswith("--"):
        return None
    m = pattern.fullmatch(word)
    return m.group(2) if m else None


def interpreter_name(name: str) -> str:
    """``python3.11`` -> ``python3``; ``/usr/bin/node`` -> ``node``; else ``""``."""
    base = name.rsplit("/", 1)[-1]
    if base in INTERPRETERS:
        return base
    # called for nearly every command: most names fail this cheap test, and the
    # regex (compiled on first use) only sees the ones that could be versioned
    if not base.startswith(_VERSIONED_PREFIXES):
        return ""
    m = _VERSIONED.fullmatch(base)
    return m.group(1) if m else ""


def _python_cluster_code(arg: str) -> bool:
    """``-vc``/``-Bsc``: python's flag letters before a ``c`` (the code follows)."""
    if not arg.startswith("-") or arg.startswith("--") or "c" not in arg[1:]:
        return False
    head = arg[1 : arg.index("c")]
    return bool(head) and all(ch in "bBdEhiIOqsSuvx" for ch in head)


def code_argument(name: str, args: list[str]) -> tuple[str | None, list[str]]:
    """The inline code of an interpreter call, and the remaining arguments.

    Returns ``(None, positional)`` when there is no inline code; positional
    then starts with the script path (``-`` or nothing means stdin).
    """
    i = 0
    if name == "deno" and args[:1] == ["eval"]:
        return (args[1] if len(args) > 1 else ""), args[2:]
    while i < len(args):
        a = args[i]
        if (
            a in _CODE_FLAGS
            or (name in ("node", "nodejs", "bun") and a in ("-p", "--print"))
            or (
                a.startswith("-")
                and not a.startswith("--")
                and a[-1] in "ceE"
                and name in ("perl", "ruby")
                and "=" not in a
            )
        ):
            return (args[i + 1] if i + 1 < len(args) else ""), args[i + 2 :]
        if a.startswith("-c") and name.startswith(("python", "pypy")) and len(a) > 2:
            return a[2:], args[i + 1 :]
        attached = _attached_code(name, a)
        if attached is not None:  # perl -e'CODE', ruby -ne'CODE', php -r'CODE', lua -e'CODE'
            return attached, args[i + 1 :]
        if name.startswith(("python", "pypy")) and _python_cluster_code(a):
            k = a.index("c")  # -vc CODE, -Bc CODE, -Ic'CODE': flags, then -c
            return (a[k + 1 :] or (args[i + 1] if i + 1 < len(args) else "")), args[
                i + (1 if a[k + 1 :] else 2) :
            ]
        if name in ("node", "nodejs", "bun") and a.startswith(("--eval=", "--print=")):
            return a.partition("=")[2], args[i + 1 :]
        if a in ("-m",):
            return None, ["-m", *args[i + 1 :]]
        if not a.startswith("-") or a == "-":
            return None, args[i:]
        if a in (
            "-W",
            "-X",
            "-I",
            "--require",
            "-r",
            "--loader",
            "--import",
            "--experimental-loader",
        ) and name not in ("php",):
            i += 2
            continue
        i += 1
    return None, []
