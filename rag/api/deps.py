"""What route handlers share: the process's Assistant and Settings, kept on `app.state`."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from rag.assistant import Assistant
from rag.settings import Settings


def get_assistant(request: Request) -> Assistant:
    return request.app.state.assistant  # type: ignore[no-any-return]


def get_settings(request: Request) -> Settings:
    return request.app.state.settings  # type: ignore[no-any-return]


AssistantDep = Annotated[Assistant, Depends(get_assistant)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
