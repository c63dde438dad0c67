"""The answer stage: evidence ▶ write (extractive or LLM) ▶ validate [n] ▶ abstain, wired
over one store state (pipeline), with follow-ups, references and the warm-up."""
