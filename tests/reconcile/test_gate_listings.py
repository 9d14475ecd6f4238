"""Which listings the teardown gate counts: the latest full one (``pull --only`` listings are
partial: they update and add, never shrink the expected set), and only those taken from the
instance being torn down. Real pulls (LocalTransport) into a real ledger and store, and the SQL
view held to the same rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.pull import PullReport, pull
from labledger.ingest.transport import LocalTransport
from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import (
    ObjectChecker,
    evaluate_gate,
    load_events,
    open_store,
    verify_run,
)

FILES = {"train.csv": b"step,loss\n1,0.5\n", "metrics.json": b'{"acc": 0.9}\n',
         "notes.txt": b"lr 1e-3\n"}


@pytest.fixture
def box(tmp_path: Path) -> Path:
    root = tmp_path / "box-r1"
    root.mkdir()
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    return root


def pull_dir(ledger: Ledger, folder: Path, *, instance: str | None = "box1",
             only: tuple[str, ...] = ()) -> PullReport:
    """`labledger pull --run r1 [--instance I] --from-dir FOLDER [--only GLOB...]`."""
    transport = LocalTransport(str(folder))
    try:
        return pull(ledger, transport, run="r1", instance=instance, only=only,
                    merge_ledger=False)
    finally:
        transport.close()


def launched(ledger: Ledger, pull_seed: Any, instance: str = "box1") -> None:
    pull_seed.rent(instance)
    ledger.append("run.launched", run="r1", instance=instance, command=["python", "train.py"])


def unmet(ledger: Ledger, instance: str = "box1") -> list[str]:
    gate = evaluate_gate(ledger, instance)
    assert gate.ok == (not gate.unmet())
    return gate.unmet()


def view(ledger: Ledger) -> tuple[Any, ...]:
    con = ledger.query()
    try:
        row = con.execute("SELECT listing_id, expected, pulled, missing, verdict "
                          "FROM pull_verified WHERE run = 'r1'").fetchone()
    finally:
        con.close()
    assert row is not None
    return tuple(row)


def drop_object(ledger: Ledger, digest: str) -> None:
    obj = open_store(ledger).object_path(digest)
    obj.chmod(0o644)
    obj.unlink()


def digest_of(report: PullReport, path: str) -> str:
    found = next(f.digest for f in report.files if f.path == path)
    assert found is not None
    return found


# --- partial listings (--only) ------------------------------------------------------------------
def test_a_pull_with_only_is_recorded_as_partial(ledger: Ledger, box: Path) -> None:
    pull_dir(ledger, box, only=("*.csv", "notes.*"))
    [listed] = [r.body_dict() for r in ledger.records() if r.kind == "pull.listed"]
    assert listed["only"] == ["*.csv", "notes.*"]
    assert sorted(e["path"] for e in listed["entries"]) == ["notes.txt", "train.csv"]
    pull_dir(ledger, box)
    full = [r.body_dict() for r in ledger.records() if r.kind == "pull.listed"][-1]
    assert "only" not in full  # a full listing's body is what it always was


def test_only_partial_listings_never_pass(ledger: Ledger, pull_seed: Any, box: Path) -> None:
    launched(ledger, pull_seed)
    assert pull_dir(ledger, box, only=("train.csv",)).ok
    assert unmet(ledger) == [
        "r1: no full listing of the box: run `labledger pull --run r1 --instance box1 ...` "
        "without --only (each listing recorded was restricted by --only train.csv)"]
    listing_id, *_, verdict = view(ledger)
    assert listing_id is None
    assert verdict == "gaps"
    pull_dir(ledger, box)
    assert unmet(ledger) == []
    assert view(ledger)[1:] == (3, 3, [], "complete")


def test_a_partial_pull_does_not_excuse_the_other_lost_objects(ledger: Ledger, pull_seed: Any,
                                                               box: Path) -> None:
    """The reviewer's case: two objects lost, the gate's own next step for one of them is run,
    and the other must still refuse."""
    launched(ledger, pull_seed)
    report = pull_dir(ledger, box)
    assert unmet(ledger) == []
    for path in ("train.csv", "metrics.json"):
        drop_object(ledger, digest_of(report, path))
    gate = evaluate_gate(ledger, "box1")
    nexts = {a.path: a.next_step for r in gate.runs for a in r.artifacts if not a.ok}
    assert nexts["train.csv"] == "labledger pull --run r1 --instance box1 --only train.csv"
    assert pull_dir(ledger, box, only=("train.csv",)).ok  # exactly what the gate said to run
    assert unmet(ledger) == ["r1: metrics.json: object missing from the local store"]
    pull_dir(ledger, box, only=("metrics.json",))
    assert unmet(ledger) == []


def test_a_partial_listing_updates_and_adds_but_never_removes(ledger: Ledger, pull_seed: Any,
                                                              box: Path) -> None:
    launched(ledger, pull_seed)
    pull_dir(ledger, box)
    (box / "train.csv").write_bytes(b"step,loss\n1,0.5\n2,0.4\n")  # still training
    (box / "notes.txt").unlink()  # gone from the box: its pulled copy is still expected
    (box / "late.csv").write_bytes(b"written after the full pull\n")
    assert pull_dir(ledger, box, only=("train.csv", "notes.txt")).ok
    # train.csv is expected with the digests the partial listing showed (and they were pulled)
    result = verify_run("r1", load_events(ledger), ObjectChecker(open_store(ledger)),
                        instance="box1")
    train = next(a for a in result.artifacts if a.path == "train.csv")
    assert train.ok
    assert train.size == len(b"step,loss\n1,0.5\n2,0.4\n")
    assert sorted(a.path for a in result.artifacts) == ["metrics.json", "notes.txt",
                                                        "train.csv"]
    assert unmet(ledger) == []
    # A partial listing that shows a new file adds it, unpulled until pulled.
    ledger.append("pull.listed", run="r1", instance="box1", source=f"dir:{box}", only=["*.csv"],
                  entries=[pull_seed.entry("late.csv", b"written after the full pull\n")])
    assert unmet(ledger) == ["r1: late.csv: never pulled"]
    assert view(ledger)[1:] == (4, 3, ["late.csv"], "gaps")
    pull_dir(ledger, box, only=("late.csv",))
    assert unmet(ledger) == []
    assert view(ledger)[1:] == (4, 4, [], "complete")


def test_a_later_full_listing_defines_the_set_again(ledger: Ledger, pull_seed: Any,
                                                    box: Path) -> None:
    launched(ledger, pull_seed)
    pull_dir(ledger, box, only=("*.csv",))
    pull_dir(ledger, box)
    (box / "notes.txt").unlink()
    pull_dir(ledger, box)  # the box no longer holds it: nothing to lose there
    assert unmet(ledger) == []
    assert view(ledger)[1:] == (2, 2, [], "complete")


def test_a_partial_roster_miss_counts_only_inside_its_globs(ledger: Ledger,
                                                            pull_seed: Any) -> None:
    """`pull --only '*.csv' --roster R` never looked for R's other files: not missing."""
    pull_seed.full({"train.csv": FILES["train.csv"], "best.pth": b"\x80weights"})
    pull_seed.listed({"train.csv": FILES["train.csv"]}, only=["*.csv"],
                     missing=["best.pth", "eval.csv"], unexpected=[])
    result = verify_run("r1", load_events(ledger), ObjectChecker(open_store(ledger)))
    assert {a.path: a.problems for a in result.artifacts if a.problems} == {
        "eval.csv": ["in the roster but not on the box at the latest listing"]}
    assert view(ledger)[1:] == (3, 2, ["eval.csv"], "gaps")


# --- listings taken elsewhere -------------------------------------------------------------------
def test_a_pull_from_another_folder_is_not_the_box(ledger: Ledger, pull_seed: Any, box: Path,
                                                   tmp_path: Path) -> None:
    launched(ledger, pull_seed, "vast-9")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("unrelated\n")
    assert pull_dir(ledger, other, instance=None).ok
    assert unmet(ledger, "vast-9") == [
        f"r1: the latest listing of r1 was taken from dir:{other} (no instance), not from "
        "instance vast-9: pull with --instance vast-9 (`labledger pull --run r1 --instance "
        "vast-9 ...`)"]
    pull_dir(ledger, box, instance="vast-8")  # another box's listing counts no more
    assert "was taken from dir:" in unmet(ledger, "vast-9")[0]
    assert "(instance vast-8), not from instance vast-9" in unmet(ledger, "vast-9")[0]
    pull_dir(ledger, box, instance="vast-9")
    assert unmet(ledger, "vast-9") == []
    pull_dir(ledger, other, instance=None)  # a later copy elsewhere says nothing of the box
    assert unmet(ledger, "vast-9") == []


def test_a_partial_listing_from_the_box_and_a_full_one_from_elsewhere(
        ledger: Ledger, pull_seed: Any, box: Path, tmp_path: Path) -> None:
    launched(ledger, pull_seed)
    pull_dir(ledger, box, instance=None)
    pull_dir(ledger, box, only=("train.csv",))
    assert unmet(ledger) == [
        "r1: no full listing of the box: run `labledger pull --run r1 --instance box1 ...` "
        "without --only (each listing recorded was restricted by --only train.csv)",
        f"r1: the latest full listing of r1 was taken from dir:{box} (no instance), not from "
        "instance box1: pull with --instance box1 (`labledger pull --run r1 --instance box1 "
        "...`)"]
