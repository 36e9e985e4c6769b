"""The user's constraints, in the user's own words.

The gate notes constraints it can enforce (``{"action", "target", "text"}``
in ``state.notes["constraints"]``); the recap needs more than those: any
sentence of a prompt that restricts how the work is done ("don't touch the
public API", "only use the standard library", "keep the tests as they
are").  A sentence is kept verbatim when it carries one of the cue words
below; nothing is paraphrased, because a paraphrase is where a constraint
drifts.
"""

from __future__ import annotations

from agentreflex.core.util.lazyre import LazyPattern

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# a sentence ends at . ! ? followed by a space or the end ("api.py" stays whole), a newline or ;
_SENTENCES = LazyPattern(r"(?:[^.!?\n;]|[.!?](?=[^\s.!?]))+[.!?]*")
_CUES = LazyPattern(
    r"\b(?:do\s+not|don'?t|dont|never|must(?:\s+not)?|mustn'?t|only|without|avoid|"
    r"no\s+(?:new|more|changes?|edits?)|keep|leave|stay|should\s+not|shouldn'?t|"
    r"can'?t|cannot|not\s+allowed|forbidden|instead\s+of|make\s+sure|always)\b"
)
MAX_CHARS = 240


def from_prompts(prompts: list[str]) -> list[str]:
    """Constraint sentences of ``prompts`` in order, verbatim, without duplicates."""
    found: dict[str, str] = {}
    for prompt in prompts:
        for match in _SENTENCES.finditer(prompt):
            sentence = " ".join(match.group(0).split())
            if len(sentence) > 3 and _CUES.search(sentence.lower()):
                found.setdefault(sentence.lower(), sentence[:MAX_CHARS])
    return list(found.values())


def from_notes(notes: list[Any]) -> list[str]:
    """The gate's noted constraints (their ``text``, as the user wrote it)."""
    out: list[str] = []
    for note in notes:
        if isinstance(note, dict) and isinstance(note.get("text"), str) and note["text"].strip():
            out.append(" ".join(note["text"].split())[:MAX_CHARS])
    return out


def merged(prompts: list[str], notes: list[Any]) -> list[str]:
    """Sentences from the prompts, then gate notes not already inside one of them."""
    sentences = from_prompts(prompts)
    lowered = [s.lower() for s in sentences]
    for text in from_notes(notes):
        if not any(text.lower() in s for s in lowered):
            sentences.append(text)
            lowered.append(text.lower())
    return sentences
