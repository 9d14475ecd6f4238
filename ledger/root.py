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
import tomllib
from dataclasses import dataclass
from pathlib import Path

from labledger.ledger.errors import LedgerError, NotALedgerError, UnsupportedFormatError

FORMAT = 1
DIRNAME = ".labledger"


@dataclass(frozen=True)
class Config:
    format: int = FORMAT
    segment_per_process: bool = False
    segment_max_events: int = 200_000
    segment_max_bytes: int = 128 * 1024 * 1024


@dataclass(frozen=True)
class LedgerPaths:
    """Where everything of one ledger lives."""

    project: Path

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
            raise NotALedgerError(project)
        return LedgerPaths(project)
    start = (cwd or Path.cwd()).absolute()
    for folder in (start, *start.parents):
        if (folder / DIRNAME).is_dir():
            return LedgerPaths(folder)
    raise NotALedgerError(start)


def _parse_config(path: Path) -> Config:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"{path} is missing; the ledger folder is incomplete "
                          "(re-run `labledger init` to recreate it; events are kept)") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise LedgerError(f"{path}: not valid TOML ({exc})") from None
    found = data.get("format")
    if found != FORMAT:
        raise UnsupportedFormatError(path, found, FORMAT)
    known = {"format", "segment_per_process", "segment_max_events", "segment_max_bytes"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise LedgerError(f"{path}: unknown option(s) {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(known))}")
    try:
        return Config(
            format=FORMAT,
            segment_per_process=bool(data.get("segment_per_process", False)),
            segment_max_events=int(data.get("segment_max_events", Config.segment_max_events)),
            segment_max_bytes=int(data.get("segment_max_bytes", Config.segment_max_bytes)),
        )
    except (TypeError, ValueError) as exc:
        raise LedgerError(f"{path}: bad option value ({exc})") from None


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
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
