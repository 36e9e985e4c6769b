"""Where a path really points, and what kind of place that is.

Rules decide on resolved paths, not on spellings: ``~/x``, ``$HOME/x``,
``../../x`` and ``/home/me/x`` are the same place.  The classes below are
ordered from "ordinary work" (inside the project, temp dirs, caches) to
"never without the user" (the filesystem root, the home directory itself,
system trees, the project root and its ``.git``).
"""

from __future__ import annotations

import posixpath

from agentreflex.core.state.userdirs import COMMON_PROTECTED_NAMES, PROTECTED_NAMES
from agentreflex.core.util.record import record
from agentreflex.gate.model import CACHE_ENTRY, DESCENDANT, REMOTE, UNKNOWN, has_marker

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar


class Place(str):
    """What kind of place a path is: one of the constants below.

    A ``str`` subclass with one instance per constant, not a ``StrEnum``:
    defining a 14-member enum costs ~0.15 ms of every hook process, and the
    gate only compares these (``is``, ``==``, ``in``) and shows them as strings.
    """

    __slots__ = ()

    UNKNOWN: ClassVar[Place]
    ROOT: ClassVar[Place]
    SYSTEM: ClassVar[Place]
    HOME: ClassVar[Place]
    HOME_DOT: ClassVar[Place]
    HOME_OTHER: ClassVar[Place]
    ANCESTOR: ClassVar[Place]
    PROJECT_ROOT: ClassVar[Place]
    PROJECT_GIT: ClassVar[Place]
    INSIDE: ClassVar[Place]
    TEMP: ClassVar[Place]
    CACHE: ClassVar[Place]
    DEVICE: ClassVar[Place]
    OUTSIDE: ClassVar[Place]


Place.UNKNOWN = Place("unknown")
Place.ROOT = Place("root")
Place.SYSTEM = Place("system")
Place.HOME = Place("home")
Place.HOME_DOT = Place("home-dotfile")
Place.HOME_OTHER = Place("home-other")
Place.ANCESTOR = Place("project-ancestor")
Place.PROJECT_ROOT = Place("project-root")
Place.PROJECT_GIT = Place("project-git")
Place.INSIDE = Place("inside-project")
Place.TEMP = Place("temp")
Place.CACHE = Place("cache")
Place.DEVICE = Place("device")
Place.OUTSIDE = Place("outside-project")


_TEMP = ("/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/dev/shm", "/private/var/folders")
_HARMLESS_DEV = (
    "/dev/null",
    "/dev/zero",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/stdin",
    "/dev/tty",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
)
_SYSTEM = (
    "/etc",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/boot",
    "/proc",
    "/sys",
    "/var",
    "/opt",
    "/srv",
    "/root",
    "/home",
    "/Users",
    "/Applications",
    "/System",
    "/Library",
    "/private",
    "/mnt",
    "/media",
    "/snap",
    "/nix",
    "/run",
    "/Volumes",
    "/cores",
)
_HOME_CACHES = (
    ".cache",
    ".npm",  # npm's cache folder (its `cache` default: _cacache, _logs, _npx)
    ".yarn/cache",
    ".pnpm-store",
    ".gradle/caches",
    ".m2/repository",
    ".cargo/registry",
    ".cargo/git",
    ".rustup/tmp",
    ".local/share/Trash",
    ".bun/install/cache",
    ".nuget/packages",
    ".ivy2/cache",
    ".pyenv/cache",
    "Library/Caches",  # macOS's per-user caches
    "Library/Developer/Xcode/DerivedData",  # Xcode's build products: the next build remakes them
    ".composer/cache",
    ".cache",
)


# System folders that only hold what a package manager downloads again: apt's
# package lists (``apt-get update`` rebuilds them), the package caches of apt,
# apk, yum, dnf, zypper and pacman, and every user's ``~/.cache``.  Deleting
# them is the closing line of most Dockerfile ``RUN`` steps (``apt-get clean &&
# rm -rf /var/lib/apt/lists/*``, docker-library/python's Dockerfiles), not data
# loss (issue 30).
_SYSTEM_CACHES = (
    "/var/lib/apt/lists",
    "/var/cache/apt",
    "/var/cache/apk",
    "/var/cache/yum",
    "/var/cache/dnf",
    "/var/cache/zypp",
    "/var/cache/pacman/pkg",
    "/var/cache/debconf/templates.dat-old",
    "/root/.cache",
    "/root/.npm",
    "/usr/local/share/.cache",
)


def _system_cache(full: str) -> bool:
    """A package manager's download cache outside any home (see ``_SYSTEM_CACHES``)."""
    if any(_under(full, c) for c in _SYSTEM_CACHES):
        return True
    parts = full.split("/")
    # /home/<user>/.cache and the other per-user caches of ``_HOME_CACHES``
    return (
        len(parts) > 3
        and parts[1] == "home"
        and any(_under("/".join(parts[3:]), c) for c in _HOME_CACHES)
    )


@record(frozen=True)
class Where:
    """The resolution context: working directory, project root, home, temp dir."""

    cwd: str
    project: str
    home: str
    tmpdir: str = ""
    # when the session began (ns, ``Event.session_started``), None if unknown: a file
    # changed since is one the agent made or rewrote in this session
    since_ns: int | None = None


def resolve(path: str, where: Where, cwd: str | None = None) -> str:
    """Absolute, ``..``-normalised form of ``path`` (markers kept as they are)."""
    if path == "~" or path.startswith("~/"):
        path = where.home + path[1:]
    base = cwd if cwd is not None else where.cwd
    if not path.startswith("/"):
        path = posixpath.join(base or "/", path)
    norm = posixpath.normpath(path)
    return "/" + norm.lstrip("/") if norm.startswith("//") else norm


def _under(path: str, parent: str) -> bool:
    if parent == "/":
        return True
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def glob_base(path: str) -> tuple[str, bool]:
    """Split a glob into the directory it expands in and whether it matches everything.

    ``dir/*`` and ``dir/.*`` match everything in ``dir``; ``dir/*.pyc`` only
    some entries, which is classified as a plain path inside ``dir``.
    """
    if DESCENDANT in path:
        head = path.split(DESCENDANT, 1)[0].rstrip("/") or "/"
        return head, False
    if not any(ch in path for ch in "*?["):
        return path, False
    head, _, tail = path.rpartition("/")
    if any(ch in head for ch in "*?["):
        # a glob in a directory part: everything below its static prefix
        static = head.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
        # (a relative pattern with no static folder expands in the working directory);
        # a literal last name (``*/config.toml``) matches only some entries
        base = static.rpartition("/")[0] or ("/" if path.startswith("/") else ".")
        return base, any(ch in tail for ch in "*?[") or not tail
    everything = tail in ("{*,.*}", "*.*") or tail.startswith(".[") or _no_literal(tail)
    return (head or ("/" if path.startswith("/") else ".")), everything


def _no_literal(tail: str) -> bool:
    """Whether a glob's last name has no literal part that picks some entries: only
    ``*``, ``?``, dots and bracket expressions before a last ``*`` (``*``, ``.*``, ``??*``,
    ``[!.]*``, ``[a-z]*``), so it matches every name, or every name but the shortest;
    ``*[0-9]`` picks names by their end as ``*.pyc`` does."""
    rest, _, after = tail.partition("[")
    while after:
        close = after.find("]", 1 if after[:1] in ("!", "^") else 0)
        if close < 0:
            return False
        more, _, after = after[close + 1 :].partition("[")
        rest += more
    return "*" in rest and not rest.strip("*?.") and (rest == tail or tail.endswith("*"))


def real_file(path: str, where: Where, cwd: str | None = None) -> str:
    """The file a symlink at ``path`` leads to now, or ``""`` when ``path`` is no symlink.

    Why: a credential is known by its name (``id_rsa``, ``.env``), and a link made
    earlier (``ln -s ~/.ssh/id_rsa notes.txt``) gives it another one.
    """
    import os

    full = resolve(path, where, cwd)
    if has_marker(full) or not os.path.islink(full):
        return ""
    return os.path.realpath(full)


def classify(
    path: str, where: Where, cwd: str | None = None, follow: bool = False
) -> tuple[Place, str]:
    """Classify ``path`` and return it resolved; globs count as their base dir.

    A path that *starts* with an unknown part (``"$DIR"``, ``$(cmd)/x``) is
    unknown; one with a known directory before the unknown part
    (``/etc/$X``, ``/tmp/$(mktemp -u)``) counts as something inside it.

    ``follow``: the command opens the path itself (``> f``, ``cat f``, a file
    tool's write or read), so a symlink in its last part leads where it points:
    ``notes.md`` made earlier as ``ln -s ~/.bashrc notes.md`` is the user's
    ``.bashrc``.  (``rm``, ``mv`` and ``sed -i`` act on the link itself.)
    """
    if path.endswith(CACHE_ENTRY):
        # only caches, wherever the walk starts (``cd "$DIR" && find . -name __pycache__``)
        return Place.CACHE, resolve(path[: -len(CACHE_ENTRY)] or "/", where, cwd)
    if path[:1] in (UNKNOWN, REMOTE):
        return Place.UNKNOWN, path
    base, everything = glob_base(path)
    descendant = DESCENDANT in path or (base != path and not everything)
    full = resolve(base, where, cwd)
    if has_marker(full):
        if full[:1] in (UNKNOWN, REMOTE):
            return Place.UNKNOWN, full
        prefix = full.split(UNKNOWN, 1)[0].split(REMOTE, 1)[0]
        full = prefix.rstrip("/") if prefix.endswith("/") else prefix.rpartition("/")[0]
        full = full or "/"
        descendant = True
    place = _place(full, where)
    if place in _FOLLOWED and not full.startswith(_PER_PROCESS):
        last = follow or descendant or everything or path.endswith("/")
        place, full = _through_links(place, full, where, last)
    if descendant and place in (Place.ROOT, Place.HOME, Place.ANCESTOR):
        # some entries below /, ~ or a project ancestor: still outside the project
        place = Place.SYSTEM if place is Place.ROOT else Place.HOME_OTHER
    if descendant and place is Place.PROJECT_ROOT:
        place = Place.INSIDE
    return place, full


# Links that lead somewhere else in each process (/dev/stdout, /dev/fd/1, /proc/self/...):
# followed here they would name the hook's own pipes, not the command's.
_PER_PROCESS = ("/dev/", "/proc/")
_OWN_STREAMS = ("/proc/self/fd/", "/proc/thread-self/fd/")
# Where a symlink may lead somewhere worse: ``ln -s ~ x`` made earlier, then
# ``rm -rf x/*`` reads as inside the project but empties the home folder.
_FOLLOWED = frozenset({Place.INSIDE, Place.TEMP, Place.CACHE, Place.OUTSIDE})
_REAL_ANCHORS: dict[tuple[str, str], tuple[str, str]] = {}


def _through_links(place: Place, full: str, where: Where, last: bool) -> tuple[Place, str]:
    """The place the OS reaches for ``full``: symlinks in its folders followed (and in
    its last part when the command goes through it: ``x/``, ``x/*``).

    Compared with the project and home as the OS sees them, so a project under
    a symlinked home stays inside.  Only a worse place replaces the spelled one.
    """
    import os

    head, _, tail = full.rpartition("/")
    real = os.path.realpath(full) if last else os.path.join(os.path.realpath(head or "/"), tail)
    if real == full:
        return place, full
    key = (where.project, where.home)
    anchors = _REAL_ANCHORS.get(key)
    if anchors is None:
        if len(_REAL_ANCHORS) > 64:
            _REAL_ANCHORS.clear()
        anchors = _REAL_ANCHORS[key] = (
            os.path.realpath(where.project) if where.project else "",
            os.path.realpath(where.home) if where.home else "",
        )
    seen = _place(real, Where(where.cwd, anchors[0], anchors[1], where.tmpdir))
    if seen in _FOLLOWED:
        return place, full
    return seen, real


def _place(full: str, where: Where) -> Place:
    if full == "/":
        return Place.ROOT
    if full.startswith("/dev/"):
        if full in _HARMLESS_DEV or full.startswith(("/dev/fd/", "/dev/pts/")):
            return Place.TEMP
        return Place.DEVICE
    if full.startswith(_OWN_STREAMS):
        return Place.TEMP  # the command's own open files, as /dev/fd/N
    project = where.project
    if project and project != "/":
        if full == project:
            return Place.PROJECT_ROOT
        if _under(full, project + "/.git"):
            return Place.PROJECT_GIT
        if _under(full, project):
            return Place.INSIDE
        if _under(project, full):
            return Place.ANCESTOR if full != where.home else Place.HOME
    home = where.home
    if home and home != "/":
        if full == home:
            return Place.HOME
        if _under(full, home):
            rel = full[len(home) + 1 :]
            if any(_under(rel, c) for c in _HOME_CACHES):
                return Place.CACHE
            return Place.HOME_DOT if rel.startswith(".") else Place.HOME_OTHER
    if (where.tmpdir and _under(full, where.tmpdir)) or any(_under(full, t) for t in _TEMP):
        return Place.TEMP
    if any(_under(full, s) for s in _SYSTEM):
        return Place.CACHE if _system_cache(full) else Place.SYSTEM
    return Place.OUTSIDE


# --- secret files ---------------------------------------------------------

_SECRET_NAMES = frozenset(
    {
        ".env",
        ".envrc",
        ".netrc",
        "_netrc",
        ".pgpass",
        ".npmrc",
        ".pypirc",
        ".git-credentials",
        ".htpasswd",
        "credentials",
        "credentials.json",
        "secrets.json",
        "secrets.yml",
        "secrets.yaml",
        "master.key",
        "id_rsa",
        "id_dsa",
        "id_ecdsa",
        "id_ed25519",
        "id_ecdsa_sk",
        "id_ed25519_sk",
        "shadow",
        "gshadow",
        "hosts.yml",
        ".vault-token",
        "terraform.tfstate",
        "kubeconfig",
        ".boto",
        ".s3cfg",
        "service-account.json",
        "credentials.tfrc.json",
        "rclone.conf",
        ".credentials.json",
    }
)
# Names that hold a credential only in their tool's folder (``auth.json`` is Codex's
# login in ~/.codex, an ordinary file in a project): name -> folders, as in the path
_SECRET_IN_FOLDER = {
    "credentials.toml": ("/.cargo/",),
    "auth.json": ("/.codex/",),
    "hub": ("/.config/",),
    "logins.json": ("/.mozilla/", "/firefox/"),
    "key4.db": ("/.mozilla/", "/firefox/"),
    "login data": ("/chrome/", "/google-chrome/", "/chromium/", "/brave"),
}
_SECRET_SUFFIXES = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".keystore",
    ".jks",
    ".kdbx",
    ".ppk",
    ".tfstate",
)
_NOT_SECRET_ENV = (".example", ".sample", ".template", ".dist", ".defaults", ".schema", ".md")
_SECRET_DIRS = (
    "/.ssh/",
    "/.aws/",
    "/.gnupg/",
    "/.kube/",
    "/.docker/",
    "/.config/gh/",
    "/.azure/",
    "/.config/gcloud/",
)
_PUBLIC_IN_SSH = ("known_hosts", "config", "authorized_keys", "environment", "known_hosts.old")
_SECRET_DIR_NAMES = frozenset({".ssh", ".aws", ".gnupg", ".kube", ".azure", ".password-store"})


def is_secret_file(path: str) -> bool:
    """Files whose content is a credential (``.env``, ``~/.ssh/id_*``, ``*.pem``...).

    Public halves and templates (``id_rsa.pub``, ``.env.example``) are not.
    """
    if not path or has_marker(path):
        return False
    base = posixpath.basename(path.rstrip("/"))
    low = base.lower()
    if low.endswith(".pub") or low.endswith(_NOT_SECRET_ENV):
        return False
    folders = _SECRET_IN_FOLDER.get(low)
    if folders:
        probe = "/" + path.lstrip("/").lower()
        return any(f in probe for f in folders)
    if low in _SECRET_NAMES or low.endswith(_SECRET_SUFFIXES):
        if low == "credentials" and "/.aws/" not in path and not path.startswith(".aws/"):
            return "/.aws" in path or "/.gem/" in path
        if low == "hosts.yml":
            return "/gh/" in path
        if low in ("shadow", "gshadow"):
            return path.startswith("/etc/")
        return True
    if low.startswith(".env.") or low.startswith("service-account"):
        return True
    if low in _SECRET_DIR_NAMES:
        return True
    probe = "/" + path.lstrip("/")
    for d in _SECRET_DIRS:
        if d in probe:
            return not (d == "/.ssh/" and low in _PUBLIC_IN_SSH) and low != "config.toml"
    return False


# Names a file filter is tried on to tell whether it picks a credential file: one of each
# secret name, suffix, ``.env.*`` and folder in the lists above, and ordinary files that a
# filter picking them as well (``*``, ``.*``, ``*.json``) is no selection of a credential.
_ORDINARY = (
    "main.py",
    "index.ts",
    "README.md",
    "package.json",
    "config.yml",
    "config.yaml",
    ".gitignore",
    "src/app.py",
    "src/sub/app.py",
)


def _filter_probes() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names a filter is tried on: the file names alone (a filter with no ``/`` picks
    by name, and the folder searched says whether ``config`` is ``~/.kube/config``), and
    those below each credential folder as well (``.ssh/*``, ``**/.aws/*``)."""
    names = [*_SECRET_NAMES, *("server" + s for s in _SECRET_SUFFIXES)]
    names += [".env.local", ".env.production", "service-account-prod.json"]
    names += ["config", "config.json", "secret"]
    folders = [d.strip("/") for d in _SECRET_DIRS] + sorted(_SECRET_DIR_NAMES)
    nested = [f"{d}/{n}" for d in dict.fromkeys(folders) for n in names]
    return tuple(names), tuple(names + nested)


def _alternatives(pattern: str, limit: int = 64) -> list[str]:
    """A glob with its ``{a,b}`` groups spelled out (ripgrep and the hosts' globs take them)."""
    out: list[str] = []
    todo = [pattern]
    while todo and len(out) + len(todo) <= limit:
        one = todo.pop()
        start = one.find("{")
        end = one.find("}", start)
        if start < 0 or end < 0:
            out.append(one)
            continue
        todo += [one[:start] + alt + one[end + 1 :] for alt in one[start + 1 : end].split(",")]
    return out + todo


def _glob_picks(pattern: str, name: str) -> bool:
    """Whether a search filter picks the file at relative path ``name``, as ripgrep's ``-g``
    reads it: a glob with no ``/`` matches a file's name in any folder, one with a ``/`` its
    path from the folder searched (any depth below it for ``**/``)."""
    from fnmatch import fnmatchcase

    pat = pattern.lower().removeprefix("./").lstrip("/")
    if "/" not in pat.rstrip("/"):
        return fnmatchcase(posixpath.basename(name), pat)
    return fnmatchcase(name, pat) or fnmatchcase("sub/" + name, pat)


def filter_picks_secrets(pattern: str) -> list[str]:
    """The credential files (paths relative to the folder searched) a search tool's file
    filter picks, when it picks them and not ordinary files as well: ``.env``, ``**/.env*``,
    ``*.{py,env}``, ``*.pem``, ``.ssh/*`` do, ``*.py``, ``src/**``, ``*``, ``.*`` and an
    exclusion (``!.env``) do not."""
    if not pattern or pattern.startswith("!"):
        return []
    global _PROBES
    if not _PROBES:
        _PROBES = _filter_probes()
    picked: list[str] = []
    for alt in _alternatives(pattern):
        if any(_glob_picks(alt, o) for o in _ORDINARY):
            continue
        probes = _PROBES[1] if "/" in alt.strip("/") else _PROBES[0]
        picked += [n for n in probes if _glob_picks(alt, n) and n not in picked]
    return picked


_PROBES: tuple[tuple[str, ...], tuple[str, ...]] | tuple[()] = ()


def is_history_file(path: str) -> bool:
    """Shell and REPL history files (wiping them destroys the user's record)."""
    base = posixpath.basename(path)
    return base in (
        ".bash_history",
        ".zsh_history",
        ".history",
        ".python_history",
        ".node_repl_history",
        ".psql_history",
        ".mysql_history",
        ".sqlite_history",
        ".lesshst",
    ) or path.endswith("/fish/fish_history")


# Words that name one of agentreflex's own files (core's one list) or the commands
# that switch it off: a command holding one is never decided by the pre-filter,
# so ``selfguard`` sees it.  Over-matching here costs only speed.
_PROTECTED_WORDS = (*PROTECTED_NAMES, *COMMON_PROTECTED_NAMES, "uninstall")


def names_protected(text: str) -> bool:
    """Whether ``text`` mentions a name of agentreflex's own files (cheap, no paths resolved)."""
    return any(word in text for word in _PROTECTED_WORDS)
