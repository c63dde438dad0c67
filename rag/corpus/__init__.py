"""The corpus stage: corpus files read (readers), records validated into papers (records),
papers cut into sentence-aligned chunks (chunking)."""
