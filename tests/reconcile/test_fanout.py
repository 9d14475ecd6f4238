"""Judging in forked children: the same answers as one process, whatever happens to a child.

Real forks, real pipes, a child really SIGKILLed; and reconcile's report compared field by field
between one process and several over every snippet of the document table at once.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.reconcile.doc_readers import read_document
from labledger.reconcile.documents import reconcile_segments
from labledger.reconcile.fanout import fork_map, split_by_size
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


def test_results_in_share_order_from_several_processes() -> None:
    parent = os.getpid()
    got = fork_map(lambda n: (n * n, os.getpid()), [1, 2, 3, 4])
    assert [r for r, _ in got] == [1, 4, 9, 16]
    pids = [pid for _, pid in got]
    assert pids[0] == parent
    assert parent not in pids[1:]
    assert len(set(pids)) == 4


def test_a_childs_exception_is_raised_here() -> None:
    def work(n: int) -> int:
        if n == 3:
            raise ValueError(f"share {n} is bad")
        return n

    with pytest.raises(ValueError, match="share 3 is bad"):
        fork_map(work, [1, 2, 3])


def test_a_child_killed_mid_work_has_its_share_done_here() -> None:
    parent = os.getpid()

    def work(n: int) -> tuple[int, bool]:
        if os.getpid() != parent and n == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return n * 10, os.getpid() == parent

    assert fork_map(work, [1, 2, 3]) == [(10, True), (20, True), (30, False)]


def test_the_parents_own_share_raising_stops_and_reaps_the_children() -> None:
    parent = os.getpid()

    def work(n: int) -> int:
        if os.getpid() == parent:
            raise RuntimeError("parent share failed")
        signal.pause()  # a child that would never finish: it must be killed, not waited for
        return n

    with pytest.raises(RuntimeError, match="parent share failed"):
        fork_map(work, [1, 2, 3])


def test_with_another_thread_running_nothing_is_forked() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        pids = fork_map(lambda _: os.getpid(), [1, 2, 3])
    finally:
        stop.set()
        thread.join()
    assert pids == [os.getpid()] * 3


@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=60),
       st.integers(min_value=1, max_value=9))
def test_split_by_size_deals_every_index_once_and_evenly(sizes: list[int], shares: int) -> None:
    parts = split_by_size(sizes, shares)
    flat = [i for part in parts for i in part]
    assert sorted(flat) == list(range(len(sizes)))
    assert all(part == sorted(part) and part for part in parts)
    assert len(parts) <= shares
    if parts:
        loads = [sum(sizes[i] for i in part) for part in parts]
        # largest first, each to the lightest: no share exceeds another by more than one item
        assert max(loads) - min(loads) <= max(sizes)


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
    assert fork_map(lambda n: (n, os.getpid()), [1, 2, 3]) == [(n, os.getpid()) for n in (1, 2, 3)]


class _Unpicklable(Exception):
    def __init__(self, a: int, b: int) -> None:  # args != (a, b): unpickling it fails
        super().__init__(f"{a}/{b}")


def test_an_answer_that_cannot_be_read_is_redone_here_raising_the_real_error() -> None:
    def work(n: int) -> int:
        if n == 2:
            raise _Unpicklable(2, 3)
        return n

    with pytest.raises(_Unpicklable, match="2/3"):
        fork_map(work, [1, 2])
