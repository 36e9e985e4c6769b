"""A parse-free scan for when the real parse cannot finish.

Oversized, absurdly nested or syntactically broken input must not become a
free pass (dcg#189: ``rm -rf / ;`` followed by ninety ``$(`` hung the
parser and the timeout let it through).  This scan treats every fragment
between separators as executed and looks for the unmistakable cases only; it
runs in linear time and backs the ASK/BLOCK that such input gets anyway.

A download is one in both its forms: piped into a shell (``curl URL | sh``), and
saved to a file that a later fragment runs (``curl -o f URL && sh f``, ``wget URL;
./f``, ``curl -OJ URL && sh f``), the files read with ``shell/downloads.py``'s own
definition of where a command writes a download.
"""

from __future__ import annotations

import posixpath

from agentreflex.core.redaction.redact import redact_head
from agentreflex.core.util.deadline import check as check_time
from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import DESTRUCTIVE, P_BLOCK, Cmd, Hit

_SPLIT = LazyPattern(r"[;&|\n()`{}]|\$\(")
_PATTERNS: tuple[tuple[str, LazyPattern], ...] = (
    (
        "GATE-RM-ROOT",
        LazyPattern(
            r"\brm\s+(?:-\S+\s+)*(?:-\S*[rR]\S*|--recursive)\s+(?:-\S+\s+)*"
            r"(?:/|/\*|~/?|\$HOME/?|\"\$HOME\"/?|/(?:etc|usr|bin|boot|var|home|opt|lib)\S*)(?:\s|$)"
        ),
    ),
    ("GATE-DISK-FORMAT", LazyPattern(r"\b(?:mkfs(?:\.\w+)?|wipefs|mke2fs)\s+\S")),
    ("GATE-DISK-DD", LazyPattern(r"\bdd\s+.*\bof=/dev/(?!null|zero|stdout|stderr)")),
    ("GATE-FORK-BOMB", LazyPattern(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&")),
    ("GATE-GIT-FORCE-PUSH", LazyPattern(r"\bgit\s+.*\bpush\b.*(?:\s--force\b|\s-f\b|\s\+\S)")),
    ("GATE-GIT-RESET-HARD", LazyPattern(r"\bgit\s+.*\breset\s+.*--hard\b")),
    ("GATE-RCE-DOWNLOAD", LazyPattern(r"\b(?:curl|wget)\b[^|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh\b")),
)


def scan(text: str) -> list[Hit]:
    """Unmistakably destructive fragments of ``text``, without parsing it."""
    hits: list[Hit] = []
    seen: set[str] = set()
    whole = text[:1_000_000]
    for rule, pattern in _PATTERNS:
        if rule in ("GATE-RCE-DOWNLOAD", "GATE-FORK-BOMB"):
            m = pattern.search(whole[:100_000])
            if m and rule not in seen:
                seen.add(rule)
                hits.append(
                    Hit(
                        rule,
                        DESTRUCTIVE,
                        P_BLOCK,
                        redact_head(m.group(0), 200),
                        "Destructive command found in input that could not be parsed.",
                    )
                )
    fragments = [
        f.strip().replace("'", "").replace('"', "").replace("\\", "")
        for f in _SPLIT.split(whole)[:20_000]
    ]
    if "GATE-RCE-DOWNLOAD" not in seen:
        ran = _saved_download_run(fragments)
        if ran:
            seen.add("GATE-RCE-DOWNLOAD")
            hits.append(
                Hit(
                    "GATE-RCE-DOWNLOAD",
                    DESTRUCTIVE,
                    P_BLOCK,
                    redact_head(ran, 200),
                    "A file downloaded in input that could not be parsed is run unread. "
                    "Download it, read it, then run it in a separate command.",
                )
            )
    for frag in fragments:
        check_time()  # up to 20 000 fragments, each a realpath or a few patterns
        if not frag or len(frag) > 4000:
            continue
        for rule, pattern in _PATTERNS:
            if rule in seen or rule in ("GATE-RCE-DOWNLOAD", "GATE-FORK-BOMB"):
                continue
            if pattern.search(frag):
                seen.add(rule)
                hits.append(
                    Hit(
                        rule,
                        DESTRUCTIVE,
                        P_BLOCK,
                        redact_head(frag, 200),
                        "Destructive command found in input that could not be parsed. "
                        "Split it into simple commands.",
                    )
                )
    return hits


# Words before the command itself that run it unchanged.
_PREFIXES = frozenset({"sudo", "env", "command", "exec", "nohup", "time", "nice"})
_REDIRECT = LazyPattern(r"(?:1|&)?(>>?\|?)(.*)")
_CWD = "/cwd"  # where relative names resolve: the scan knows no cd


def _saved_download_run(fragments: list[str]) -> str:
    """The first fragment that runs a file an earlier fragment saved a download into."""
    # only for input that did not parse
    from agentreflex.gate.code.interp import interpreter_name
    from agentreflex.gate.shell import downloads
    from agentreflex.gate.shell.walker import SHELLS

    shells = SHELLS | {"source", "."}
    written: dict[str, str] = {}
    for frag in fragments:
        check_time()  # up to 20 000 fragments, each a realpath or a few patterns
        if not frag or len(frag) > 4000:
            continue
        cmd = _command(frag.split())
        if cmd is None:
            continue
        run = _ran(cmd, cmd.name in shells or bool(interpreter_name(cmd.name)))
        if run and written:
            path = posixpath.normpath(posixpath.join(_CWD, run))
            if path in written or downloads.may_have_written(written, path):
                return frag
        for name, text in downloads.saved(cmd, written):
            written[posixpath.normpath(posixpath.join(_CWD, name))] = text
    return ""


def _command(words: list[str]) -> Cmd | None:
    """A fragment's words as a command: prefixes and assignments dropped, stdout
    redirects (``> f``, ``>>f``, ``1> f``, ``&> f``) apart."""
    while words and (words[0] in _PREFIXES or "=" in words[0].split("/", 1)[0]):
        words = words[1:]
    argv: list[str] = []
    redirects: list[tuple[str, str]] = []
    k = 0
    while k < len(words):
        m = _REDIRECT.fullmatch(words[k])
        k += 1
        if m is None:
            argv.append(words[k - 1])
        elif m.group(2):
            redirects.append((m.group(1), m.group(2)))
        elif k < len(words):
            redirects.append((m.group(1), words[k]))
            k += 1
    return Cmd(argv, " ".join(words), _CWD, redirects=redirects) if argv else None


def _ran(cmd: Cmd, interpreter: bool) -> str:
    """The file ``cmd`` runs as a script (``interpreter``: a shell's or a language's)
    or as a program (``""``: none)."""
    name = cmd.name
    if interpreter:
        if any(a in ("-c", "-e", "-m", "-s") for a in cmd.args):
            return ""  # inline code, a module or standard input: no file
        return next((a for a in cmd.args if not a.startswith("-")), "")
    return name if "/" in name else ""
