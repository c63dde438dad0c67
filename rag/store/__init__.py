"""The store stage: Chroma collections of chunks and paper records, and ingest into them."""
