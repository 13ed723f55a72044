#!/usr/bin/env bash
# Build the wheel (python -m build), install it in a fresh virtual environment outside the checkout, then run
# `blm list`, generate a small config and train on it with `blm-train` (the demo encoder, frozen, 1 epoch):
# what a user who runs `pip install blm_toolkit-*.whl` gets. Used by .ci/run; needs .venv (scripts/setup.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$root"/.venv/bin/pip install -q build
"$root"/.venv/bin/python -m build --wheel --outdir "$work/dist" "$root" >"$work/build.log" 2>&1 \
  || { cat "$work/build.log"; exit 1; }
rm -rf "$root/build"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "torch==2.13.0"
"$work/venv/bin/pip" install -q "$(ls "$work"/dist/blm_toolkit-*.whl)[demo]"
cd "$work"  # nothing of the checkout is importable from here
export HF_HUB_OFFLINE=1 OMP_NUM_THREADS=1
venv/bin/blm list >names.txt
grep -qx agr_en_typeI names.txt
venv/bin/blm generate agr_en_typeI --size 120 --out data
venv/bin/blm-train --dataset_path data --dataset_config agr_en_typeI --num_train_epochs 1 \
  --output_dir run
venv/bin/python - <<'PY'
import json
report = json.load(open("run/metrics.json"))
assert report["test"]["instances"] > 0 and 0.0 <= report["test"]["accuracy"] <= 1.0, report["test"]
print(f"wheel ok: blm-train test accuracy {report['test']['accuracy']:.3f} on {report['test']['instances']} instances")
PY
