"""Build a tiny, randomly initialised Laya checkpoint (for tests and the side-by-side benchmark).

A 1-layer, 32-wide ModernBERT encoder behind Laya's decision head, with a
word-level tokenizer, written by laya's own ``laya.train.save_checkpoint`` in
the layout ``laya.load`` reads (``rl_agent_config.json``,
``model.safetensors``, ``encoder/``, ``tokenizer/``).  Its answers are
meaningless; what it proves is the code path.  Needs the model extra
(``agentreflex-laya[model]``: laya, torch, transformers).

Run: ``python tools/laya_tiny_checkpoint.py DIR`` (prints the checkpoint path).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

WORDS = [
    "goal",
    "fix",
    "the",
    "failing",
    "parser",
    "tests",
    "proposed",
    "action",
    "bash",
    "shell",
    "rm",
    "rf",
    "build",
    "is",
    "it",
    "destructive",
    "does",
    "break",
    "constraint",
    "yes",
    "no",
    "pass",
    "fail",
    "edit",
    "read",
    "test",
    "run",
    "final",
    "message",
    "done",
]


def build_tiny_checkpoint(path: Path, seed: int = 0) -> Path:
    import torch
    from laya.common import build_model
    from laya.train import save_checkpoint
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import ModernBertConfig, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    vocab = {tok: i for i, tok in enumerate(specials + sorted(set(WORDS)))}
    core = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    core.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(
        tokenizer_object=core,
        pad_token="[PAD]",
        unk_token="[UNK]",
        cls_token="[CLS]",
        sep_token="[SEP]",
        mask_token="[MASK]",
    )
    encoder_dir = path / "encoder-src"
    ModernBertConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=2,
        max_position_embeddings=512,
        pad_token_id=0,
        cls_token_id=2,
        sep_token_id=3,
        global_attn_every_n_layers=1,
        local_attention=64,
    ).save_pretrained(encoder_dir)
    cfg: dict[str, Any] = {"encoder": str(encoder_dir), "head_layers": 1, "max_len": 256}
    torch.manual_seed(seed)
    model = build_model(cfg, encoder_dir=str(encoder_dir), pretrained=False)
    with torch.no_grad():
        for param in model.parameters():
            param.normal_(0.0, 0.02)
    out = path / "tiny-laya"
    save_checkpoint(model, tok, cfg, str(out))
    return out


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: laya_tiny_checkpoint.py DIR")
    print(build_tiny_checkpoint(Path(sys.argv[1])))
