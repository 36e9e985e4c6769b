"""Release tooling: bump one package's version; check that changed packages were bumped.

Each package's version lives in one place, the ``version`` of its
``pyproject.toml`` (the root's is the meta-package ``agentreflex``). Siblings
require each other by range (``agentreflex-core>=0.1,<0.2``), so a bump must
say which ranges no longer admit the new version.

    uv run python tools/release.py bump PACKAGE major|minor|patch|X.Y.Z [-m TEXT]...
    uv run python tools/release.py check-bumped [--since REF]

``bump`` rewrites the version, writes an entry at the top of the package's
``CHANGELOG.md`` (created when missing; the text is ``-m`` or else the
subjects of the commits that touched the package since the baseline), and
lists every dependent's range that does not admit the new version, with the
range to widen it to; it exits 1 when there is any.

``check-bumped`` fails when a package's files changed since the baseline but
its version is not greater than it was there. The baseline is ``--since REF``,
else the newest tag reachable from HEAD, else the previous version of main
(``main``'s merge base with HEAD on another branch, ``HEAD~1`` on main). With
none of those (a fresh clone of one commit, no tags) it says there is no
baseline and passes: there is nothing to compare against.

PACKAGE is a folder under ``packages/`` (``gate``), a distribution name
(``agentreflex-gate``), or ``agentreflex`` for the meta-package.
"""

from __future__ import annotations

import argparse
import datetime
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

PARTS = ("major", "minor", "patch")


class ReleaseError(Exception):
    """A request the tool cannot carry out; the message says why."""


class Package:
    """One distribution of the workspace: its folder, name, version and requirements."""

    def __init__(self, root: Path, folder: Path) -> None:
        self.root = root
        self.folder = folder
        self.pyproject = folder / "pyproject.toml"
        project = tomllib.loads(self.pyproject.read_text(encoding="utf-8"))["project"]
        self.name: str = project["name"]
        self.version = Version(project["version"])
        reqs = list(project.get("dependencies", []))
        for extra in project.get("optional-dependencies", {}).values():
            reqs += extra
        self.requirements = [Requirement(r) for r in reqs]

    @property
    def is_meta(self) -> bool:
        return self.folder == self.root

    def paths(self) -> list[str]:
        """What ships in this distribution, relative to the repository root."""
        if self.is_meta:  # the meta-package ships its pyproject and README only
            return ["pyproject.toml", "README.md"]
        return [self.folder.relative_to(self.root).as_posix()]


def workspace(root: Path) -> dict[str, Package]:
    """Every package of the workspace at ``root``, by distribution name."""
    folders = [root, *sorted(p.parent for p in root.glob("packages/*/pyproject.toml"))]
    packages = [Package(root, f) for f in folders]
    return {p.name: p for p in packages}


def find(packages: dict[str, Package], wanted: str) -> Package:
    for candidate in (wanted, f"agentreflex-{wanted}"):
        if candidate in packages:
            return packages[candidate]
    raise ReleaseError(f"no package {wanted!r}; known: {', '.join(sorted(packages))}")


def next_version(current: Version, part: str) -> Version:
    """``part`` (major/minor/patch) of ``current`` raised by one, or ``part`` itself as a version."""
    if part not in PARTS:
        try:
            wanted = Version(part)
        except ValueError as exc:
            raise ReleaseError(f"{part!r} is neither major/minor/patch nor a version") from exc
        if wanted <= current:
            raise ReleaseError(f"{wanted} is not greater than the current {current}")
        return wanted
    major, minor, patch = [*current.release, 0, 0][:3]
    bumped = {
        "major": (major + 1, 0, 0),
        "minor": (major, minor + 1, 0),
        "patch": (major, minor, patch + 1),
    }[part]
    return Version(".".join(map(str, bumped)))


def set_version(pyproject: Path, version: Version) -> None:
    """Rewrite the ``version`` line of the ``[project]`` table, and nothing else."""
    text = pyproject.read_text(encoding="utf-8")
    table = re.search(r"(?ms)^\[project\]\s*$(.*?)(?=^\[|\Z)", text)
    if not table:
        raise ReleaseError(f"{pyproject}: no [project] table")
    line = re.compile(r'(?m)^(version\s*=\s*")[^"]*(")')
    body, count = line.subn(rf"\g<1>{version}\g<2>", table.group(1), count=1)
    if count != 1:
        raise ReleaseError(f"{pyproject}: no version in [project]")
    pyproject.write_text(text[: table.start(1)] + body + text[table.end(1) :], encoding="utf-8")


def suggested_range(old: str, version: Version) -> str:
    """The range to widen ``old`` to: its lower bounds kept, the next release series excluded."""
    lower = [s for s in old.split(",") if s.strip().startswith((">", "~", "=="))]
    lower = [s for s in lower if not s.strip().startswith("==")] or [f">={version}"]
    major, minor = [*version.release, 0][:2]
    upper = f"<{major}.{minor + 1}" if major == 0 else f"<{major + 1}"
    return ",".join([*lower, upper])


def stale_ranges(packages: dict[str, Package], name: str, version: Version) -> list[str]:
    """Each dependent's requirement on ``name`` that does not admit ``version``, with a fix."""
    found = []
    for dependent in packages.values():
        for req in dependent.requirements:
            if req.name == name and not req.specifier.contains(version, prereleases=True):
                spec = str(req.specifier)
                found.append(
                    f"{dependent.name} ({dependent.pyproject.relative_to(dependent.root)}) "
                    f"requires {name}{spec}, which does not admit {version}: "
                    f"widen it to {name}{suggested_range(spec, version)}"
                )
    return found


def git(root: Path, *args: str) -> str | None:
    """``git ARGS`` in ``root``: its output, or None when it fails."""
    proc = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def baseline(root: Path, since: str | None) -> tuple[str | None, str]:
    """The commit to compare against, and how it was chosen (for the report)."""
    if since:
        if git(root, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}") is None:
            raise ReleaseError(f"--since {since}: no such commit, tag or branch")
        return since, f"--since {since}"
    tag = git(root, "describe", "--tags", "--abbrev=0", "HEAD")
    if tag:
        return tag, f"the last tag, {tag}"
    branch = git(root, "rev-parse", "--abbrev-ref", "HEAD")
    if branch != "main" and git(root, "rev-parse", "--verify", "--quiet", "main"):
        base = git(root, "merge-base", "main", "HEAD")
        if base:
            return base, f"main's merge base with HEAD, {base[:12]} (no tags)"
    if git(root, "rev-parse", "--verify", "--quiet", "HEAD~1"):
        return "HEAD~1", "the previous version of main, HEAD~1 (no tags)"
    return None, "no tags and no earlier commit of main"


def version_at(root: Path, ref: str, package: Package) -> Version | None:
    """``package``'s version at ``ref``; None when it did not exist there."""
    path = package.pyproject.relative_to(root).as_posix()
    text = git(root, "show", f"{ref}:{path}")
    if text is None:
        return None
    return Version(tomllib.loads(text)["project"]["version"])


def changed_files(root: Path, ref: str, package: Package) -> list[str]:
    """Files of ``package`` that differ between ``ref`` and the working tree."""
    out = git(root, "diff", "--name-only", ref, "--", *package.paths())
    if out is None:
        raise ReleaseError(f"git diff against {ref} failed")
    return [line for line in out.splitlines() if not line.endswith("CHANGELOG.md")]


def check_bumped(root: Path, since: str | None) -> tuple[int, list[str]]:
    """Exit status and report lines of ``check-bumped``."""
    ref, how = baseline(root, since)
    if ref is None:
        return 0, [
            f"check-bumped: nothing to compare against ({how}); passing. "
            "Tag each release (git tag agentreflex-0.1.0) or pass --since REF."
        ]
    lines = [f"check-bumped: comparing with {how}"]
    status = 0
    for package in workspace(root).values():
        before = version_at(root, ref, package)
        changed = changed_files(root, ref, package)
        if before is None or not changed:
            note = "new" if before is None else "unchanged"
            lines.append(f"  ok   {package.name} {package.version} ({note})")
            continue
        if package.version > before:
            lines.append(f"  ok   {package.name} {before} -> {package.version}")
            continue
        status = 1
        lines.append(
            f"  FAIL {package.name}: {len(changed)} file(s) changed (e.g. {changed[0]}) "
            f"but its version is still {package.version}: "
            f"uv run python tools/release.py bump {package.name} patch"
        )
    return status, lines


def changelog_entry(package: Package, version: Version, notes: list[str], ref: str | None) -> str:
    if not notes and ref:
        log = git(package.root, "log", "--format=%s", f"{ref}..HEAD", "--", *package.paths())
        notes = [s for s in (log or "").splitlines() if s]
    today = datetime.date.today().isoformat()
    items = "".join(f"- {n}\n" for n in notes) or "- (describe the change)\n"
    return f"## {version} ({today})\n\n{items}\n"


def write_changelog(package: Package, entry: str) -> Path:
    """Put ``entry`` at the top of the package's CHANGELOG.md, creating it when missing."""
    path = package.folder / "CHANGELOG.md"
    header = (
        f"# Changelog of {package.name}\n\nNewest first. Written by `tools/release.py bump`.\n\n"
    )
    text = path.read_text(encoding="utf-8") if path.exists() else header
    first = text.find("\n## ")
    text = text + entry if first < 0 else text[: first + 1] + entry + text[first + 1 :]
    path.write_text(text, encoding="utf-8")
    return path


def bump(root: Path, wanted: str, part: str, notes: list[str]) -> tuple[int, list[str]]:
    """Exit status and report lines of ``bump``."""
    packages = workspace(root)
    package = find(packages, wanted)
    version = next_version(package.version, part)
    ref, _ = baseline(root, None)
    set_version(package.pyproject, version)
    log = write_changelog(package, changelog_entry(package, version, notes, ref))
    lines = [
        f"{package.name}: {package.version} -> {version} "
        f"({package.pyproject.relative_to(root)}; {log.relative_to(root)})"
    ]
    stale = stale_ranges(packages, package.name, version)
    lines += [f"  range to widen: {s}" for s in stale]
    if not stale:
        lines.append("  every dependent's range admits it")
    return (1 if stale else 0), lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("bump", help="raise one package's version and write its changelog entry")
    b.add_argument("package")
    b.add_argument("part", help="major, minor, patch, or an explicit version")
    b.add_argument("-m", "--message", action="append", default=[], help="a changelog line")
    c = sub.add_parser("check-bumped", help="fail when a changed package kept its version")
    c.add_argument("--since", help="compare with this commit, tag or branch")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    try:
        if args.command == "bump":
            status, lines = bump(root, args.package, args.part, args.message)
        else:
            status, lines = check_bumped(root, args.since)
    except ReleaseError as exc:
        print(f"release: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return status


if __name__ == "__main__":
    sys.exit(main())
