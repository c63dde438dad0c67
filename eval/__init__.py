"""Evaluation harness for icml-rag (`python -m eval`); see eval/README.md."""
