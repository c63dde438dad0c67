"""The embedding stage: all-MiniLM-L6-v2 on ONNX Runtime (or torch, or OpenAI), built from
settings (factory), with a persistent text-embedding cache and in-memory query LRUs."""
