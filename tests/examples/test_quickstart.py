"""examples/quickstart/quickstart.sh end to end (the README's main job): locally and over SSH.

The script checks every step's exit status itself; these tests check the outcomes independently:
the order of the gate's verdicts in the transcript, the ledger left behind (re-judged and
re-checked after the box is gone), the SQL tables, and the paper's numbers.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "examples" / "quickstart" / "quickstart.sh"
LABLEDGER = Path(sys.executable).with_name("labledger")

pytestmark = pytest.mark.slow


@dataclass
class Step:
    side: str
    command: str
    output: str
    exit: int


def parse(transcript: str) -> list[Step]:
    """The transcript's `laptop$ ...` / `box$ ...` steps with their output and exit status."""
    steps: list[Step] = []
    for line in transcript.splitlines():
        prompt = re.match(r"(laptop|box)\$ (.*)", line)
        if prompt:
            steps.append(Step(prompt[1], prompt[2], "", 0))
        elif steps:
            code = re.fullmatch(r"\[exit (\d+)\]", line)
            if code:
                steps[-1].exit = int(code[1])
            else:
                steps[-1].output += line + "\n"
    return steps


def run_quickstart(tmp_path: Path, *args: str, env: dict[str, str] | None = None
                   ) -> tuple[str, Path, list[Step]]:
    work = tmp_path / "quickstart"
    full_env = {**os.environ, "PATH": f"{LABLEDGER.parent}{os.pathsep}{os.environ['PATH']}",
                "QUICKSTART_WORK": str(work), **(env or {})}
    # LABLEDGER_ROOT/WRITER/ACTOR stay set (the autouse fixture): the script must ignore them.
    done = subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True,
                          env=full_env, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "every step exited as expected" in done.stdout
    return done.stdout, work / "laptop", parse(done.stdout)


def cli(laptop: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LABLEDGER), "--root", str(laptop), *args], capture_output=True,
                          text=True, timeout=120, check=False)


def records(laptop: Path) -> list[dict[str, Any]]:
    with Ledger.open(laptop) as ledger:
        return [{"kind": r.kind, "run": r.run, "instance": r.instance, "writer": r.writer,
                 **r.body_dict()} for r in ledger.records()]


def table_rows(step: Step) -> list[list[str]]:
    """A `labledger sql` table's rows (after the header and its rule), cells split on 2+ blanks."""
    lines = step.output.splitlines()
    rule = next(i for i, line in enumerate(lines) if line.startswith("---"))
    return [re.split(r"\s{2,}", line.strip()) for line in lines[rule + 1:] if line.strip()]


def sql_step(steps: list[Step], view: str) -> Step:
    return next(s for s in steps if s.command.startswith("labledger sql")
                and f"from {view}" in s.command + s.output)


def check_session(transcript: str, laptop: Path, steps: list[Step], project: Path) -> None:
    # The gate refuses before the pulls are verified and passes after; so does teardown.
    gates = [(i, s.exit) for i, s in enumerate(steps)
             if s.command == "labledger gate teardown --instance box1"]
    destroys = [s.exit for s in steps
                if s.command == "labledger teardown --instance box1 --yes -- rm -rf ../box"]
    verified = [i for i, s in enumerate(steps) if s.command.startswith("labledger verify-pull")]
    assert [code for _, code in gates] == [3, 0]
    assert destroys == [3, 0]
    assert len(verified) == 2
    assert gates[0][0] < verified[0]
    assert gates[1][0] > verified[-1]
    assert "mlp-s1  active/mlp-s1/best.pth" in steps[gates[0][0]].output  # announced by the box
    assert not (laptop.parent / "box").exists()  # the box really was destroyed

    # Judged again now, with the box gone: the local store alone still holds the evidence.
    gate = cli(laptop, "gate", "teardown", "--instance", "box1")
    assert gate.returncode == 0, gate.stderr
    check = cli(laptop, "check", "--deep")
    assert check.returncode == 0, check.stderr
    assert check.stderr.rstrip().endswith(": ok")

    events = records(laptop)
    kinds = [e["kind"] for e in events]
    assert [kinds.count(k) for k in ("teardown.approved", "teardown.requested",
                                     "teardown.confirmed", "instance.released")] == [1, 1, 1, 1]
    requested = next(e for e in events if e["kind"] == "teardown.requested")
    assert requested["acknowledged"] is True
    assert requested["command"] == ["rm", "-rf", "../box"]
    sealed = {e["run"]: e["writer"] for e in events if e["kind"] == "capsule.sealed"}
    assert sealed == {"mlp-s0": "box1", "mlp-s1": "box1"}  # merged from the box's own ledger
    saved = [(e["run"], e["role"], e["instance"]) for e in events
             if e["kind"] == "checkpoint.saved"]
    assert sorted(saved) == [("mlp-s0", "best", "box1"), ("mlp-s0", "last", "box1"),
                             ("mlp-s1", "best", "box1"), ("mlp-s1", "last", "box1")]
    writers = {e["writer"] for e in events}
    assert "box1" in writers
    assert "test-writer" not in writers  # the caller's LABLEDGER_* were not used
    assert not (project / ".labledger").exists()

    # The SQL tables of part 5, as printed.
    assert table_rows(sql_step(steps, "runs")) == [
        ["mlp-s0", "sealed", "0", "2", "2", "box1"], ["mlp-s1", "sealed", "0", "2", "2", "box1"]]
    assert [row[-1] for row in table_rows(sql_step(steps, "pull_verified"))] == [
        "complete", "complete"]
    assert len(table_rows(sql_step(steps, "checkpoints"))) == 4
    by_kind = {row[0]: row[1:] for row in table_rows(sql_step(steps, "events"))}
    assert by_kind["capsule.sealed"] == ["2", "0"]  # on the box, none on the laptop
    assert by_kind["artifact.pulled"] == ["0", "14"]
    assert "box1      local     released" in transcript

    # The paper says what the pulled metrics say.
    paper = (laptop / "paper.md").read_text()
    assert "{{" not in paper
    for seed in (0, 1):
        metrics = json.loads((laptop / f"results/mlp-s{seed}/metrics.json").read_text())
        assert metrics["n"] == 200
        assert metrics["accuracy"] > 0.9
        # C1 was edited by hand in step 4
        shown = "96.5" if seed == 0 else f"{metrics['accuracy'] * 100:.1f}"
        assert f"<!-- claim:C{seed + 1} -->{shown}% with" in paper

    # Claims bound to the pulled bytes, EVIDENCE.json, reconcile passing then failing.
    declared = {e["claim"]: e for e in events if e["kind"] == "claim.declared"}
    assert sorted(declared) == ["C1", "C2", "C3"]
    s0 = json.loads((laptop / "results/mlp-s0/metrics.json").read_text())
    assert declared["C1"]["value"] == s0["accuracy"]  # read from the bytes, not typed
    assert declared["C3"]["value"] == s0["loss"]
    pulled = {(e["run"], e["path"]): e["digest"] for e in events
              if e["kind"] == "artifact.pulled" and e["ok"]}
    assert declared["C1"]["source_digest"] == pulled[("mlp-s0", "test/heldout/metrics.json")]
    evidence = json.loads((laptop / "EVIDENCE.json").read_text())
    assert [c["id"] for c in evidence["claims"]] == ["C1", "C2", "C3"]
    assert evidence["claims"][0]["evidence"][0]["pull_verified"] is True
    reconciles = [s for s in steps if s.command.startswith("labledger reconcile")]
    assert [s.exit for s in reconciles] == [0, 3]
    assert re.search(r"paper\.md:\d+:\d+: C1 says 96\.5%?, evidence says 0\.955",
                     reconciles[1].output), reconciles[1].output
    assert [s.exit for s in steps if s.command.startswith("labledger evidence")] == [0, 0]


def test_quickstart_local(tmp_path: Path, project: Path) -> None:
    transcript, laptop, steps = run_quickstart(tmp_path)
    check_session(transcript, laptop, steps, project)
    listed = {e["source"] for e in records(laptop) if e["kind"] == "pull.listed"}
    box = laptop.parent / "box"  # normalised, each run's capsule folder
    assert listed == {f"dir:{box}/export/mlp-s0", f"dir:{box}/export/mlp-s1"}


def test_quickstart_over_ssh(tmp_path: Path, project: Path, sshd: Any) -> None:
    host_key = sshd.folder / "host_ed25519.pub"
    transcript, laptop, steps = run_quickstart(tmp_path, "--ssh", env={
        "QUICKSTART_SSH_TARGET": f"{sshd.user}@127.0.0.1:{sshd.port}",
        "QUICKSTART_SSH_IDENTITY": str(sshd.client_key),
        "QUICKSTART_SSH_HOST_KEY": str(host_key)})
    check_session(transcript, laptop, steps, project)
    fingerprint = subprocess.run(["ssh-keygen", "-lf", str(host_key)], capture_output=True,
                                 text=True, check=True).stdout.split()[1]
    pulls = [s for s in steps if s.command.startswith("labledger pull")]
    assert [s.exit for s in pulls] == [1, 0, 0]  # unknown host key refused, then pinned
    assert f"host key {fingerprint} is unknown" in pulls[0].output
    assert "--accept-new-host-key" in pulls[1].command
    assert (laptop / ".labledger" / "known_hosts").read_text() == sshd.host_key_line
    listed = {e["source"] for e in records(laptop) if e["kind"] == "pull.listed"}
    box = f"ssh://{sshd.user}@127.0.0.1:{sshd.port}{laptop.parent}/box"
    assert listed == {f"{box}/export/mlp-s0", f"{box}/export/mlp-s1"}
