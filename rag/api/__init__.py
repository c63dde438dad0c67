"""The HTTP API: `create_api(assistant, settings)` (rag.api.app) builds the FastAPI app."""
