"""The pull's hashing thread never holds up a pull that was interrupted.

A Ctrl-C (KeyboardInterrupt) lands in the main thread between two bytecodes; inside
`queue.Queue.put` it can fall in `Condition.notify` after the hashing thread's waiter was taken
off the condition and before it was released. That thread then sleeps on a wake-up that never
comes, and a `finish` that waited for it hung the interrupted pull forever (seen once in
`test_ctrl_c_at_the_terminal_mid_transfer_then_pull_again` under load). These tests put the
thread in exactly that state (its waiter taken off, as the interrupted notify leaves it) and
check that the hash still completes, and that an interrupted feed is given up at once.
"""

from __future__ import annotations

import hashlib
import threading
import time

from labledger.ingest.pull import _HashThread


class _Sha:
    def __init__(self) -> None:
        self.sha = hashlib.sha256()

    def update(self, chunk: bytes) -> None:
        self.sha.update(chunk)


def _lose_the_wakeup(hasher: _HashThread) -> None:
    """Wait until the hashing thread sleeps on its queue, then take its waiter off the
    condition without releasing it: what a notify cut short by KeyboardInterrupt does."""
    cond = hasher._q.not_empty
    deadline = time.monotonic() + 10
    while not cond._waiters:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the hashing thread never waited"
        time.sleep(0.001)
    with cond:
        cond._waiters.popleft()  # type: ignore[attr-defined]


def _in_thread(fn: object, timeout: float) -> bool:
    """Whether ``fn()`` returned within ``timeout`` seconds."""
    t = threading.Thread(target=fn, daemon=True)  # type: ignore[arg-type]
    t.start()
    t.join(timeout)
    return not t.is_alive()


def test_a_lost_wakeup_still_finishes_the_hash() -> None:
    sha = _Sha()
    hasher = _HashThread(sha)  # type: ignore[arg-type]
    hasher.feed(b"first ")
    _lose_the_wakeup(hasher)
    # the put made while the thread's wake-up is lost: its notify finds no waiter
    with hasher._q.mutex:
        hasher._q.queue.append(b"second")
    assert _in_thread(hasher.finish, 10), "finish hung on a thread whose wake-up was lost"
    assert sha.sha.hexdigest() == hashlib.sha256(b"first second").hexdigest()


def test_an_interrupted_feed_is_given_up_without_waiting() -> None:
    sha = _Sha()
    hasher = _HashThread(sha)  # type: ignore[arg-type]
    hasher.feed(b"x" * 1024)
    _lose_the_wakeup(hasher)
    started = time.monotonic()
    assert _in_thread(hasher.abandon, 10)
    assert time.monotonic() - started < 1.0  # an interrupted pull exits at once
    hasher._thread.join(10)  # and the thread does not stay blocked forever
    assert not hasher._thread.is_alive()
