"""Windows shells: PowerShell and cmd.exe commands, and what they delete (issue 30).

A host may run its shell tool in PowerShell or cmd (Codex and Claude Code on
Windows; the payload's tool name or ``shell`` field says so), and a bash
command may hand text to them (``cmd /c rd /s /q C:\\``, ``powershell
-Command "Remove-Item -Recurse -Force ..."``; anthropics/claude-code#86667:
``cmd /c rd /s /q`` wiped a drive).  PowerShell is parsed with tree-sitter's
PowerShell grammar (``tree-sitter-powershell``, MIT, airbus-cert), loaded only
for such commands; cmd.exe has no maintained parser, and its syntax is small:
it is split on ``&``, ``&&``, ``||``, ``|`` and newlines and each part into
words with double quotes, which is how cmd itself reads a command line.

The destructive forms: ``Remove-Item`` (and its aliases ``ri``, ``rm``,
``del``, ``erase``, ``rd``, ``rmdir``) with ``-Recurse`` or a wildcard,
``rd /s``, ``del /s``, ``Format-Volume``/``format``/``Clear-Disk``/
``diskpart``, ``Clear-Content`` and ``Set-Content``/``Out-File`` over a
system or profile file.  Paths are classified the Windows way: a drive root,
the user's profile, ``C:\\Windows`` and ``C:\\Program Files``; a relative
path stays in the working folder.  Every other program (``git``, ``docker``,
``psql``...) takes its argv the same way on Windows, so it is judged by the
ordinary rules.  Findings reuse the shell rules' codes.
"""

from __future__ import annotations

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.record import field, record
from agentreflex.gate.model import ASK, DESTRUCTIVE, P_BLOCK, P_WARN, UNKNOWN, Cmd, Hit
from agentreflex.gate.shell.paths import Where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_REMOVE = frozenset({"remove-item", "ri", "rm", "del", "erase", "rd", "rmdir"})
_LISTERS = frozenset({"get-childitem", "gci", "ls", "dir"})
_DISK = frozenset(
    {"format-volume", "clear-disk", "initialize-disk", "remove-partition", "format", "diskpart"}
)
_WRITERS = frozenset({"clear-content", "set-content", "out-file", "sc", "clc"})
_SHELLS = frozenset({"cmd", "cmd.exe", "powershell", "powershell.exe", "pwsh", "pwsh.exe"})
_SYSTEM = ("windows", "program files", "program files (x86)", "programdata", "system32")
_HOME_VARS = ("$home", "$env:userprofile", "%userprofile%", "~", "$env:homepath", "%homepath%")
_SYSTEM_VARS = ("$env:windir", "$env:systemroot", "%windir%", "%systemroot%", "$env:programfiles")


@record
class WinCmd:
    """One Windows command: its name (lower case), words, and the listing piped into it."""

    name: str
    words: list[str]
    text: str
    piped_from: list[str] = field(default_factory=list)


def dialect_of(tool_name: str, shell: str) -> str:
    """``powershell``, ``cmd`` or ``""`` from a host's tool name or its ``shell`` field."""
    for value in (shell, tool_name):
        base = value.replace("\\", "/").rsplit("/", 1)[-1].lower()
        # Copilot CLI types into its running PowerShell with ``write_powershell`` (red-team rt41)
        base = base.removeprefix("write_")
        if base in ("powershell", "powershell.exe", "pwsh", "pwsh.exe"):
            return "powershell"
        if base in ("cmd", "cmd.exe"):
            return "cmd"
    return ""


def launched(cmd: Cmd, where: Where) -> list[Hit]:
    """``cmd /c TEXT`` or ``powershell -Command TEXT`` run from another shell."""
    name = cmd.name.rsplit("/", 1)[-1].lower()
    if name not in _SHELLS:
        return []
    payload = _payload(name, cmd.args)
    if payload is None:
        return []
    dialect = "cmd" if name.startswith("cmd") else "powershell"
    return analyse(payload, dialect, where)


def _payload(name: str, args: list[str]) -> str | None:
    if name.startswith("cmd"):
        for i, a in enumerate(args):
            if a.lower() in ("/c", "/k", "/r"):
                return " ".join(args[i + 1 :])
        return None
    for i, a in enumerate(args):
        low = a.lower()
        if low in ("-c", "-command", "/c", "-com", "-comm", "-comma", "-comman"):
            return " ".join(args[i + 1 :])
        if low in ("-e", "-ec", "-enc", "-encodedcommand") and i + 1 < len(args):
            return _decoded(args[i + 1])
        if not low.startswith("-"):
            return " ".join(args[i:])  # powershell "Remove-Item ...": the command itself
        if low in ("-file", "-f", "-executionpolicy", "-ep", "-windowstyle", "-w"):
            return None if low in ("-file", "-f") else _payload(name, args[i + 2 :])
    return None


def _decoded(value: str) -> str | None:
    import base64
    import binascii

    try:
        return base64.b64decode(value, validate=True).decode("utf-16-le")
    except (binascii.Error, ValueError):
        return None


def analyse(text: str, dialect: str, where: Where) -> list[Hit]:
    """Every hit in ``text`` read as ``dialect`` (``powershell`` or ``cmd``)."""
    cmds = _powershell(text) if dialect == "powershell" else _cmd_exe(text)
    if cmds is None:
        return [
            Hit(
                "GATE-PARSE-ERROR",
                ASK,
                1.0,
                redact_head(text, 200),
                "The PowerShell command does not parse, so what it would run cannot be "
                "checked. Fix the quoting.",
            )
        ]
    hits: list[Hit] = []
    for wc in cmds:
        hits.extend(_judge(wc, where))
    return hits


def _judge(wc: WinCmd, where: Where) -> list[Hit]:
    name = wc.name
    if name in _REMOVE:
        return _remove(wc, where)
    if name in _DISK:
        return [
            _hit(
                "GATE-DISK-FORMAT",
                wc,
                "This formats or wipes a disk: every file on it is lost. Ask the user to do it.",
            )
        ]
    if name in _WRITERS:
        return _write(wc, where)
    if name in _SHELLS:
        payload = _payload(name, wc.words)
        if payload is None:
            return []
        return analyse(payload, "cmd" if name.startswith("cmd") else "powershell", where)
    if name.endswith(".exe"):
        name = name[:-4]
    # git, docker, psql...: the same argv on every system, judged by the ordinary rules
    from agentreflex.gate.analyze import analyse as shell_analyse
    from agentreflex.gate.shell.words import quote

    line = " ".join(quote(w) for w in [name, *wc.words])
    import time

    return shell_analyse(line, where, {}, time.monotonic() + 0.2).hits


def _remove(wc: WinCmd, where: Where) -> list[Hit]:
    recurse = False
    paths: list[str] = []
    words = wc.words
    skip = False
    for i, w in enumerate(words):
        low = w.lower()
        if skip:
            skip = False
            continue
        if low in ("/s",) or (low.startswith("-r") and "-recurse".startswith(low)):
            recurse = True
        elif low in ("-path", "-literalpath", "-lp"):
            if i + 1 < len(words):
                paths.append(words[i + 1])
            skip = True
        elif low in ("-include", "-exclude", "-filter"):
            skip = True
        elif low.startswith("-") or (low[:1] == "/" and len(low) <= 3 and low[1:].isalpha()):
            continue  # a PowerShell parameter, or a cmd switch (/q, /f, /a)
        else:
            paths.append(w)
    if not paths and wc.piped_from:
        paths = [p.rstrip("\\/") + "\\*" for p in wc.piped_from]
        recurse = True
    hits: list[Hit] = []
    for p in paths:
        hit = _remove_target(p, recurse, wc, where)
        if hit is not None:
            hits.append(hit)
    return hits


def _remove_target(path: str, recurse: bool, wc: WinCmd, where: Where) -> Hit | None:
    wild = "*" in path
    kind = classify(path, where)
    if kind == "inside":
        return None
    if kind == "unknown":
        if not (recurse or wild):
            return None
        return Hit(
            "GATE-RM-UNRESOLVED",
            ASK,
            1.0,
            wc.text,
            "The folder to delete is only known at run time. Spell out a path inside the project.",
        )
    if kind == "root" and (recurse or wild):
        return _hit(
            "GATE-RM-ROOT",
            wc,
            f"This deletes everything on the drive ({path}). "
            "Delete only build output inside the project (Remove-Item -Recurse .\\dist).",
        )
    if kind == "home" and (recurse or wild):
        return _hit(
            "GATE-RM-ROOT",
            wc,
            f"This deletes the user's whole profile ({path}). "
            "Delete only the specific folder inside the project.",
        )
    if kind == "system":
        return _hit(
            "GATE-RM-SYSTEM",
            wc,
            f"This deletes Windows system files ({path}). Work inside the project or $env:TEMP.",
        )
    if kind == "temp":
        return None
    if recurse or wild:
        return _hit(
            "GATE-RM-RECURSIVE-OUTSIDE",
            wc,
            f"This recursively deletes {path}, "
            "outside the project. Delete only inside the project, or ask the user; "
            "Remove-Item -WhatIf lists what would go.",
        )
    return Hit.destructive(
        "GATE-RM-OUTSIDE", P_WARN, _as_cmd(wc), f"This deletes {path}, outside the project."
    )


def _write(wc: WinCmd, where: Where) -> list[Hit]:
    words = [w for w in wc.words if not w.startswith("-")]
    targets = []
    for i, w in enumerate(wc.words):
        if w.lower() in ("-path", "-literalpath", "-filepath") and i + 1 < len(wc.words):
            targets.append(wc.words[i + 1])
    if not targets and words:
        targets = words[:1]
    hits = []
    for t in targets:
        kind = classify(t, where)
        own = _own_file(t, wc, where)
        if own is not None:
            hits.append(own)
        elif kind in ("system", "root"):
            hits.append(
                _hit(
                    "GATE-OVERWRITE-SYSTEM",
                    wc,
                    f"This empties or overwrites the "
                    f"system file {t}. Ask the user to change system files.",
                )
            )
        elif kind == "home" or (kind == "outside" and _profile_dotfile(t)):
            hits.append(
                _hit(
                    "GATE-OVERWRITE-DOTFILE",
                    wc,
                    f"This empties or overwrites {t}, "
                    "the user's own configuration. Ask the user first.",
                )
            )
    return hits


def _own_file(path: str, wc: WinCmd, where: Where) -> Hit | None:
    """``Set-Content .agentreflex/config.toml``: one of agentreflex's own files (a POSIX path)."""
    if "\\" in path or ":" in path:
        return None  # a Windows path: agentreflex's files here are POSIX paths
    from agentreflex.gate.rules import selfguard
    from agentreflex.gate.rules.protected import WRITE

    return selfguard.path_hit(path, WRITE, where, where.cwd, wc.text)


def _profile_dotfile(path: str) -> bool:
    low = path.replace("/", "\\").lower()
    return "\\users\\" in low and "\\." in low


def classify(path: str, where: Where) -> str:
    """``root``, ``home``, ``system``, ``temp``, ``inside``, ``outside`` or ``unknown``."""
    p = path.strip().strip("'\"").replace("/", "\\")
    low = p.lower().rstrip("\\")
    if not low or low in (".", ".\\*", "*"):
        return "inside" if low else "unknown"
    if any(low == v or low.startswith(v + "\\") for v in _SYSTEM_VARS):
        return "system"
    if any(low == v or low in (v + "\\*",) for v in _HOME_VARS):
        return "home"
    if any(low.startswith(v + "\\") for v in _HOME_VARS):
        return "outside"
    if low.startswith(("$env:temp", "$env:tmp", "%temp%", "%tmp%")):
        return "temp"
    if "$" in low or "%" in low or UNKNOWN in low:
        return "unknown"
    drive = len(low) >= 2 and low[1] == ":" and low[0].isalpha()
    if drive or low.startswith("\\"):
        rest = low[2:] if drive else low
        parts = [x for x in rest.split("\\") if x]
        if not parts or parts == ["*"]:
            return "root"
        if parts[0] in _SYSTEM:
            return "system"
        if parts[0] == "users" and len(parts) <= 2:
            return "root" if len(parts) == 1 else "home"
        if parts[0] in ("temp", "tmp") or (
            len(parts) > 3 and parts[2:4] == ["appdata", "local"] and parts[4:5] == ["temp"]
        ):
            return "temp"
        cwd = where.cwd.replace("/", "\\").lower().rstrip("\\")
        if cwd and (low == cwd or low.startswith(cwd + "\\")) and cwd != where.home.lower():
            return "inside"
        return "outside"
    if low.startswith("..") and (low == ".." or low.startswith("..\\")):
        return "outside"
    return "inside"


def _hit(rule: str, wc: WinCmd, message: str) -> Hit:
    return Hit(rule, DESTRUCTIVE, P_BLOCK, redact_head(wc.text, 300), message)


def _as_cmd(wc: WinCmd) -> Cmd:
    return Cmd([wc.name, *wc.words], wc.text, "")


# --- PowerShell, parsed --------------------------------------------------------------

_PARSER: list[Parser] = []


def _parser() -> Parser:
    if not _PARSER:
        import tree_sitter_powershell
        from tree_sitter import Language, Parser

        _PARSER.append(Parser(Language(tree_sitter_powershell.language())))
    return _PARSER[0]


def _powershell(text: str) -> list[WinCmd] | None:
    """The commands of a PowerShell script, in order; ``None`` when it cannot be read.

    A part only known at run time (a bash variable before PowerShell saw the text)
    becomes a PowerShell variable, so it stays unknown instead of breaking the parse.
    """
    text = text.replace(UNKNOWN, "${unknown}")
    tree = _parser().parse(text.encode("utf-8", "replace"))
    if tree.root_node.has_error:
        # the grammar has gaps ($env:windir\Temp, build, C:\x): read it as words
        return _ps_words(text)
    out: list[WinCmd] = []
    _collect(tree.root_node, out)
    return out


def _collect(node: Node, out: list[WinCmd]) -> None:
    if node.type == "pipeline":
        listed: list[str] = []
        for child in node.named_children:
            cmds: list[WinCmd] = []
            _collect(child, cmds)
            for wc in cmds:
                if listed and wc.name in _REMOVE:
                    wc.piped_from = list(listed)
                if wc.name in _LISTERS:
                    listed = _listed_paths(wc)
            out.extend(cmds)
        return
    if node.type == "command":
        found = _command(node)
        if found is not None:
            out.append(found)
    for child in node.named_children:
        if node.type != "command" or child.type not in ("command_elements", "command_name"):
            _collect(child, out)


def _listed_paths(wc: WinCmd) -> list[str]:
    words = wc.words
    for i, w in enumerate(words):
        if w.lower() in ("-path", "-literalpath") and i + 1 < len(words):
            return [words[i + 1]]
    plain = [w for w in words if not w.startswith("-")]
    return plain[:1] or ["."]


def _command(node: Node) -> WinCmd | None:
    name_node = node.child_by_field_name("command_name")
    if name_node is None:
        for child in node.named_children:
            if child.type in ("command_name", "command_name_expr"):
                name_node = child
    if name_node is None:
        return None
    name = _text(name_node).strip().strip("'\"").lower()
    words: list[str] = []
    elems = node.child_by_field_name("command_elements")
    if elems is None:
        elems = next((c for c in node.named_children if c.type == "command_elements"), None)
    if elems is not None:
        for child in elems.named_children:
            if child.type == "command_argument_sep":
                continue
            words.extend(_words(child))
    return WinCmd(name, words, _text(node))


def _words(node: Node) -> list[str]:
    raw = _text(node).strip()
    if node.type == "array_literal_expression" and "," in raw and not raw.startswith(("'", '"')):
        return [_unquote(p.strip()) for p in raw.split(",") if p.strip()]
    return [_unquote(raw)]


def _unquote(word: str) -> str:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "'\"":
        inner = word[1:-1]
        return inner if word[0] == "'" else inner.replace('`"', '"')
    return word


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def _ps_words(text: str) -> list[WinCmd] | None:
    """PowerShell read as plain statements and words, when the grammar rejects the text:
    split on ``; | && ||`` and newlines outside quotes (a backtick escapes), words on
    spaces and commas; ``None`` when a quote is left open (it would not run)."""
    out: list[WinCmd] = []
    listed: list[str] = []
    parts: list[tuple[str, bool]] = []  # (statement, fed by a pipe)
    cur: list[str] = []
    quote = ""
    piped = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "`" and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if quote:
            if ch == quote:
                quote = ""
            cur.append(ch)
        elif ch in "'\"":
            quote = ch
            cur.append(ch)
        elif ch in ";|\n&":
            parts.append(("".join(cur), piped))
            cur = []
            piped = ch == "|" and text[i + 1 : i + 2] != "|"
            while i + 1 < len(text) and text[i + 1] in "|&":
                i += 1
        else:
            cur.append(ch)
        i += 1
    if quote:
        return None
    parts.append(("".join(cur), piped))
    for part, fed in parts:
        words = [_unquote(w) for w in part.replace(",", " ").split()]
        if not words:
            continue
        wc = WinCmd(words[0].lower(), words[1:], part.strip())
        if fed and listed and wc.name in _REMOVE:
            wc.piped_from = list(listed)
        listed = _listed_paths(wc) if wc.name in _LISTERS else []
        out.append(wc)
    return out


# --- cmd.exe, tokenised --------------------------------------------------------------


def _cmd_exe(text: str) -> list[WinCmd]:
    """cmd.exe's commands: split on ``& && || |`` and newlines outside double quotes,
    then into words (double quotes group, ``^`` escapes the next character)."""
    out: list[WinCmd] = []
    for part in _split_cmd(text):
        words = _cmd_words(part)
        if words:
            name = words[0].lower().lstrip("@")
            out.append(WinCmd(name, words[1:], part.strip()))
    return out


def _split_cmd(text: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "^" and not quoted and i + 1 < len(text):
            cur.append(text[i + 1])
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        if not quoted and ch in "&|\n\r":
            parts.append("".join(cur))
            cur = []
            while i + 1 < len(text) and text[i + 1] in "&|":
                i += 1
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return [p for p in parts if p.strip()]


def _cmd_words(part: str) -> list[str]:
    words: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in part.strip():
        if ch == '"':
            quoted = not quoted
        elif ch in " \t" and not quoted:
            if cur:
                words.append("".join(cur))
                cur = []
        else:
            cur.append(ch)
    if cur:
        words.append("".join(cur))
    # "rd/s/q" and "del/q": the switches may touch the name
    if words and "/" in words[0] and words[0].split("/", 1)[0].lower() in _REMOVE:
        head, *switches = words[0].split("/")
        words = [head, *("/" + s for s in switches if s), *words[1:]]
    return words
