"""Two pulls of the same box at once share each file's partial file (it is keyed by source,
path and size): each holds an exclusive claim on the partial file it appends to, from its first
byte to the commit that moves it into the store (`labledger.cas._stage.Claim`), so neither
ever appends to, or stores, the other's bytes.

Played with real processes: each pull runs in its own Python process over a transport that
pauses at a chosen point until the other pull says it is done (files in a folder both see),
as a slow link or a box still hashing would hold it. Review 53 item 1: without the claims,
the second pull stored the first one's partial file and the first then appended through its
open handle into the stored object (258 KiB grew to 448 KiB under its digest), or adopted a
file the second had already moved into the store (the pull stopped on a write error).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import blake3
import pytest

from labledger.cas import Store
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger

# One pull, paused where the test says: ``received-first-chunk`` pauses after the first 64 KiB
# of big.bin reached the partial file; ``received-whole`` pauses in the box's hash (after the
# whole file streamed into its partial file, before it is compared and stored). The pause
# lasts until the other pull has written ``<base>/other_done``. ``sha-only``: the box hashes
# with SHA-256 only, so a file another pull stored meanwhile is not found by its BLAKE3.
# Prints the report's files.
_PULL = r"""
import json, sys, threading, time
from pathlib import Path
from labledger.ingest.pull import pull
from labledger.ingest.transport import LocalTransport, RemoteHash
from labledger.ledger.ledger import Ledger

pause, base, box = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
sha_only = sys.argv[4] == "sha-only"
streamed = threading.Event()

def wait_for_other():
    (base / "paused").touch()
    while not (base / "other_done").exists():
        time.sleep(0.02)

class Paused(LocalTransport):
    def read(self, rel, offset=0):
        for i, chunk in enumerate(self._chunks(rel, offset)):
            yield chunk
            if pause == "received-first-chunk" and i == 0:
                wait_for_other()
        streamed.set()
    def _chunks(self, rel, offset):
        data = (self.root / rel).read_bytes()[offset:]
        for at in range(0, len(data), 65536):
            yield data[at:at + 65536]
    def hash_files(self, rels):
        if pause == "received-whole":
            streamed.wait(60)
            wait_for_other()
        hashes = super().hash_files(rels)
        if sha_only:  # a box with sha256sum only (the fallback of transport_ssh)
            hashes = {rel: RemoteHash(sha256=h.sha256, size=h.size) for rel, h in hashes.items()}
        return hashes

with Ledger.open(base / "project") as led:
    report = pull(led, Paused(box), run="r1", instance="box1", verify_checkpoints=False,
                  merge_ledger=False)
print(json.dumps([{"path": f.path, "status": f.status, "digest": f.digest, "error": f.error}
                  for f in report.files]))
"""


@pytest.fixture
def start() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """``start(pause, base, box, hashes="both")``: a pull in its own process (`_PULL`); killed
    at the end of the test if it is still paused."""
    procs: list[subprocess.Popen[str]] = []

    def run(pause: str, base: Path, box: Path, hashes: str = "both") -> subprocess.Popen[str]:
        proc = subprocess.Popen([sys.executable, "-c", _PULL, pause, str(base), str(box),
                                 hashes],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        return proc

    yield run
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


def _wait_for(flag: Path, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60
    while not flag.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the paused pull never reached its pause"
        time.sleep(0.02)


def _files(proc: subprocess.Popen[str]) -> dict[str, dict[str, Any]]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return {f["path"]: f for f in json.loads(out.splitlines()[-1])}


def _setup(tmp_path: Path, ledger: Ledger) -> tuple[Path, bytes, str]:
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    data = os.urandom(256 * 1024)  # four 64 KiB chunks
    (box / "big.bin").write_bytes(data)
    ledger.close()
    return box, data, "blake3:" + blake3.blake3(data).hexdigest()


def _store(project: Path) -> Store:
    with Ledger.open(project) as led:
        return open_store(led)


def _store_holds_only_true_objects(project: Path) -> None:
    """Every object in the store hashes to its name (nothing stored under a wrong digest)."""
    objects = list(_store(project).objects_dir.glob("*/*"))
    assert objects
    for path in objects:
        assert "blake3:" + blake3.blake3(path.read_bytes()).hexdigest() == \
            f"blake3:{path.parent.name}{path.name}"


def test_a_second_pull_leaves_alone_a_file_another_pull_is_receiving(
        ledger: Ledger, project: Path, tmp_path: Path,
        start: Callable[..., subprocess.Popen[str]]) -> None:
    box, data, digest = _setup(tmp_path, ledger)
    first = start("received-first-chunk", tmp_path, box)
    _wait_for(tmp_path / "paused", first)

    second = start("none", tmp_path, box)
    seen = _files(second)
    # the second pull neither resumed nor stored the file the first is receiving: it says so
    assert seen["big.bin"]["status"] == "failed"
    assert seen["big.bin"]["error"] == (
        "another pull is receiving it from the same box right now (it holds the partial file "
        "this pull would resume); not transferred by this pull: pull again once that pull "
        "has finished")
    store = _store(project)
    assert not store.exists(digest)

    (tmp_path / "other_done").touch()
    done = _files(first)
    assert done["big.bin"]["status"] == "pulled"
    assert done["big.bin"]["digest"] == digest
    assert store.object_path(digest).read_bytes() == data
    _store_holds_only_true_objects(project)
    assert not list(store.tmp_dir.glob("pull-*.partial"))


def test_a_file_another_pull_stored_from_this_pulls_partial_file_is_received_again(
        ledger: Ledger, project: Path, tmp_path: Path,
        start: Callable[..., subprocess.Popen[str]]) -> None:
    box, data, digest = _setup(tmp_path, ledger)
    first = start("received-whole", tmp_path, box, "sha-only")
    _wait_for(tmp_path / "paused", first)

    # the second pull finds the whole file in the partial file and stores it ...
    second = start("none", tmp_path, box, "sha-only")
    assert _files(second)["big.bin"]["status"] == "pulled"
    store = _store(project)
    assert store.object_path(digest).read_bytes() == data

    # ... so the first, whose received file is gone from under it, receives it again
    (tmp_path / "other_done").touch()
    done = _files(first)
    assert done["big.bin"]["status"] == "pulled"
    assert done["big.bin"]["digest"] == digest
    assert store.object_path(digest).read_bytes() == data
    _store_holds_only_true_objects(project)
    assert not list(store.tmp_dir.glob("pull-*.partial"))
