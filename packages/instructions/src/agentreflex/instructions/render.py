"""One source of truth: ``policies/instructions.md`` rendered into every host's file.

Each host reads its own instruction file, so teams copy their rules into
four files that drift apart.  ``render`` writes the shared text between two
markers in each of them and leaves everything outside the markers exactly as
the user wrote it.  Rendering twice changes nothing; ``--check`` reports the
files that are out of date without writing.

Markers damaged by hand (an end without a begin, two begins, an end before
its begin) are never guessed around: the file is refused and the report says
which line is wrong, because a wrong guess would delete the user's text.
"""

from __future__ import annotations

import os

from agentreflex.core.util.record import field, record

SOURCE = "policies/instructions.md"
BEGIN = "<!-- BEGIN agentreflex instructions: generated from policies/instructions.md by `agentreflex instructions render`; edit that file, not this section -->"
END = "<!-- END agentreflex instructions -->"
_BEGIN_PREFIX = "<!-- BEGIN agentreflex instructions"

ALWAYS = ("AGENTS.md", "CLAUDE.md")
"""Written in every project: Codex/OpenCode/pi read AGENTS.md, Claude Code CLAUDE.md."""
IF_PRESENT = ("GEMINI.md", ".github/copilot-instructions.md")
"""Written only where the project already has them (no new files for unused hosts)."""
MAX_BYTES = 1024 * 1024


class RenderError(Exception):
    """A file that cannot be rendered safely; the message says where and why."""


@record
class Outcome:
    """What rendering did (or would do) to one file."""

    file: str
    changed: bool
    error: str = ""


@record
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    @property
    def errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error]

    @property
    def stale(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.changed and not o.error]


def section(body: str) -> str:
    """The managed section for ``body`` (markers included, one trailing newline)."""
    return f"{BEGIN}\n{body.strip(chr(10))}\n{END}\n"


def splice(existing: str, body: str, name: str = "the file") -> str:
    """``existing`` with its managed section replaced (or appended) by ``body``'s.

    Raises :class:`RenderError` naming the line when the markers are damaged.
    """
    lines = existing.splitlines(keepends=True)
    begins = [i for i, line in enumerate(lines) if line.strip().startswith(_BEGIN_PREFIX)]
    ends = [i for i, line in enumerate(lines) if line.strip() == END]
    new = section(body)
    if not begins and not ends:
        if not existing.strip():
            return new
        return existing.rstrip("\n") + "\n\n" + new
    if len(begins) > 1:
        raise RenderError(
            f"{name} has {len(begins)} begin markers (lines "
            f"{', '.join(str(i + 1) for i in begins)}); keep one and remove the others"
        )
    if len(ends) > 1:
        raise RenderError(
            f"{name} has {len(ends)} end markers (lines "
            f"{', '.join(str(i + 1) for i in ends)}); keep one and remove the others"
        )
    if not ends:
        raise RenderError(
            f"{name}: the begin marker on line {begins[0] + 1} has no end marker; "
            f"add `{END}` where the generated section ends"
        )
    if not begins:
        raise RenderError(
            f"{name}: the end marker on line {ends[0] + 1} has no begin marker; "
            "remove it, or restore the begin marker above the generated section"
        )
    b, e = begins[0], ends[0]
    if e < b:
        raise RenderError(
            f"{name}: the end marker on line {e + 1} comes before the begin marker on line "
            f"{b + 1}; put them back in order"
        )
    before = "".join(lines[:b])
    after = "".join(lines[e + 1 :])
    return before + new + after


def targets(project: str) -> list[str]:
    """The host instruction files to render, relative to the project."""
    out = list(ALWAYS)
    out.extend(rel for rel in IF_PRESENT if os.path.lexists(os.path.join(project, rel)))
    return out


def load_body(project: str) -> str:
    """The shared rules, from ``policies/instructions.md``; refuses a source holding markers."""
    path = os.path.join(project, SOURCE)
    text = _read(path, project, SOURCE)
    if text is None:
        raise RenderError(f"{SOURCE} does not exist: write the rules every host should see there")
    if _BEGIN_PREFIX in text or END in text:
        raise RenderError(f"{SOURCE} contains agentreflex's markers; remove them from the source")
    return text


def render(project: str, check: bool = False) -> Report:
    """Render (or, with ``check``, only compare) every target.

    A target that cannot be rendered safely is reported in its outcome; an
    unusable source raises :class:`RenderError`.
    """
    report = Report()
    body = load_body(project)
    for rel in targets(project):
        path = os.path.join(project, rel)
        try:
            existing = _read(path, project, rel) or ""
            new = splice(existing, body, rel)
        except RenderError as exc:
            report.outcomes.append(Outcome(rel, False, str(exc)))
            continue
        changed = new != existing or not os.path.lexists(path)
        if changed and not check:
            _write(path, new)
        report.outcomes.append(Outcome(rel, changed))
    return report


def _read(path: str, project: str, rel: str) -> str | None:
    if not os.path.lexists(path):
        return None
    real = os.path.realpath(path)
    root = os.path.realpath(project)
    if not real.startswith(root.rstrip("/") + "/"):
        raise RenderError(f"{rel} is a symlink that leads outside the project; not touched")
    if not os.path.isfile(real):
        raise RenderError(f"{rel} is not a regular file; not touched")
    if os.path.getsize(real) > MAX_BYTES:
        raise RenderError(f"{rel} is larger than {MAX_BYTES // 1024} KiB; not touched")
    try:
        with open(real, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        raise RenderError(f"{rel} cannot be read ({exc.strerror})") from None
    if b"\0" in data:
        raise RenderError(f"{rel} looks binary; not touched")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RenderError(f"{rel} is not valid UTF-8 (byte {exc.start}); not touched") from None


def _write(path: str, text: str) -> None:
    """Replace ``path`` atomically, keeping its mode (0644 less the umask for a new file)."""
    real = os.path.realpath(path)
    try:
        mode = os.stat(real).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o644 & ~umask
    os.makedirs(os.path.dirname(real), exist_ok=True)
    tmp = f"{real}.agentreflex-{os.getpid()}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise
