"""Which live processes hold a file open for writing: one scan of ``/proc`` (Linux, this machine).

Settling (`labledger.ingest.checkpoint`, "Settling") cannot tell a writer that paused longer
than the settle time from a finished one by the file alone. The kernel can: every open file of
every process is a link ``/proc/PID/fd/FD``, and ``/proc/PID/fdinfo/FD`` gives its open flags.

Invariants:

* A file is matched by identity, ``(st_dev, st_ino)`` of ``os.stat`` through the fd link, never
  by the link's text: a renamed, moved or hard-linked file is still found, and a path that now
  names another file is not.
* Only write access counts (``O_WRONLY`` or ``O_RDWR`` in the ``flags:`` field); a reader, an
  ``O_PATH`` handle or a shared mapping whose fd was closed is no writer.
* This process and its ancestors are never writers, nor is anyone of a file they write
  themselves (a forked worker shares the descriptor it inherited): it cannot wait for itself
  (a training loop that calls `ingest_run_dir` while its own log is open must not stall), nor
  for a process that is waiting for it (a training script that runs ``labledger close`` as
  its last step while its stdout is redirected into the run's folder, or `labledger run`
  holding a log of the command it wraps).
* What cannot be inspected is skipped without a word: another user's processes (their
  ``/proc/PID/fd`` needs ptrace access), processes that exit mid-scan, fds closed mid-scan.
  Without ``/proc`` (macOS, BSD, Windows) nothing is found, so settling falls back to stillness
  alone. Processes on other machines (a file on NFS written elsewhere) are never seen.
* One call is one pass over ``/proc``, whatever the number of files asked about: callers scan
  once per settle poll, never per file, and never when settling is off.

Only ``os`` is used, so importing this module costs nothing at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import NamedTuple

FileId = tuple[int, int]
"""``(st_dev, st_ino)`` of a file."""

_PROC = "/proc"
_ACCESS_MODE = 0o3  # O_ACCMODE: 0 read-only, 1 write-only, 2 read-write
_COMMAND_MAX = 80


class Writer(NamedTuple):
    """A process that holds ``file`` open with write access."""

    pid: int
    command: str
    file: FileId

    def describe(self) -> str:
        return f"pid {self.pid} ({self.command})"


def open_writers(files: Collection[FileId], *, proc: str = _PROC) -> list[Writer]:
    """Every live process but this one and its ancestors that holds one of ``files`` open for
    writing, in pid order (one entry per process and file). Empty when ``files`` is, or without
    ``/proc``."""
    if not files:
        return []
    try:
        pids = os.listdir(proc)
    except OSError:
        return []  # no procfs: not Linux, or hidden in this container
    exempt = _self_and_ancestors(proc)
    # a file this process or an ancestor writes is theirs: the other processes writing it
    # inherited it from them (a training script's DataLoader workers or DDP ranks holding its
    # redirected stdout while it waits for labledger)
    ours = {file for pid in exempt for file in _written_by(f"{proc}/{pid}", files)}
    found: list[Writer] = []
    for name in pids:
        if not name.isdigit() or int(name) in exempt:
            continue
        for file in _written_by(f"{proc}/{name}", files):
            if file not in ours:
                found.append(Writer(int(name), _command(f"{proc}/{name}"), file))
    found.sort()
    return found


def _self_and_ancestors(proc: str) -> set[int]:
    """This process's pid and its parents' up to pid 1, read from ``/proc/PID/stat``."""
    chain = {os.getpid()}
    pid = os.getppid()
    while pid > 1 and pid not in chain:
        chain.add(pid)
        try:
            with open(f"{proc}/{pid}/stat", "rb") as fh:
                stat = fh.read(1024)
        except OSError:
            break  # exited meanwhile: its parent is unknown
        # "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses, so split after
        # the last ")"
        fields = stat[stat.rfind(b")") + 1:].split()
        try:
            pid = int(fields[1])
        except (IndexError, ValueError):
            break
    return chain


def _written_by(process: str, files: Collection[FileId]) -> list[FileId]:
    """Which of ``files`` the process at ``process`` (``/proc/PID``) holds open for writing."""
    try:
        fd_dir = os.open(f"{process}/fd", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return []  # exited, or another user's: not ours to look into
    held: list[FileId] = []
    try:
        for fd in os.listdir(fd_dir):
            try:
                st = os.stat(fd, dir_fd=fd_dir)  # the open file itself, through the link
            except OSError:
                continue  # closed meanwhile, or not permitted
            file = (st.st_dev, st.st_ino)
            if file in files and file not in held and _writable(f"{process}/fdinfo/{fd}"):
                held.append(file)
    except OSError:
        pass  # exited while listed
    finally:
        os.close(fd_dir)
    return held


def _writable(fdinfo: str) -> bool:
    """Whether the fd described by ``fdinfo`` was opened with write access (False when it
    cannot be read: closed meanwhile)."""
    try:
        with open(fdinfo, "rb") as fh:
            text = fh.read(4096)
    except OSError:
        return False
    for line in text.splitlines():
        if line.startswith(b"flags:"):
            try:
                flags = int(line.split(b":", 1)[1].strip(), 8)
            except ValueError:
                return False
            return flags & _ACCESS_MODE in (os.O_WRONLY, os.O_RDWR)
    return False


def _command(process: str) -> str:
    """The process's command line (shortened), else its ``comm`` name, else ``?``."""
    try:
        with open(f"{process}/cmdline", "rb") as fh:
            raw = fh.read(4096)
    except OSError:
        raw = b""
    text = raw.rstrip(b"\0").replace(b"\0", b" ").decode(errors="replace")
    if not text.strip():
        try:
            with open(f"{process}/comm", "rb") as fh:
                text = fh.read().decode(errors="replace").strip()
        except OSError:
            text = ""
    # One printable line: a `python -c` program has newlines, a name may hold escapes.
    text = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    if len(text) > _COMMAND_MAX:
        text = text[:_COMMAND_MAX - 1] + "…"
    return text or "?"


def describe_writers(writers: list[Writer]) -> str:
    """``pid 12 (python train.py), pid 40 (tee log.txt)``: at most three, then a count."""
    seen: dict[int, str] = {}
    for w in writers:
        seen.setdefault(w.pid, w.describe())
    shown = list(seen.values())
    more = len(shown) - 3
    return ", ".join(shown[:3]) + (f" and {more} more" if more > 0 else "")
