"""One router per resource: health, models, stats, answers (ask/retrieve), chat completions."""
