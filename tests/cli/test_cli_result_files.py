"""`labledger claim add` on real result files of ML frameworks, end to end through main().

The fixtures are the ones `tests/reconcile/test_result_files_review.py` copies (and cites) from
public repositories: detectron2's JSON lines ``metrics.json``, an lm-evaluation-harness results
file, a Hugging Face ``trainer_state.json``, a Lightning ``metrics.csv``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.reconcile.test_result_files_review import (
    DETECTRON2,
    LIGHTNING,
    LM_EVAL,
    TRAINER_STATE,
)

LM_EVAL_PATH = "lm_eval/results_2025-01-21T00-40-03.356274.json"


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def run_r1(ledger: Ledger, tmp_path: Path) -> Ledger:
    """Run r1: a detectron2 output folder (its metrics.json is the run's one), an
    lm-evaluation-harness result, a HF checkpoint's trainer_state.json, a Lightning log."""
    folder = tmp_path / "src" / "r1"
    files = {"output/metrics.json": DETECTRON2, LM_EVAL_PATH: LM_EVAL,
             "checkpoint-10350/trainer_state.json": TRAINER_STATE,
             "lightning_logs/version_0/metrics.csv": LIGHTNING,
             "output/broken.jsonl": DETECTRON2[:-40]}
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    ledger.append("run.launched", run="r1", command=["python"], git_commit="abc",
                  git_dirty=False)
    ingest_run_dir(folder, run="r1", ledger=ledger)
    return ledger


def claims(capsys: pytest.CaptureFixture[str]) -> dict[str, dict[str, object]]:
    code, out, _ = call(capsys, "--json", "claim", "list")
    assert code == 0
    return {c["id"]: c for c in json.loads(out)}


def test_detectron2_metrics_json_is_the_default_result(run_r1: Ledger,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "last(bbox/AP)",
                        "--direction", "higher")
    assert code == 0, err
    assert "C1: bbox/AP = 11.62824434 (higher is better) from r1:output/metrics.json" in err
    code, _, err = call(capsys, "claim", "add", "C2", "--run", "r1", "--metric",
                        "bbox/AP50[iteration=19999]", "--direction", "higher")
    assert code == 0, err
    got = claims(capsys)
    assert (got["C1"]["value"], got["C1"]["selector"]) == (11.628244343272662, "last(bbox/AP)")
    assert got["C2"]["value"] == 23.438507581527208


def test_a_row_without_the_value_is_refused_exit_2(run_r1: Ledger,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--json", "claim", "add", "C1", "--run", "r1", "--metric",
                          "bbox/AP[-1]", "--direction", "higher")
    assert (code, out) == (2, "")
    data = json.loads(err.strip().splitlines()[-1])
    assert (data["type"], data["code"], data["error"]) == ("exit_error", 2, "ClaimInputError")
    assert data["where"].startswith("r1:output/metrics.json (blake3:")
    assert "'bbox/AP[-1]' in r1:output/metrics.json (blake3:" in data["message"]
    assert "row 2 (line 3) of column 'bbox/AP' is empty; the column's last value is in row 0 " \
           "(line 1): last(bbox/AP) reads it" in data["message"]
    assert not [r for r in run_r1.records() if r.kind.startswith("claim.")]


def test_lm_eval_harness_claim_needs_no_direction(run_r1: Ledger,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--from", LM_EVAL_PATH,
                        "--metric", "results.mmlu_abstract_algebra.acc,none", "--split", "test")
    assert code == 0, err
    claim = claims(capsys)["C1"]
    assert (claim["metric"], claim["value"], claim["direction"]) == ("acc", 0.34, "higher")
    assert (claim["n"], claim["evaluated_split"]) == (100, "test")
    assert claim["variance"] == {"type": "sem", "value": 0.047609522856952344}


def test_trainer_state_and_lightning_cells(run_r1: Ledger,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--from",
                        "trainer_state.json", "--metric", "log_history.eval_accuracy[epoch=3.0]")
    assert code == 0, err
    code, _, err = call(capsys, "claim", "add", "C2", "--run", "r1", "--from", "metrics.csv",
                        "--metric", "val_acc[epoch=0]")
    assert code == 0, err
    got = claims(capsys)
    assert (got["C1"]["metric"], got["C1"]["value"]) == ("eval_accuracy", 0.48994018488308866)
    assert (got["C2"]["value"], got["C2"]["evaluated_split"]) == (0.831333339214325, "val")


@pytest.mark.parametrize(("args", "problem"), [
    (["--from", "broken.jsonl", "--metric", "last(total_loss)"],
     "is not valid JSON lines: line 3 is not valid JSON"),
    (["--from", "trainer_state.json", "--metric", "log_history[epoch=3.0].eval_accuracy"],
     "the column comes before the row: log_history.eval_accuracy[epoch=3.0]"),
])
def test_bad_input_exits_2_without_a_traceback(run_r1: Ledger, capsys: pytest.CaptureFixture[str],
                                               args: list[str], problem: str) -> None:
    code, out, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--direction", "lower",
                          *args)
    assert (code, out) == (2, "")
    assert problem in err
    assert "Traceback" not in err
    assert not [r for r in run_r1.records() if r.kind.startswith("claim.")]
