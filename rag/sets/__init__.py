"""Questions about the conference as a set: exact metadata answers from the catalogue (and, built on them, topic sets and comparisons)."""
