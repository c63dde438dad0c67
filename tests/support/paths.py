"""Where the tests' inputs and outputs live."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
# 152 verbatim lines of data/icml2024.jsonl: the 19 seed papers, a 132-paper slice, and
# GraphsGPT (zxxSJAVQPc), the paper several answer tests ask about by name.
FIXTURE_CORPUS = FIXTURES / "corpus.jsonl"
SEED_FILE = FIXTURES / "seeds.txt"  # ../shared/seeds/000_635826d5ffaa2f6c.txt
ARTIFACTS = ROOT / "tests" / "artifacts"
