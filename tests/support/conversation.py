"""A conversation as the CLI and UI keep it: questions, and answers with reference lists."""

from __future__ import annotations

from rag.answer.references import answer_with_references
from rag.types import Answer, ChatMessage, Citation

FA_PAPER = "qklMNNub0H"
FA_FIRST = "Which paper studies implicit regularization in feedback alignment?"
FA_FOLLOW_UP = "What conservation law does it find?"
TITLES = {
    1: "Implicit Regularization in Feedback Alignment Learning Mechanisms for Neural Networks",
    2: "Probabilistic Generating Circuits - Demystified",  # a title with its own dash
    3: "Position: Mission Critical – Satellite Data is a Distinct Modality in Machine Learning",
}


def rendered_answer(titles: dict[int, str]) -> str:
    """An assistant turn as the CLI/UI put it in history: answer plus reference list."""
    citations = [
        Citation(
            n=n,
            paper_id=f"p{n}",
            title=title,
            authors=["A. Author", "B. Author", "C. Author", "D. Author"],
            url=f"https://openreview.net/forum?id=p{n}",
            snippet="A sentence.",
            score=0.5,
        )
        for n, title in titles.items()
    ]
    answer = Answer(
        question="q",
        answer=" ".join(f"Claim [{n}]." for n in titles),
        abstained=False,
        backend="extractive",
        mode="hybrid",
        citations=citations,
    )
    return answer_with_references(answer)


def history(first: str = FA_FIRST, titles: dict[int, str] = TITLES) -> list[ChatMessage]:
    return [
        ChatMessage(role="user", content=first),
        ChatMessage(role="assistant", content=rendered_answer(titles)),
    ]
