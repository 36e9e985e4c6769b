"""Which files a command writes a network download into: one definition for every spelling.

Running a download unread is judged where the file is run (``sh f``, ``source f``,
``./f``, ``python f``): the walker records what each file written in the command
holds, and a download is the marker ``REMOTE`` followed by its URL (a listed
vendor's install script then warns, as ``curl URL | sh`` does; anything else
blocks).  The ways a download names its file:

- the downloader's own options: curl ``-o F``/``--output F`` (glued ``-oF``, in a
  cluster ``-sSLo F``), ``-O``/``--remote-name``/``--remote-name-all`` (the URL's
  last path segment), ``--output-dir D``; wget's default (the URL's last segment,
  ``index.html`` for none), ``-O F``/``--output-document=F`` (``-`` is stdout),
  ``-P D``/``--directory-prefix=D``; aria2c (its default, ``-o``/``--out``,
  ``-d``/``--dir``); HTTPie ``--download`` and ``-o``/``--output``
  (https://curl.se/docs/manpage.html, https://www.gnu.org/software/wget/manual/wget.html,
  https://aria2.github.io/manual/en/html/aria2c.html, https://httpie.io/docs/cli/downloads);
- stdout redirected to a file (``>``, ``>>``, ``>|``, ``&>``, ``1>``; never another
  descriptor's ``2>``), by the downloader itself or by what passes its output on
  (``cat``, ``tee``, ``echo "$(curl URL)"``, here-strings and heredocs carrying a
  substituted download), ``tee F`` and ``dd of=F``.

Options that leave the name to the server or the page name no file the gate can
know: curl ``-J``/``--remote-header-name`` with ``-O`` (the Content-Disposition
header's name) and wget ``--content-disposition`` or ``-i LIST`` save a file of any
name in their folder (:data:`IN_FOLDER`); wget ``-r``, ``-m``, ``-p``, ``-x`` a tree
of host and path folders below it (:data:`BELOW_FOLDER`; ``-nd``: in it).  Such a
download is recorded under the folder with that key, and :func:`may_have_written`
says which download a file there may hold.  A name on the command line still wins
(curl ``-o``, wget ``-O``).
"""

from __future__ import annotations

import posixpath

from agentreflex.gate.model import DESCENDANT, REMOTE, Cmd, OtherFd, has_marker
from agentreflex.gate.shell import pipes

DOWNLOADERS = frozenset({"curl", "wget", "aria2c", "http", "https", "xh", "xhs"})
STDOUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>"})

# Short options that take a value (the rest of a cluster, or the next word).
_CURL_VALUED = frozenset("AbcCdDeEFHKmoPQrtTuUwxXyYz")
_WGET_VALUED = frozenset("aABDeiIlOoPQRtTUwX")
_ARIA_VALUED = frozenset("dioxsjkluUCTMm")
_HTTPIE_VALUED = frozenset("oaAps")
# Long options that take a value when it is not given with ``=``.
_LONG_VALUED = frozenset(
    {
        "--output",
        "--output-dir",
        "--output-document",
        "--directory-prefix",
        "--out",
        "--dir",
        "--data",
        "--header",
        "--user",
        "--request",
        "--user-agent",
        "--referer",
        "--cookie",
        "--cookie-jar",
        "--form",
        "--upload-file",
        "--proxy",
        "--write-out",
        "--config",
        "--max-time",
        "--connect-timeout",
        "--retry",
        "--proto",
        "--cacert",
        "--cert",
        "--key",
        "--range",
        "--dump-header",
        "--continue-at",
        "--auth",
        "--auth-type",
        "--url",
        "--retry-delay",
        "--retry-max-time",
        "--limit-rate",
        "--max-filesize",
        "--speed-time",
        "--speed-limit",
        "--resolve",
        "--connect-to",
        "--interface",
        "--data-binary",
        "--data-raw",
        "--data-urlencode",
        "--json",
        "--oauth2-bearer",
        "--tries",
        "--timeout",
        "--wait",
        "--password",
        "--http-user",
        "--http-password",
    }
)
# The keys a download whose file name the command line does not record is kept under,
# after its folder: a file of any name in the folder, or anywhere below it.
IN_FOLDER = DESCENDANT + "file"
BELOW_FOLDER = DESCENDANT + "tree"
# wget options that name files after a page's links or host/path folders (below the
# folder), and after the server or a list (in it).
_WGET_TREE = frozenset(
    {"-r", "--recursive", "-m", "--mirror", "-x", "--force-directories", "-p",
     "--page-requisites"}
)  # fmt: skip
_WGET_SERVER = frozenset({"--content-disposition", "-i", "--input-file"})


def may_have_written(written: dict[str, str], path: str) -> str:
    """The key of the nameless download that may have written ``path`` (a file directly
    in an :data:`IN_FOLDER` folder, or below a :data:`BELOW_FOLDER` one), ``""`` for none."""
    folder = posixpath.dirname(path)
    key = posixpath.join(folder, IN_FOLDER)
    if key in written:
        return key
    while True:
        key = posixpath.join(folder, BELOW_FOLDER)
        if key in written:
            return key
        parent = posixpath.dirname(folder)
        if parent == folder:
            return ""
        folder = parent


def nameless(key: str) -> bool:
    """Whether ``key`` is where a nameless download is recorded, not a file."""
    return key.endswith((IN_FOLDER, BELOW_FOLDER))


def marked(url: str) -> str:
    """A download's content as the walker records it: the marker, then where from."""
    return REMOTE + (url if url and not has_marker(url) else "")


def saved(cmd: Cmd, written: dict[str, str]) -> list[tuple[str, str]]:
    """Every file ``cmd`` writes a download into, as (the path as written, its content).

    The content is the download marker with the URL after it when one URL is known,
    so a vendor's script saved then run is judged as its pipe form is.
    """
    out: list[tuple[str, str]] = []
    if cmd.name in DOWNLOADERS:
        out.extend(_named_by_downloader(cmd))
    text = stdout_download(cmd, written)
    if text:
        out.extend((t, text) for t in stdout_files(cmd))
    return out


def stdout_files(cmd: Cmd) -> list[str]:
    """The files ``cmd``'s standard output goes into: its stdout redirects, ``tee``'s
    operands, ``dd of=``."""
    files = [
        r[1]
        for r in cmd.redirects
        if r[0] in STDOUT_REDIRECTS
        and not isinstance(r, OtherFd)
        and not r[1].startswith("/dev/")  # /dev/null, /dev/stderr: no file to run later
    ]
    if cmd.name == "tee":
        files += [a for a in cmd.args if not a.startswith("-")]
    elif cmd.name == "dd":
        files += [a[3:] for a in cmd.args if a.startswith("of=")]
    return files


def stdout_download(cmd: Cmd, written: dict[str, str]) -> str:
    """What ``cmd`` prints when that is a download (``""`` when it is not one)."""
    src = cmd.stdin_from if cmd.name == "dd" else cmd
    if cmd.name == "dd" and any(a.startswith("if=") for a in cmd.args):
        return ""  # dd if=F copies a file: its content is recorded as F's
    text = pipes.output_text(src, written) if src is not None else None
    if cmd.name == "dd" and cmd.stdin_text is not None:
        text = cmd.stdin_text
    if text is None or REMOTE not in text:
        return ""
    if text[:1] == REMOTE:
        text = text.rstrip("\n")  # a here-string's newline: still the download alone
    if text == REMOTE:  # the downloader's own output, passed on: say where from
        return marked(_piped_url(src))
    return text


def _piped_url(cmd: Cmd | None) -> str:
    """The URL of the one downloader whose output reaches ``cmd`` unchanged."""
    for _ in range(16):
        if cmd is None:
            return ""
        if cmd.name in DOWNLOADERS:
            urls = _urls(cmd)
            return urls[0] if len(urls) == 1 else ""
        if cmd.name not in ("cat", "tee"):
            return ""
        cmd = cmd.stdin_from
    return ""


def _urls(cmd: Cmd) -> list[str]:
    return [a for a in cmd.args if a.startswith(("https://", "http://", "ftp://"))]


def _named_by_downloader(cmd: Cmd) -> list[tuple[str, str]]:
    """The files a downloader's own options (or its defaults) save into."""
    name = cmd.name
    if name == "curl":
        return _curl(cmd.args)
    if name == "wget":
        return _wget(cmd.args)
    if name == "aria2c":
        return _aria2c(cmd.args)
    return _httpie(cmd.args)


def _options(args: list[str], valued: frozenset[str]) -> list[tuple[str, str]]:
    """Each option with its value (``""`` for a flag), and operands as ("", word):
    clusters split (``-sSLo F`` is ``-s -S -L -o F``), ``--name=value`` split."""
    out: list[tuple[str, str]] = []
    k = 0
    while k < len(args):
        a = args[k]
        k += 1
        if a == "--":
            out.extend(("", w) for w in args[k:])
            break
        if a.startswith("--"):
            key, eq, value = a.partition("=")
            out.append((key, value if eq else ""))
            if not eq and key in _LONG_VALUED and k < len(args):
                out[-1] = (key, args[k])
                k += 1
            continue
        if a.startswith("-") and len(a) > 1:
            for j, ch in enumerate(a[1:], 1):
                if ch in valued:
                    value = a[j + 1 :]
                    if not value and k < len(args):
                        value = args[k]
                        k += 1
                    out.append(("-" + ch, value))
                    break
                out.append(("-" + ch, ""))
            continue
        out.append(("", a))
    return out


def _basename(url: str, query: bool = False) -> str:
    """The URL's last path segment, without its fragment; its query only with ``query``
    (wget keeps it in the name, ``install.sh?v=2``; curl -O drops it)."""
    rest = url.split("#", 1)[0].split("://", 1)[-1]
    if not query:
        rest = rest.split("?", 1)[0]
    host, _, path = rest.partition("/")
    if "?" in host:  # https://host?q: no path
        return ""
    name = path.rsplit("/", 1)[-1]
    return "" if name.startswith("?") else name


def _join(folder: str, name: str) -> str:
    if not folder or name.startswith("/"):
        return name
    return folder.rstrip("/") + "/" + name


def curl_prints(args: list[str]) -> bool:
    """Whether curl writes a download to stdout: a URL left without ``-o``/``-O``
    (``--remote-name-all`` names them all), or ``-o -``."""
    opts = _options(args, _CURL_VALUED)
    named = [v for k, v in opts if k in ("-o", "--output", "-O", "--remote-name")]
    if "-" in named:
        return True
    if any(k == "--remote-name-all" for k, _ in opts):
        return False
    return len(named) < max(len(_targets(opts)), 1)


def _targets(opts: list[tuple[str, str]]) -> list[str]:
    """The URLs a downloader fetches: its operands (and ``--url``'s values), those that
    look like URLs when some do (an unknown option's value is an operand too)."""
    words = [v for k, v in opts if not k or k == "--url"]
    urls = [w for w in words if "://" in w or has_marker(w)]
    return urls or words


def _curl(args: list[str]) -> list[tuple[str, str]]:
    opts = _options(args, _CURL_VALUED)
    header = any(k in ("-J", "--remote-header-name") for k, _ in opts)
    folder = next((v for k, v in reversed(opts) if k == "--output-dir"), "")
    every = any(k == "--remote-name-all" for k, _ in opts)
    outs: list[str | None] = []  # per URL, in order: a name, or None for -O
    for k, v in opts:
        if k in ("-o", "--output"):
            outs.append(v)
        elif k in ("-O", "--remote-name"):
            outs.append(None)
    urls = _targets(opts)
    saved: list[tuple[str, str]] = []
    for n, url in enumerate(urls):
        out = outs[n] if n < len(outs) else (None if every else "")
        if out == "" or out == "-":
            continue  # stdout: a redirect or a pipe says where it goes
        if out is None and header:  # -OJ: the server's name, else the URL's
            saved.append((_join(folder, IN_FOLDER), marked(url)))
            continue
        name = _basename(url) if out is None else out
        if name and not has_marker(name):
            saved.append((_join(folder, name), marked(url)))
    return saved


def _wget_options(args: list[str]) -> list[tuple[str, str]]:
    # -nv, -nc, -nd, -nH, -np are single options, not clusters (-np is not -n -p)
    return _options(
        ["--" + a[1:] if a[:2] == "-n" and len(a) == 3 else a for a in args], _WGET_VALUED
    )


def wget_document(args: list[str]) -> str | None:
    """wget's ``-O``/``--output-document`` value (``-`` is stdout), ``None`` without one."""
    opts = _wget_options(args)
    return next((v for k, v in reversed(opts) if k in ("-O", "--output-document")), None)


def _wget(args: list[str]) -> list[tuple[str, str]]:
    opts = _wget_options(args)
    urls = _targets(opts)
    document = wget_document(args)
    folder = next((v for k, v in reversed(opts) if k in ("-P", "--directory-prefix")), "")
    keys = {k for k, _ in opts}
    if document is not None:
        if document == "-" or not document or has_marker(document):
            return []
        listed = keys & {"-i", "--input-file"}  # -i LIST -O F: F holds what LIST names
        if not urls and not listed:
            return []
        return [(document, marked(urls[0] if len(urls) == 1 and not listed else ""))]
    if keys & (_WGET_TREE | _WGET_SERVER):
        below = keys & _WGET_TREE and not keys & {"--nd", "--no-directories"}
        url = urls[0] if len(urls) == 1 and not keys & {"-i", "--input-file"} else ""
        return [(_join(folder, BELOW_FOLDER if below else IN_FOLDER), marked(url))]
    names = [(_basename(u, query=True), u) for u in urls]
    return [(_join(folder, n or "index.html"), marked(u)) for n, u in names if not has_marker(n)]


def _aria2c(args: list[str]) -> list[tuple[str, str]]:
    opts = _options(args, _ARIA_VALUED)
    if any(k in ("-i", "--input-file") for k, _ in opts):
        return []
    urls = _targets(opts)
    out = next((v for k, v in reversed(opts) if k in ("-o", "--out")), "")
    folder = next((v for k, v in reversed(opts) if k in ("-d", "--dir")), "")
    if not urls:
        return []
    # several URLs are mirrors of one file
    name = out or _basename(urls[0])
    if not name or has_marker(name):
        return []
    return [(_join(folder, name), marked(urls[0] if len(set(urls)) == 1 else ""))]


def _httpie(args: list[str]) -> list[tuple[str, str]]:
    opts = _options(args, _HTTPIE_VALUED)
    urls = [v for k, v in opts if not k and v.startswith(("https://", "http://"))]
    out = next((v for k, v in reversed(opts) if k in ("-o", "--output")), "")
    download = any(k in ("-d", "--download") for k, _ in opts)
    if not urls or (not out and not download):
        return []
    name = out or _basename(urls[0])
    if not name or has_marker(name) or name == "-":
        return []
    return [(name, marked(urls[0]))]
