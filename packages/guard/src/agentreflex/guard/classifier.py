"""The narrow, clause-local heuristic classifier of visible summaries.

Precision over recall: a clause becomes a (low-confidence, never blocking)
candidate obligation only when the *same clause* carries

1. a check form: an explicit commitment ("I'll verify ..."), an anchored
   active-check summary ("Investigating ...") or identified alternatives
   ("either X or Y"),
2. a bounded discriminating check (a check verb with an object), and
3. a decision signal (cause, failure, anomaly, difference, impact,
   behaviour, change ...),

and no cosmetic/documentation marker.  A clause with a check form but no
decision signal is *uncertain* (an abstention, counted but never an
obligation).  Everything else is clear.  Clauses are split at sentence
ends, semicolons, newlines and Markdown emphasis (``**Investigating X**``
is a heading boundary), so a conclusion or a promise to report later cannot
borrow words from a neighbouring sentence.
"""

from __future__ import annotations

import re

from agentreflex.core.util.lazyre import LazyPattern
from agentreflex.core.util.record import record

CANDIDATE = "candidate"
UNCERTAIN = "uncertain"
CLEAR = "clear"

_SPLIT = LazyPattern(r"\*\*|__|(?<=[.!?])\s+|[;\n]+|(?<=:)\s+(?=[A-Z])")
_WORD = LazyPattern(r"[a-z0-9][a-z0-9_'-]*")

_ACTIVE = LazyPattern(
    r"^(?:[#>\-*\d.)\s]*)(investigating|tracing|diagnosing|assessing|checking|verifying|"
    r"comparing|bisecting|reproducing|examining|testing|measuring|probing|confirming|"
    r"double-checking|sanity-checking|looking into|narrowing down|figuring out|tracking down)\b",
    re.I,
    hints="investigating tracing diagnosing assessing checking verifying comparing bisecting reproducing examining testing measuring probing confirming looking narrowing figuring tracking",
)
_COMMIT = LazyPattern(
    r"\b(i'll|i will|i'm going to|i am going to|let me|next,? i(?:'ll| will)|i need to|"
    r"we need to|we should|i should|going to|plan(?:ning)? to|before (?:changing|deciding|"
    r"editing|committing)[^,]*,\s*(?:i(?:'ll| will))?)\s+(?:first\s+|now\s+|quickly\s+)?"
    r"(?:[a-z]+(?: [a-z-]+){0,4} and (?:then )?)?"
    r"(check|verify|confirm|test|run|inspect|compare|measure|reproduce|bisect|trace|diagnose|"
    r"investigate|determine|rule out|look at|examine|probe|re-?run|assess|find out|diff|"
    r"see whether|see if|list which)\b",
    re.I,
    hints="check verify confirm test run inspect compare measure reproduce bisect trace diagnose investigate determine rule look examine probe assess find diff see list",
)
# The same pattern with other hints: every commitment also holds a lead word
# ("i'll", "i will" and "next, i'll" hold "ll"; "going to" holds "go"). Tried
# before _COMMIT, so a clause with a check verb and no lead ("Run the tests")
# compiles nothing. No hint holds an "i" (re.I equates it with U+0131, the dotless i,
# which casefold keeps apart).
_COMMIT_LEAD = LazyPattern(_COMMIT.pattern, re.I, hints="ll go plan let need should before")
_ALTERNATIVES = LazyPattern(
    r"\b(either\b.{3,80}\bor\b|whether\b.{3,80}\bor\b|(?:could|might|may) be\b.{3,60}\bor\b|"
    r"(two|three|several|competing) (possible )?(causes|explanations|hypotheses|candidates))",
    re.I,
    hints="either whether could might may causes explanations hypotheses candidates",
)
_CHECK_VERB = LazyPattern(
    r"\b(check|checking|verify|verifying|confirm|test|testing|tests|run|inspect|compare|"
    r"comparing|measure|measuring|reproduce|reproducing|bisect|bisecting|trace|tracing|"
    r"diagnose|diagnosing|investigate|investigating|determine|rule out|look at|examine|"
    r"examining|probe|probing|rerun|re-run|assess|assessing|find out|whether|diff|list which)\b",
    re.I,
    hints="check verify confirm test run inspect compar measur reproduc bisect trac diagnos investigat determine rule look examin prob assess find whether diff list",
)
_SIGNAL = LazyPattern(
    r"\b(cause[sd]?|causing|root[- ]cause|failure|failures|failing|fails|failed|anomal\w*|"
    r"difference|differs?|diverg\w*|impact\w*|behaviou?r|regression|regress\w*|"
    r"crash\w*|mismatch\w*|discrepanc\w*|flak\w*|broken|breaks?|why|timeouts?|"
    r"leak\w*|slowdown|latency|changed|change[sd]? (?:in|to|the)|error[s]?|culprit|"
    r"responsible)\b",
    re.I,
    hints="caus root fail anomal differ diverg impact behavio regress crash mismatch discrepanc flak broke break why timeout leak slowdown latency change error culprit responsible",
)
_COSMETIC = LazyPattern(
    r"\b(typos?|wording|docs?|documentation|readme|changelog|docstrings?|comments?|"
    r"formatting|format|formatter|whitespace|indentation|spelling|spell checker|cosmetic|"
    r"style|lint|linting|rename|renaming|copy ?edit\w*)\b",
    re.I,
    hints="typo wording doc readme changelog comment format whitespace indentation spelling spell cosmetic style lint renam copy",
)
# A rename (or other edit) named as the suspected cause of a failure is a real
# check, not cosmetic work; documentation words keep the veto regardless.
_CAUSAL = LazyPattern(
    r"\b(caus\w*|culprit|responsible|broke|breaks|why|started (?:with|after))\b",
    re.I,
    hints="caus culprit responsible broke break why started",
)
_DOCS = LazyPattern(
    r"\b(typos?|wording|docs?|documentation|readme|changelog|docstrings?|comments?|spelling)\b",
    re.I,
    hints="typo wording doc readme changelog comment spelling",
)
_REPORT_LATER = LazyPattern(
    r"\b(report back|let you know|keep you posted|summari[sz]e|get back to you|follow up)\b",
    re.I,
    hints="report let keep summari get follow",
)

_ACTIONS: dict[str, str] = {
    "test": "test",
    "testing": "test",
    "tests": "test",
    "pytest": "test",
    "run": "test",
    "rerun": "test",
    "re-run": "test",
    "reproduce": "reproduce",
    "reproducing": "reproduce",
    "check": "inspect",
    "checking": "inspect",
    "inspect": "inspect",
    "examine": "inspect",
    "examining": "inspect",
    "look at": "inspect",
    "verify": "inspect",
    "verifying": "inspect",
    "confirm": "inspect",
    "probe": "inspect",
    "probing": "inspect",
    "assess": "inspect",
    "assessing": "inspect",
    "determine": "inspect",
    "find out": "inspect",
    "whether": "inspect",
    "compare": "compare",
    "comparing": "compare",
    "measure": "measure",
    "measuring": "measure",
    "bisect": "bisect",
    "bisecting": "bisect",
    "trace": "trace",
    "tracing": "trace",
    "diagnose": "trace",
    "diagnosing": "trace",
    "investigate": "trace",
    "investigating": "trace",
    "rule out": "inspect",
    "diff": "compare",
    "see whether": "inspect",
    "see if": "inspect",
    "list which": "inspect",
}

_STOP_WORDS = """a an the and or but if then than that this these those it its is are was were be been
    to of in on at by for from with without into onto over under about as so not no yes
    i i'll we we'll you my our your me us let first next now still also just only whether
    either could would should will can may might must need do does did done going plan
    check checking verify verifying confirm test testing tests run inspect compare comparing
    measure measuring reproduce reproducing bisect bisecting trace tracing diagnose diagnosing
    investigate investigating determine examine examining probe probing rerun assess assessing
    find out look cause causes caused causing root failure failures failing fails failed
    anomaly difference differs impact behavior behaviour regression change changed error errors
    why before after when while what which who how there here some any all one two"""
_STOP = frozenset(_STOP_WORDS.split())


@record(frozen=True)
class Classification:
    """The verdict for one clause.  ``subjects`` are bounded content tokens."""

    label: str
    form: str = ""
    action: str = ""
    subjects: tuple[str, ...] = ()
    clause: str = ""


def clauses(text: str) -> list[str]:
    """Split a summary into clauses at sentence, semicolon, newline and emphasis boundaries."""
    text = text[:20000]
    parts = _SPLIT.split(text) if _may_split(text) else [text]
    return [c.strip() for c in parts if c and c.strip()]


def _may_split(text: str) -> bool:
    """False when ``_SPLIT`` cannot match, so a one-sentence text compiles no pattern.

    Every match holds ``**``, ``__``, ``;`` or a newline, or starts with the
    whitespace after one of ``.!?:`` (``\\s`` is exactly ``str.isspace``).
    """
    if "**" in text or "__" in text or ";" in text or "\n" in text:
        return True
    for mark in ".!?:":
        at = text.find(mark)
        while at >= 0:
            if text[at + 1 : at + 2].isspace():
                return True
            at = text.find(mark, at + 1)
    return False


def classify_clause(clause: str) -> Classification:
    """Classify one clause; see the module docstring for the rule."""
    form = _form(clause)
    if not form:
        return Classification(CLEAR)
    if _cosmetic(clause) or (_REPORT_LATER.search(clause) and not _SIGNAL.search(clause)):
        return Classification(CLEAR)
    if not _SIGNAL.possible(clause):
        # no decision signal can match, so the verb cannot matter (and is not compiled)
        return Classification(UNCERTAIN, form=form, clause=clause)
    verb = _CHECK_VERB.search(clause)
    if verb is None or not _SIGNAL.search(clause):
        return Classification(UNCERTAIN, form=form, clause=clause)
    subjects = subject_tokens(clause)
    if not subjects:
        return Classification(UNCERTAIN, form=form, clause=clause)
    action = _ACTIONS.get(verb[1].lower(), "inspect")
    return Classification(CANDIDATE, form, action, subjects, clause)


def _cosmetic(clause: str) -> bool:
    """Cosmetic or documentation work, unless an edit is named as a failure's cause."""
    if not _COSMETIC.search(clause):
        return False
    return bool(_DOCS.search(clause)) or not _CAUSAL.search(clause)


def classify(text: str) -> list[Classification]:
    """Classify every clause of a summary; returns only non-clear results."""
    out = []
    for clause in clauses(text):
        result = classify_clause(clause)
        if result.label != CLEAR:
            out.append(result)
    return out


def obligation_candidates(text: str) -> list[Classification]:
    """The candidates of a summary that become obligations.

    A Codex summary opens with a generated ``**Heading**``: it is a boundary,
    not a second check.  When the body names a candidate check, the heading's
    candidate (a paraphrase of the same work) is dropped, so one summary does
    not open the same check twice; a heading alone still counts.
    """
    found = [c for c in classify(text) if c.label == CANDIDATE]
    if len(found) < 2 or not text.lstrip().startswith("**"):
        return found
    heading = clauses(text)[0]
    body = [c for c in found if c.clause != heading]
    return body or found


def summary_label(text: str) -> str:
    """The label of a whole summary: candidate beats uncertain beats clear."""
    labels = {c.label for c in classify(text)}
    if CANDIDATE in labels:
        return CANDIDATE
    return UNCERTAIN if UNCERTAIN in labels else CLEAR


def explain(text: str) -> tuple[str, str, str]:
    """(label, reason, deciding clause) of a whole summary, for people checking the rule.

    The label is :func:`summary_label`'s; the reason names the rule that decided.
    """
    found = classify(text)
    for label in (CANDIDATE, UNCERTAIN):
        hit = next((c for c in found if c.label == label), None)
        if hit is None:
            continue
        if label == CANDIDATE:
            why = f"{hit.form} check ({hit.action}) with a decision signal on {', '.join(hit.subjects[:3])}"
            return label, why, hit.clause
        return label, _abstain_reason(hit.clause, hit.form), hit.clause
    return CLEAR, _clear_reason(text), ""


def _abstain_reason(clause: str, form: str) -> str:
    if not _SIGNAL.search(clause):
        return f"{form} check form but no decision signal (cause, failure, difference, impact ...)"
    if not _CHECK_VERB.search(clause):
        return f"{form} check form but no discriminating check verb"
    return f"{form} check form but no concrete subject"


def _clear_reason(text: str) -> str:
    for clause in clauses(text):
        if _form(clause):
            if _cosmetic(clause):
                return "cosmetic or documentation work"
            return "a promise to report later, not a check"
    return "no check form (no commitment, active check or named alternatives)"


def subject_tokens(text: str, limit: int = 8) -> tuple[str, ...]:
    """Content words used to bind a heuristic check to a tool call."""
    out: list[str] = []
    for word in _WORD.findall(text.lower()):
        word = word.strip("'-_")
        if len(word) >= 3 and word not in _STOP and word not in out:
            out.append(word)
            if len(out) >= limit:
                break
    return tuple(out)


def action_of(text: str) -> str:
    """The check action a tool call or text performs ("" when none is recognisable)."""
    verb = _CHECK_VERB.search(text)
    return _ACTIONS.get(verb[1].lower(), "inspect") if verb else ""


def _form(clause: str) -> str:
    if _ACTIVE.search(clause):
        return "active"
    if _COMMIT_LEAD.possible(clause) and _COMMIT.search(clause):
        return "commitment"
    if _ALTERNATIVES.search(clause):
        return "alternatives"
    return ""
