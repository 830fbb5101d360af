"""The punctuation + casing tagger in torch: a BERT encoder and two linear heads on every token.

Written out in full (nanoGPT style) rather than pulled from a library, so the
ONNX export is exactly this graph and nothing else. Weights start from the
pre-trained all-MiniLM-L6-v2 (BERT, 6 layers, hidden 384, uncased).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

from engine.evaluation.synthetic_model import EncoderShape


@dataclass
class EncoderConfig(EncoderShape):
    """The encoder's shape, and what training adds to it."""

    dropout: float = 0.1
    punct_classes: int = 4
    case_classes: int = 3
    cues: int = 0  # word cues read beside the tokens (engine.punctuation.word_cues); 0: none


class Layer(nn.Module):
    """One post-LayerNorm BERT layer."""

    def __init__(self, c: EncoderConfig):
        super().__init__()
        self.heads = c.heads
        self.qkv = nn.Linear(c.hidden, 3 * c.hidden)
        self.attn_out = nn.Linear(c.hidden, c.hidden)
        self.attn_norm = nn.LayerNorm(c.hidden, eps=1e-12)
        self.ff_in = nn.Linear(c.hidden, c.intermediate)
        self.ff_out = nn.Linear(c.intermediate, c.hidden)
        self.ff_norm = nn.LayerNorm(c.hidden, eps=1e-12)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + mask_bias
        attn = self.dropout(scores.softmax(-1)) @ v
        attn = attn.transpose(1, 2).reshape(b, t, d)
        x = self.attn_norm(x + self.dropout(self.attn_out(attn)))
        return self.ff_norm(x + self.dropout(self.ff_out(F.gelu(self.ff_in(x)))))


class PunctuationTagger(nn.Module):
    """Per-token logits: the engine reads each word's row at its carrier token (model_inputs.py)."""

    def __init__(self, c: EncoderConfig):
        super().__init__()
        self.config = c
        self.word_emb = nn.Embedding(c.vocab_size, c.hidden)
        self.pos_emb = nn.Embedding(c.max_positions, c.hidden)
        self.type_emb = nn.Embedding(2, c.hidden)
        if c.cues:
            # A linear map of each token's cue row onto its embedding, starting at zero: the
            # pre-trained encoder begins exactly where it was, and bare text (all-zero cues)
            # stays the input it always was.
            self.cue_proj = nn.Linear(c.cues, c.hidden, bias=False)
            nn.init.zeros_(self.cue_proj.weight)
        self.emb_norm = nn.LayerNorm(c.hidden, eps=1e-12)
        self.dropout = nn.Dropout(c.dropout)
        self.layers = nn.ModuleList(Layer(c) for _ in range(c.layers))
        self.punct_head = nn.Linear(c.hidden, c.punct_classes)
        self.case_head = nn.Linear(c.hidden, c.case_classes)

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, word_cues: torch.Tensor | None = None
    ):
        t = input_ids.shape[1]
        x = self.word_emb(input_ids) + self.pos_emb.weight[:t] + self.type_emb.weight[0]
        if self.config.cues and word_cues is not None:
            x = x + self.cue_proj(word_cues)
        x = self.dropout(self.emb_norm(x))
        mask_bias = (1.0 - attention_mask[:, None, None, :].float()) * -1e4
        for layer in self.layers:
            x = layer(x, mask_bias)
        return self.punct_head(x), self.case_head(x)


def load_pretrained(weights: Path, dropout: float = 0.1, cues: int = 0) -> PunctuationTagger:
    """Build the tagger from a HuggingFace BERT ``model.safetensors`` (heads and the cue
    projection start fresh)."""
    from safetensors.torch import load_file

    w = load_file(str(weights))
    w = {k.removeprefix("bert."): v for k, v in w.items()}
    c = EncoderConfig(
        vocab_size=w["embeddings.word_embeddings.weight"].shape[0],
        hidden=w["embeddings.word_embeddings.weight"].shape[1],
        layers=len({k.split(".")[2] for k in w if k.startswith("encoder.layer.")}),
        intermediate=w["encoder.layer.0.intermediate.dense.weight"].shape[0],
        max_positions=w["embeddings.position_embeddings.weight"].shape[0],
        dropout=dropout,
        cues=cues,
    )
    c.heads = c.hidden // 32  # MiniLM-L6-H384 uses 12 heads of 32
    model = PunctuationTagger(c)
    state = {
        "word_emb.weight": w["embeddings.word_embeddings.weight"],
        "pos_emb.weight": w["embeddings.position_embeddings.weight"],
        "type_emb.weight": w["embeddings.token_type_embeddings.weight"],
        "emb_norm.weight": w["embeddings.LayerNorm.weight"],
        "emb_norm.bias": w["embeddings.LayerNorm.bias"],
    }
    for i in range(c.layers):
        p = f"encoder.layer.{i}."
        for part in ("weight", "bias"):
            state[f"layers.{i}.qkv.{part}"] = torch.cat(
                [w[p + f"attention.self.{n}.{part}"] for n in ("query", "key", "value")]
            )
            state[f"layers.{i}.attn_out.{part}"] = w[p + f"attention.output.dense.{part}"]
            state[f"layers.{i}.attn_norm.{part}"] = w[p + f"attention.output.LayerNorm.{part}"]
            state[f"layers.{i}.ff_in.{part}"] = w[p + f"intermediate.dense.{part}"]
            state[f"layers.{i}.ff_out.{part}"] = w[p + f"output.dense.{part}"]
            state[f"layers.{i}.ff_norm.{part}"] = w[p + f"output.LayerNorm.{part}"]
    missing, unexpected = model.load_state_dict(state, strict=False)
    fresh = ("punct_head", "case_head", "cue_proj")
    assert not unexpected and all(m.startswith(fresh) for m in missing), missing
    return model
