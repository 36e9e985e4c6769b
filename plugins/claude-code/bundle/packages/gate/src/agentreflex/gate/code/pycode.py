"""Python code read with the stdlib ``ast``: the calls that run programs or change files.

The regex scan of :mod:`agentreflex.gate.code.interp` sees ``os.system("rm -rf /")``
but not ``p = "/etc"; shutil.rmtree(p)``, ``import shutil as s``, ``"rm -rf " +
"/"`` or ``base64.b64decode("cm0g...")``; and it cannot tell a call from a string
that merely mentions one (``print("os.system('rm -rf /')")``).  Here the code is
parsed, names are bound in order (imports, aliases, simple assignments, ``for``
over a literal list), and each argument of a call that runs a program or
deletes or writes a file is folded to its literal value: concatenation,
f-strings, ``%``/``.format``/``.join``, ``os.path.join``, ``Path / x`` and the
decoders (``base64``, ``bytes.fromhex``, ``codecs`` hex/rot13).  The parts
that cannot be known become the shell model's ``UNKNOWN`` marker, so the
ordinary rules judge the command each call amounts to; an execution or deletion
fed a value that is entirely unknown is reported as unresolved.

Imported only when a command runs Python code.
"""

from __future__ import annotations

import ast

from agentreflex.gate.code.interp import SDK_DESTRUCTIVE, Effect
from agentreflex.gate.model import UNKNOWN, has_marker
from agentreflex.gate.shell.words import quote

# Calls whose first argument is a shell command line.
_SHELL_STRING = frozenset(
    {
        "os.system",
        "os.popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "commands.getoutput",
        "asyncio.create_subprocess_shell",
        "platform.popen",
    }
)
# Calls taking ``args`` (a list, or a string with ``shell=True``).
_SUBPROCESS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
    }
)
_EXEC_ARGV = frozenset({"os.execv", "os.execve", "os.execvp", "os.execvpe"})  # (file, argv)
_EXEC_LIST = frozenset({"os.execl", "os.execle", "os.execlp", "os.execlpe"})  # (file, arg0, ...)
_SPAWN_ARGV = frozenset({"os.spawnv", "os.spawnve", "os.spawnvp", "os.spawnvpe"})  # (mode, f, argv)
_SPAWN_LIST = frozenset({"os.spawnl", "os.spawnle", "os.spawnlp", "os.spawnlpe"})
_RECURSIVE_DELETE = frozenset({"shutil.rmtree", "distutils.dir_util.remove_tree"})
_DELETE = frozenset({"os.remove", "os.unlink", "os.rmdir", "os.removedirs"})
_MOVE = frozenset({"shutil.move", "os.rename", "os.replace", "os.renames"})
_COPY = frozenset({"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree"})
_PATH_DELETE = frozenset({"unlink", "rmdir"})
_PATH_WRITE = frozenset({"write_text", "write_bytes"})
_PATH_READ = frozenset({"read_text", "read_bytes"})
_CODE_EXEC = frozenset({"exec", "eval", "builtins.exec", "builtins.eval"})
# Values the code reads from its surroundings that are known all the same.
_HOME_CALLS = frozenset({"pathlib.Path.home", "Path.home", "os.path.expanduser"})
_TEMP_CALLS = frozenset({"tempfile.mkdtemp", "tempfile.gettempdir", "tempfile.mktemp"})
_HOME_ENV = frozenset({"os.environ.get", "os.getenv"})
_MAX_DEPTH = 4  # exec("exec(...)") nesting
_RUNNING_MODULES = frozenset({"os", "subprocess", "shutil", "pty", "posix", "builtins"})


class _PathValue(str):
    """A folded ``pathlib.Path``: a string that remembers it was a path."""

    __slots__ = ()


class _Each(tuple[str, ...]):
    """The loop variable of ``for p in ["/a", "/b"]``: each value in turn."""

    __slots__ = ()


_Value = str | tuple[str, ...] | None  # None: not foldable (no literal shape at all)


def effects(code: str, depth: int = 0) -> list[Effect] | None:
    """The effects of Python ``code``, or ``None`` when it does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    reader = _Reader(depth)
    try:
        reader.block(tree.body)
    except RecursionError:
        return None
    return reader.found


class _Reader:
    """Walks statements in order, binding names and judging calls."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        # local name -> dotted name (imports, ``r = shutil.rmtree``)
        self.aliases: dict[str, str] = {}
        self.values: dict[str, _Value] = {}  # local name -> folded value
        self.star: list[str] = []  # modules imported with ``*``
        self.found: list[Effect] = []

    # --- statements -------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                top = a.name.split(".")[0]
                self.aliases[a.asname or top] = a.name if a.asname else top
        elif isinstance(stmt, ast.ImportFrom):
            self.import_from(stmt)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            self.calls(stmt)
            self.assign(stmt)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            self.calls(stmt.iter)
            self.bind_loop(stmt.target, stmt.iter)
            self.block(stmt.body)
            self.block(stmt.orelse)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            self.definition(stmt)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self.calls(item.context_expr)
                if isinstance(item.optional_vars, ast.Name):
                    self.values[item.optional_vars.id] = UNKNOWN
            self.block(stmt.body)
        else:
            self.compound(stmt)

    def import_from(self, stmt: ast.ImportFrom) -> None:
        module = stmt.module or ""
        for a in stmt.names:
            if a.name == "*":
                self.star.append(module)
            else:
                self.aliases[a.asname or a.name] = f"{module}.{a.name}"

    def definition(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A body read once, its parameters unknown (they are known only when called)."""
        self.values[stmt.name] = None
        saved = dict(self.values)
        if not isinstance(stmt, ast.ClassDef):
            for arg in _parameters(stmt.args):
                self.values[arg] = UNKNOWN
        self.block(stmt.body)
        self.values = saved

    def compound(self, stmt: ast.stmt) -> None:
        """Any other statement: its expressions, then every block it holds."""
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                self.calls(child)
            elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                self.block(child.body)
        for field in ("body", "orelse", "finalbody"):
            body = getattr(stmt, field, None)
            if isinstance(body, list):
                self.block([s for s in body if isinstance(s, ast.stmt)])

    def assign(self, stmt: ast.Assign | ast.AnnAssign | ast.AugAssign) -> None:
        targets: list[ast.expr]
        value: ast.expr | None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign):
            targets, value = [stmt.target], stmt.value
        else:
            if isinstance(stmt.target, ast.Name):
                joined = ast.BinOp(ast.Name(stmt.target.id), stmt.op, stmt.value)
                self.values[stmt.target.id] = self.fold(joined)
            return
        if value is None:
            return
        dotted = self.dotted(value)
        for target in targets:
            if isinstance(target, ast.Name):
                if dotted and "." in dotted and not isinstance(value, ast.Call):
                    self.aliases[target.id] = dotted  # ``r = shutil.rmtree``
                    self.values.pop(target.id, None)
                else:
                    self.aliases.pop(target.id, None)
                    self.values[target.id] = self.fold(value)
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(
                value, (ast.Tuple, ast.List)
            ):
                for t, v in zip(target.elts, value.elts, strict=False):
                    if isinstance(t, ast.Name):
                        self.values[t.id] = self.fold(v)
            else:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        self.values[name.id] = UNKNOWN

    def bind_loop(self, target: ast.expr, iterable: ast.expr) -> None:
        items = self.fold(iterable)
        if isinstance(target, ast.Name):
            if isinstance(items, tuple) and items:
                self.values[target.id] = _Each(items)
            elif isinstance(items, str) and items != UNKNOWN and any(c in items for c in "*?[\x00"):
                self.values[target.id] = items  # ``for f in glob.glob("build/*")``, os.listdir
            else:
                self.values[target.id] = UNKNOWN
            return
        for name in ast.walk(target):
            if isinstance(name, ast.Name):
                self.values[name.id] = UNKNOWN

    # --- calls --------------------------------------------------------------

    def calls(self, node: ast.AST) -> None:
        """Judge every call inside ``node`` (lambdas and comprehensions included)."""
        nodes = list(ast.walk(node))
        for sub in nodes:  # loop variables first: [os.remove(f) for f in ...]
            if isinstance(sub, ast.comprehension):
                self.bind_loop(sub.target, sub.iter)
            elif isinstance(sub, ast.Lambda):
                for arg in _parameters(sub.args):
                    self.values[arg] = UNKNOWN
        for sub in nodes:
            if isinstance(sub, ast.Call):
                self.call(sub)

    def call(self, node: ast.Call) -> None:
        name = self.dotted(node.func)
        if name:
            self.named_call(name, node)
        elif isinstance(node.func, ast.Attribute):
            self.method_call(node)
        elif isinstance(node.func, ast.Call) and self.dotted(node.func.func) == "getattr":
            module = self.dotted(node.func.args[0]) if node.func.args else ""
            if module in _RUNNING_MODULES:  # getattr(os, name)(...): which call is unknown
                self.unresolved(f"getattr({module}, ...)", "a function name")

    def named_call(self, name: str, node: ast.Call) -> None:
        args = node.args
        if name in _SHELL_STRING:
            self.shell(name, self.arg(node, 0, "cmd"))
        elif name in _SUBPROCESS:
            self.subprocess(name, node)
        elif name in _EXEC_ARGV or name in _SPAWN_ARGV:
            skip = 1 if name in _SPAWN_ARGV else 0
            self.argv(name, self.arg(node, skip), self.arg(node, skip + 1), skip_arg0=True)
        elif name in _EXEC_LIST or name in _SPAWN_LIST:
            skip = 1 if name in _SPAWN_LIST else 0
            rest = args[skip + 2 :]
            if name.endswith("e"):
                rest = rest[:-1]  # the environment
            words = tuple(self.word(a) for a in rest)
            self.argv(name, self.arg(node, skip), words, skip_arg0=False)
        elif name in ("pty.spawn", "os.posix_spawn", "os.posix_spawnp"):
            index = 1 if name.startswith("os.") else 0
            self.argv(name, self.arg(node, index), None, skip_arg0=False)
        elif name == "asyncio.create_subprocess_exec":
            self.argv(name, tuple(self.word(a) for a in args), None, skip_arg0=False)
        elif name in ("os.chdir", "posix.chdir"):
            # relative paths after it are relative to where it went (issue #28:
            # an interpreter that chdirs and then deletes relative paths)
            where = _text(self.arg(node, 0, "path"))
            self.found.append(Effect("chdir", where if where else UNKNOWN))
        elif name in _RECURSIVE_DELETE:
            self.delete(name, self.arg(node, 0, "path"), recursive=True)
        elif name in _DELETE:
            self.delete(name, self.arg(node, 0, "path"), recursive=False)
        elif name in _MOVE or name in _COPY:
            verb = "mv" if name in _MOVE else "cp"
            if name == "shutil.copytree":
                verb = "cp -r"
            self.two_paths(verb, self.arg(node, 0, "src"), self.arg(node, 1, "dst"))
        elif name in ("open", "builtins.open", "io.open"):
            self.open(node)
        elif name in _CODE_EXEC:
            self.exec_code(name, self.arg(node, 0, "source"))
        elif isinstance(node.func, ast.Attribute):
            self.method_call(node)

    def method_call(self, node: ast.Call) -> None:
        assert isinstance(node.func, ast.Attribute)
        method = node.func.attr
        if method in SDK_DESTRUCTIVE:
            self.found.append(Effect("sdk", f"{method}() {SDK_DESTRUCTIVE[method]}"))
            return
        if method not in _PATH_DELETE and method not in _PATH_WRITE and method not in _PATH_READ:
            return
        receiver = self.fold(node.func.value)
        if isinstance(receiver, _PathValue):
            if method in _PATH_READ:
                if not has_marker(receiver):
                    self.found.append(Effect("read", str(receiver)))
            elif method in _PATH_DELETE:
                self.delete(f"Path.{method}", receiver, recursive=False)
            else:
                self.write(receiver, append=False)
        elif method in _PATH_DELETE and receiver == UNKNOWN and "pathlib" in self.modules():
            self.unresolved(f"Path.{method}", "a path")

    def modules(self) -> set[str]:
        return {v.split(".")[0] for v in self.aliases.values()} | set(self.star)

    def subprocess(self, name: str, node: ast.Call) -> None:
        shell = any(
            k.arg == "shell" and not (isinstance(k.value, ast.Constant) and not k.value.value)
            for k in node.keywords
        )
        value = self.arg(node, 0, "args")
        if shell and isinstance(value, tuple):
            value = value[0] if value else ""
        if shell:
            self.shell(name, value)
        else:
            self.argv(name, value, None, skip_arg0=False)

    # --- effects --------------------------------------------------------------

    def shell(self, api: str, value: _Value) -> None:
        if isinstance(value, _Each):
            for item in value:
                self.shell(api, item)
        elif not isinstance(value, str) or value == UNKNOWN:
            self.unresolved(api, "a command line")
        elif has_marker(value):
            self.unresolved(api, "a command line built from values known only at run time")
        else:
            self.found.append(Effect("shell", value))

    def argv(self, api: str, first: _Value, rest: _Value, *, skip_arg0: bool) -> None:
        """``(file, argv)`` / ``argv`` forms: the words run, unknown words as markers."""
        if isinstance(rest, tuple):
            words = [_text(first), *rest[1 if skip_arg0 else 0 :]]
        elif isinstance(first, tuple):
            words = list(first)
        elif isinstance(first, str) and not isinstance(first, _Each):
            words = [first]  # a program name alone (no shell: spaces are part of it)
        else:
            words = [UNKNOWN]
        if not words or words[0] == UNKNOWN or has_marker(words[0]):
            self.unresolved(api, "a program name")
            return
        self.found.append(Effect("argv", " ".join(quote(w) for w in words), tuple(words)))

    def delete(self, api: str, value: _Value, *, recursive: bool) -> None:
        if isinstance(value, _Each):
            for item in value:
                self.delete(api, item, recursive=recursive)
            return
        path = _text(value)
        if path == UNKNOWN or not path:
            self.unresolved(api, "a path")
            return
        self.found.append(Effect("delete-recursive" if recursive else "delete", path))

    def write(self, value: _Value, *, append: bool) -> None:
        for path in value if isinstance(value, _Each) else (_text(value),):
            if path and path != UNKNOWN:
                self.found.append(Effect("append" if append else "write", path))

    def two_paths(self, verb: str, src: _Value, dst: _Value) -> None:
        a, b = _text(src), _text(dst)
        if a == UNKNOWN and b == UNKNOWN:
            return  # a copy or move of unknown files: nothing the rules could judge
        words = (*verb.split(), a, b)
        self.found.append(Effect("argv", " ".join(quote(w) for w in words), words))

    def open(self, node: ast.Call) -> None:
        given = node.args[1:] or any(k.arg == "mode" for k in node.keywords)
        mode = self.arg(node, 1, "mode") if given else "r"
        path = self.arg(node, 0, "file")
        if not isinstance(mode, str) or mode == UNKNOWN:
            return
        if "w" in mode or "x" in mode:
            self.write(path, append=False)
        elif "a" in mode:
            self.write(path, append=True)
        elif isinstance(path, str) and not has_marker(path) and ("/" in path or path[:1] == "."):
            self.found.append(Effect("read", path))

    def exec_code(self, api: str, value: _Value) -> None:
        if isinstance(value, str) and not has_marker(value) and self.depth < _MAX_DEPTH:
            inner = effects(value, self.depth + 1)
            if inner is not None:
                self.found.extend(inner)
                return
        if isinstance(value, str) and not has_marker(value):
            return  # not Python (or too deep): the regex scan still sees the text
        self.unresolved(api, "code")

    def unresolved(self, api: str, what: str) -> None:
        self.found.append(Effect("unresolved", f"{api} is given {what} known only at run time"))

    # --- names and values -----------------------------------------------------

    def dotted(self, node: ast.expr) -> str:
        """``s.rmtree`` with ``import shutil as s`` -> ``shutil.rmtree`` ("" if not a name)."""
        if isinstance(node, ast.Name):
            if node.id in self.aliases:
                return self.aliases[node.id]
            if node.id in self.values:
                return ""
            for module in self.star:
                if f"{module}.{node.id}" in _KNOWN:
                    return f"{module}.{node.id}"
            return node.id
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else ""
        if isinstance(node, ast.Call):
            name = self.dotted(node.func)
            if name in ("__import__", "importlib.import_module", "builtins.__import__"):
                imported = self.arg(node, 0)
                if isinstance(imported, str) and not has_marker(imported):
                    return imported
                return ""
            if name in ("getattr", "builtins.getattr") and len(node.args) >= 2:
                base = self.dotted(node.args[0])
                attr = self.fold(node.args[1])
                if base and isinstance(attr, str) and not has_marker(attr):
                    return f"{base}.{attr}"
        return ""

    def arg(self, node: ast.Call, index: int, keyword: str = "") -> _Value:
        if index < len(node.args) and not any(
            isinstance(a, ast.Starred) for a in node.args[: index + 1]
        ):
            return self.fold(node.args[index])
        for k in node.keywords:
            if k.arg == keyword and keyword:
                return self.fold(k.value)
        return UNKNOWN

    def word(self, node: ast.expr) -> str:
        return _text(self.fold(node))

    def fold(self, node: ast.expr) -> _Value:
        """The literal value of ``node``; unknown parts become ``UNKNOWN``."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bytes):
                return node.value.decode("utf-8", "replace")
            if isinstance(node.value, str):
                return node.value
            if isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
                return str(node.value)
            return None
        if isinstance(node, ast.Name):
            if node.id in self.values:
                return self.values[node.id]
            return UNKNOWN
        if isinstance(node, ast.JoinedStr):
            return "".join(self.fstring_part(v) for v in node.values)
        if isinstance(node, (ast.List, ast.Tuple)):
            # ``["pytest", *args]``: the known words, then one unknown word for the rest
            return tuple(UNKNOWN if isinstance(e, ast.Starred) else self.word(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return self.fold_binop(node)
        if isinstance(node, ast.Call):
            return self.fold_call(node)
        if isinstance(node, ast.Subscript) and self.dotted(node.value) == "os.environ":
            key = self.fold(node.slice)
            return "~" if key == "HOME" else UNKNOWN
        if isinstance(node, ast.IfExp):
            return UNKNOWN
        return UNKNOWN

    def fstring_part(self, node: ast.expr) -> str:
        if isinstance(node, ast.FormattedValue):
            return _text(self.fold(node.value)) if node.format_spec is None else UNKNOWN
        return _text(self.fold(node))

    def fold_binop(self, node: ast.BinOp) -> _Value:
        left, right = self.fold(node.left), self.fold(node.right)
        if isinstance(node.op, ast.Add):
            if isinstance(left, _Each) and isinstance(right, str):
                return _Each(item + right for item in left)
            if isinstance(right, _Each) and isinstance(left, str):
                return _Each(left + item for item in right)
            if isinstance(left, tuple) and isinstance(right, tuple):
                if isinstance(left, _Each) or isinstance(right, _Each):
                    return UNKNOWN
                return left + right
            return _text(left) + _text(right)
        if isinstance(node.op, ast.Div) and isinstance(left, _PathValue):
            return _PathValue(_join(left, _text(right)))
        if isinstance(node.op, ast.Mod) and isinstance(left, str) and not has_marker(left):
            values = right if isinstance(right, tuple) else (_text(right),)
            return _percent(left, values)
        return UNKNOWN

    def fold_call(self, node: ast.Call) -> _Value:
        name = self.dotted(node.func)
        args = [self.fold(a) for a in node.args]
        first = _text(args[0]) if args else ""
        if name in ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "Path"):
            if not args:
                return _PathValue(".")
            return _PathValue(_join(*(_text(a) for a in args)))
        if name in ("str", "os.fspath", "os.path.abspath", "os.path.normpath", "os.path.realpath"):
            return _text(args[0]) if args else ""
        if name == "os.path.join" or name == "posixpath.join":
            return _join(*(_text(a) for a in args)) if args else UNKNOWN
        if name in _HOME_CALLS:
            return _PathValue("~") if name != "os.path.expanduser" else (first or "~")
        if name in _TEMP_CALLS:
            return "/tmp/" + UNKNOWN if name != "tempfile.gettempdir" else "/tmp"
        if name in _HOME_ENV:
            return "~" if first == "HOME" else UNKNOWN
        if name in ("os.getcwd", "pathlib.Path.cwd"):
            return _PathValue(".") if name.startswith("pathlib") else "."
        if name in ("glob.glob", "glob.iglob"):
            return first or UNKNOWN
        if name == "os.listdir":  # one entry (which ones, a filter may decide)
            return _join(first if args else ".", UNKNOWN)
        decoded = _decode(name, args)
        if decoded is not None:
            return decoded
        if isinstance(node.func, ast.Attribute):
            return self.fold_method(node.func.attr, self.fold(node.func.value), args)
        return UNKNOWN

    def fold_method(self, method: str, receiver: _Value, args: list[_Value]) -> _Value:
        if receiver is None or receiver == UNKNOWN:
            return UNKNOWN
        if isinstance(receiver, _PathValue):
            if method in ("resolve", "absolute", "expanduser"):
                return receiver
            if method == "joinpath":
                return _PathValue(_join(receiver, *(_text(a) for a in args)))
            if method in ("glob", "rglob", "iterdir"):
                pattern = _text(args[0]) if args else "*"
                return _PathValue(
                    _join(receiver, pattern if method != "rglob" else "**/" + pattern)
                )
            return UNKNOWN
        if isinstance(receiver, tuple):
            return UNKNOWN
        if method in ("decode", "encode", "strip", "lstrip", "rstrip") and not args:
            return receiver.strip() if "strip" in method else receiver
        if method in ("decode", "encode"):
            return receiver
        if method == "join" and args and isinstance(args[0], tuple):
            return receiver.join(args[0])
        if method == "format" and not has_marker(receiver):
            return _percent(receiver.replace("{}", "%s"), tuple(_text(a) for a in args))
        if method in ("lower", "upper"):
            return receiver.lower() if method == "lower" else receiver.upper()
        if method == "replace" and len(args) == 2:
            old, new = _text(args[0]), _text(args[1])
            if not has_marker(old):
                return receiver.replace(old, new)
        if method == "split" and not args and not has_marker(receiver):
            return tuple(receiver.split())
        return UNKNOWN


_KNOWN = (
    _SHELL_STRING
    | _SUBPROCESS
    | _EXEC_ARGV
    | _EXEC_LIST
    | _SPAWN_ARGV
    | _SPAWN_LIST
    | _RECURSIVE_DELETE
    | _DELETE
    | {"os.chdir", "posix.chdir"}
    | _MOVE
    | _COPY
    | {"pty.spawn", "os.posix_spawn", "os.posix_spawnp", "os.path.join", "pathlib.Path"}
)


def _parameters(args: ast.arguments) -> list[str]:
    """Every parameter name of a function or lambda (``*a`` and ``**k`` too)."""
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    return [a.arg for a in named if a is not None]


def _text(value: _Value) -> str:
    """A folded value as one word: lists and unknowns are ``UNKNOWN``."""
    if isinstance(value, str):
        return str(value)
    return UNKNOWN


def _join(*parts: str) -> str:
    out = ""
    for part in parts:
        out = part if part.startswith("/") or not out else out.rstrip("/") + "/" + part
    return out


def _percent(template: str, values: tuple[str, ...]) -> str:
    """``"rm -rf %s" % p`` and ``"{}".format(p)`` (plain placeholders only)."""
    pieces = template.split("%s")
    if len(pieces) - 1 != len(values):
        return UNKNOWN
    out = pieces[0]
    for value, piece in zip(values, pieces[1:], strict=True):
        out += value + piece
    return out


def _decode(name: str, args: list[_Value]) -> str | None:
    """``base64.b64decode("...")``, ``bytes.fromhex("...")``, ``codecs.decode(x, "rot13")``."""
    if not args or not isinstance(args[0], str) or has_marker(args[0]):
        return None if name not in _DECODERS else UNKNOWN
    data = args[0]
    import base64  # the decoders: only for code that decodes a literal
    import binascii
    import codecs

    try:
        if name in ("base64.b64decode", "base64.decodebytes", "base64.standard_b64decode"):
            return base64.b64decode(data).decode("utf-8", "replace")
        if name == "base64.urlsafe_b64decode":
            return base64.urlsafe_b64decode(data).decode("utf-8", "replace")
        if name == "base64.b32decode":
            return base64.b32decode(data).decode("utf-8", "replace")
        if name in ("bytes.fromhex", "bytearray.fromhex", "binascii.unhexlify", "binascii.a2b_hex"):
            return binascii.unhexlify("".join(data.split())).decode("utf-8", "replace")
        if name == "codecs.decode" and len(args) > 1 and isinstance(args[1], str):
            encoding = args[1].lower().replace("-", "_")
            if encoding in ("hex", "hex_codec"):
                return binascii.unhexlify(data).decode("utf-8", "replace")
            if encoding in ("rot13", "rot_13"):
                return codecs.decode(data, "rot13")
            if encoding in ("base64", "base64_codec"):
                return base64.b64decode(data).decode("utf-8", "replace")
    except (ValueError, LookupError):  # binascii.Error is a ValueError
        return UNKNOWN
    return None if name not in _DECODERS else UNKNOWN


_DECODERS = frozenset(
    {
        "base64.b64decode",
        "base64.decodebytes",
        "base64.standard_b64decode",
        "base64.urlsafe_b64decode",
        "base64.b32decode",
        "bytes.fromhex",
        "bytearray.fromhex",
        "binascii.unhexlify",
        "binascii.a2b_hex",
        "codecs.decode",
    }
)
