"""Counts in messages: ``1 file``, ``2 files``, never ``1 files``.

No imports: the CLI and the library's own messages (which never import click) share it.
"""

from __future__ import annotations

__all__ = ["counted", "noun_for"]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, agreeing: the singular for exactly one, else ``plural`` (default:
    ``noun`` + "s"; give it for irregular nouns such as "entry" -> "entries")."""
    return f"{count} {noun_for(count, noun, plural)}"


def noun_for(count: int, noun: str, plural: str | None = None) -> str:
    """``noun`` agreeing with ``count``, without the count: "unknown field a", "unknown fields a,
    b"."""
    return noun if count == 1 else plural or noun + "s"
