"""The store: Chroma collections of chunks and paper records, their writes, and the lock
that keeps one writer at a time on an embedded store."""
