"""Run one function over many items in forked children, on every core; gather the results.

Reconcile's judging is pure Python (CPU-bound, so threads would share one core); its input (the
documents, the compiled anchor index) is built once in the parent, and a forked child inherits
it without a copy or a pickle. Only the results travel back, pickled through a pipe.

Items are not dealt out in fixed shares: what an item costs is not its size (a 20 KB training
log with no anchor is judged in a millisecond, a 20 KB page of anchored sentences in fifty), so
fixed shares of equal size finished up to a third apart. Every process, the parent included,
takes the next item from one queue when it is done with the last, largest first: the processes
finish within about one small item of each other.

Invariants:

* The result list is in item order and equals ``[work(i) for i in range(count)]``, whichever
  process did each item: a child that raises sends its exception back and the parent raises
  it; the items of a child that dies without an answer (killed, out of memory), whose answer
  cannot be read, or that could not be forked are done here, in the parent.
* The queue is a pipe filled before the first fork and closed for writing: a read of one
  4-byte ticket is atomic (the pipe's lock is held for the whole read), so no two processes take
  the same ticket, and an empty pipe reads as its end. It holds at most what the pipe holds
  without blocking (consecutive items share a ticket when there are more items than that).
* Children never return into the caller's code: each ends with ``os._exit`` (no atexit
  handlers, no flushing of buffers it inherited), so nothing is written twice. They collect no
  garbage (`gc.disable`): it would be freed at their exit anyway.
* Forking happens only where it is safe and known: on Linux (the ``fork`` start method is what
  this relies on; macOS frameworks are not fork-safe), with no other thread running (a thread
  holding a lock at the fork would leave the child's copy locked forever). Elsewhere, or with one
  process, the work runs here, serially: the same results, more slowly.
"""

from __future__ import annotations

import fcntl
import gc
import os
import pickle
import signal
import struct
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["cpu_count", "fork_each", "tickets"]

R = TypeVar("R")

_TICKET = struct.Struct("<I")
_MAX_TICKETS = 8192  # 32 KB of tickets: well inside a default pipe (64 KB)


def cpu_count() -> int:
    """The cores this process may run on (its affinity mask, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return sys.platform.startswith("linux") and threading.active_count() == 1


def tickets(sizes: Sequence[int], most: int) -> list[list[int]]:
    """Indices ``0..len(sizes)-1``, largest size first, in at most ``most`` runs of about equal
    count (a run is one ticket: taken and done together)."""
    order = sorted(range(len(sizes)), key=lambda i: -sizes[i])
    per = max(1, -(-len(order) // max(1, most)))
    return [order[k:k + per] for k in range(0, len(order), per)]


def fork_each(work: Callable[[int], R], sizes: Sequence[int], jobs: int) -> list[R]:
    """``[work(i) for i in range(len(sizes))]`` in ``jobs`` processes (this one and forked
    children), each taking the next item, largest ``sizes`` first, as it finishes one."""
    count = len(sizes)
    if jobs <= 1 or count <= 1 or not can_fork():
        return [work(i) for i in range(count)]
    read_fd, write_fd = os.pipe()
    try:
        room = fcntl.fcntl(write_fd, fcntl.F_GETPIPE_SZ)
    except (AttributeError, OSError):
        room = 4096  # the least a Linux pipe holds
    runs = tickets(sizes, min(_MAX_TICKETS, room // _TICKET.size))
    try:
        # every ticket written before the first fork: nobody reads yet, so it must all fit
        os.write(write_fd, b"".join(_TICKET.pack(k) for k in range(len(runs))))
    finally:
        os.close(write_fd)
    children: list[tuple[int, int]] = []  # (pid, read end of its answer pipe)
    done: dict[int, R] = {}
    try:
        for _ in range(min(jobs, len(runs)) - 1):
            answer_read, answer_write = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no process to be had (EAGAIN, ENOMEM): fewer of us do it
                os.close(answer_read)
                os.close(answer_write)
                break
            if pid == 0:  # the child: take tickets until none is left, answer, never return
                os.close(answer_read)
                _child(work, runs, read_fd, answer_write)
            os.close(answer_write)
            children.append((pid, answer_read))
        done.update(_take(work, runs, read_fd))
        while children:
            pid, answer_read = children.pop(0)
            got: dict[int, R] | None = _collect(pid, answer_read)
            if got is not None:
                done.update(got)
        # a dead child's items, or items a child never answered for: done here
        return [done[i] if i in done else work(i) for i in range(count)]
    finally:
        os.close(read_fd)
        for pid, answer_read in children:  # something raised: stop the rest, reap them
            os.close(answer_read)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _reap(pid)


def _take(work: Callable[[int], R], runs: list[list[int]], read_fd: int) -> dict[int, R]:
    """Take tickets from the queue until it is empty; each ticket's items done."""
    out: dict[int, R] = {}
    while True:
        data = os.read(read_fd, _TICKET.size)
        if len(data) < _TICKET.size:  # the end (a pipe gives a whole ticket or nothing)
            return out
        for i in runs[_TICKET.unpack(data)[0]]:
            out[i] = work(i)


def _child(work: Callable[[int], R], runs: list[list[int]], read_fd: int,
           write_fd: int) -> None:
    # No garbage collection here: the child lives for one share of the work and ends with
    # `os._exit`, so nothing it leaves needs collecting, and a full collection walks every
    # object the parent had, writing to each one's header: each page of the heap is copied
    # (copy-on-write), for nothing
    gc.disable()
    status = 0
    try:
        try:
            payload = pickle.dumps((True, _take(work, runs, read_fd)), pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            try:
                payload = pickle.dumps((False, exc), pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that cannot be pickled: send what it says
                payload = pickle.dumps((False, RuntimeError(repr(exc))), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)
    except BaseException:  # noqa: BLE001 - the parent sees no answer and does its items itself
        status = 1
    finally:
        os._exit(status)


def _collect(pid: int, read_fd: int) -> dict[int, R] | None:
    """A child's answers (None: it died before answering in full, or its answer cannot be
    read; its items are then done here, which raises the real error if there was one)."""
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    if _reap(pid) != 0 or not data:
        return None
    try:
        ok, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - e.g. an exception class that does not unpickle
        return None
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _reap(pid: int) -> int:
    """Wait for child ``pid``; its exit code (negative: the signal that killed it)."""
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return -1
    return os.waitstatus_to_exitcode(status)
