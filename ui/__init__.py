"""The Gradio chat UI and `rag serve` (= `python -m ui`)."""

from ui.gradio_import import install

install()  # before any module here imports gradio (ui.gradio_import says why)
