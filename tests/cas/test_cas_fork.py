"""A forked child can hash: BLAKE3's thread pool does not survive `fork`, so children use one.

ML code forks after hashing all the time (DataLoader workers, multiprocessing's default start
method); a multithreaded BLAKE3 in such a child would wait forever for pool threads that exist
only in the parent.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from blake3 import blake3

from labledger.cas import Store
from labledger.cas._threads import hash_threads


def test_a_forked_child_puts_and_verifies_large_files(tmp_path: Path) -> None:
    data = os.urandom(24 << 20)  # large enough for the kernel-copy + threaded-hash path
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    store = Store(tmp_path / "cas")
    # The parent warms up the multithreaded hasher first, as a training process would.
    assert store.put_file(source).digest == "blake3:" + blake3(data).hexdigest()
    assert hash_threads() != 1
    other = tmp_path / "other.bin"
    other.write_bytes(data[::-1])
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if the threaded paths worked
        code = 1
        try:
            result = Store(tmp_path / "cas").put_file(other)
            Store(tmp_path / "cas").verify(result.digest)
            ok = result.digest == "blake3:" + blake3(data[::-1]).hexdigest()
            code = 0 if ok and hash_threads() == 1 else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise AssertionError("the forked child hung while hashing")
    assert os.waitstatus_to_exitcode(status) == 0
