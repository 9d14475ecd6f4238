"""Real processes: SIGKILL mid-put, concurrent writers, and a full disk."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import blake3
import pytest

from labledger.cas import PutResult, Store, StoreFullError

Listing = Callable[[Store], tuple[list[Path], list[Path]]]

CHILD_PUT = textwrap.dedent(
    """
    import sys
    from labledger.cas import Store
    store, src, mode = Store(sys.argv[1]), sys.argv[2], sys.argv[3]
    started = []
    def progress(n):
        if not started:
            started.append(n)
            sys.stdout.write("started\\n")
            sys.stdout.flush()
    if mode == "file":
        store.put_file(src, progress=progress)
    else:
        store.put_tree(src, progress=progress)
    sys.stdout.write("done\\n")
    """
)


def _kill_mid_put(store: Store, src: Path, mode: str, delay: float) -> str:
    proc = subprocess.Popen(
        [sys.executable, "-c", CHILD_PUT, str(store.root), str(src), mode],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == "started\n"
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    rest = proc.stdout.read()
    proc.wait()
    proc.stdout.close()
    return "done" if "done" in rest else "killed"


def _assert_only_complete_objects(store: Store, allowed: set[str]) -> int:
    """Check the store after a crash; returns how many temp files the crash left."""
    for digest in store.iter_objects():
        assert digest in allowed, f"unexpected object {digest}"
    report = store.verify_all()
    assert report.corrupt == ()
    # what a crash leaves is only recognisable temp files, and gc clears them
    leftovers = list(store.tmp_dir.iterdir())
    for leftover in leftovers:
        assert leftover.name.endswith(".labledger-tmp")
    store.gc(set(), grace_seconds=0, dry_run=False, now=None)
    assert list(store.tmp_dir.iterdir()) == []
    return len(leftovers)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.005, 0.02, 0.05, 0.12])
def test_sigkill_during_a_large_put_leaves_no_partial_object(
    tmp_path: Path, delay: float
) -> None:
    data = os.urandom(1 << 20) * 96  # 96 MiB: the put takes long enough to be hit mid-way
    src = tmp_path / "big.bin"
    src.write_bytes(data)
    digest = "blake3:" + blake3.blake3(data, max_threads=blake3.blake3.AUTO).hexdigest()
    store = Store(tmp_path / "cas")
    outcome = _kill_mid_put(store, src, "file", delay)
    leftovers = _assert_only_complete_objects(store, {digest})
    if delay == 0.0:
        # killed right after the first chunk: a partial temp file, and no object
        assert outcome == "killed"
        assert leftovers == 1
        assert not store.exists(digest)
    if store.exists(digest):
        assert store.object_path(digest).stat().st_size == len(data)


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.03, 0.1])
def test_sigkill_during_a_tree_put_never_exposes_a_tree_without_its_files(
    tmp_path: Path, delay: float
) -> None:
    src = tmp_path / "tree"
    expected: set[str] = set()
    for i in range(300):
        d = src / f"d{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        body = os.urandom(2048 + i)
        (d / f"f{i}").write_bytes(body)
        expected.add("blake3:" + blake3.blake3(body).hexdigest())
    store = Store(tmp_path / "cas")
    outcome = _kill_mid_put(store, src, "tree", delay)
    tree = Store(tmp_path / "reference").put_tree(src).digest
    _assert_only_complete_objects(store, expected | {tree})
    if store.exists(tree):
        assert all(store.exists(e.digest) for e in store.ls(tree) if e.digest)
    assert outcome in {"done", "killed"}


def _put_in_child(args: tuple[str, str]) -> PutResult:
    root, path = args
    return Store(root).put_file(path)


@pytest.mark.slow
def test_concurrent_puts_from_several_processes(tmp_path: Path) -> None:
    same = tmp_path / "same.bin"
    same.write_bytes(os.urandom(6 << 20))
    distinct = []
    for i in range(4):
        p = tmp_path / f"distinct-{i}.bin"
        p.write_bytes(os.urandom((1 << 20) + i))
        distinct.append(p)
    root = tmp_path / "cas"
    jobs = [(str(root), str(same))] * 6 + [(str(root), str(p)) for p in distinct]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(4) as pool:
        results = pool.map_async(_put_in_child, jobs).get(timeout=300)  # fail, never hang
    store = Store(root)
    same_digests = {r.digest for r in results[:6]}
    assert same_digests == {"blake3:" + blake3.blake3(same.read_bytes()).hexdigest()}
    assert any(r.stored_new for r in results[:6])
    for r, p in zip(results[6:], distinct, strict=True):
        assert r.digest == "blake3:" + blake3.blake3(p.read_bytes()).hexdigest()
    assert sorted(store.iter_objects()) == sorted(same_digests | {r.digest for r in results[6:]})
    assert store.verify_all().is_ok
    assert list(store.tmp_dir.iterdir()) == []


def _raise_after(real: Callable[..., Any], calls_ok: int, code: int) -> Callable[..., Any]:
    count = [0]

    def fake(*args: Any) -> Any:
        count[0] += 1
        if count[0] > calls_ok:
            raise OSError(code, os.strerror(code))
        return real(*args)

    return fake


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT, errno.EFBIG])
@pytest.mark.parametrize(("size", "call"), [
    (3 << 20, "write"),  # the one-pass loop for small files
    (20 << 20, "copy_file_range"),  # the kernel copy for large ones
    (20 << 20, "sendfile"),  # its fallback where copy_file_range is unsupported
    (20 << 20, "write"),  # its last resort, a readv/write loop
])
def test_enospc_while_writing_leaves_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_files: Listing,
    code: int, size: int, call: str
) -> None:
    src = tmp_path / "big.bin"
    src.write_bytes(os.urandom(size))
    store.init()
    large = size > 4 << 20
    kernel = ["copy_file_range", "sendfile"] if large else []
    for name in kernel[: kernel.index(call)] if call in kernel else kernel:
        monkeypatch.setattr(os, name, _raise_after(getattr(os, name), 0, errno.EXDEV))
    monkeypatch.setattr(os, call, _raise_after(getattr(os, call), 1 if large else 0, code))
    with pytest.raises(StoreFullError) as info:
        store.put_file(src)
    monkeypatch.undo()
    assert info.value.source == src
    assert info.value.errno_name == errno.errorcode[code]
    assert "no space left" in str(info.value)
    assert store_files(store) == ([], [])


@pytest.mark.parametrize("size", [100, 20 << 20])
def test_enospc_on_fsync_of_either_path_leaves_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_files: Listing,
    size: int
) -> None:
    src = tmp_path / "f.bin"
    src.write_bytes(os.urandom(size))
    store.init()
    monkeypatch.setattr(os, "fsync", _raise_after(os.fsync, 0, errno.ENOSPC))
    with pytest.raises(StoreFullError) as info:
        store.put_file(src, sha256=True)
    monkeypatch.undo()
    assert info.value.source == src
    assert store_files(store) == ([], [])


def test_enospc_on_fsync_leaves_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_files: Listing
) -> None:
    src = tmp_path / "f.bin"
    src.write_bytes(b"delayed allocation fails at fsync")
    store.init()
    monkeypatch.setattr(os, "fsync", _raise_after(os.fsync, 0, errno.ENOSPC))
    with pytest.raises(StoreFullError):
        store.put_file(src)
    monkeypatch.undo()
    assert store_files(store) == ([], [])


def test_enospc_in_the_middle_of_a_tree_leaves_nothing(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, store_files: Listing
) -> None:
    src = tmp_path / "tree"
    src.mkdir()
    for i in range(10):
        (src / f"f{i}").write_bytes(os.urandom(100 + i))
    store.init()
    monkeypatch.setattr(os, "write", _raise_after(os.write, 5, errno.ENOSPC))
    with pytest.raises(StoreFullError):
        store.put_tree(src)
    monkeypatch.undo()
    assert store_files(store) == ([], [])


CHILD_FSIZE = textwrap.dedent(
    """
    import json, resource, signal, sys
    from labledger.cas import Store, StoreFullError
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, resource.RLIM_INFINITY))
    try:
        Store(sys.argv[1]).put_file(sys.argv[2])
    except StoreFullError as exc:
        print(json.dumps(exc.to_json()))
    """
)


@pytest.mark.slow
def test_file_size_limit_in_a_real_process(tmp_path: Path) -> None:
    src = tmp_path / "big.bin"
    src.write_bytes(os.urandom(4 << 20))
    store = Store(tmp_path / "cas")
    store.init()
    out = subprocess.run([sys.executable, "-c", CHILD_FSIZE, str(store.root), str(src)],
                         capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    assert doc["error"] == "StoreFullError"
    assert doc["errno_name"] == "EFBIG"
    assert doc["source"] == str(src)
    assert list(store.iter_objects()) == []
    assert list(store.tmp_dir.iterdir()) == []
