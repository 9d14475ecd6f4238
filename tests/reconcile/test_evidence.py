"""EVIDENCE.json: the seed's v1.0 shape, round-trip, determinism, and every computed disclosure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from labledger.reconcile.claims import declare_claim, retract_claim
from labledger.reconcile.evidence import (
    LOCAL_RUN,
    build_evidence,
    differences,
    render,
    write_evidence,
)

DIFF = "blake3:" + "ab" * 32
SEED_CLAIM_KEYS = {"id", "statement", "evidence", "paper_anchor", "repo_implementation",
                   "disclosure", "aliases"}
SEED_EVIDENCE_KEYS = {"exp_id", "run", "metric", "direction", "value", "split", "n", "variance",
                      "results_json", "figure"}


def js(doc: object) -> bytes:
    return json.dumps(doc).encode()


def ingest(ledger: Ledger, tmp_path: Path, run: str, files: dict[str, bytes]) -> None:
    folder = tmp_path / "src" / run
    for rel, data in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    ingest_run_dir(folder, run=run, ledger=ledger)


def launched(ledger: Ledger, run: str, **facts: Any) -> None:
    ledger.append("run.launched", run=run, command=["python", "train.py"], **facts)


CLEAN = {"git_commit": "0123456789abcdef", "git_dirty": False}


def only(ledger: Ledger) -> dict[str, Any]:
    (claim,) = build_evidence(ledger)["claims"]
    assert isinstance(claim, dict)
    return claim


def codes(claim: dict[str, Any]) -> list[str]:
    return [d["code"] for d in claim["disclosures"]]


@pytest.fixture
def clean_claim(ledger: Ledger, tmp_path: Path) -> Ledger:
    """A claim that needs no disclosure: three seeds with a spread, clean launch, local run."""
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"test/kodak/metrics.json": js(
        {"psnr": 31.52, "psnr_std": 0.11, "seeds": [0, 1, 2], "n": 24})})
    declare_claim(ledger, "C1", run="r1", metric="psnr", split="test", unit="dB",
                  statement="31.52 dB PSNR on Kodak", aliases=["PSNR"],
                  paper_anchor="Table 2", implementation="src/eval.py:42")
    return ledger


# --- shape ----------------------------------------------------------------------------------------
def test_the_seed_shape_with_labledger_bindings(clean_claim: Ledger, project: Path) -> None:
    document = build_evidence(clean_claim)
    assert set(document) == {"project", "authoritative_source", "schema_version", "claims"}
    assert document["project"] == project.name
    assert document["authoritative_source"] == f"labledger ledger ({project.name}/.labledger)"
    assert document["schema_version"] == "1.0"
    (claim,) = document["claims"]
    assert set(claim) >= SEED_CLAIM_KEYS
    (evidence,) = claim["evidence"]
    assert set(evidence) >= SEED_EVIDENCE_KEYS
    assert claim["disclosures"] == []
    assert claim["disclosure"] is None
    assert (claim["id"], claim["statement"], claim["paper_anchor"],
            claim["repo_implementation"], claim["aliases"]) == (
        "C1", "31.52 dB PSNR on Kodak", "Table 2", "src/eval.py:42", ["PSNR"])
    assert {k: evidence[k] for k in SEED_EVIDENCE_KEYS} == {
        "exp_id": "kodak", "run": "r1", "metric": "psnr", "direction": "higher",
        "value": 31.52, "split": "test", "n": 24,
        "variance": {"type": "std", "value": 0.11, "seeds": [0, 1, 2]},
        "results_json": "test/kodak/metrics.json", "figure": None}
    assert evidence["source_digest"] == open_store(clean_claim).put_bytes(js(
        {"psnr": 31.52, "psnr_std": 0.11, "seeds": [0, 1, 2], "n": 24})).digest
    events = {r.id: r for r in clean_claim.records()}
    assert events[claim["event"]].kind == "claim.declared"
    assert events[evidence["source_event"]].kind == "artifact.recorded"
    assert events[evidence["launch"]["event"]].kind == "run.launched"
    assert evidence["pull_verified"] is None
    assert evidence["pull"] == LOCAL_RUN
    assert evidence["unit"] == "dB"


def test_retracted_claims_leave_and_superseded_ones_are_listed(clean_claim: Ledger) -> None:
    first = only(clean_claim)["event"]
    declare_claim(clean_claim, "C1", run="r1", metric="psnr", split="test", unit="dB")
    assert only(clean_claim)["superseded"] == [first]
    retract_claim(clean_claim, "C1", "wrong checkpoint")
    assert build_evidence(clean_claim)["claims"] == []


# --- round-trip and determinism -------------------------------------------------------------------
def test_round_trip(clean_claim: Ledger, project: Path) -> None:
    document = build_evidence(clean_claim)
    text = render(document)
    assert json.loads(text) == document
    assert text.endswith("}\n")
    assert "\n  \"claims\": [\n" in text  # 2-space indent
    target = project / "EVIDENCE.json"
    assert write_evidence(target, text) is True
    assert write_evidence(target, text) is False  # unchanged: not rewritten
    assert differences(target.read_text(encoding="utf-8"), build_evidence(clean_claim)) == []


def test_deterministic_and_independent_of_unrelated_events(clean_claim: Ledger,
                                                           tmp_path: Path) -> None:
    ingest(clean_claim, tmp_path / "b", "r0", {"metrics.json": js({"ssim": 0.9})})
    declare_claim(clean_claim, "A0", run="r0", metric="ssim")  # declared last, sorts first
    text = render(build_evidence(clean_claim))
    assert render(build_evidence(clean_claim)) == text
    assert text == render(json.loads(text))  # keys already sorted
    assert [c["id"] for c in json.loads(text)["claims"]] == ["A0", "C1"]
    clean_claim.append("note", text="unrelated")
    clean_claim.append("run.heartbeat", run="r9")
    assert render(build_evidence(clean_claim)) == text


def test_differences_name_what_changed(clean_claim: Ledger, tmp_path: Path) -> None:
    document = build_evidence(clean_claim)
    text = render(document)
    assert differences(None, document) == ["the file does not exist"]
    assert differences("{", document)[0].startswith("the file is not valid JSON")
    edited = json.loads(text)
    edited["claims"][0]["evidence"][0]["value"] = 31.4
    assert differences(render(edited), document) == [
        "claim C1: evidence[0].value: file has 31.4, the ledger gives 31.52"]
    assert differences(json.dumps(document), document) == [
        "same content, different formatting (regenerate it with `labledger evidence -o FILE`)"]
    ingest(clean_claim, tmp_path / "b", "r2", {"metrics.json": js({"ssim": 0.9})})
    declare_claim(clean_claim, "C2", run="r2", metric="ssim")
    assert "claim C2: missing from the file" in differences(text, build_evidence(clean_claim))
    retract_claim(clean_claim, "C1", "gone")
    assert "claim C1: in the file but not a current claim in the ledger" in differences(
        text, build_evidence(clean_claim))


# --- disclosures, each computed from the ledger ---------------------------------------------------
@pytest.mark.parametrize(("metrics", "code", "message"), [
    ({"psnr": 30.0}, "single-seed", "single run (seed not recorded), no variance reported"),
    ({"psnr": 30.0, "seed": 7}, "single-seed", "single seed (seed 7), no variance reported"),
    ({"psnr": 30.0, "seed": 7, "psnr_std": 0.2}, "single-seed",
     "single seed (seed 7); the reported std 0.2 is not a spread over seeds"),
    ({"psnr": 30.0, "seeds": [0, 1, 2]}, "no-variance", "3 seeds but no variance reported"),
    ({"psnr": 30.0, "seeds": [0, 1], "psnr_sem": 0.1, "n": 0}, "empty-result",
     "n = 0: the result covers no samples"),
])
def test_seed_variance_and_size_disclosures(ledger: Ledger, tmp_path: Path,
                                            metrics: dict[str, Any], code: str,
                                            message: str) -> None:
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"metrics.json": js(metrics)})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    claim = only(ledger)
    assert claim["disclosures"] == [{"code": code, "message": message}]
    assert claim["disclosure"] == message


def test_seeds_from_the_runs_own_run_json(ledger: Ledger, tmp_path: Path) -> None:
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"run.json": js({"seed": 11}),
                                    "test/a/metrics.json": js({"psnr": 30.0})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert only(ledger)["disclosure"] == "single seed (seed 11), no variance reported"
    assert only(ledger)["evidence"][0]["variance"]["seeds"] == [11]


def test_multi_seed_table_needs_no_seed_disclosure(ledger: Ledger, tmp_path: Path) -> None:
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table({"seed": [0, 1, 2], "psnr": [31.0, 31.4, 30.9]}), sink)
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"test/k/results.parquet": sink.getvalue()})
    declare_claim(ledger, "C1", run="r1", metric="mean(psnr)", source="results.parquet")
    claim = only(ledger)
    assert claim["disclosures"] == []
    assert claim["evidence"][0]["variance"]["type"] == "std"
    assert claim["evidence"][0]["variance"]["seeds"] == [0, 1, 2]
    assert claim["evidence"][0]["selector"] == "mean(psnr)"


@pytest.mark.parametrize(("facts", "code", "message"), [
    (None, "no-launch-record", "no run.launched is recorded for run r1: the code and git state "
                               "it ran from are unknown"),
    ({}, "unknown-code-version", "run r1 was launched outside a git repository (or git was "
                                 "unavailable): the code version is unknown"),
    ({"git_commit": "0123456789abcdef0123", "git_dirty": True, "git_diff_digest": DIFF},
     "dirty-git-tree", f"run r1 was launched from a dirty git tree (commit 0123456789ab, diff "
                       f"{DIFF})"),
])
def test_launch_disclosures(ledger: Ledger, tmp_path: Path, facts: dict[str, Any] | None,
                            code: str, message: str) -> None:
    if facts is not None:
        launched(ledger, "r1", **facts)
    ingest(ledger, tmp_path, "r1", {"metrics.json": js({"psnr": 1.0, "seeds": [0, 1],
                                                        "psnr_std": 0.1})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    claim = only(ledger)
    assert claim["disclosures"] == [{"code": code, "message": message}]


def test_a_dirty_launch_is_disclosed_though_a_clean_relaunch_followed(ledger: Ledger,
                                                                      tmp_path: Path) -> None:
    """A run resumed (relaunched) from a clean tree still holds what the dirty code trained:
    the dirty launch is disclosed, naming the clean relaunch (it was hidden before)."""
    launched(ledger, "r1", git_commit="a" * 40, git_dirty=True)
    launched(ledger, "r1", **CLEAN)  # relaunched from a clean tree
    ingest(ledger, tmp_path, "r1", {"metrics.json": js({"psnr": 1.0, "seeds": [0, 1],
                                                        "psnr_std": 0.1})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    claim = only(ledger)
    assert codes(claim) == ["dirty-git-tree"]
    (found,) = [d for d in claim["disclosures"] if d["code"] == "dirty-git-tree"]
    assert "commit aaaaaaaaaaaa" in found["message"]
    assert "relaunched later from a clean tree" in found["message"]


def test_a_clean_launch_after_a_clean_one_discloses_nothing(ledger: Ledger,
                                                            tmp_path: Path) -> None:
    launched(ledger, "r1", **CLEAN)
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"metrics.json": js({"psnr": 1.0, "seeds": [0, 1],
                                                        "psnr_std": 0.1})})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    assert codes(only(ledger)) == []


@pytest.mark.parametrize(("path", "doc", "stated", "expected"), [
    ("test/kodak/metrics.json", {}, "val", [{"code": "split-mismatch", "message":
                                            "stated split 'val' but the result was evaluated "
                                            "on 'test'"}]),
    ("metrics.json", {"split": "validation"}, "test", [{"code": "split-mismatch", "message":
                                                        "stated split 'test' but the result "
                                                        "was evaluated on 'validation'"}]),
    ("metrics.json", {"split": "validation"}, "val", []),
    ("val/metrics.json", {}, "Validation", []),
    ("metrics.json", {}, "test", [{"code": "split-unverified", "message":
                                   "stated split 'test' is not recorded by the result (no "
                                   "split folder in its path, no split key)"}]),
    ("test/k/metrics.json", {}, None, []),
])
def test_split_disclosures(ledger: Ledger, tmp_path: Path, path: str, doc: dict[str, Any],
                           stated: str | None, expected: list[dict[str, str]]) -> None:
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {path: js({"psnr": 1.0, "seeds": [0, 1], "psnr_std": 0.1,
                                              **doc})})
    declare_claim(ledger, "C1", run="r1", metric="psnr", split=stated)
    claim = only(ledger)
    assert claim["disclosures"] == expected
    assert claim["evidence"][0]["split"] == (stated or "test")


GOOD = js({"psnr": 1.0, "seeds": [0, 1], "psnr_std": 0.1})


def test_pull_verified_run(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"test/k/metrics.json": GOOD, "best.pth": b"\x80weights"})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    claim = only(ledger)
    evidence = claim["evidence"][0]
    assert (evidence["pull_verified"], evidence["pull"], evidence["pull_gaps"]) == (
        True, "pull-verified", [])
    assert "not-pull-verified" not in codes(claim)


def test_run_not_pull_verified_is_disclosed(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent()
    ledger.append("run.launched", run="r1", instance="box1", command=["python"], **CLEAN)
    pull_seed.listed({"test/k/metrics.json": GOOD, "best.pth": b"\x80weights"})
    pull_seed.pulled("test/k/metrics.json", GOOD)  # the checkpoint never came off the box
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    claim = only(ledger)
    evidence = claim["evidence"][0]
    assert evidence["pull_verified"] is False
    assert evidence["pull_gaps"] == ["r1: best.pth: never pulled"]
    assert claim["disclosures"] == [{"code": "not-pull-verified", "message":
                                     "run r1 is not pull-verified (1 gap(s), first: r1: "
                                     "best.pth: never pulled)"}]


def test_a_lost_source_object_is_disclosed(ledger: Ledger, tmp_path: Path) -> None:
    launched(ledger, "r1", **CLEAN)
    ingest(ledger, tmp_path, "r1", {"metrics.json": GOOD})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    store = open_store(ledger)
    digest = store.put_bytes(GOOD).digest
    store.object_path(digest).unlink()
    claim = only(ledger)
    assert claim["disclosures"] == [{"code": "source-unavailable", "message":
                                     f"the result object {digest} is not intact in the local "
                                     "store (object missing from the local store)"}]
    assert claim["evidence"][0]["value"] == 1.0  # the recorded value is still the claim's


def test_a_corrupt_object_found_while_judging_is_quarantined_and_recorded(
        ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.full({"test/k/metrics.json": GOOD, "best.pth": b"\x80weights"})
    declare_claim(ledger, "C1", run="r1", metric="psnr")
    pull_seed.corrupt("best.pth")
    claim = only(ledger)
    assert claim["evidence"][0]["pull_verified"] is False
    assert "best.pth: local object is corrupt (quarantined" in claim["evidence"][0]["pull_gaps"][0]
    moved = [r for r in ledger.records() if r.kind == "object.quarantined"]
    assert [json.loads(bytes(r.body))["digest"] for r in moved] == [pull_seed.digests["best.pth"]]
    # judged again: the object is gone now; nothing more is recorded and the document is the
    # same (no timestamped quarantine path in it), so `evidence --check` stays stable
    assert only(ledger) == claim
    assert len([r for r in ledger.records() if r.kind == "object.quarantined"]) == 1
