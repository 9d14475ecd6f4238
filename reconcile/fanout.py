"""Run one function over shares of work in forked children, on every core; gather the results.

Reconcile's judging is pure Python (CPU-bound, so threads would share one core); its input (the
documents, the compiled anchor index) is built once in the parent, and a forked child inherits
it without a copy or a pickle. Only the results travel back, pickled through a pipe.

Invariants:

* The result list is in share order and equals ``[work(s) for s in shares]``: a child that
  raises sends its exception back and the parent raises it; a child that dies without an
  answer (killed, out of memory), whose answer cannot be read, or that could not be forked
  has its share done here, in the parent.
* Children never return into the caller's code: each ends with ``os._exit`` (no atexit
  handlers, no flushing of buffers it inherited), so nothing is written twice.
* Forking happens only where it is safe and known: on Linux (the ``fork`` start method is what
  this relies on; macOS frameworks are not fork-safe), with no other thread running (a thread
  holding a lock at the fork would leave the child's copy locked forever). Elsewhere, or with one
  share, the work runs here, serially: the same results, more slowly.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["cpu_count", "fork_map", "split_by_size"]

S = TypeVar("S")
R = TypeVar("R")


def cpu_count() -> int:
    """The cores this process may run on (its affinity mask, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def can_fork() -> bool:
    return sys.platform.startswith("linux") and threading.active_count() == 1


def split_by_size(sizes: Sequence[int], shares: int) -> list[list[int]]:
    """Indices ``0..len(sizes)-1`` dealt into at most ``shares`` lists of about equal total
    size (largest first, each to the lightest share); each list in ascending order."""
    shares = max(1, min(shares, len(sizes)))
    loads = [0] * shares
    out: list[list[int]] = [[] for _ in range(shares)]
    for i in sorted(range(len(sizes)), key=lambda k: -sizes[k]):
        lightest = loads.index(min(loads))
        out[lightest].append(i)
        loads[lightest] += sizes[i]
    return [sorted(s) for s in out if s]


def fork_map(work: Callable[[S], R], shares: Sequence[S]) -> list[R]:
    """``[work(s) for s in shares]``, the shares after the first in forked children."""
    if len(shares) <= 1 or not can_fork():
        return [work(s) for s in shares]
    children: list[tuple[int, int, S]] = []  # (pid, read end of its pipe, its share)
    here: list[int] = [0]  # the shares this process does itself: the first, and any not forked
    try:
        for index, share in enumerate(shares[1:], start=1):
            read_fd, write_fd = os.pipe()
            try:
                pid = os.fork()
            except OSError:  # no process to be had (EAGAIN, ENOMEM): do it here instead
                os.close(read_fd)
                os.close(write_fd)
                here.append(index)
                continue
            if pid == 0:  # the child: do its share, send the answer, never return
                os.close(read_fd)
                _child(work, share, write_fd)
            os.close(write_fd)
            children.append((pid, read_fd, share))
        done = {i: work(shares[i]) for i in here}
        results: list[R] = []
        for i in range(len(shares)):
            if i not in done:
                pid, read_fd, share = children.pop(0)
                done[i] = _collect(pid, read_fd, work, share)
            results.append(done[i])
        return results
    finally:
        for pid, read_fd, _ in children:  # something raised: stop the rest, reap them
            os.close(read_fd)
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            _reap(pid)


def _child(work: Callable[[S], R], share: S, write_fd: int) -> None:
    status = 0
    try:
        try:
            payload = pickle.dumps((True, work(share)), pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - sent to the parent, which raises it
            try:
                payload = pickle.dumps((False, exc), pickle.HIGHEST_PROTOCOL)
            except Exception:  # an exception that cannot be pickled: send what it says
                payload = pickle.dumps((False, RuntimeError(repr(exc))), pickle.HIGHEST_PROTOCOL)
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(payload)
    except BaseException:  # noqa: BLE001 - the parent sees no answer and does the share itself
        status = 1
    finally:
        os._exit(status)


def _collect(pid: int, read_fd: int, work: Callable[[S], R], share: S) -> R:
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    if _reap(pid) != 0 or not data:  # it died before answering in full: its share is done here
        return work(share)
    try:
        ok, value = pickle.loads(data)
    except Exception:  # noqa: BLE001 - e.g. an exception class that does not unpickle:
        return work(share)  # doing the share here raises the real thing
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
