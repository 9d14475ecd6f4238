"""The PULL_VERIFIED projection and its marker, on a real ledger with real CAS objects."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import (
    SCHEMA,
    ObjectChecker,
    default_marker,
    invalidate_markers,
    ledger_head,
    load_events,
    open_store,
    verify_run,
    write_marker,
)

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n",
         "test/t1/metrics.json": b'{"psnr": 31.5}'}


def evaluate(ledger: Ledger, run: str = "r1") -> Any:
    return verify_run(run, load_events(ledger), ObjectChecker(open_store(ledger)))


def problems(result: Any) -> dict[str, list[str]]:
    return {a.path: a.problems for a in result.artifacts if a.problems}


def test_a_fully_pulled_run_passes_and_writes_the_marker(ledger: Ledger, pull_seed: Any,
                                                         tmp_path: Path) -> None:
    pull_seed.full(FILES)
    result = evaluate(ledger)
    assert result.ok, result.gaps()
    out = tmp_path / "PULL_VERIFIED.json"
    write_marker(ledger, result, ledger_head(load_events(ledger)), out)
    doc = json.loads(out.read_text())
    assert doc["schema"] == SCHEMA
    assert doc["run_id"] == "r1"
    assert doc["files"] == 3
    assert doc["bytes"] == sum(len(d) for d in FILES.values())
    assert len(doc["manifest_sha256"]) == 64
    assert doc["verified_at_utc"].endswith("Z")
    assert {d["path"]: d["digest"] for d in doc["digests"]} == pull_seed.digests
    assert set(doc["ledger_head"]) == {"test-writer"}


def test_a_corrupted_object_fails_and_invalidates_the_marker(ledger: Ledger, pull_seed: Any,
                                                             tmp_path: Path) -> None:
    pull_seed.full(FILES)
    out = tmp_path / "PULL_VERIFIED.json"
    write_marker(ledger, evaluate(ledger), {}, out)
    pull_seed.corrupt("train.csv")
    result = evaluate(ledger)
    assert not result.ok
    assert "local object is corrupt" in problems(result)["train.csv"][0]
    moved = invalidate_markers(ledger, result)
    assert moved == [out.with_name("PULL_VERIFIED.json.invalid").resolve()]
    assert not out.exists()
    invalid = json.loads(moved[0].read_text())
    assert invalid["invalidated"]["reason"] == "re-verification failed"
    assert any("train.csv" in gap for gap in invalid["invalidated"]["gaps"])


def test_the_marker_is_refused_for_a_failing_run(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.listed(FILES)
    result = evaluate(ledger)
    with pytest.raises(ValueError, match="not pull-verified"):
        write_marker(ledger, result, {}, default_marker(ledger, "r1"))
    assert not default_marker(ledger, "r1").exists()


def test_an_unpulled_file_is_a_gap(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"best.pth": FILES["best.pth"]})
    pull_seed.listed(FILES)  # a later listing shows more files
    result = evaluate(ledger)
    assert problems(result) == {"train.csv": ["never pulled"],
                                "test/t1/metrics.json": ["never pulled"]}


def test_a_file_changed_on_the_box_after_the_pull_is_a_gap(ledger: Ledger,
                                                           pull_seed: Any) -> None:
    pull_seed.full(FILES)
    pull_seed.listed({**FILES, "train.csv": b"step,loss\n1,0.5\n2,0.4\n"})
    result = evaluate(ledger)
    assert problems(result) == {"train.csv": [
        "pulled bytes are from an older listing (remote SHA-256 differs)"]}


def test_a_local_sha256_mismatch_is_a_gap(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.ledger.append("run.launched", run="r1", instance="box1")
    pull_seed.listed({"train.csv": FILES["train.csv"]})
    entry = pull_seed.entry("train.csv", FILES["train.csv"])
    digest = pull_seed.store.put_bytes(b"other").digest
    ledger.append("artifact.pulled", run="r1", instance="box1", path="train.csv", ok=True,
                  remote_sha256=entry["sha256"], local_sha256="0" * 64, digest=digest)
    result = evaluate(ledger)
    assert problems(result) == {"train.csv": ["local SHA-256 differs from the box's"]}
    assert result.artifacts[0].digest_match is False


def test_a_failed_pull_is_a_gap(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.listed({"train.csv": FILES["train.csv"]})
    ledger.append("artifact.pulled", run="r1", instance="box1", path="train.csv", ok=False,
                  error="connection reset")
    assert problems(evaluate(ledger)) == {"train.csv": ["pull failed: connection reset"]}


def test_checkpoints_must_load(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.listed({"best.pth": FILES["best.pth"], "last.pt": b"last"})
    pull_seed.pulled("best.pth", FILES["best.pth"])
    pull_seed.pulled("last.pt", b"last")
    pull_seed.verified("last.pt", ok=True)
    pull_seed.verified("last.pt", ok=False)  # a later failure wins
    assert problems(evaluate(ledger)) == {
        "best.pth": ["checkpoint never verified (loaded safely)"],
        "last.pt": ["checkpoint failed verification"]}


def test_a_roster_entry_missing_on_the_box_is_a_gap(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.listed({"train.csv": FILES["train.csv"]}, missing=["best.pth"],
                     unexpected=["train.csv"])
    pull_seed.pulled("train.csv", FILES["train.csv"])
    result = evaluate(ledger)
    assert problems(result) == {
        "best.pth": ["in the roster but not on the box at the latest listing"]}
    assert result.unexpected == ["train.csv"]


def test_a_checkpoint_the_box_announced_must_be_pulled(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"train.csv": FILES["train.csv"]})
    announced = "blake3:" + "ab" * 32
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                  digest=announced, size=10, stored=False)
    result = evaluate(ledger)
    [found] = problems(result)["/root/run/best.pth"]
    assert found.startswith("announced by the box but not pulled")
    best = next(a for a in result.artifacts if a.path == "/root/run/best.pth")
    assert best.verified is None  # says nothing about bytes this machine does not hold


def test_an_announced_checkpoint_matches_the_pulled_file_by_digest(ledger: Ledger,
                                                                   pull_seed: Any) -> None:
    pull_seed.full(FILES)
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                  digest=pull_seed.digests["best.pth"], size=len(FILES["best.pth"]))
    result = evaluate(ledger)
    assert result.ok, result.gaps()
    best = next(a for a in result.artifacts if a.path == "best.pth")
    assert best.sources == ["listing", "box:checkpoint.saved"]


def test_only_the_latest_save_of_a_path_is_expected(ledger: Ledger, pull_seed: Any) -> None:
    """A loop that re-saves best.pth on each improvement: the overwritten saves are gone from
    the box and must not block the gate forever; the final one must be pulled."""
    for i in range(3):
        ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                      digest="blake3:" + f"{i:02x}" * 32, size=10, step=i, role="best")
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/latest.pth",
                  digest="blake3:" + "ee" * 32, size=10, role="latest")
    pull_seed.full(FILES)
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                  digest=pull_seed.digests["best.pth"], size=len(FILES["best.pth"]), step=9,
                  role="best")
    result = evaluate(ledger)
    assert result.ok, result.gaps()
    assert view_row(ledger, "r1")[1:] == ([], "complete")  # the SQL view follows the same rule


def view_row(ledger: Ledger, run: str) -> tuple[str, list[str], str]:
    con = ledger.query()
    try:
        row = con.execute("SELECT run, missing, verdict FROM pull_verified WHERE run = ?",
                          [run]).fetchone()
    finally:
        con.close()
    assert row is not None
    return row[0], row[1], row[2]


def test_the_latest_save_of_a_path_must_still_be_pulled(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                  digest=pull_seed.digests["best.pth"], size=len(FILES["best.pth"]), step=1)
    ledger.append("checkpoint.saved", run="r1", instance="box1", path="/root/run/best.pth",
                  digest="blake3:" + "cd" * 32, size=10, step=2)
    found = problems(evaluate(ledger))["/root/run/best.pth"]
    assert found[0].startswith("announced by the box but not pulled")
    assert view_row(ledger, "r1")[1:] == (["/root/run/best.pth"], "gaps")


def test_a_run_never_pulled_is_not_verified(ledger: Ledger) -> None:
    ledger.append("run.launched", run="r1", instance="box1")
    result = evaluate(ledger)
    assert not result.ok
    assert result.problems[0].startswith("no pull listing recorded")


def test_a_missing_object_is_a_gap(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"train.csv": FILES["train.csv"]})
    pull_seed.store.object_path(pull_seed.digests["train.csv"]).unlink()
    assert problems(evaluate(ledger)) == {"train.csv": ["object missing from the local store"]}


def test_the_sql_views_agree_with_the_projection(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full(FILES)
    pull_seed.listed({"best.pth": FILES["best.pth"], "x.csv": b"x"}, run="r2",
                     missing=["gone.pth"])
    con = ledger.query()
    try:
        rows = {r[0]: r for r in con.execute(
            "SELECT run, expected, pulled, checkpoints, verified, missing, verdict "
            "FROM pull_verified").fetchall()}
        pulls = con.execute("SELECT count(*) FROM pulls WHERE ok AND digest_match").fetchone()
        checks = con.execute("SELECT path, ok FROM verifications").fetchall()
    finally:
        con.close()
    assert rows["r1"] == ("r1", 3, 3, 1, 1, [], "complete")
    assert rows["r2"] == ("r2", 3, 0, 2, 0, ["best.pth", "gone.pth", "x.csv"], "gaps")
    assert evaluate(ledger, "r1").ok
    assert sorted(a.path for a in evaluate(ledger, "r2").artifacts if a.problems) == \
        rows["r2"][5]
    assert pulls == (3,)
    assert checks == [("best.pth", True)]


def test_refused_and_mismatched_roster_entries_are_gaps(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"train.csv": FILES["train.csv"]})
    pull_seed.listed({"train.csv": FILES["train.csv"]}, refused=["link-out"],
                     roster_mismatched=["config.yaml"])
    result = evaluate(ledger)
    assert result.gaps() == [
        "r1: link-out: refused at the latest listing (not pulled)",
        "r1: config.yaml: the box's copy differs from the roster's hash"]
