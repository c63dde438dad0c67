"""`python -m eval bench`: ingest, query latency, scale and start-up, side by side with a
plain llama-index pipeline; results in bench/results.json and BENCHMARKS.md.

Every measurement goes through rag's public API (rag.ingestion, rag.Assistant, rag.store),
so the suite measures whatever those do today. Steps whose memory or cold start matter
(ingest, the scale stores, `rag serve`) run in fresh subprocesses (eval.bench.child).
"""
