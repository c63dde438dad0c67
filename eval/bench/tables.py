"""The Markdown pieces every section of BENCHMARKS.md is made of: numbers, tables, the
"measured when, under what load" line, and the section's notes."""

from __future__ import annotations

from typing import Any


def fmt(value: Any, digits: int = 1) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value.is_integer() and abs(value) >= 100:  # counts that went through a median
            return f"{int(value):,}"
        return f"{value:,.{digits}f}"
    return str(value)


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += [
        "| " + " | ".join(fmt(c) if not isinstance(c, str) else c for c in r) + " |" for r in rows
    ]
    return [*lines, ""]


def note_lines(section: dict[str, Any]) -> list[str]:
    return [f"- {n}" for n in section.get("notes", [])] + [""]


def measured_line(section: dict[str, Any]) -> str:
    m = section.get("measured", {})
    where = m.get("machine")
    on = (
        f" on {where.get('cores')} cores, {where.get('cpu_model')}, commit "
        f"`{where.get('git_commit')}`"
        if where
        else ""
    )
    return (
        f"*Measured {m.get('finished', '?')}{on} in {fmt(m.get('seconds'))} s; load average "
        f"{m.get('load_average_before')} before, {m.get('load_average_after')} after.*"
    )


def dig(data: dict[str, Any], *keys: Any) -> Any:
    """data[k1][k2]…, or None where a key is missing (a section not run yet)."""
    for key in keys:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data
