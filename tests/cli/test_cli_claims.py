"""`labledger claim add|list|retract` and `labledger evidence`, end to end through main()."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ingest.run_dir import ingest_run_dir
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]
METRICS = {"psnr": 31.52, "ssim": 0.912, "n": 24, "throughput": 812.0, "split": "test"}


@pytest.fixture(autouse=True)
def _in_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)


@pytest.fixture
def run_r1(ledger: Ledger, tmp_path: Path) -> Ledger:
    """Run r1: a clean launch and an ingested folder with test/kodak/metrics.json."""
    folder = tmp_path / "src" / "r1"
    (folder / "test" / "kodak").mkdir(parents=True)
    (folder / "test" / "kodak" / "metrics.json").write_text(json.dumps(METRICS))
    (folder / "train.csv").write_text("epoch,loss,psnr\n1,0.5,29.1\n2,0.4,30.2\n")
    ledger.append("run.launched", run="r1", command=["python"], git_commit="abc",
                  git_dirty=False)
    ingest_run_dir(folder, run="r1", ledger=ledger)
    return ledger


def kinds(ledger: Ledger) -> list[str]:
    return [r.kind for r in ledger.records() if r.kind.startswith("claim.")]


# --- claim add ------------------------------------------------------------------------------------
def test_add_prints_the_event_id(run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr",
                          "--unit", "dB", "--statement", "PSNR on Kodak")
    assert code == 0, err
    (record,) = [r for r in run_r1.records() if r.kind == "claim.declared"]
    assert out.strip() == record.id
    assert "C1: psnr = 31.52 dB (higher is better) from r1:test/kodak/metrics.json" in err
    assert "declared" in err


def test_add_json(run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call(capsys, "--json", "claim", "add", "C2", "--run", "r1", "--metric",
                        "last(psnr)", "--from", "train.csv", "--alias", "PSNR", "--alias",
                        "psnr_db", "--paper-anchor", "Table 2", "--implementation",
                        "src/eval.py:42")
    assert code == 0
    data = json.loads(out)
    assert data["recorded"] is True
    assert data["superseded"] is None
    assert data["source_route"] == "artifact.recorded"
    claim = data["claim"]
    assert (claim["id"], claim["value"], claim["selector"], claim["source_path"], claim["n"]) == (
        "C2", 30.2, "last(psnr)", "train.csv", None)
    assert claim["aliases"] == ["PSNR", "psnr_db"]
    assert claim["implementation"] == "src/eval.py:42"


def test_add_then_supersede_then_unchanged(run_r1: Ledger,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, first, _ = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr")
    assert code == 0
    code, second, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "ssim")
    assert code == 0
    assert f"supersedes {first.strip()[:12]}" in err
    code, third, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "ssim")
    assert code == 0
    assert third == second
    assert "unchanged" in err
    assert kinds(run_r1) == ["claim.declared", "claim.declared"]


def test_add_warns_when_direction_contradicts_the_registry(
        run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr",
                        "--direction", "lower")
    assert code == 0
    assert "warning: psnr is usually higher-is-better" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--metric", "psnrr"], "'psnrr' in r1:test/kodak/metrics.json (blake3:"),
    (["--metric", "psnrr"], "): no such metric; it has: psnr, ssim, n, throughput; nothing was "
                            "written"),
    (["--metric", "throughput"], "metric 'throughput' is not in the registry of known "
                                 "directions; say which way is better with --direction higher "
                                 "or --direction lower"),
    (["--metric", "psnr", "--from", "nope.json"], "run 'r1': no stored file 'nope.json'; its "
                                                  "files: test/kodak/metrics.json, train.csv"),
    (["--metric", "psnr", "--from", "train.csv"], "'psnr': r1:train.csv (blake3:"),
    (["--metric", "mean(psnr)", "--from", "train.csv", "--implementation", "x"],
     "--implementation 'x' is not FILE:LINE"),
    (["--metric", "psnr", "--direction", "sideways"], "Invalid value for '--direction'"),
])
def test_add_bad_input_exits_2_and_writes_nothing(
        run_r1: Ledger, capsys: pytest.CaptureFixture[str], snapshot: Snapshot, project: Path,
        args: list[str], message: str) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, "claim", "add", "C1", "--run", "r1", *args)
    assert code == 2
    assert out == ""
    assert message in err
    assert "Traceback" not in err
    assert snapshot(project) == before


def test_add_unknown_run_and_bad_id(run_r1: Ledger, capsys: pytest.CaptureFixture[str],
                                    snapshot: Snapshot, project: Path) -> None:
    before = snapshot(project)
    code, _, err = call(capsys, "claim", "add", "C1", "--run", "r9", "--metric", "psnr")
    assert code == 2
    assert "labledger: error: run 'r9': no event of this run is in the ledger; known runs: r1" \
        in err
    code, _, err = call(capsys, "claim", "add", "C 1", "--run", "r1", "--metric", "psnr")
    assert code == 2
    assert "claim id 'C 1' is not valid" in err
    assert snapshot(project) == before


def test_add_error_in_json_mode(run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = call(capsys, "--json", "claim", "add", "C1", "--run", "r1", "--metric",
                          "psnrr")
    assert code == 2
    assert out == ""
    data = json.loads(err.strip().splitlines()[-1])
    assert data["type"] == "exit_error"
    assert data["error"] == "MetricNotFoundError"
    assert data["available"] == ["psnr", "ssim", "n", "throughput"]
    assert data["where"].startswith("r1:test/kodak/metrics.json (blake3:")


# --- claim list / retract -------------------------------------------------------------------------
def test_list_and_retract(run_r1: Ledger, capsys: pytest.CaptureFixture[str],
                          snapshot: Snapshot, project: Path) -> None:
    assert call(capsys, "claim", "list")[0] == 0
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr", "--split", "test")
    call(capsys, "claim", "add", "C2", "--run", "r1", "--metric", "ssim")
    code, out, _ = call(capsys, "claim", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["ID", "RUN", "METRIC", "VALUE", "BETTER", "SPLIT", "SOURCE",
                                "STATEMENT"]
    assert lines[2].split() == ["C1", "r1", "psnr", "31.52", "higher", "test",
                                "test/kodak/metrics.json:psnr"]
    code, out, err = call(capsys, "claim", "retract", "C1", "--reason", "wrong checkpoint")
    assert code == 0
    assert "retracted C1" in err
    code, out, _ = call(capsys, "--json", "claim", "list")
    assert [c["id"] for c in json.loads(out)] == ["C2"]
    code, out, _ = call(capsys, "claim", "list", "--all", "--json")
    assert [(c["id"], c["status"], c["retraction"]) for c in json.loads(out)] == [
        ("C1", "retracted", "wrong checkpoint"), ("C2", "current", None)]
    before = snapshot(project)
    code, _, err = call(capsys, "claim", "retract", "C1", "--reason", "again")
    assert code == 2
    assert "no current claim 'C1' (current claims: C2); nothing was written" in err
    code, _, err = call(capsys, "claim", "retract", "C2")
    assert code == 2
    assert "Missing option '--reason'" in err
    assert snapshot(project) == before


def test_retract_json(run_r1: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr")
    code, out, _ = call(capsys, "claim", "retract", "C1", "--reason", "x", "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["kind"], data["run"], data["body"]) == (
        "claim.retracted", "r1", {"claim": "C1", "reason": "x"})


# --- evidence -------------------------------------------------------------------------------------
def test_evidence_write_then_check(run_r1: Ledger, project: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr", "--split", "val")
    code, out, _ = call(capsys, "evidence")
    assert code == 0
    document = json.loads(out)
    (claim,) = document["claims"]
    assert claim["disclosure"] == ("single run (seed not recorded), no variance reported; "
                                   "stated split 'val' but the result was evaluated on 'test'")
    code, _, err = call(capsys, "evidence", "-o", "EVIDENCE.json")
    assert code == 0
    assert "EVIDENCE.json: 1 claim" in err
    assert (project / "EVIDENCE.json").read_text(encoding="utf-8") == out
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 0, err
    run_r1.append("note", text="an unrelated event does not make the check fail")
    assert call(capsys, "evidence", "--check")[0] == 0
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "ssim", "--split", "test")
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 3
    assert "EVIDENCE.json: claim C1: evidence[0].value: file has 31.52, the ledger gives 0.912" \
        in err
    assert "regenerate it with `labledger evidence -o" in err
    code, out, _ = call(capsys, "--json", "evidence", "--check")
    assert code == 3
    data = json.loads(out)
    assert data["ok"] is False
    assert data["claims"] == 1
    assert 'claim C1: evidence[0].metric: file has "psnr", the ledger gives "ssim"' in \
        data["differences"]


def test_evidence_check_missing_file_and_json_output(run_r1: Ledger, project: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "evidence", "--check", "-o", "paper/EVIDENCE.json")
    assert code == 3
    assert "paper/EVIDENCE.json: the file does not exist" in err
    code, out, _ = call(capsys, "--json", "evidence", "-o", "paper/EVIDENCE.json")
    assert code == 0
    assert json.loads(out) == {"path": "paper/EVIDENCE.json", "written": True, "claims": 0}
    code, out, _ = call(capsys, "--json", "evidence", "-o", "paper/EVIDENCE.json")
    assert json.loads(out)["written"] is False
    assert call(capsys, "evidence", "--check", "-o", "paper/EVIDENCE.json")[0] == 0


def test_evidence_bad_files_are_clear_errors(run_r1: Ledger, project: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A committed EVIDENCE.json that is not UTF-8 is a difference (exit 3); an output that
    cannot be written is exit 1 with the reason, never a traceback."""
    (project / "EVIDENCE.json").write_bytes(b"\xff\xfe not text")
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 3
    assert "differs from the ledger's projection" in err
    code, _, err = call(capsys, "evidence", "-o", "/proc/version")
    assert code == 1
    assert "cannot write /proc/version" in err
    assert "Traceback" not in err


def test_commands_are_light_and_real(run_r1: Ledger, project: Path) -> None:
    """The real console script: `claim add` from a JSON file and `evidence` never import duckdb
    or pyarrow (a pre-commit hook runs them)."""
    probe = ("import atexit, sys\n"
             "atexit.register(lambda: sys.stderr.write('\\nLOADED=' + ','.join(sorted("
             "{m.split('.')[0] for m in sys.modules} & {'duckdb', 'pyarrow'})) + '\\n'))\n"
             "from labledger.ledger.cli import main\n"
             "main(sys.argv[1:])\n")
    for args in (["claim", "add", "C1", "--run", "r1", "--metric", "psnr"], ["claim", "list"],
                 ["evidence", "-o", "EVIDENCE.json"], ["evidence", "--check"]):
        proc = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True,
                              text=True, cwd=project, timeout=120, check=False)
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr.splitlines()[-1] == "LOADED=", args


def test_evidence_locations(run_r1: Ledger, project: Path, snapshot: Snapshot,
                            capsys: pytest.CaptureFixture[str],
                            monkeypatch: pytest.MonkeyPatch) -> None:
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr", "--alias", "Ours")
    call(capsys, "claim", "add", "C2", "--run", "r1", "--metric", "ssim")
    before = snapshot(project / ".labledger")
    code, out, err = call(capsys, "evidence", "--locations")
    assert code == 2
    assert out == ""
    assert "evidence --locations reads the [reconcile] documents" in err
    assert snapshot(project / ".labledger") == before
    config = project / ".labledger" / "config.toml"
    config.write_text(config.read_text() + '\n[reconcile]\ndocuments = ["paper/*.md"]\n')
    (project / "paper").mkdir()
    (project / "paper" / "a.md").write_text("Ours reaches a PSNR of 31.7 dB.\n\n"
                                            "| Method | PSNR |\n|---|---|\n| Ours | 31.52 |\n")
    sub = project / "paper"
    monkeypatch.chdir(sub)  # paths are the project's, wherever the command runs
    code, out, err = call(capsys, "evidence", "--locations")
    assert code == 0, err
    document = json.loads(out)
    assert document["locations_from"] == ["paper/*.md"]
    c1, c2 = document["claims"]
    assert c1["locations"] == [
        {"path": "paper/a.md", "where": None, "line": 1, "col": 24, "shown": "31.7",
         "via": "anchor", "status": "drift"},
        {"path": "paper/a.md", "where": None, "line": 5, "col": 10, "shown": "31.52",
         "via": "table", "status": "match"}]
    assert c2["locations"] == []  # a claim stated nowhere says so
    monkeypatch.chdir(project)
    assert call(capsys, "evidence", "--locations", "-o", "EVIDENCE.json")[0] == 0
    assert call(capsys, "evidence", "--check")[0] == 0  # checked with locations: it has them
    (project / "paper" / "a.md").write_text("\n" + (project / "paper" / "a.md").read_text())
    code, _, err = call(capsys, "evidence", "--check")
    assert code == 3
    assert "claim C1: locations: file has" in err
    plain = json.loads(call(capsys, "evidence")[1])
    assert "locations_from" not in plain
    assert "locations" not in plain["claims"][0]


# --- evidence: bad input is named, never a traceback ---------------------------------------------
@pytest.mark.parametrize("args", [("-o", ""), ("--check", "-o", ""), ("-o", " "),
                                  ("-o", "paper/"), ("--check", "-o", "paper/")])
def test_evidence_empty_or_folder_output_is_a_usage_error(
        run_r1: Ledger, project: Path, snapshot: Snapshot, capsys: pytest.CaptureFixture[str],
        args: tuple[str, ...]) -> None:
    """`-o ''` crashed (`PosixPath('.') has an empty name`) and `--check -o ''` silently
    checked EVIDENCE.json; `-o paper/` wrote a file named paper: each is a bad -o (exit 2)."""
    before = snapshot(project / ".labledger")
    code, out, err = call(capsys, "evidence", *args)
    assert code == 2, err
    assert out == ""
    assert "'-o' / '--output'" in err
    assert ("an empty path" in err) if args[-1].strip() == "" else ("names a folder" in err)
    assert "Traceback" not in err
    assert not (project / "EVIDENCE.json").exists()
    assert not (project / "paper").exists()
    assert snapshot(project / ".labledger") == before


def test_evidence_output_below_a_file_names_the_file(run_r1: Ledger, project: Path,
                                                      snapshot: Snapshot,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`-o blk/x.json` with blk a regular file said "File exists" (and `--check` crashed with
    NotADirectoryError): it says blk is not a folder (exit 2). A missing folder is created."""
    (project / "blk").write_text("a file\n")
    before = snapshot(project / ".labledger")
    for args in (("-o", "blk/x.json"), ("--check", "-o", "blk/x.json"),
                 ("-o", "blk/sub/x.json")):
        code, out, err = call(capsys, "evidence", *args)
        assert code == 2, (args, err)
        assert out == ""
        assert "blk is not a folder" in err
        assert "File exists" not in err
        assert "Traceback" not in err
    assert (project / "blk").read_text() == "a file\n"
    assert snapshot(project / ".labledger") == before
    code, _, err = call(capsys, "evidence", "-o", "nodir/deeper/EV.json")
    assert code == 0, err
    assert json.loads((project / "nodir" / "deeper" / "EV.json").read_text())["claims"] == []
    code, out, _ = call(capsys, "evidence", "--help")
    assert code == 0
    assert "missing folders are created" in " ".join(out.split())


def test_evidence_check_unreadable_file_is_exit_1(run_r1: Ledger, project: Path,
                                                  capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "EVIDENCE.json").write_text("{}\n")
    real = Path.read_bytes

    def refuse(self: Path) -> bytes:
        if self.name == "EVIDENCE.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    code, out, err = call(capsys, "evidence", "--check")
    assert code == 1
    assert out == ""
    assert "cannot read EVIDENCE.json: Permission denied" in err
    assert "Traceback" not in err


def test_evidence_check_of_a_locations_file_without_documents_says_why(
        run_r1: Ledger, project: Path, snapshot: Snapshot,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A file written with --locations, checked after the [reconcile] documents were removed,
    blamed `evidence --locations` (not given): it names the file's locations_from instead."""
    call(capsys, "claim", "add", "C1", "--run", "r1", "--metric", "psnr", "--alias", "Ours")
    config = project / ".labledger" / "config.toml"
    plain = config.read_text()
    config.write_text(plain + '\n[reconcile]\ndocuments = ["paper/*.md"]\n')
    (project / "paper").mkdir()
    (project / "paper" / "a.md").write_text("Ours reaches a PSNR of 31.52 dB.\n")
    assert call(capsys, "evidence", "--locations", "-o", "EVIDENCE.json")[0] == 0
    config.write_text(plain)
    before = snapshot(project / ".labledger")
    written = (project / "EVIDENCE.json").read_bytes()
    for args in (("evidence", "--check"), ("--json", "evidence", "--check")):
        code, out, err = call(capsys, *args)
        assert code == 2, err
        assert out == ""
        assert "EVIDENCE.json was written with locations" in err
        assert "it has locations_from" in err
        assert "[reconcile] documents" in err
        assert "evidence --locations reads" not in err
        assert "Traceback" not in err
    assert json.loads(err.strip().splitlines()[-1])["error"] == "DocumentsConfigError"
    assert (project / "EVIDENCE.json").read_bytes() == written
    assert snapshot(project / ".labledger") == before
    # Asked for explicitly, the original message stands.
    code, _, err = call(capsys, "evidence", "--check", "--locations")
    assert code == 2
    assert "evidence --locations reads the [reconcile] documents" in err
