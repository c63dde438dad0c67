"""The retrieval stage: dense (Chroma) and BM25 chunk retrievers, fused per paper, grouped
into one result per paper with typed scores."""
