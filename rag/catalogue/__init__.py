"""The catalogue: every paper's record, the indexes that find papers by author, institution,
status and name, and the per-paper word counts; read from the lexical index file."""
