"""Token estimates without a tokenizer download.

Why a heuristic: a hook process must not load a tokenizer (megabytes of
vocabulary, tens of milliseconds) to size a few hundred words.  BPE
tokenizers for English text and code average close to four characters per
token; text outside ASCII costs more (often one token per character or two),
so each non-ASCII character counts as one token on its own.  The estimate
errs high, which keeps a budget a budget.
"""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is for a modern BPE tokenizer (rounded up)."""
    if not text:
        return 0
    if text.isascii():
        return (len(text) + 3) // 4
    wide = sum(1 for ch in text if ord(ch) > 127)
    return (len(text) - wide + 3) // 4 + wide
