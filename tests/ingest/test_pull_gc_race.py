"""A file a pull finds already in the store is not copied; if that object is removed before the
pull records it (by `labledger cas gc`, which may remove an object no event names yet, or by
hand), the pull must not record a verified file whose bytes are gone.

The pull holds gc off only per flush (`Store.holding_off_gc`, milliseconds, never while bytes
cross the link), so between finding the object and recording it gc may run. What makes that
safe is `_Puller._forget_removed`: under gc's lock, before the events are appended, each object
found stored is looked for again; one that is gone is recorded as failed (exit 3), and the next
pull sends it.

The race is played with real processes and files: the test holds the store's ``gc.lock``
exclusively, as a running `cas gc` does while it removes objects, so the real `labledger pull`
(which has found the object and waits at its flush, saying so on stderr) is stopped exactly in
that window; then the object's file is removed, as gc (or a user) removes it, and the lock let
go.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from labledger.ingest.pull import _Puller, pull
from labledger.ingest.transport import LocalTransport
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.cas.test_cas_durability_audit import _check_deep
from tests.cas.test_gc_hold_writers import _flocked

LABLEDGER = str(Path(sys.executable).with_name("labledger"))


def _pulled(project: Path) -> list[dict[str, object]]:
    with Ledger.open(project) as led:
        return [r.body_dict() for r in led.records() if r.kind == "artifact.pulled"]


def test_an_object_removed_between_found_and_recorded_is_recorded_failed_then_sent(
        ledger: Ledger, project: Path, tmp_path: Path) -> None:
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    # (listed in path order: train.csv is found stored before run.json is received; the pull
    # then waits for gc's lock to store run.json, or at its flush, both after finding it)
    (box / "train.csv").write_text("step,loss\n100,0.41\n200,0.37\n")
    (box / "z_run.json").write_text('{"run": "r1", "seed": 7}\n')
    # train.csv's bytes are in the store already, named by no event (a command that stored
    # them and died before its event): the kind of object `cas gc` removes
    store = open_store(ledger)
    digest = store.put_file(box / "train.csv").digest
    stored = store.object_path(digest)
    ledger.close()

    with _flocked(project / ".labledger" / "cas" / "gc.lock"):  # as `cas gc` holds it
        pull = subprocess.Popen([LABLEDGER, "--json", "pull", "--run", "r1", "--from-dir",
                                 str(box), "--instance", "box1"], cwd=project,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert pull.stderr is not None
        # the pull has listed the box, found train.csv stored (found by its BLAKE3: nothing
        # copied), and waits to record it
        waiting = pull.stderr.readline()
        assert "waiting for `labledger cas gc` to finish removing objects" in waiting, (
            waiting + pull.communicate(timeout=60)[1])
        assert stored.exists()
        os.unlink(stored)  # what gc does to an object no event names
    out, err = pull.communicate(timeout=120)

    assert pull.returncode == 3, err
    summary = json.loads(out)
    files = {f["path"]: f for f in summary["files"]}
    assert files["train.csv"]["status"] == "failed"
    # (what the stderr line and the event say: why, and what to do)
    assert files["train.csv"]["error"] == (
        "found in the store (so not transferred), then removed from it (by `labledger cas "
        "gc`, or by hand) before it was recorded; pull again to send it")
    assert files["z_run.json"]["status"] == "pulled"
    recorded = {b["path"]: b for b in _pulled(project)}
    assert recorded["train.csv"]["ok"] is False
    assert "digest" not in recorded["train.csv"]  # no event names the bytes that are gone
    assert recorded["z_run.json"]["ok"] is True
    done = _check_deep(project)  # every object an event names is there and whole
    assert done.returncode == 0, done.stdout + done.stderr
    verify = subprocess.run([LABLEDGER, "verify-pull", "r1"], cwd=project, capture_output=True,
                            text=True, timeout=120, check=False)
    assert verify.returncode != 0  # the run is not pull-verified with train.csv failed

    # the next pull sends it: the object is back, and the run verifies
    again = subprocess.run([LABLEDGER, "--json", "pull", "--run", "r1", "--from-dir", str(box),
                            "--instance", "box1"], cwd=project, capture_output=True, text=True,
                           timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    files = {f["path"]: f for f in json.loads(again.stdout)["files"]}
    assert files["train.csv"]["status"] == "pulled"
    assert files["train.csv"]["digest"] == digest
    assert stored.read_bytes() == (box / "train.csv").read_bytes()
    verify = subprocess.run([LABLEDGER, "verify-pull", "r1"], cwd=project, capture_output=True,
                            text=True, timeout=120, check=False)
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_an_object_removed_between_the_look_and_the_read_is_sent(
        ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The narrower window inside the look itself: the object is there when the pull looks
    for it, gone when it opens it to re-hash. Before, `ObjectNotFoundError` stopped the pull
    (exit 1, "store the content again with `labledger cas put`"), with the box right there."""
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    (box / "train.csv").write_text("step,loss\n100,0.41\n200,0.37\n")
    store = open_store(ledger)
    digest = store.put_file(box / "train.csv").digest  # named by no event, as above
    real = _Puller._stored_sha256

    def removed_first(self: _Puller, digest: str) -> str:
        os.unlink(self.store.object_path(digest))  # gc (or a user) in that very instant
        return real(self, digest)

    monkeypatch.setattr(_Puller, "_stored_sha256", removed_first)
    report = pull(ledger, LocalTransport(box), run="r1", instance="box1")
    assert report.ok
    assert [(f.path, f.status, f.digest) for f in report.files] == [
        ("train.csv", "pulled", digest)]
    assert store.read_bytes(digest) == (box / "train.csv").read_bytes()
