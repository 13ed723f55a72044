#!/usr/bin/env bash
# The GPU check, one script under 5 minutes on one GPU: the README's main job (bf16 where the GPU has it, and
# fp32), the FFNN on cached embeddings, embedding throughput in fp32 and bf16, and peak GPU memory, in one table.
#   bash benchmarks/gpu_check.sh [--out DIR]      (after scripts/setup.sh, with a CUDA build of torch)
# CI never runs it: nothing in the test suite needs a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE="${HF_HUB_OFFLINE:-1}" PYTHONUNBUFFERED=1
PYTHON="${PYTHON:-.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON=python3
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
exec "$PYTHON" benchmarks/gpu_check.py "$@"
