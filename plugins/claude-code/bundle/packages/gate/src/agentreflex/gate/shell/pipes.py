"""What flows through a pipe, when it can be known statically.

``echo cm0gLXJmIC8K | base64 -d | sh`` runs ``rm -rf /``: to see that, the
gate needs the text each producer writes.  This module computes it for the
producers that matter (``echo``, ``printf``, ``cat`` of a heredoc or of a
file written earlier in the same command, and the decoders ``base64 -d``,
``rev``, ``xxd -r``), and marks downloads (``curl``/``wget`` to stdout) as
remote content.  Anything else is unknown (``None``).
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import REMOTE, UNKNOWN, Cmd, has_marker
from agentreflex.gate.shell.paths import Where, resolve

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

_MAX_CHAIN = 16


def is_download(cmd: Cmd) -> bool:
    """A downloader writing the fetched body to stdout."""
    name, args = cmd.name, cmd.args
    if name in ("curl", "wget"):
        from agentreflex.gate.shell import downloads  # imports this module

        if name == "curl":
            return downloads.curl_prints(args)
        return downloads.wget_document(args) == "-"
    return name in ("http", "https", "xh", "fetch")


def echo_text(cmd: Cmd) -> str:
    """What ``echo``/``printf`` prints (escapes decoded the way ``-e`` would)."""
    args = list(cmd.args)
    if cmd.name == "printf":
        if not args:
            return ""
        fmt, rest = args[0], args[1:]
        printed = printf_text(fmt, rest)  # the format used again for arguments left (rt94)
        if printed is not None:
            return printed
        text = fmt.replace("%s", "{}").replace("%b", "{}")
        try:
            text = text.format(*rest) if "{}" in text else fmt + "".join(rest)
        except (IndexError, ValueError):
            text = " ".join(args)
        return _unescape(text)
    decode = False
    while args and args[0] in ("-n", "-e", "-E", "-ne", "-en"):
        decode = decode or "e" in args[0]
        args.pop(0)
    text = " ".join(args)
    return _unescape(text) if decode else text


# one conversion of printf's format: flags, width, precision and the conversion
_PRINTF_SPEC = LazyPattern(r"%([-+ #0]*)([0-9]*)(?:\.([0-9]*))?([sbcdiouxX%])")
_PRINTF_ANY = LazyPattern(r"%[^a-zA-Z%]*[a-zA-Z%]?")


def printf_text(fmt: str, args: list[str]) -> str | None:
    """What ``printf FORMAT ARGS`` prints, as bash's builtin does: the format used again
    while arguments are left, a missing argument empty (or 0), escapes decoded (bash's
    ``help printf``); ``None`` for a conversion not followed (``%f``, ``%q``, a width
    from ``*``) or a number that is not one."""
    if has_marker(fmt):
        return None
    out: list[str] = []
    rest = list(args)
    while True:
        taken, pos = 0, 0
        for m in _PRINTF_ANY.finditer(fmt):
            out.append(_unescape(fmt[pos : m.start()]))
            pos = m.end()
            spec = _PRINTF_SPEC.fullmatch(m.group())
            if spec is None:
                return None
            if spec.group(4) == "%":
                out.append("%")
                continue
            taken += bool(rest)
            piece = _converted(spec, rest.pop(0) if rest else "")
            if piece is None:
                return None
            out.append(piece)
        out.append(_unescape(fmt[pos:]))
        if not rest or not taken:
            return "".join(out)


def _converted(spec: re.Match[str], arg: str) -> str | None:
    """One argument as the conversion ``spec`` makes it (Python's ``%`` formatting is C's,
    as bash's is)."""
    flags, width, precision, conv = spec.groups()
    form = "%" + flags + width + ("." + precision if precision is not None else "")
    if conv in "sbc":
        text = _unescape(arg) if conv == "b" else arg[:1] if conv == "c" else arg
        return (form + "s") % text
    if has_marker(arg):
        return None
    try:
        number = _integer(arg)
    except ValueError:
        return None
    if (conv == "u" and number < 0) or (conv == "o" and "#" in flags):
        return None  # 2**64 less it; Python's 0o where C writes 0
    return (form + ("d" if conv in "iu" else conv)) % number


def _integer(arg: str) -> int:
    """A printf argument as a number: ``0x`` hex, a leading ``0`` octal, ``'c`` the
    character's code, empty 0."""
    text = arg.strip()
    if not text:
        return 0
    if text[:1] in ("'", '"') and len(text) > 1:
        return ord(text[1])
    sign = -1 if text[:1] == "-" else 1
    digits = text.lstrip("+-")
    if digits[:2] in ("0x", "0X"):
        return sign * int(digits[2:], 16)
    if digits[:1] == "0" and len(digits) > 1:
        return sign * int(digits, 8)
    if not digits.isdigit():
        raise ValueError(arg)
    return sign * int(digits)


def _unescape(text: str) -> str:
    """``\\n``, ``\\x72``, ``\\162``, ``\\u0072``: decoded as ``echo -e`` and ``printf`` do,
    so ``printf '\\x72\\x6d -rf /' | sh`` is seen as the ``rm`` it runs."""
    if "\\" not in text:
        return text
    from agentreflex.gate.shell.words import ansi_c  # words imports this module

    # echo -e spells octal \\0NNN; a \\0 with no digit after it prints NUL, the separator
    # ``xargs -0`` reads (``printf '%s\\0' A B``): kept as a line break, since a NUL here
    # is the gate's own mark of what is unknown
    return ansi_c(_ECHO_OCTAL.sub(r"\\", text)).replace("\0", "\n")


def line_end(cmd: Cmd) -> str:
    """The line end ``echo`` adds to what ``echo_text`` reads (none with ``-n``); printf
    and the readers of files print only what their text holds."""
    if cmd.name != "echo":
        return ""
    for arg in cmd.args:
        if arg not in ("-n", "-e", "-E", "-ne", "-en"):
            break
        if "n" in arg:
            return ""
    return "\n"


_ECHO_OCTAL = LazyPattern(r"\\0(?=[0-7])", hints="\\0")


def output_text(cmd: Cmd | None, written: dict[str, str], depth: int = 0) -> str | None:
    """The text ``cmd`` writes to stdout, ``REMOTE`` for downloads, ``None`` if unknown."""
    if cmd is None or depth > _MAX_CHAIN:
        return None
    name = cmd.name
    if name in ("echo", "printf"):
        return echo_text(cmd)
    if is_download(cmd):
        return REMOTE
    if name not in ("cat", "tee", "tac", "base64", "rev", "xxd"):
        return None
    files = [] if name == "tee" else [a for a in cmd.args if not a.startswith("-") or a == "-"]
    upstream = _input_text(cmd, written, depth, files)
    if upstream is None or upstream[:1] == REMOTE or name in ("cat", "tee"):
        return upstream
    return _transform(cmd, upstream)


# Filters that pass the lines they read on, reordered or thinned, never new ones.
_PASS_ON = frozenset({"cat", "tee", "sort", "uniq", "tac", "grep", "head", "tail"})


def known_parts(cmd: Cmd | None, written: dict[str, str]) -> list[str]:
    """The texts known to flow out of ``cmd`` when its whole output can't be known.

    ``(crontab -l; echo ENTRY) | crontab -`` installs ENTRY whatever the old table
    holds, and ``(make; echo CMD) | sh`` runs CMD whatever make prints: an unreadable
    part must not hide what the readable ones say (red-team rt81).  A filter between
    (``| sort -u |``) is taken to pass them on, which may judge a line grep drops:
    the gate then asks for nothing that cannot happen but errs only towards asking.
    """
    for _ in range(_MAX_CHAIN):
        if cmd is None:
            return []
        if cmd.partial:
            return [p for p in cmd.partial.split(UNKNOWN) if p.strip() and not has_marker(p)]
        text = output_text(cmd, written)
        if static(text):
            return [text or ""]
        if cmd.name not in _PASS_ON:
            return []
        files = [a for a in cmd.args if not a.startswith("-") or a == "-"]
        if files and cmd.name not in ("tee", "grep"):
            return _files_parts(cmd, files, written)
        if cmd.stdin_text is not None:
            return []
        cmd = cmd.stdin_from
    return []


def _files_parts(cmd: Cmd, files: list[str], written: dict[str, str]) -> list[str]:
    """What a filter reading files passes on, file by file: ``cat <(crontab -l) <(echo
    ENTRY)`` prints ENTRY whatever the old table holds, as the group form does (red-team
    rt86).  A known file counts whole, one with unknown parts by its known lines, ``-``
    by what comes in; a file never written here is unknown."""
    parts: list[str] = []
    for name in files[:_MAX_CHAIN]:
        if name == "-":
            stdin = cmd.stdin_text
            parts += known_parts(cmd.stdin_from, written) if stdin is None else known_lines(stdin)
            continue
        text = file_text(written, name)
        if text is not None:
            parts += [text] if static(text) and text.strip() else known_lines(text)
    return parts


def known_lines(text: str) -> list[str]:
    """The lines of ``text`` that hold no unknown or remote part."""
    return [line for line in text.splitlines() if line.strip() and not has_marker(line)]


def catted(feeder: Cmd | None, where: Where) -> str:
    """The one file ``cat FILE`` prints into a pipe, by its full path (``""``: none), so
    that ``cat job.sh | sh`` and ``cat drop.sql | psql`` read it as ``sh < job.sh`` does."""
    if feeder is None or feeder.name != "cat":
        return ""
    files = [a for a in feeder.args if not a.startswith("-")]
    return resolve(files[0], where, feeder.cwd) if len(files) == 1 else ""


def file_text(written: dict[str, str], path: str) -> str | None:
    """What ``written`` holds for ``path``; a ``<(curl ...)`` word is its file's name
    with the download marker after it (``/dev/fd/63`` + REMOTE), and its content the
    download and where from."""
    text = written.get(path)
    if text is None and path[-1:] == REMOTE:
        text = written.get(path[:-1], REMOTE)
    return text


def _input_text(cmd: Cmd, written: dict[str, str], depth: int, files: list[str]) -> str | None:
    if files and files != ["-"]:
        # ``cat A - B``: ``-`` is what comes in
        parts = [
            _input_text(cmd, written, depth, []) if f == "-" else file_text(written, f)
            for f in files
        ]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if cmd.stdin_text is not None:
        return cmd.stdin_text
    return output_text(cmd.stdin_from, written, depth + 1)


def _transform(cmd: Cmd, text: str) -> str | None:
    name, args = cmd.name, cmd.args
    if name == "tac":
        return "\n".join(reversed(text.splitlines()))
    if name == "rev":
        return "\n".join(line[::-1] for line in text.splitlines())
    import binascii  # only for decoder pipes, rare enough to import here

    if name == "base64":
        if not any(a in ("-d", "-D", "--decode") or (a.startswith("-") and "d" in a) for a in args):
            return None
        try:
            return binascii.a2b_base64("".join(text.split()).encode()).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    if name == "xxd" and any(a.startswith("-r") for a in args):
        try:
            return binascii.unhexlify("".join(text.split())).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    return None


def static(text: str | None) -> bool:
    """True when ``text`` is fully known (no unknown or remote parts)."""
    return text is not None and not has_marker(text)
