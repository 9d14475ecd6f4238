"""Shared CLI state: global options, reachable from every command, and the common decorator."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class State:
    root: str | None = None
    json: bool = False
    quiet: bool = False
    verbose: int = 0


def state(ctx: click.Context | None = None) -> State:
    ctx = ctx or click.get_current_context()
    root = ctx.find_root()
    if root.obj is None:
        root.obj = State()
    obj: State = root.obj
    return obj


def _set_root(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    if value is not None:
        state(ctx).root = value


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        state(ctx).json = True


def _set_quiet(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        state(ctx).quiet = True


class FiniteFloatRange(click.FloatRange):
    """`click.FloatRange` that also refuses ``nan`` and ``inf`` (which compare false with any
    bound, so a range alone lets them through)."""

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        return number


class NonEmptyPath(click.Path):
    """`click.Path` that refuses an empty argument. Python reads ``Path("")`` as ``.``, so
    ``labledger cas put "$DIR"`` with DIR unset would store the whole current folder, and
    ``close ""`` would close it: an empty path is almost always an unset shell variable."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail("the path is empty (an unset shell variable?); name the file or folder, "
                      "or '.' for this one", param, ctx)
        return super().convert(value, param, ctx)


def refuse_bad_id(what: str, value: str | None) -> None:
    """Exit 2, nothing written, for a run or instance id that no event can carry (empty, a
    space, a slash, ...): a command that only reads must not judge it as one with nothing
    recorded (exit 3), nor a pull reach the box before the ledger refuses it."""
    from labledger.ledger._identity import id_problem
    from labledger.ledger.errors import InvalidEventError

    problem = id_problem(what, value)
    if problem is not None:
        raise InvalidEventError(problem, field=what)


def _set_verbose(ctx: click.Context, _param: click.Parameter, value: int) -> None:
    if value:
        state(ctx).verbose += value


def common(func: F) -> F:
    """Accept the global `--root`, `--json`, `-q` and `-v` after the command name too."""
    func = click.option("-v", "--verbose", "verbose_", count=True, expose_value=False,
                        callback=_set_verbose, help="More detail; -vv adds tracebacks.")(func)
    func = click.option("-q", "--quiet", "quiet_", is_flag=True, expose_value=False,
                        callback=_set_quiet, help="Drop progress and info messages.")(func)
    func = click.option("--json", "json_", is_flag=True, expose_value=False, callback=_set_json,
                        help="Print data as JSON on stdout.")(func)
    func = click.option("--root", type=click.Path(file_okay=False), expose_value=False,
                        callback=_set_root, metavar="DIR",
                        help="Project folder holding .labledger/ (default: $LABLEDGER_ROOT, "
                             "else the nearest parent).")(func)
    return func


def open_ledger() -> Any:
    from labledger.ledger.ledger import Ledger

    return Ledger.open(state().root)


def ledger_paths() -> Any:
    """The ledger's paths for commands that only read files; its format is checked like open()."""
    from labledger.ledger.root import find_root, read_config

    paths = find_root(state().root)
    read_config(paths)  # refuses an unknown format version before anything reads or seals
    return paths
