"""Will Gemini CLI compress its chat after this ``PreCompress``?  Read as Gemini decides it.

Gemini CLI (0.61) fires ``PreCompress`` before it checks its own threshold
(google-gemini/gemini-cli#18083): ``ChatCompressionService.compress`` fires the
hook, then returns NOOP when ``trigger`` is ``auto`` and the last prompt's token
count is below ``threshold x tokenLimit(model)``.  It runs before every model
request of a turn, so a hook that takes each ``PreCompress`` for a compaction
re-sends whatever it re-injects after one with every prompt.

The facts, from the 0.61 sources:

* the count is ``GeminiChat.lastPromptTokenCount``: the ``promptTokenCount`` of
  the last response, which ``ChatRecordingService.recordMessageTokens`` writes
  into the session file (``transcript_path``) as the last ``gemini`` message's
  ``tokens.input``, beside the ``model`` that answered;
* where Gemini replaces its history (a resumed session, a compression, tool
  outputs masked) the count becomes ``estimateTokenCountSync`` of that history,
  which it records whole as a ``$set`` of ``messages``: at most 0.25 tokens per
  ASCII byte of that record, 0.75 per other byte and 25,800 per media part (its
  own estimate counts 1/4 per ASCII character, 1.5 per other UTF-16 unit, a fixed
  3,000 or 25,800 per image or PDF); that bound stands for it;
* ``tokenLimit`` is 256,000 for the Gemma 4 models and 1,048,576 for every other;
* the threshold is the merged settings' ``model.compressionThreshold`` (the
  schema's default 0.5 under system defaults, the user's
  ``$GEMINI_CLI_HOME/.gemini/settings.json``, the workspace's
  ``.gemini/settings.json`` when the folder is trusted, and the system settings
  over all when their file is secure; ``loadSettings`` in the CLI bundle).

Whatever is not known for sure (no session file, a record not read, a settings
file not read, a value of another type, a ``0`` threshold, which hands it to a
remote experiment) answers None: the caller takes the call for a compaction, as
before.  The workspace's and the system's values count only where they lower the
threshold (whether Gemini trusts the folder, or the file, is its own question):
a doubt errs towards a compaction.  The session file is read from its end, a
bounded amount; none of its text leaves this module.

Stdlib only, no ``json`` import: this runs on the hook's path.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DEFAULT_THRESHOLD = 0.5  # the settings schema's default (and the service's own)
DEFAULT_LIMIT = 1_048_576
# tokenLimits.ts: GEMMA_4_31B_IT_MODEL, GEMMA_4_26B_A4B_IT_MODEL
LIMITS: dict[str, int] = {"gemma-4-31b-it": 256_000, "gemma-4-26b-a4b-it": 256_000}
# how much of the session file's end is read, step by step: a ``gemini`` record
# carries its tool calls' results, so the last one can be long
_WINDOWS = (1 << 16, 1 << 20, 1 << 23)
_SETTINGS_LIMIT = 1 << 20
_UNSET = object()
_MARKS = (b'"gemini"', b'"$rewindTo"', b'"messages"')


def will_compress(transcript_path: str, workspace: str, env: Mapping[str, str]) -> bool | None:
    """True/False when Gemini's automatic compression will/will not run now; None if unknown."""
    last = last_prompt(transcript_path)
    if last is None:
        return None
    threshold = compression_threshold(workspace, env)
    if threshold is None:
        return None
    tokens, model = last
    limit = LIMITS.get(model, DEFAULT_LIMIT) if model else min(LIMITS.values())
    return tokens >= threshold * limit


# ---------------------------------------------------------------- the session file


def last_prompt(path: str) -> tuple[int, str] | None:
    """(the count Gemini holds, the model) as the session file's end records them.

    The last ``gemini`` message's ``tokens.input`` and ``model``; after a ``$set`` of
    ``messages``, the bound of Gemini's estimate of them (or a count one of them
    recorded, if larger) and the last model named there ("" if none).  None when
    the file cannot be read, the last message recorded no tokens, or the history
    was rewound (``$rewindTo``).
    """
    if not path:
        return None
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        size = os.fstat(fd).st_size
        for window in _WINDOWS:
            start = max(0, size - window)
            data = os.pread(fd, size - start, start)
            lines = data.split(b"\n")
            if start > 0:
                lines = lines[1:]  # the first is cut
            found = _last_in(lines)
            if found is not _UNSET:
                return found  # type: ignore[return-value]  # _UNSET is the only other object
            if start == 0:
                return None
        return None
    except OSError:
        return None
    finally:
        os.close(fd)


def _open_regular(path: str) -> int | None:
    """A descriptor of the regular file ``path`` (never waiting on a FIFO), or None."""
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            return fd
    except OSError:
        pass
    os.close(fd)
    return None


def _last_in(lines: list[bytes]) -> object:
    """The answer the last decisive record of ``lines`` gives, or ``_UNSET`` if none does."""
    from agentreflex.core.util import fastjson

    for line in reversed(lines):
        if not any(mark in line for mark in _MARKS):
            continue  # no model message, no change of history: parsed no further
        try:
            record = fastjson.loads(line)
        except (ValueError, RecursionError):
            continue  # Gemini itself passes over a line it cannot parse
        if not isinstance(record, dict):
            continue
        if "$rewindTo" in record:
            return None
        changes = record.get("$set")
        if isinstance(changes, dict) and isinstance(changes.get("messages"), list):
            return _replaced(line, changes["messages"])
        if _is_gemini(record):
            return _tokens(record)
    return _UNSET


_HIGH = bytes(range(128, 256))
_MEDIA = (b'"inlineData"', b'"fileData"')
_MEDIA_ESTIMATE = 25_800  # a PDF's, the larger of Gemini's two fixed estimates


def _replaced(line: bytes, messages: list[Any]) -> tuple[int, str]:
    """What Gemini counts after it set its history to ``messages`` (the record ``line``).

    Its estimate of them, bounded from above by the record's bytes; a failed request
    rolls back to the count before it, which a message of the set may carry: the
    larger of the two.
    """
    other = len(line) - len(line.translate(None, _HIGH))
    media = sum(line.count(mark) for mark in _MEDIA)
    bound = (len(line) - other) // 4 + (other * 3 + 3) // 4 + media * _MEDIA_ESTIMATE + 1
    recorded, model = 0, ""
    for message in messages:
        if _is_gemini(message):
            found = _tokens(message)
            recorded = max(recorded, found[0]) if found else recorded
            named = message.get("model")
            model = named if isinstance(named, str) else model
    return max(bound, recorded), model


def _is_gemini(record: Any) -> bool:
    return isinstance(record, dict) and record.get("type") == "gemini" and "id" in record


def _tokens(message: dict[str, Any]) -> tuple[int, str] | None:
    tokens = message.get("tokens")
    count = tokens.get("input") if isinstance(tokens, dict) else None
    if type(count) is not int or count < 0:
        return None
    model = message.get("model")
    return count, model if isinstance(model, str) else ""


# ---------------------------------------------------------------- the settings


def compression_threshold(workspace: str, env: Mapping[str, str]) -> float | None:
    """``model.compressionThreshold`` as Gemini's merged settings give it; None if unknown.

    The user's over the system defaults over 0.5; then the workspace's and the system
    settings' where lower.  Gemini puts both over the user's, when it trusts the
    folder and finds the system file secure (owned by root, not writable by others):
    questions of its own, so a higher value there is passed over, and a doubt errs
    towards a compaction.
    """
    home = _gemini_home(env)
    system = _system_settings_path(env)
    defaults = env.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or os.path.join(
        os.path.dirname(system), "system-defaults.json"
    )
    base: object = DEFAULT_THRESHOLD
    for path in (defaults, os.path.join(home, ".gemini", "settings.json")):
        value = _read_setting(path)
        if value is None:
            return None
        if value is not _UNSET:
            base = value
    threshold = _usable(base)
    over = [system]
    if workspace and not _same_folder(workspace, home):
        over.append(os.path.join(workspace, ".gemini", "settings.json"))
    for path in over:
        value = _read_setting(path)
        if threshold is None or value is None:
            return None
        if value is not _UNSET:
            lower = _usable(value)
            threshold = None if lower is None else min(threshold, lower)
    return threshold


def _usable(value: object) -> float | None:
    """A threshold Gemini uses as it is: a positive number (``0`` hands it to a remote
    experiment; a string is coerced by JavaScript, a bool never meant)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return float(value)


def _system_settings_path(env: Mapping[str, str]) -> str:
    return env.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json"


def _gemini_home(env: Mapping[str, str]) -> str:
    """Gemini's home: ``GEMINI_CLI_HOME``, else the user's home (``homedir()`` in its storage)."""
    return env.get("GEMINI_CLI_HOME") or env.get("HOME") or os.path.expanduser("~")


def _same_folder(one: str, other: str) -> bool:
    """Is ``one`` Gemini's home?  Gemini reads no workspace settings there."""
    try:
        return os.path.realpath(one) == os.path.realpath(other)
    except (OSError, ValueError):
        return False


def _read_setting(path: str) -> object:
    """``model.compressionThreshold`` in the settings file ``path``: ``_UNSET`` when the
    file or the key is absent, None when the file cannot be read as a JSON object."""
    from agentreflex.core.util import fastjson

    if not os.path.lexists(path):
        return _UNSET
    fd = _open_regular(path)
    if fd is None:
        return None
    try:
        data = os.read(fd, _SETTINGS_LIMIT + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > _SETTINGS_LIMIT:
        return None
    try:
        try:
            settings = fastjson.loads(data)
        except ValueError:  # Gemini strips comments before it parses (strip-json-comments)
            from agentreflex.core.util import jsonc

            settings = jsonc.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(settings, dict):
        return None
    model = settings.get("model", _UNSET)
    if model is _UNSET:
        return _UNSET
    if not isinstance(model, dict):
        return None
    return model.get("compressionThreshold", _UNSET)
