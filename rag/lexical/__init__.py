"""The lexical side of retrieval: tokens, segment postings scored with BM25 (MaxScore), and
the index file that keeps them beside the store, synced from its Chroma collections."""
