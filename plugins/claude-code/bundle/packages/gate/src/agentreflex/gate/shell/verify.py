"""Which files a command checks against a pinned value: a download reviewed before it runs.

A download run unread is ``GATE-RCE-DOWNLOAD``; one checked first against a value
written in the command is the practice install docs and official images use
(docker-library's rust image: ``wget "$url"; echo "${rustupSha256} *rustup-init" |
sha256sum -c -; ./rustup-init`` under ``set -eux``).  This module says which files
one command checks, and only when the check pins them:

- ``sha256sum -c``/``--check``, ``sha512sum -c``, ``shasum -a 256|512 -c``: the
  lists it reads (stdin, a here-string, a file written in the same command) whose
  lines are ``HEX  NAME``, ``HEX *NAME`` or ``SHA256 (NAME) = HEX`` with a 64- or
  128-hex digest written literally (https://www.gnu.org/software/coreutils/manual/
  html_node/md5sum-invocation.html).  A list downloaded in the same command is no
  pin: whoever can change the file can change its sum; unless its own signature was
  checked first (HashiCorp's chain, ``gpg --verify X_SHA256SUMS.sig X_SHA256SUMS &&
  sha256sum -c X_SHA256SUMS --ignore-missing``, https://developer.hashicorp.com/
  well-architected-framework/verify-hashicorp-binary): then it pins what it lists,
  the files downloaded from its own release folder, or through ``grep NAME SUMS |``
  the file NAME.  A signed list is the signer's, but a file of that folder it does
  not name would pass ``--ignore-missing`` unchecked: the folder is taken as the
  release the list names, as HashiCorp's and GitHub releases' are;
- ``[ "$(sha256sum F | cut -d' ' -f1)" = HEX ]`` (``[[ ]]``, ``test``, ``awk '{print
  $1}'``, ``head -c``): a computed digest compared for equality with a literal one;
- signatures: ``gpg --verify SIG FILE`` / ``gpgv`` (``SIG`` alone: ``FILE`` is its
  name without ``.asc``/``.sig``/``.sign``; ``-``: standard input, checked only as
  the file redirected into it), ``cosign verify-blob ... FILE``,
  ``minisign -V -m FILE``, ``signify -V -m FILE``; a key imported from a download
  in the same command, or handed to the verifier from one (``--keyring F``,
  ``cosign --key F|URL``, ``minisign -p F``), makes a signature prove nothing.

The walker decides whether the check's failure stops the run (``&&``, ``if``,
``set -e``); this module only reads one command.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.gate.model import DESCENDANT, REMOTE, Cmd, has_marker
from agentreflex.gate.shell import argv, pipes

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Resolve = Callable[[str], str]

_DIGEST_LEN = {"sha256sum": 64, "sha512sum": 128, "gsha256sum": 64, "gsha512sum": 128}
_LINE = LazyPattern(r"^\\?([0-9a-fA-F]+) [ *]?(.+?)\s*$")
_TAG = LazyPattern(r"^SHA(256|512) \((.+)\) = ([0-9a-fA-F]+)\s*$")
_SIG_EXT = (".asc", ".sig", ".sign")
_GPG_VALUED = frozenset(
    {
        "--keyring",
        "--homedir",
        "--status-fd",
        "--logger-fd",
        "--trust-model",
        "--keyserver",
        "--default-key",
        "--local-user",
        "-u",
        "--trusted-key",
        "--output",
        "-o",
        "--weak-digest",
        "--verify-options",
    }
)
_COSIGN_FLAGS = frozenset(
    {
        "--insecure-ignore-tlog",
        "--insecure-ignore-sct",
        "--offline",
        "--private-infrastructure",
        "--use-signed-timestamps",
        "--new-bundle-format",
        "--insecure-skip-verify",
    }
)
SIGNERS = frozenset({"gpg", "gpg2", "gpgv", "gpgv2", "cosign", "minisign", "signify"})


class Checked:
    """What one command checks: the files pinned (names as written) and, for lists that
    are no pin, why (name -> reason)."""

    __slots__ = ("files", "unpinned")

    def __init__(self) -> None:
        self.files: list[str] = []
        self.unpinned: dict[str, str] = {}


def checked(
    cmd: Cmd,
    written: dict[str, str],
    resolve: Resolve,
    key_downloaded: bool,
    reviewed: dict[str, str] | None = None,
) -> Checked:
    """The files ``cmd`` checks against a pin (``resolve(name)`` gives the path a
    file written in this command is recorded under; ``reviewed``: the downloads a
    pinned check has vouched for, by path, with what was recorded for them)."""
    out = Checked()
    name = cmd.name
    if name in _DIGEST_LEN or name == "shasum":
        _sums(cmd, written, resolve, out, reviewed or {})
    elif name in SIGNERS:
        if key_downloaded and name in ("gpg", "gpg2", "gpgv", "gpgv2"):
            for f in _gpg(cmd):
                out.unpinned[f] = (
                    "the key its signature is checked against was downloaded in this same "
                    "command, so the signature proves nothing"
                )
            return out
        if name in ("gpg", "gpg2", "gpgv", "gpgv2"):
            out.files = _gpg(cmd) if name.startswith("gpgv") or _verifies(cmd) else []
        elif name == "cosign":
            out.files = _cosign(cmd.args)
        else:
            out.files = _minisign(cmd.args)
        key = _downloaded_key(cmd, written, resolve)
        if key:
            for f in out.files:
                out.unpinned[f] = (
                    f"the key it is checked with ({key}) was downloaded in this same command, "
                    "so the signature proves nothing"
                )
            out.files = []
    elif name == "test":
        out.files = pinned_test(cmd.text)
    return out


# The options that name the key a signature is checked with.
_KEY_OPTIONS = {
    "gpg": ("--keyring",),
    "gpg2": ("--keyring",),
    "gpgv": ("--keyring",),
    "gpgv2": ("--keyring",),
    "cosign": ("--key",),
    "minisign": ("-p",),
    "signify": ("-p",),
}


def _downloaded_key(cmd: Cmd, written: dict[str, str], resolve: Resolve) -> str:
    """The key file (or URL) ``cmd`` checks a signature with, when it is a download."""
    args = cmd.args
    keys: list[str] = []
    for k, a in enumerate(args):
        for opt in _KEY_OPTIONS.get(cmd.name, ()):
            if a == opt and k + 1 < len(args):
                keys.append(args[k + 1])
            elif a.startswith(opt + "=") and opt.startswith("--"):
                keys.append(a[len(opt) + 1 :])
            elif opt == "-p" and a.startswith("-") and not a.startswith("--"):
                at = a.find("p")  # minisign -Vm F -p KEY, or a cluster ending in p
                if at == len(a) - 1 and k + 1 < len(args):
                    keys.append(args[k + 1])
    for key in keys:
        if "://" in key or has_marker(key):
            return key
        text = pipes.file_text(written, resolve(key))
        if text is not None and REMOTE in text:
            return key
    return ""


def _verifies(cmd: Cmd) -> bool:
    return "--verify" in cmd.args or any(a in ("--verify-files",) for a in cmd.args)


def _sums(
    cmd: Cmd, written: dict[str, str], resolve: Resolve, out: Checked, reviewed: dict[str, str]
) -> None:
    args = cmd.args
    want = _DIGEST_LEN.get(cmd.name, 0)
    check = False
    operands: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if a == "--":
            operands.extend(args[k:])
            break
        if a.startswith("--"):
            key, _, value = a.partition("=")
            if key == "--check":
                check = True
            elif key == "--algorithm":
                if not value and k < len(args):
                    value, k = args[k], k + 1
                want = {"256": 64, "512": 128}.get(value, 0)
            continue
        if a.startswith("-") and len(a) > 1:
            for j, ch in enumerate(a[1:], 1):
                if ch == "c":
                    check = True
                elif ch == "a" and cmd.name == "shasum":
                    value = a[j + 1 :]
                    if not value and k < len(args):
                        value, k = args[k], k + 1
                    want = {"256": 64, "512": 128}.get(value, 0)
                    break
            continue
        operands.append(a)
    if not check or not want:
        return
    lists: list[tuple[str, str | None]] = []  # (shown name, text)
    for op in operands or ["-"]:
        if op == "-":
            lists.append(("standard input", _stdin(cmd, written, resolve)))
        else:
            lists.append((op, pipes.file_text(written, resolve(op))))
    for op in operands or ["-"]:
        out.files.extend(_signed_list(cmd, op, written, resolve, reviewed))
    for shown, text in lists:
        if text is None:
            continue
        if REMOTE in text:
            for name in _names(text.replace(REMOTE, ""), 0) or ["*"]:
                out.unpinned[name] = (
                    f"the checksum list it is checked against ({shown}) was downloaded in "
                    "this same command, from where the file comes, so it is no pin"
                )
            continue
        if has_marker(text):
            continue
        out.files.extend(_names(text, want))


def _signed_list(
    cmd: Cmd, op: str, written: dict[str, str], resolve: Resolve, reviewed: dict[str, str]
) -> list[str]:
    """The files a checksum list pins when the list is a download whose own signature
    a pinned check passed (``gpg --verify SUMS.sig SUMS``): its lines are unknown but
    the signer's.  Read whole (``sha256sum -c SUMS [--ignore-missing]``), it pins the
    files downloaded in this command from its own release folder, which is where a
    signed list names its files (HashiCorp's, GitHub releases'); through ``grep NAME
    SUMS |``, the file NAME, which fails the check when the list has no line for it."""
    listed = _stdin_file(cmd) if op == "-" else op
    if listed:
        return _released(reviewed.get(resolve(listed), ""), written)
    return _grepped(cmd.stdin_from, resolve, reviewed) if op == "-" else []


def _released(list_text: str, written: dict[str, str]) -> list[str]:
    """The files downloaded in this command from the folder of the list recorded as
    ``list_text`` (the download marker and its URL), signatures aside."""
    folder = _folder(list_text)
    if not folder:
        return []
    return [
        path
        for path, text in written.items()
        if _folder(text) == folder
        and not path.endswith((*_SIG_EXT, ".minisig"))
        and DESCENDANT not in path  # a nameless download (curl -OJ): not one file
    ]


def _folder(text: str) -> str:
    """The URL folder a download recorded as ``text`` came from (``""``: none known)."""
    url = text[1:] if text[:1] == REMOTE else ""
    if "://" not in url or has_marker(url):
        return ""
    url = url.split("#", 1)[0].split("?", 1)[0]
    return url.rsplit("/", 1)[0] if url.count("/") > 2 else ""


# grep flags that keep grep printing the lines that match its pattern.
_GREP_FLAGS = frozenset("FEGwxh")
_GREP_LONG = frozenset(
    {"--fixed-strings", "--extended-regexp", "--basic-regexp", "--word-regexp", "--line-regexp"}
)


def _grepped(src: Cmd | None, resolve: Resolve, reviewed: dict[str, str]) -> list[str]:
    """``grep NAME SUMS | sha256sum -c`` (``cat SUMS | grep NAME``, ``grep NAME < SUMS``)
    of a reviewed list: NAME, when it is a plain file name."""
    if src is None or src.name not in ("grep", "egrep", "fgrep"):
        return []
    flags = [a for a in src.args if a.startswith("-") and a != "-"]
    if any(not (f in _GREP_LONG or set(f[1:]) <= _GREP_FLAGS) for f in flags):
        return []  # -v, -e, -f, -o...: which lines pass is another question
    words = [a for a in src.args if a not in flags]
    feed = src.stdin_from
    if len(words) == 1:
        cat = [a for a in feed.args if a != "-"] if feed is not None and feed.name == "cat" else []
        words.append(_stdin_file(src) or (cat[0] if len(cat) == 1 else ""))
    if len(words) != 2 or not words[1] or resolve(words[1]) not in reviewed:
        return []
    name = _plain(words[0])
    return [name] if name else []


def _plain(pattern: str) -> str:
    """The file name a grep pattern picks (``" NAME$"``, ``NAME``), ``""`` when it is
    not one plain name."""
    name = pattern.strip(" ")
    name = name[:-1] if name.endswith("$") else name
    name = name.replace("\\.", ".")
    if not name or has_marker(name) or any(c in name for c in " \t[]*+?(){}|\\^$"):
        return ""
    return name


def _stdin(cmd: Cmd, written: dict[str, str], resolve: Resolve) -> str | None:
    for op, target in cmd.redirects:
        if op == "<":
            return pipes.file_text(written, resolve(target))
    if cmd.stdin_text is not None:
        return cmd.stdin_text
    if cmd.stdin_from is None:
        return None
    return pipes.output_text(cmd.stdin_from, written)


def _names(text: str, want: int) -> list[str]:
    """The file names a checksum list pins with a digest of ``want`` hex digits
    (any length when ``want`` is 0: only the names)."""
    names: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = _LINE.match(line)
        tag = _TAG.match(line)
        if m:
            digest, name = m.group(1), m.group(2)
        elif tag:
            digest, name = tag.group(3), tag.group(2)
        else:
            continue
        if want and len(digest) != want:
            continue
        names.append(name)
    return names


def _gpg(cmd: Cmd) -> list[str]:
    """The files ``gpg --verify SIG [DATA...]`` (``gpgv``) checks.

    ``-`` as DATA is standard input (gpg(1): "To read the signed stuff from stdin, use
    - as the second filename"): the file redirected into it, else none.  SIG alone is
    a detached signature over the file named as SIG without ``.sig``, ``.sign`` or
    ``.asc`` (gpg's ``get_matching_datafile``), when that file exists.
    """
    found = argv.operands(cmd.args, _GPG_VALUED)
    if len(found) == 1 and found[0].endswith(_SIG_EXT):
        return [found[0].rsplit(".", 1)[0]]
    return [_stdin_file(cmd) if f == "-" else f for f in found[1:]]


def _stdin_file(cmd: Cmd) -> str:
    """The file ``cmd``'s standard input is redirected from (``""`` when none)."""
    return next((target for op, target in cmd.redirects if op == "<"), "")


def _cosign(args: list[str]) -> list[str]:
    """The blob ``cosign verify-blob ... BLOB`` checks: its last operand.  Every option
    but the known flags takes a value, as ``--key K`` and ``--signature S`` do."""
    if not args or args[0] != "verify-blob":
        return []
    valued = frozenset(a for a in args[1:] if "=" not in a and a not in _COSIGN_FLAGS)
    return argv.operands(args[1:], valued)[-1:]


def _minisign(args: list[str]) -> list[str]:
    verify = False
    files: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if not a.startswith("-") or len(a) < 2:
            continue
        for j, ch in enumerate(a[1:], 1):
            if ch == "V":
                verify = True
            elif ch in "mxpPsct":
                value = a[j + 1 :]
                if not value and k < len(args):
                    value, k = args[k], k + 1
                if ch == "m":
                    files.append(value)
                break
    return files if verify else []


# ``[ "$(sha256sum F | cut -d' ' -f1)" = HEX ]`` and its spellings.
_TOOL = r"(?:sha256sum|sha512sum|shasum\s+(?:-a\s*|--algorithm[= ])(?:256|512))"
_WORD = r"""(?:[^\s|;&()$`"'<>]+|"[^"$`\\]+"|'[^']+')"""
_CUT = (
    r"""\|\s*(?:cut\s+-d\s*(?:' '|" "|\\\s)\s*-f\s*1|cut\s+-f\s*1\s+-d\s*(?:' '|" "|\\\s)"""
    r"""|awk\s+'\{\s*print\s+\$1;?\s*\}'|head\s+-c\s*(?:64|128))"""
)


def _sub(n: str) -> str:
    return rf"""(?P<q{n}>"?)\$\(\s*{_TOOL}\s+(?:(?:-b|--binary)\s+)?(?:--\s+)?(?:<\s*)?(?P<f{n}>{_WORD})\s*{_CUT}\s*\)(?P=q{n})"""


def _hex(n: str) -> str:
    return rf"""(?P<h{n}>["']?)(?:[0-9a-fA-F]{{64}}|[0-9a-fA-F]{{128}})(?P=h{n})"""


_TEST = LazyPattern(
    rf"""^\s*(?:\[\[?|test)\s+(?:{_sub("1")}\s+==?\s+{_hex("1")}|{_hex("2")}\s+==?\s+{_sub("2")})"""
    r"""\s*(?:\]\]?)?\s*$"""
)


def pinned_test(text: str) -> list[str]:
    """The file a ``[ "$(sha256sum F | cut ...)" = HEX ]`` test pins ([] when none)."""
    m = _TEST.match(text)
    if m is None:
        return []
    word = m.group("f1") or m.group("f2") or ""
    if word[:1] in ("'", '"'):
        word = word[1:-1]  # one quoted word, with nothing in it that expands
    return [word] if word else []
