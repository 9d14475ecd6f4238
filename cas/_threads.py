"""How many threads BLAKE3 may use: all of them, except in a forked child.

blake3's multithreading runs on a Rayon thread pool that lives inside the process. After a
`fork` the child inherits the pool's bookkeeping but not its threads, so a multithreaded hash in
the child waits forever for workers that do not exist (rayon-rs/rayon#592 and friends). ML code
forks all the time (DataLoader workers, multiprocessing's default start method on Linux), so a
process that is a fork child hashes on one thread. A fresh process (spawn, exec) is unaffected.
"""

from __future__ import annotations

import os

from blake3 import blake3

_forked = False


def _after_fork_in_child() -> None:
    global _forked
    _forked = True


os.register_at_fork(after_in_child=_after_fork_in_child)


def hash_threads() -> int:
    """`blake3.AUTO` normally; 1 in a forked child, where the thread pool cannot be trusted."""
    return 1 if _forked else blake3.AUTO
