"""Finding and creating the `.labledger/` folder, and reading its format.

Layout (format 1)::

    <project>/.labledger/
        config.toml                 format = 1, options
        ledger/<writer>/<seq>.jsonl open or closed segments (closed ones are read-only)
        ledger/<writer>/<seq>.parquet  sealed segments (chain preserved in the `record` column)
        ledger/<writer>/.lock       the writer's flock
        recovered/<writer>/...      torn tails cut off by recovery, kept as evidence
        cas/                        the content-addressed store

Discovery, like git: ``--root``, then ``$LABLEDGER_ROOT``, then the nearest parent of the working
directory holding `.labledger/`. An unknown format number is refused rather than guessed at.
"""

from __future__ import annotations

import os
from pathlib import Path

from labledger.ledger._words import noun_for
from labledger.ledger.durable import sync_file
from labledger.ledger.errors import (
    LedgerError,
    NotALedgerError,
    UnsupportedFormatError,
    unreadable_file,
)

TYPE_CHECKING = False  # not typing's: `emit` must not pay for importing typing
if TYPE_CHECKING:
    from typing import Any

FORMAT = 1
DIRNAME = ".labledger"


class Config:
    """The options in ``config.toml`` (a plain class: `emit` must not import dataclasses)."""

    __slots__ = ("format", "segment_max_bytes", "segment_max_events", "segment_per_process")
    segment_max_events_default = 200_000
    segment_max_bytes_default = 128 * 1024 * 1024

    def __init__(self, *, format: int = FORMAT, segment_per_process: bool = False,
                 segment_max_events: int = segment_max_events_default,
                 segment_max_bytes: int = segment_max_bytes_default) -> None:
        self.format = format
        self.segment_per_process = segment_per_process
        self.segment_max_events = segment_max_events
        self.segment_max_bytes = segment_max_bytes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and all(
            getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Config({fields})"


class LedgerPaths:
    """Where everything of one ledger lives."""

    __slots__ = ("project",)

    def __init__(self, project: Path) -> None:
        self.project = project

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LedgerPaths) and other.project == self.project

    def __hash__(self) -> int:
        return hash(self.project)

    def __repr__(self) -> str:
        return f"LedgerPaths({self.project!r})"

    @property
    def home(self) -> Path:
        return self.project / DIRNAME

    @property
    def config(self) -> Path:
        return self.home / "config.toml"

    @property
    def segments(self) -> Path:
        return self.home / "ledger"

    @property
    def recovered(self) -> Path:
        return self.home / "recovered"

    @property
    def cas(self) -> Path:
        return self.home / "cas"


def find_root(
    explicit: str | os.PathLike[str] | None = None, cwd: Path | None = None
) -> LedgerPaths:
    """Locate the ledger: explicit root, ``$LABLEDGER_ROOT``, then the nearest parent."""
    chosen = explicit if explicit is not None else os.environ.get("LABLEDGER_ROOT") or None
    if chosen is not None:
        project = Path(chosen).expanduser().absolute()
        if project.name == DIRNAME and project.is_dir():
            project = project.parent
        if not (project / DIRNAME).is_dir():
            raise NotALedgerError(project, "--root" if explicit is not None else "LABLEDGER_ROOT")
        return LedgerPaths(project)
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / DIRNAME).is_dir():
            return LedgerPaths(folder)
    raise NotALedgerError(start)


def _simple_toml(text: str) -> dict[str, Any] | None:
    """Parse the flat ``key = int | true | false`` file `render_config` writes, or None.

    tomllib imports typing, datetime and string (~15 ms): too much for `emit`. Anything this
    does not recognise (a string, a table, an inline comment it cannot place) returns None and
    the caller uses tomllib, so hand-edited files still parse exactly as TOML.
    """
    data: dict[str, Any] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, eq, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key.replace("_", "").isalnum() or key in data:
            return None
        if value in ("true", "false"):
            data[key] = value == "true"
        elif value.isdigit() and (value == "0" or not value.startswith("0")):
            data[key] = int(value)
        else:
            return None
    return data


def _parse_config(path: Path) -> Config:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LedgerError(f"{path} is missing; the ledger folder is incomplete "
                          "(re-run `labledger init` to recreate it; events are kept)") from None
    except UnicodeDecodeError as exc:
        raise LedgerError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:  # permissions, a folder in its place, an I/O error
        raise unreadable_file(path, exc) from None
    data = _simple_toml(text)
    if data is None:
        import tomllib

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise LedgerError(f"{path}: not valid TOML ({exc})") from None
    found = data.get("format")
    if found is not None and type(found) is not int:  # `true` is an int to Python, not TOML
        raise LedgerError(f"{path}: format must be an integer (this labledger reads format "
                          f"{FORMAT}), not {found!r}")
    if found is None:  # not a newer format: a file emptied or edited by hand
        what = "is empty" if not data else "has no `format` key"
        raise LedgerError(f"{path} {what}; it should say `format = {FORMAT}`: add that line "
                          "(or delete the file and run `labledger init`; events are kept)")
    if found != FORMAT:
        raise UnsupportedFormatError(path, found, FORMAT)
    known = {"format", "segment_per_process", "segment_max_events", "segment_max_bytes"}
    # Tables read by other parts (``[reconcile]``: labledger.reconcile.doc_sources) are theirs.
    unknown = sorted(set(data) - known - {"reconcile"})
    if unknown:
        raise LedgerError(f"{path}: unknown {noun_for(len(unknown), 'option')} "
                          f"{', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return Config(
        format=FORMAT,
        segment_per_process=_option(path, data, "segment_per_process", bool, False),
        segment_max_events=_option(path, data, "segment_max_events", int,
                                   Config.segment_max_events_default),
        segment_max_bytes=_option(path, data, "segment_max_bytes", int,
                                  Config.segment_max_bytes_default),
    )


def _option(path: Path, data: dict[str, Any], name: str, kind: type, default: Any) -> Any:
    """``data[name]`` when it is a ``kind`` (a positive one for numbers), else a clear error."""
    value: Any = data.get(name, default)
    if type(value) is not kind:  # exact: a bool is an int to Python, "yes" is not a bool
        wanted = "true or false" if kind is bool else "an integer"
        raise LedgerError(f"{path}: {name} must be {wanted}, not {value!r}")
    if kind is int and isinstance(value, int) and value < 1:
        raise LedgerError(f"{path}: {name} must be at least 1, not {value}")
    return value


def read_config(paths: LedgerPaths) -> Config:
    return _parse_config(paths.config)


def render_config(config: Config) -> str:
    return (
        "# labledger ledger settings; `format` is the on-disk format version\n"
        f"format = {config.format}\n"
        f"segment_per_process = {'true' if config.segment_per_process else 'false'}\n"
        f"segment_max_events = {config.segment_max_events}\n"
        f"segment_max_bytes = {config.segment_max_bytes}\n"
    )


def fsync_dir(path: Path) -> None:
    # Not `labledger.cas._fs.fsync_dir`: importing labledger.cas would load msgspec, which the
    # `emit` fast path (which creates segments and so needs this) must not pay for.
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        sync_file(fd)
    finally:
        os.close(fd)
