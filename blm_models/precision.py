"""`--bf16 auto`: bfloat16 only where the hardware computes it natively, fp32 elsewhere.

On a CPU without AMX or AVX512-BF16, torch emulates bfloat16 matmuls: measured on a 2-core AVX-512 Xeon (torch 2.13,
STACK_NOTES), a 512x384 @ 384x1536 matmul took 10.4 ms in fp32 and 27.8 ms in bf16, and the README's fine-tuning
job ran 4.2-5.1 s a step in bf16 against 1.78 s in fp32. So `auto` picks bf16 on a GPU that supports it and on a
CPU with AMX or AVX512-BF16 (an Arm CPU with the BF16 extension), and fp32 everywhere else; the choice and its
reason are recorded in metrics.json.
"""

from __future__ import annotations

import contextlib
import os
import platform
from argparse import ArgumentTypeError
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from transformers.hf_argparser import string_to_bool

from .errors import UsageError

# /proc/cpuinfo flags of native bfloat16 arithmetic: x86 AMX (tiles with bf16) and AVX512-BF16; Arm's BF16
CPU_BF16_FLAGS = ("amx_bf16", "avx512_bf16", "bf16")


@dataclass(frozen=True)
class PrecisionChoice:
    """What `--bf16` asked for, what runs, and why (recorded under training.precision in metrics.json)."""

    requested: str
    bf16: bool
    reason: str
    native: bool | None = None  # whether the hardware computes bfloat16 natively (None: not asked, --bf16 false)

    def as_dict(self) -> dict:
        return asdict(self)


def read_cpuinfo() -> str:
    """/proc/cpuinfo's text ("" where there is none: macOS, Windows)."""
    path = Path("/proc/cpuinfo")
    return path.read_text(errors="replace") if path.is_file() else ""


def cpu_bf16_flags(cpuinfo: str | None = None) -> list[str]:
    """The native-bfloat16 features of this CPU: torch's own detection where it has it (x86), else the flags
    /proc/cpuinfo lists (Linux on any architecture); [] when neither tells."""
    found = []
    detectors = {"amx_bf16": "_is_amx_tile_supported", "avx512_bf16": "_is_avx512_bf16_supported"}
    for flag, name in detectors.items():
        detector = getattr(torch.cpu, name, None)  # private in torch 2.x: absent or raising means "unknown"
        try:
            if detector is not None and detector():
                found.append(flag)
        except RuntimeError:
            pass
    cpuinfo = read_cpuinfo() if cpuinfo is None else cpuinfo
    listed = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip().lower() in ("flags", "features"):
            listed.update(value.split())
    found += [flag for flag in CPU_BF16_FLAGS if flag in listed and flag not in found]
    return found


def native_bf16(use_cpu: bool = False, cpuinfo: str | None = None) -> tuple[bool, str]:
    """Whether the device training will run on computes bfloat16 natively, and a sentence saying why."""
    if not use_cpu and torch.cuda.is_available():
        name = torch.cuda.get_device_name()
        if torch.cuda.is_bf16_supported(including_emulation=False):
            return True, f"GPU {name} supports bfloat16"
        return False, f"GPU {name} has no native bfloat16"
    if not use_cpu and hasattr(torch, "xpu") and torch.xpu.is_available():
        return True, "Intel XPU supports bfloat16"
    if not use_cpu and hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
        return False, "Apple MPS: bfloat16 autocast not relied on"
    flags = cpu_bf16_flags(cpuinfo)
    capability = torch.backends.cpu.get_cpu_capability()
    if flags:
        return True, f"CPU has native bfloat16 ({', '.join(flags)}; torch capability {capability})"
    return False, (f"CPU has no native bfloat16 (no amx_bf16/avx512_bf16; torch capability {capability}): bf16 "
                   "would be emulated, several times slower than fp32")


def parse_bf16_flag(value: str | bool | None) -> str | bool:
    """`--bf16` as given: "auto", or a boolean in the words every other train.py flag takes (transformers'
    `string_to_bool`); anything else is a UsageError naming the flag."""
    if value is None or (isinstance(value, str) and value.strip().lower() == "auto"):
        return "auto"
    try:
        return string_to_bool(value.strip() if isinstance(value, str) else value)
    except ArgumentTypeError:
        raise UsageError(f"--bf16 {value}: must be auto (bfloat16 only where the hardware has it), true or "
                         "false") from None


def choose_precision(value: str | bool | None, use_cpu: bool = False, cpuinfo: str | None = None) -> PrecisionChoice:
    """Resolve `--bf16 auto|true|false` for the device training runs on."""
    wanted = parse_bf16_flag(value)
    if wanted == "auto":
        native, reason = native_bf16(use_cpu, cpuinfo)
        return PrecisionChoice("auto", native, reason, native)
    if wanted:
        native, reason = native_bf16(use_cpu, cpuinfo)
        return PrecisionChoice("true", True, f"asked for with --bf16 true; {reason}", native)
    return PrecisionChoice("false", False, "asked for with --bf16 false")


def cpu_description(cpuinfo: str | None = None) -> dict:
    """The CPU a timing was measured on: model name, cores, torch's vector capability and native bfloat16 flags (the
    README gives these with every figure)."""
    cpuinfo = read_cpuinfo() if cpuinfo is None else cpuinfo
    model = next((line.partition(":")[2].strip() for line in cpuinfo.splitlines()
                  if line.lower().startswith("model name")), platform.processor() or platform.machine())
    return {"model": model, "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
            "torch_capability": torch.backends.cpu.get_cpu_capability(), "native_bf16": cpu_bf16_flags(cpuinfo)}


def attention_without_cudnn(device: torch.device | str) -> contextlib.AbstractContextManager:
    """On a CUDA device, scaled-dot-product attention by the flash, memory-efficient or math kernel, not cuDNN's.

    torch 2.11 tries cuDNN first for bfloat16 attention with a padding mask on recent GPUs, and cuDNN builds an
    execution plan for every new (batch, length) shape (FunASR issue #3704 measured 0.44 s forward and 0.55 s
    backward per new shape). A BLM fine-tuning batch holds a different number of unique sentences at almost every
    step, so nearly every step is a new shape: measured on an H200 (torch 2.11, CUDA 13.0), the README's main job
    trained 282 steps in 37.3-39.1 s with bf16 autocast against 7.95 s in fp32, which never reaches cuDNN. That is
    the likely cause (not profiled), and this fix is not yet timed on a GPU. Elsewhere (CPU, MPS) nothing changes."""
    if torch.device(device).type != "cuda":
        return contextlib.nullcontext()
    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])
