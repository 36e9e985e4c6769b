"""JavaScript, Ruby, Perl, PHP and Lua code read with their tree-sitter grammars.

The counterpart of :mod:`agentreflex.gate.code.pycode` for the other interpreters
a one-liner can use (``node -e``, ``deno eval``, ``bun -e``, ``ruby -e``,
``perl -e``, ``php -r``, ``lua -e``): the code is parsed, walked in order,
simple assignments are remembered (``my $x = "/etc"``, ``const cp =
require("child_process")``, ``local e = os.execute``), and each call that
runs a program or deletes or writes a file has its arguments folded:
string literals with their escapes, interpolation (``"#{x}"``, ``"$x"``,
`` `${x}` ``) and concatenation (``+``, ``.``, ``..``).  Parts that cannot be
known become the shell model's ``UNKNOWN`` marker.  A string that is only
printed is data and is never looked at.

Code with a syntax error, or a grammar that cannot be loaded, gives ``None``
and the caller falls back to the regex scan.  Imported only for such code.
"""

from __future__ import annotations

import re

from agentreflex.gate.code.interp import SDK_DESTRUCTIVE, Effect
from agentreflex.gate.model import UNKNOWN, has_marker
from agentreflex.gate.shell.words import quote

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# grammar -> (package, function returning the language)
_PACKAGES = {
    "javascript": ("tree_sitter_javascript", "language"),
    "ruby": ("tree_sitter_ruby", "language"),
    "perl": ("tree_sitter_perl", "language"),
    "php": ("tree_sitter_php", "language_php_only"),
    "lua": ("tree_sitter_lua", "language"),
}

# What each call does.  "shell": its first argument is a command line (with
# more than one argument, the words of a command: Ruby's and Perl's
# ``system``); "argv": a program and a list of its arguments; "delete",
# "delete-r" (recursive), "rmdir", "write", "append": its file arguments;
# "rm-opts": a delete that is recursive when its options say so; "chdir": where
# later relative paths are.
_SHELL, _ARGV, _LIST = "shell", "argv", "list"
_JS = {
    "child_process.exec": _SHELL,
    "child_process.execSync": _SHELL,
    "child_process.spawn": _ARGV,
    "child_process.spawnSync": _ARGV,
    "child_process.execFile": _ARGV,
    "child_process.execFileSync": _ARGV,
    "fs.rmSync": "rm-opts",
    "fs.rm": "rm-opts",
    "fs.rmdirSync": "rm-opts",
    "fs.rmdir": "rm-opts",
    "fs.unlinkSync": "delete",
    "fs.unlink": "delete",
    "fs.writeFileSync": "write",
    "fs.writeFile": "write",
    "fs.appendFileSync": "append",
    "fs.appendFile": "append",
    "fs.readFileSync": "read",
    "fs.readFile": "read",
    "fs.promises.readFile": "read",
    "fs.createReadStream": "read",
    "Deno.readTextFileSync": "read",
    "Deno.readTextFile": "read",
    "Deno.readFileSync": "read",
    "Deno.readFile": "read",
    "Bun.file": "read",
    "Deno.remove": "rm-opts",
    "Deno.removeSync": "rm-opts",
    "Deno.writeTextFileSync": "write",
    "Deno.writeTextFile": "write",
    "Bun.spawn": _LIST,
    "Bun.spawnSync": _LIST,
    "process.chdir": "chdir",
    "Deno.chdir": "chdir",
    "eval": "code",
    "Function": "code",
}
_RUBY = {
    "system": _SHELL,
    "exec": _SHELL,
    "spawn": _SHELL,
    "Process.spawn": _SHELL,
    "Process.exec": _SHELL,
    "IO.popen": _SHELL,
    "Open3.capture2": _SHELL,
    "Open3.capture2e": _SHELL,
    "Open3.capture3": _SHELL,
    "Open3.popen2": _SHELL,
    "Open3.popen2e": _SHELL,
    "Open3.popen3": _SHELL,
    "FileUtils.rm_rf": "delete-r",
    "FileUtils.rm_r": "delete-r",
    "FileUtils.rmtree": "delete-r",
    "FileUtils.remove_dir": "delete-r",
    "FileUtils.remove_entry": "delete-r",
    "FileUtils.remove_entry_secure": "delete-r",
    "FileUtils.rm": "delete",
    "FileUtils.rm_f": "delete",
    "FileUtils.remove": "delete",
    "FileUtils.rmdir": "rmdir",
    "File.delete": "delete",
    "File.unlink": "delete",
    "Dir.rmdir": "rmdir",
    "Dir.delete": "rmdir",
    "Dir.unlink": "rmdir",
    "File.write": "write",
    "File.read": "read",
    "File.binread": "read",
    "File.readlines": "read",
    "IO.read": "read",
    "IO.binread": "read",
    "open": "open",
    "File.open": "open",
    "Dir.chdir": "chdir",
    "eval": "code",
}
_PERL = {
    "system": _SHELL,
    "exec": _SHELL,
    "unlink": "delete",
    "rmdir": "rmdir",
    "rmtree": "delete-r",
    "remove_tree": "delete-r",
    "File::Path::rmtree": "delete-r",
    "File::Path::remove_tree": "delete-r",
    "open": "open",
    "chdir": "chdir",
    "eval": "code",
}
_PHP = {
    "system": _SHELL,
    "exec": _SHELL,
    "shell_exec": _SHELL,
    "passthru": _SHELL,
    "popen": _SHELL,
    "proc_open": _SHELL,
    "pcntl_exec": _ARGV,
    "unlink": "delete",
    "rmdir": "rmdir",
    "file_put_contents": "write",
    "file_get_contents": "read",
    "file": "read",
    "readfile": "read",
    "fopen": "open",
    "chdir": "chdir",
    "eval": "code",
}
_LUA = {
    "os.execute": _SHELL,
    "io.popen": _SHELL,
    "os.remove": "delete",
    "io.open": "open",
    "lfs.chdir": "chdir",
    "load": "code",
    "loadstring": "code",
}
_APIS = {"javascript": _JS, "ruby": _RUBY, "perl": _PERL, "php": _PHP, "lua": _LUA}

# Node types, per grammar.
_CALLS = {
    "javascript": {"call_expression", "new_expression"},
    "ruby": {"call", "command", "command_call"},
    # func1op: the one-argument builtins (``chdir $x``, ``rmdir "d"``)
    "perl": {
        "function_call_expression",
        "ambiguous_function_call_expression",
        "func1op_call_expression",
    },
    "php": {"function_call_expression", "member_call_expression"},
    "lua": {"function_call"},
}
_SUBSHELLS = {"subshell", "command_string", "shell_command_expression"}  # `...`, qx, %x
_STRINGS = {
    "string",
    "template_string",
    "string_literal",
    "interpolated_string_literal",
    "encapsed_string",
    "heredoc",
    "nowdoc",
    *_SUBSHELLS,
}
_INTERPOLATIONS = {"interpolation", "template_substitution"}
_VARIABLES = {"identifier", "scalar", "variable_name", "constant"}
_ARRAYS = {"array", "array_creation_expression", "table_constructor", "anonymous_array_expression"}
_CONCAT = {"+", ".", ".."}
_ESCAPE = re.compile(
    r"\\(?:x([0-9a-fA-F]{1,2})|u\{([0-9a-fA-F]+)\}|u([0-9a-fA-F]{4})|([0-7]{1,3})|(.))"
)
# Lua's numeric escapes are decimal (``\114`` is ``r``)
_LUA_ESCAPE = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]+)\}|(?!)()|([0-9]{1,3})|(.))")
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "e": "\x1b", "a": "\a"}
_MAX_DEPTH = 4
_GLOBS = frozenset({"glob", "Dir.glob", "CORE::glob"})
# calls that join path parts with "/": ``path.join(os.homedir(), ".ssh", "id_rsa")``
_JOINS = frozenset({"path.join", "path.resolve", "path.posix.join", "File.join"})
# calls that call the function they are given by name
_DISPATCHERS = frozenset(
    {
        "call_user_func",
        "call_user_func_array",
        "send",
        "__send__",
        "public_send",
        "Kernel.send",
        "Kernel.__send__",
        "Kernel.public_send",
        "Object.send",
    }
)
_DYNAMIC = "\x00dynamic"  # a callee whose name is computed at run time


def effects(code: str, grammar: str, depth: int = 0) -> list[Effect] | None:
    """The effects of ``code`` in ``grammar``, or ``None`` (no grammar, or it does not parse)."""
    if grammar not in _PACKAGES:
        return None
    try:
        from agentreflex.gate.shell import parser as _tree

        parser = _tree.grammar_parser(*_PACKAGES[grammar])
        source = code.encode("utf-8", "surrogatepass")
        root = parser.parse(source).root_node
    except Exception:  # a grammar missing or broken: the scan still applies
        return None
    if root.has_error:
        return None
    reader = _Reader(grammar, source, depth)
    try:
        reader.visit(root)
    except RecursionError:
        return None
    return reader.found


class _Reader:
    """Walks one parse tree in source order, binding names and judging calls."""

    def __init__(self, grammar: str, source: bytes, depth: int) -> None:
        self.grammar = grammar
        self.source = source
        self.depth = depth
        self.apis = _APIS[grammar]
        self.values: dict[str, str | tuple[str, ...]] = {}
        self.aliases: dict[str, str] = {}
        self.found: list[Effect] = []

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # --- walk ---------------------------------------------------------------

    def visit(self, node: Any) -> None:
        for child in node.children:
            self.visit(child)
        kind = node.type
        if kind in _CALLS[self.grammar]:
            self.call(node)
        elif kind in _SUBSHELLS:
            self.shell("backticks", self.fold(node))
        elif kind in ("variable_declarator", "assignment_expression", "assignment"):
            self.assign(
                node.child_by_field_name("left") or node.child_by_field_name("name"),
                node.child_by_field_name("right") or node.child_by_field_name("value"),
            )
        elif kind == "import_statement":
            self.es_import(node)
        elif kind == "assignment_statement":  # lua: a, b = x, y
            names = [c for c in node.children if c.type == "variable_list"]
            values = [c for c in node.children if c.type == "expression_list"]
            if names and values:
                for n, v in zip(names[0].named_children, values[0].named_children, strict=False):
                    self.assign(n, v)

    def assign(self, target: Any, value: Any) -> None:
        if target is None or value is None:
            return
        if target.type == "variable_declaration":  # perl: my $x = ...
            target = target.child_by_field_name("variable") or target.named_children[-1]
        if target.type == "object_pattern":
            self.destructure(target, value)
            return
        name = self.text(target)
        path = self.callee(value)
        member = value.type in ("member_expression", "dot_index_expression", "scope_resolution")
        if path.startswith("module:") or (path and (member or value.type == "identifier")):
            self.aliases[name] = path.removeprefix("module:")
            self.values.pop(name, None)
        else:
            self.aliases.pop(name, None)
            self.values[name] = self.fold(value)

    def es_import(self, node: Any) -> None:
        """``import {execSync as run} from "child_process"``, ``import * as cp from ...``."""
        source = node.child_by_field_name("source")
        module = self.fold(source) if source is not None else UNKNOWN
        if not isinstance(module, str) or has_marker(module):
            return
        module = module.removeprefix("node:").replace("/promises", "")
        for clause in node.named_children:
            if clause.type != "import_clause":
                continue
            for part in clause.named_children:
                if part.type == "identifier":  # default import
                    self.aliases[self.text(part)] = module
                elif part.type == "namespace_import" and part.named_children:
                    self.aliases[self.text(part.named_children[-1])] = module
                elif part.type == "named_imports":
                    for spec in part.named_children:
                        name = spec.child_by_field_name("name")
                        alias = spec.child_by_field_name("alias") or name
                        if name is not None and alias is not None:
                            self.aliases[self.text(alias)] = f"{module}.{self.text(name)}"

    def destructure(self, pattern: Any, value: Any) -> None:
        """``const {execSync, spawn: run} = require("child_process")``."""
        module = self.callee(value).removeprefix("module:")
        for part in pattern.named_children:
            if part.type == "shorthand_property_identifier_pattern":
                self.aliases[self.text(part)] = f"{module}.{self.text(part)}"
            elif part.type == "pair_pattern":
                key, local = part.child_by_field_name("key"), part.child_by_field_name("value")
                if key is not None and local is not None:
                    self.aliases[self.text(local)] = f"{module}.{self.text(key)}"

    # --- names ----------------------------------------------------------------

    def callee(self, node: Any) -> str:
        """The dotted name a callee spells (``cp.execSync`` -> ``child_process.execSync``)."""
        kind = node.type
        if kind in ("identifier", "constant", "name", "function", "property_identifier"):
            name = self.text(node).lstrip("\\")
            if name in self.values:
                return ""
            return self.aliases.get(name, name)
        if kind in ("member_expression", "dot_index_expression", "scope_resolution"):
            obj = node.child_by_field_name("object") or node.child_by_field_name("table")
            prop = node.child_by_field_name("property") or node.child_by_field_name("field")
            if kind == "scope_resolution":
                obj, prop = node.child_by_field_name("scope"), node.child_by_field_name("name")
            if obj is None or prop is None:
                return ""
            base = self.callee(obj).removeprefix("module:")
            return f"{base}.{self.text(prop)}" if base else ""
        if kind == "call_expression":  # require("fs") / require("node:fs")
            fn = node.child_by_field_name("function")
            args = node.child_by_field_name("arguments")
            if fn is not None and self.text(fn) == "require" and args is not None:
                first = args.named_children[:1]
                module = self.fold(first[0]) if first else UNKNOWN
                if isinstance(module, str) and not has_marker(module):
                    module = module.removeprefix("node:").replace("/promises", "")
                    return "module:" + module
        if kind == "parenthesized_expression" and node.named_children:
            return self.callee(node.named_children[0])
        if kind == "subscript_expression":  # cp["execSync"]
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            key = self.fold(index) if index is not None else UNKNOWN
            base = self.callee(obj).removeprefix("module:") if obj is not None else ""
            if base and isinstance(key, str) and not has_marker(key):
                return f"{base}.{key}"
        return ""

    def method_name(self, node: Any) -> str:
        """The method a call invokes on an object (``client.deleteIndex()``), else ""."""
        if self.grammar == "ruby":
            method = node.child_by_field_name("method")
            has_receiver = node.child_by_field_name("receiver") is not None
            return self.text(method) if method is not None and has_receiver else ""
        if node.type == "member_call_expression":  # php
            method = node.child_by_field_name("name")
            return self.text(method) if method is not None else ""
        fn = node.child_by_field_name("function") or node.child_by_field_name("name")
        if fn is None:
            return ""
        method = fn.child_by_field_name("property") or fn.child_by_field_name("method")
        if method is None and fn.type == "dot_index_expression":
            method = fn.child_by_field_name("field")
        return self.text(method) if method is not None else ""

    def call_name(self, node: Any) -> str:
        if self.grammar == "ruby":
            method = node.child_by_field_name("method")
            receiver = node.child_by_field_name("receiver")
            if method is None:
                return ""
            name = self.text(method)
            if receiver is not None:
                base = self.callee(receiver)
                name = f"{base}.{name}" if base else ""
            return name.removeprefix("Kernel.")
        if node.type == "func1op_call_expression":
            return node.children[0].type if node.children else ""
        fn = node.child_by_field_name("function") or node.child_by_field_name("name")
        if fn is None and node.type == "new_expression":
            fn = node.child_by_field_name("constructor")
        if fn is None:
            return ""
        if self.grammar == "perl":
            return self.text(fn).removeprefix("CORE::")
        if fn.type == "variable_name":  # php: $f("...") calls the function $f names
            named = self.values.get(self.text(fn), UNKNOWN)
            return named if isinstance(named, str) and not has_marker(named) else _DYNAMIC
        name = self.callee(fn).removeprefix("module:")
        if self.grammar == "javascript":
            name = re.sub(r"^(?:fs\.promises|fsPromises|fsp)\.", "fs.", name)
            name = name.removeprefix("globalThis.").removeprefix("process.binding.")
        return name

    def arguments(self, node: Any) -> list[Any]:
        if node.type == "func1op_call_expression":
            return list(node.named_children[:1])
        args = node.child_by_field_name("arguments")
        if args is None:
            return []
        if args.type in ("list_expression", "parenthesized_expression"):
            return list(args.named_children)
        if args.type not in ("arguments", "argument_list"):
            return [args]  # perl: system "ls" (one argument, no list)
        out = []
        for a in args.named_children:
            if a.type == "argument" and a.named_children:  # php
                a = a.named_children[-1]
            if a.type == "list_expression":
                out.extend(a.named_children)
            elif a.type != "comment":
                out.append(a)
        return out

    # --- calls -----------------------------------------------------------------

    def call(self, node: Any) -> None:
        method = self.method_name(node)
        if method in SDK_DESTRUCTIVE:
            self.found.append(Effect("sdk", f"{method}() {SDK_DESTRUCTIVE[method]}"))
            return
        if node.type == "member_call_expression":
            return  # php $obj->method(): only the SDK methods above
        name = self.call_name(node)
        if name == _DYNAMIC:
            self.unresolved("a function", "a name")
            return
        args = self.arguments(node)
        if name in _DISPATCHERS:  # call_user_func("system", ...), send(:system, ...)
            target = self.fold(args[0]) if args else UNKNOWN
            if not isinstance(target, str) or has_marker(target):
                self.unresolved(name, "a function name")
                return
            name, args = target.lstrip(":"), args[1:]
        action = self.apis.get(name)
        if action is None:
            return
        self.judge(name, action, args)

    def judge(self, name: str, action: str, args: list[Any]) -> None:
        """One call of a known API with its argument nodes."""
        values = [self.fold(a) for a in args]
        if any(a.type in ("spread_element", "splat_argument", "array") for a in args[:1]) and (
            action == _SHELL and self.grammar != "php"
        ):
            action = _LIST
        if action == _SHELL:
            if len(values) > 1 and self.grammar in ("ruby", "perl"):
                self.argv(name, [w for v in values for w in _words(v)])
            elif values and isinstance(values[0], tuple):
                self.argv(name, list(values[0]))
            else:
                self.shell(name, values[0] if values else UNKNOWN)
        elif action == _LIST:
            self.argv(name, [w for v in values for w in _words(v)])
        elif action == _ARGV:
            rest = _words(values[1]) if len(values) > 1 and isinstance(values[1], tuple) else []
            self.argv(name, [_word(values[0]) if values else UNKNOWN, *rest])
        elif action == "code":
            self.code(name, values[0] if values else UNKNOWN)
        elif action == "open":
            self.open(name, values)
        elif action == "chdir":
            # relative paths after it are relative to where it went (issue #28:
            # an interpreter that chdirs and then deletes relative paths)
            where = _word(values[0]) if values else UNKNOWN
            self.found.append(Effect("chdir", UNKNOWN if has_marker(where) else where))
        else:
            self.files(name, action, args, values)

    def open(self, api: str, values: list[str | tuple[str, ...]]) -> None:
        """``open``: a pipe (perl ``"|cmd"``, ``"-|", cmd``; ruby ``open("|cmd")``) runs
        a command; a write mode (``">"``, ``"w"``, ``"a"``) writes its file."""
        words = [_word(v) for v in values]
        if self.grammar == "perl":
            words = words[1:]  # the file handle
        if len(words) >= 2 and words[0].strip() in ("-|", "|-"):
            if len(words) == 2:
                self.shell(api, words[1])
            else:
                self.argv(api, words[1:])
            return
        if len(words) == 1 and self.grammar in ("perl", "ruby"):
            spec = words[0].strip()
            if spec.startswith("|") or spec.endswith("|"):
                command = spec.strip("|").strip()
                if command.split()[:1] in (["sh"], ["bash"], ["zsh"], ["dash"], ["ksh"]):
                    self.unresolved(api, "the commands it prints to a shell, which are")
                else:
                    self.shell(api, command)
                return
            mode, path = ("", spec) if self.grammar == "ruby" else _perl_mode(spec)
        elif len(words) >= 2:
            first, second = words[0].strip(), words[1].strip()
            mode, path = (first, second) if self.grammar == "perl" else (second, first)
        else:
            return
        if path and path != UNKNOWN and not has_marker(mode):
            if ">>" in mode or "a" in mode:
                self.found.append(Effect("append", path))
            elif ">" in mode or "w" in mode or "+<" in mode:
                self.found.append(Effect("write", path))

    def files(self, api: str, action: str, args: list[Any], values: list[Any]) -> None:
        if action == "rm-opts":
            options = self.text(args[1]) if len(args) > 1 else ""
            action = "delete-r" if re.search(r"recursive\s*:\s*true", options) else "delete"
            if api.startswith(("fs.rmdir",)) and action == "delete":
                action = "rmdir"
        # one path first (fs.rmSync(p, options), File.write(p, data)); Ruby's,
        # Perl's and PHP's deletes take a list of paths
        single = action in ("write", "append", "read") or self.grammar in ("javascript", "lua")
        targets = values[:1] if single else values
        if not targets:
            self.unresolved(api, "a path")
            return
        for value in targets:
            for path in _words(value):
                if action == "read" and has_marker(path):
                    continue  # a read of a path known only at run time proves nothing
                if path == UNKNOWN or not path:
                    if action in ("write", "append", "read"):
                        continue
                    self.unresolved(api, "a path")
                elif action in ("write", "append", "read"):
                    self.found.append(Effect(action, path))
                elif action == "rmdir":
                    self.found.append(Effect("argv", f"rmdir {quote(path)}", ("rmdir", path)))
                else:
                    kind = "delete-recursive" if action == "delete-r" else "delete"
                    self.found.append(Effect(kind, path))

    def shell(self, api: str, value: str | tuple[str, ...]) -> None:
        if not isinstance(value, str) or value == UNKNOWN:
            self.unresolved(api, "a command line")
        elif has_marker(value):
            self.unresolved(api, "a command line built from values known only at run time")
        elif value.strip():
            self.found.append(Effect("shell", value))

    def argv(self, api: str, words: list[str]) -> None:
        if not words or has_marker(words[0]):
            self.unresolved(api, "a program name")
            return
        self.found.append(Effect("argv", " ".join(quote(w) for w in words), tuple(words)))

    def code(self, api: str, value: str | tuple[str, ...]) -> None:
        if isinstance(value, str) and not has_marker(value):
            if self.depth < _MAX_DEPTH:
                inner = effects(value, self.grammar, self.depth + 1)
                self.found.extend(inner or [])
            return
        self.unresolved(api, "code")

    def unresolved(self, api: str, what: str) -> None:
        self.found.append(Effect("unresolved", f"{api} is given {what} known only at run time"))

    # --- values ------------------------------------------------------------------

    def fold(self, node: Any) -> str | tuple[str, ...]:
        """The literal value of an expression; unknown parts become ``UNKNOWN``."""
        kind = node.type
        if kind in _STRINGS:
            return self.string(node)
        if kind not in _VARIABLES and node.end_byte - node.start_byte < 80:
            from agentreflex.gate.code.interp import spelled_home_or_root

            spelled = spelled_home_or_root(self.text(node))
            if spelled:
                return spelled
        if kind in ("number", "integer", "float"):
            return self.text(node)
        if kind == "simple_symbol":  # ruby :system
            return self.text(node).lstrip(":")
        if kind in _VARIABLES:
            return self.values.get(self.text(node), UNKNOWN)
        if kind in _ARRAYS or kind == "list_expression":
            items = []
            for item in node.named_children:
                if item.type in ("array_element_initializer", "field") and item.named_children:
                    item = item.named_children[-1]
                if item.type == "comment":
                    continue
                items.extend(_words(self.fold(item)))
            return tuple(items)
        if kind in ("binary_expression", "binary"):
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if (
                op is not None
                and self.text(op) in _CONCAT
                and left is not None
                and right is not None
            ):
                a, b = self.fold(left), self.fold(right)
                if isinstance(a, tuple) and isinstance(b, tuple) and self.text(op) == "+":
                    return a + b
                return _word(a) + _word(b)
            return UNKNOWN
        if kind in _CALLS[self.grammar] and self.call_name(node) in _JOINS:
            parts = [_word(self.fold(a)) for a in self.arguments(node)]
            return "/".join(p.rstrip("/") for p in parts) if parts else UNKNOWN
        if kind in _CALLS[self.grammar] and self.call_name(node) in _GLOBS:
            args = self.arguments(node)  # the pattern a glob expands: what is deleted
            return self.fold(args[0]) if args else UNKNOWN
        if kind == "element_reference" and self.text(node).startswith("Dir["):
            return self.fold(node.named_children[-1]) if len(node.named_children) > 1 else UNKNOWN
        if (
            kind in ("parenthesized_expression", "expression_list")
            and len(node.named_children) == 1
        ):
            return self.fold(node.named_children[0])
        if kind == "argument" and node.named_children:
            return self.fold(node.named_children[-1])
        return UNKNOWN

    def string(self, node: Any) -> str:
        """A string literal's value: escapes decoded, interpolations folded."""
        children = list(node.children)
        while children and not children[0].is_named:
            children.pop(0)  # opening quote, qx, %x(
        while children and not children[-1].is_named:
            children.pop()  # closing quote
        if not children:
            return ""
        start, end = children[0].start_byte, children[-1].end_byte
        return self.span(children, start, end)

    def span(self, children: list[Any], start: int, end: int) -> str:
        out, pos = [], start
        for child in children:
            out.append(self.source[pos : child.start_byte].decode("utf-8", "replace"))
            out.append(self.part(child))
            pos = child.end_byte
        out.append(self.source[pos:end].decode("utf-8", "replace"))
        return "".join(out)

    def part(self, node: Any) -> str:
        kind = node.type
        if kind in _INTERPOLATIONS:
            inner = node.named_children
            return _word(self.fold(inner[0])) if len(inner) == 1 else UNKNOWN
        if kind in ("scalar", "variable_name", "array_element_expression", "array"):
            return _word(self.fold(node)) if kind in ("scalar", "variable_name") else UNKNOWN
        if kind == "hash_element_expression":  # perl's "$ENV{HOME}/.ssh"
            return _word(self.fold(node))
        if kind in ("escape_sequence", "escape_sequence_literal"):
            return self.unescape(self.text(node))
        if not node.is_named and self.text(node) in ("{", "}") and self.grammar == "php":
            return ""
        if node.child_count == 0:
            return self.text(node)
        return self.span(list(node.children), node.start_byte, node.end_byte)

    def unescape(self, text: str) -> str:
        def sub(m: re.Match[str]) -> str:
            hex2, brace, u4, octal, other = m.groups()
            if hex2 or brace or u4:
                return chr(int(hex2 or brace or u4, 16))
            if octal:
                return chr(int(octal, 10 if self.grammar == "lua" else 8) & 0x10FFFF)
            return _SIMPLE_ESCAPES.get(other, other)

        try:
            return (_LUA_ESCAPE if self.grammar == "lua" else _ESCAPE).sub(sub, text)
        except (ValueError, OverflowError):
            return UNKNOWN


def _perl_mode(spec: str) -> tuple[str, str]:
    """Perl's two-argument ``open``: ``">/etc/x"`` -> (``">"``, ``/etc/x``)."""
    for mode in ("+>>", "+<", "+>", ">>", ">", "<"):
        if spec.startswith(mode):
            return mode, spec[len(mode) :].strip()
    return "<", spec


def _word(value: str | tuple[str, ...]) -> str:
    return value if isinstance(value, str) else UNKNOWN


def _words(value: str | tuple[str, ...]) -> list[str]:
    return list(value) if isinstance(value, tuple) else [value]
