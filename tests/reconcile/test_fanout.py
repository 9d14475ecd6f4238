"""Judging in forked children: the same answers as one process, whatever happens to a child.

Real forks, real pipes, a child really SIGKILLed; and reconcile's report compared field by field
between one process and several over every snippet of the document table at once.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.fanout import fork_each, tickets
from tests.reconcile.test_documents import CASES, CLAIMS


def _children() -> set[int]:
    """This process's child processes, zombies included (from /proc: a child left unreaped
    stays listed until it is waited for)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
        except OSError:
            continue  # it exited while we looked
        if int(stat.rsplit(")", 1)[1].split()[1]) == me:
            found.add(int(entry))
    return found


@pytest.fixture(autouse=True)
def _reaped() -> Iterator[None]:
    """Every test here must leave no child of its own behind, running or unreaped (other
    tests' children, the session's sshd, are there before and after)."""
    before = _children()
    yield
    assert _children() <= before


def test_results_in_item_order_from_several_processes() -> None:
    parent = os.getpid()

    def work(n: int) -> tuple[int, int]:
        time.sleep(0.02)  # slow enough that every process takes some of the items
        return n * n, os.getpid()

    got = fork_each(work, [1] * 12, 4)
    assert [r for r, _ in got] == [n * n for n in range(12)]
    pids = {pid for _, pid in got}
    assert parent in pids
    assert len(pids) >= 2


def test_items_are_taken_largest_first_and_each_once() -> None:
    taken: list[int] = []

    def work(n: int) -> int:
        taken.append(n)  # every item here: a single process takes them in queue order
        return n

    sizes = [5, 50, 1, 20, 20, 7]
    assert fork_each(work, sizes, 1) == list(range(6))
    assert taken == list(range(6))  # one process: in item order, no queue at all
    queue = [i for run in tickets(sizes, 100) for i in run]
    assert queue == [1, 3, 4, 5, 0, 2]


def test_a_slow_item_does_not_hold_up_the_rest() -> None:
    """The process holding the one slow item takes no more: the others do every fast one (with
    fixed shares of equal size, the slow item's share waited behind it)."""
    def work(n: int) -> tuple[int, int]:
        time.sleep(0.5 if n == 0 else 0.01)
        return n, os.getpid()

    got = fork_each(work, [100] + [1] * 20, 2)
    assert [n for n, _ in got] == list(range(21))
    slow = got[0][1]
    assert all(pid != slow for _, pid in got[1:])


def test_a_childs_exception_is_raised_here() -> None:
    def work(n: int) -> int:
        time.sleep(0.01)
        if n == 3:
            raise ValueError(f"item {n} is bad")
        return n

    with pytest.raises(ValueError, match="item 3 is bad"):
        fork_each(work, [1] * 8, 3)


def test_a_child_killed_mid_work_has_its_items_done_here() -> None:
    parent = os.getpid()

    def work(n: int) -> tuple[int, bool]:
        time.sleep(0.01)
        if os.getpid() != parent and n % 2 == 0:
            os.kill(os.getpid(), signal.SIGKILL)
        return n * 10, os.getpid() == parent

    got = fork_each(work, [1] * 10, 3)
    assert [n for n, _ in got] == [n * 10 for n in range(10)]
    assert all(here for n, (_, here) in enumerate(got) if n % 2 == 0)


def test_the_parents_own_item_raising_stops_and_reaps_the_children() -> None:
    parent = os.getpid()

    def work(n: int) -> int:
        if os.getpid() == parent:
            raise RuntimeError("parent item failed")
        signal.pause()  # a child that would never finish: it must be killed, not waited for
        return n

    # more items than processes: each child takes one and pauses, the parent gets one too
    with pytest.raises(RuntimeError, match="parent item failed"):
        fork_each(work, [1] * 6, 3)


def test_with_another_thread_running_nothing_is_forked() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        pids = fork_each(lambda _: os.getpid(), [1, 2, 3], 3)
    finally:
        stop.set()
        thread.join()
    assert pids == [os.getpid()] * 3


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=60),
       st.integers(min_value=1, max_value=20))
def test_tickets_hold_every_index_once_largest_first(sizes: list[int], most: int) -> None:
    runs = tickets(sizes, most)
    flat = [i for run in runs for i in run]
    assert sorted(flat) == list(range(len(sizes)))
    assert len(runs) <= most
    assert all(run for run in runs)
    assert [sizes[i] for i in flat] == sorted(sizes, reverse=True)


@given(st.lists(st.integers(min_value=0, max_value=100), min_size=0, max_size=40),
       st.integers(min_value=1, max_value=4))
@settings(max_examples=25, deadline=None)
def test_fork_each_equals_the_serial_map(sizes: list[int], jobs: int) -> None:
    assert fork_each(lambda i: (i, sizes[i] * 3), sizes, jobs) == \
        [(i, s * 3) for i, s in enumerate(sizes)]


def test_more_items_than_the_queue_holds_share_tickets() -> None:
    sizes = list(range(20_000))  # more than 8,192 tickets: consecutive items share one
    assert len(tickets(sizes, 8192)) <= 8192
    assert fork_each(lambda i: i + 1, sizes, 2) == [i + 1 for i in sizes]


@pytest.mark.parametrize("forks", [True, False], ids=["forked", "threads-running"])
def test_reconcile_in_several_processes_reports_exactly_what_one_does(forks: bool) -> None:
    segments = [seg for i, case in enumerate(CASES)
                for seg in read_document(f"{i:03d}-{case.path}", case.text.encode())]
    claims = list(CLAIMS.values())
    serial = reconcile_segments(segments, claims, jobs=1)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    if not forks:  # shares judged one after another in this process: the same report
        thread.start()
    try:
        parallel = reconcile_segments(segments, claims, jobs=4)
    finally:
        stop.set()
        if not forks:
            thread.join()
    assert serial.findings  # the table holds drift, ambiguity and bad markers: a real comparison
    assert len(serial.matches) > 20
    assert parallel.to_json() == serial.to_json()
    assert [(m.line, m.col, m.offset) for m in parallel.matches] == \
        [(m.line, m.col, m.offset) for m in serial.matches]


def test_when_no_process_can_be_forked_the_shares_are_done_here(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    assert fork_each(lambda n: (n, os.getpid()), [1, 2, 3], 3) == \
        [(n, os.getpid()) for n in range(3)]


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # args != (a, b): unpickling it fails
        super().__init__(f"{a}/{b}")


def test_an_answer_that_cannot_be_read_is_redone_here_raising_the_real_error() -> None:
    def work(n: int) -> int:
        time.sleep(0.01)
        if n == 2:
            raise _Unpicklable(2, 3)
        return n

    with pytest.raises(_Unpicklable, match="2/3"):
        fork_each(work, [1] * 4, 2)
