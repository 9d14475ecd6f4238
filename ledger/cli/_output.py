"""Rendering: data to stdout, messages to stderr, JSON when asked."""

from __future__ import annotations

import datetime as _dt
import decimal
import json
import sys
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import click


def info(ctx: click.Context, message: str) -> None:
    """A human message on stderr, dropped by -q and in --json mode."""
    state = ctx.find_root().obj
    if state is None or not (state.quiet or state.json):
        click.echo(message, err=True)


def warn(message: str) -> None:
    click.echo(message, err=True)


def _default(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is not None:
            return value.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        return value.isoformat()
    if isinstance(value, _dt.date | _dt.time):
        return value.isoformat()
    if isinstance(value, _dt.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes):  # a BLOB: its bytes in hex (str() gave Python's "b'x'")
        return value.hex()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    raise TypeError(f"cannot render {type(value).__name__} as JSON")


def dumps(value: Any, *, indent: int | None = None) -> str:
    return json.dumps(value, default=_default, ensure_ascii=False, indent=indent, sort_keys=False)


def emit_json(value: Any) -> None:
    click.echo(dumps(value))


def cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, _dt.datetime) and value.tzinfo is not None:
        return value.astimezone(_dt.UTC).strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, dict | list):
        return dumps(value)
    return str(value)


def table(columns: Sequence[str], rows: Iterable[Sequence[Any]], *, max_width: int = 60) -> str:
    """A plain aligned text table (no box drawing: easy to paste, diff and grep)."""
    text_rows = [[cell(v) for v in row] for row in rows]
    clipped = [[c if len(c) <= max_width else c[: max_width - 1] + "…" for c in r]
               for r in text_rows]
    widths = [len(c) for c in columns]
    for row in clipped:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
              for r in clipped]
    return "\n".join(lines)


def progress_enabled(ctx: click.Context) -> bool:
    state = ctx.find_root().obj
    quiet = state is not None and (state.quiet or state.json)
    return not quiet and sys.stderr.isatty()


_BAR_BYTES = 256 * 1024 * 1024  # hashing and copying: about a second's worth


def _bar_wanted(total: int, at_least: int = _BAR_BYTES) -> bool:
    """Bars only for work that can take a second (``at_least``: over 256 MiB of hashing), on a
    terminal, not -q/--json."""
    ctx = click.get_current_context(silent=True)
    return ctx is not None and total >= at_least and progress_enabled(ctx)


class _NoBar:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def progress_bar(total: int, label: str, at_least: int = _BAR_BYTES) -> Any:
    """A byte-count progress bar on stderr (TTY only, not with -q/--json, and only for work that
    can take a second: ``total`` of at least ``at_least``, 256 MiB of hashing by default);
    yields the library's progress callback or None. Updates past ``total`` are clamped."""
    if not _bar_wanted(total, at_least):
        return _NoBar()
    import contextlib

    @contextlib.contextmanager
    def bar() -> Any:
        with click.progressbar(length=total, label=label, file=sys.stderr) as pb:
            def advance(n: int) -> None:
                pb.update(max(0, min(n, total - pb.pos)))

            yield advance

    return bar()


class LateBar:
    """A byte-count progress bar whose total is known only once work has started (a pull knows
    its size after listing): `start(total)` opens it (same rules as `progress_bar`),
    `update(n)` advances it, `close()` ends it. Safe to call in any order."""

    def __init__(self, label: str) -> None:
        self.label = label
        self._bar: Any = None

    def start(self, total: int) -> None:
        if not _bar_wanted(total):
            return
        self._bar = click.progressbar(length=total, label=self.label, file=sys.stderr)
        self._bar.__enter__()

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None
