"""Question analysis: a question becomes a typed `QueryPlan` (kind, topic, constraints)."""
