"""ui/ imports gradio without its type-stub writer (ui.gradio_import), and gradio still
builds the chat UI's components. Fresh interpreters: in this one gradio may be imported."""

from __future__ import annotations

from tests.support.fresh import fresh_python

CHECK = """
import sys
{first}
import gradio as gr
import gradio.component_meta as meta
import ui.gradio_import as hook
print(meta.create_or_modify_pyi is hook.skip_stub)
with gr.Blocks() as demo:
    box = gr.Textbox(label="Question")
    chat = gr.Chatbot()
    box.submit(lambda q: q, box, box)
config = demo.get_config_file()
print(sorted({c["type"] for c in config["components"]} & {"textbox", "chatbot"}))
print(hook._Finder in {type(f) for f in sys.meta_path})
"""


def _run(first: str) -> list[str]:
    return fresh_python(CHECK.replace("{first}", first)).split("\n")[:3]


def test_ui_imports_gradio_without_its_stub_writer() -> None:
    assert _run("import ui") == ["True", "['chatbot', 'textbox']", "False"]


def test_gradio_imported_first_keeps_its_own() -> None:
    # the hook only acts before gradio is imported, and then leaves no finder behind
    assert _run("import gradio; import ui") == ["False", "['chatbot', 'textbox']", "False"]
