"""What every benchmark script shares: where its temporary files go, and a timer.

Imported as ``from _bench import ...``: the scripts run as ``python benchmarks/bench_x.py``, so
this folder is first on ``sys.path``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def add_tmp_base(parser: argparse.ArgumentParser) -> None:
    """``--tmp-base``: where the temp dir goes (default /tmp, or $BENCH_TMP)."""
    parser.add_argument("--tmp-base", default=os.environ.get("BENCH_TMP", "/tmp"),
                        help="where the temp dir goes (default /tmp, or $BENCH_TMP)")


def make_tmp(base: str) -> Path:
    """A temp dir under ``base``; warns when it is not on the same device as the repository."""
    os.makedirs(base, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix="labledger-bench-", dir=base))
    same = os.stat(path).st_dev == os.stat(REPO).st_dev
    print(f"temp dir: {path} ({'same device as' if same else 'NOT the same device as'} {REPO})")
    return path


def timed(work: Callable[[], Any]) -> float:
    """Seconds ``work()`` takes (wall clock)."""
    start = time.perf_counter()
    work()
    return time.perf_counter() - start
