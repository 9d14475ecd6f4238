"""Every query of docs/sql-cookbook.md runs on a real ledger and returns the columns it shows.

`build_ledger` records a small but complete history through the real `labledger` console script
(rent, `labledger run` of a real training script in a dirty git tree, checkpoints, a failed and
a backfilled run, a running and a stalled run on a box's own writer, a pull from a folder with a
checkpoint that does not load, two claims, an override approval). Each ```sql block of the page
is then run with `labledger sql --format csv`; its columns must equal the header of the ```text
block that follows it, and its row count the rows shown there. The shown output is what these
queries printed on this ledger (regenerate it with `python tests/docs/test_sql_cookbook.py`).
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "sql-cookbook.md"
EXE = Path(sys.executable).with_name("labledger")
PAIR = re.compile(r"^```sql\n(?P<sql>.*?)^```\n+```text\n(?P<out>.*?)^```$", re.S | re.M)

TRAIN = """\
import os
import torch
from labledger.ingest import save_checkpoint
from labledger.ledger import Ledger

ledger = Ledger.open()
run = os.environ["LABLEDGER_RUN"]
os.makedirs("box/r1/ckpt", exist_ok=True)
torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
for step in (100, 200, 300):
    psnr = {100: 29.5, 200: 31.2, 300: 30.8}[step]
    ledger.append("run.heartbeat", run=run, step=step, extra={"val_psnr": psnr})
    save_checkpoint({"model_state_dict": model.state_dict(), "step": step},
                    f"box/r1/ckpt/step-{step}.pth", step=step, metrics={"val_psnr": psnr},
                    ledger=ledger)
"""


def _env(writer: str = "laptop") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABLEDGER_")}
    env.update(LABLEDGER_WRITER=writer, LABLEDGER_ACTOR="me@laptop",
               PATH=f"{EXE.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}")
    return env


def _cli(project: Path, *args: str, writer: str = "laptop",
         expect: int = 0) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(EXE), *args], cwd=project, env=_env(writer), capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == expect, f"labledger {' '.join(args)}: {proc.stderr}"
    return proc


def _git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=me", "-c", "user.email=me@example.com", *args],
                   cwd=project, check=True, capture_output=True, timeout=60)


def _at(days_ago: int, hour: int) -> str:
    """A time on a day relative to today (UTC): fixed days, so per-day counts never shift."""
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return (midnight - timedelta(days=days_ago, hours=-hour)).strftime("%Y-%m-%dT%H:%M:%SZ")


def build_ledger(project: Path) -> None:
    """The cookbook's example ledger (see the page's introduction)."""
    project.mkdir(parents=True, exist_ok=True)
    _cli(project, "init")
    # Three boxes: one hosts the finished runs, one the live ones, one sits idle; one released.
    _cli(project, "rent", "--profile", "runpod", "--instance", "box-a", "--price-per-hour",
         "1.89", "--currency", "USD", "--at", _at(2, 8))
    _cli(project, "rent", "--profile", "vastai", "--instance", "box-b", "--price-per-hour",
         "0.42", "--currency", "USD", "--host", "root@ssh5.vast.ai:22", "--at", _at(1, 20))
    _cli(project, "rent", "--profile", "lambda", "--instance", "box-c", "--price-per-hour",
         "2.49", "--currency", "USD", "--at", _at(1, 18))
    _cli(project, "rent", "--profile", "autodl", "--instance", "box-d", "--price-per-hour",
         "9.8", "--currency", "CNY", "--at", _at(3, 10))
    _cli(project, "release", "--instance", "box-d", "--at", _at(2, 10))

    # r1: a real `labledger run` of a training script, from a git tree with uncommitted changes.
    (project / "train.py").write_text(TRAIN, encoding="utf-8")
    _git(project, "init", "-q")
    _git(project, "add", "train.py")
    _git(project, "commit", "-q", "-m", "train")
    with (project / "train.py").open("a", encoding="utf-8") as fh:
        fh.write("# lr tweak, not committed\n")
    _cli(project, "run", "--run", "r1", "--instance", "box-a", "--", sys.executable, "train.py")
    (project / "box" / "r1" / "train.csv").write_text("step,psnr\n300,30.8\n", encoding="utf-8")
    (project / "metrics.json").write_text('{"val_psnr": 31.2, "n": 128}\n', encoding="utf-8")
    _cli(project, "emit", "note", "--run", "eval-r1", "--set", "text=eval of r1 on val",
         "--attach", "metrics.json")

    # r2: a long run on box-a, backfilled, that crashed after one checkpoint the box then lost.
    _cli(project, "emit", "run.launched", "--run", "r2", "--instance", "box-a", "--at", _at(2, 9),
         "--data", '{"command": ["python", "train.py", "--lr", "1e-3"], "host": "box-a", '
                   '"heartbeat_interval_s": 600}')
    box2 = project / "box" / "r2"
    box2.mkdir(parents=True)
    (box2 / "ckpt-1000.pth").write_bytes(b"not a checkpoint: the write was cut short\n" * 64)
    _cli(project, "checkpoint", "box/r2/ckpt-1000.pth", "--run", "r2", "--instance",
         "box-a", "--step", "1000", "--metric", "val_psnr=27.9")
    _cli(project, "emit", "run.exited", "--run", "r2", "--at", _at(2, 13), "--set", "exit_code=1",
         "--set", "duration_s=14400")

    # r5: "done" in the log, exit 0, but it never saved a checkpoint.
    _cli(project, "run", "--run", "r5", "--instance", "box-a", "--", sys.executable, "-c",
         "print('training done')")

    # r3 running and r4 stalled on box-b, recorded by the box's own writer.
    _cli(project, "emit", "run.launched", "--run", "r3", "--instance", "box-b", "--at", _at(1, 22),
         "--data", '{"command": ["torchrun", "pretrain.py"], "heartbeat_interval_s": 60}',
         writer="box-b")
    _cli(project, "emit", "run.heartbeat", "--run", "r3", "--set", "step=5200", writer="box-b")
    _cli(project, "emit", "run.launched", "--run", "r4", "--instance", "box-b", "--at", _at(1, 21),
         "--data", '{"command": ["python", "finetune.py"], "heartbeat_interval_s": 60}',
         writer="box-b")
    _cli(project, "emit", "run.heartbeat", "--run", "r4", "--at", _at(1, 23), "--set", "step=800",
         writer="box-b")

    # Pull both finished runs off box-a; r2's checkpoint does not load (exit 3, recorded).
    _cli(project, "pull", "--run", "r1", "--instance", "box-a", "--from-dir", "box/r1")
    _cli(project, "pull", "--run", "r2", "--instance", "box-a", "--from-dir", "box/r2",
         expect=3)
    # Two claims: one read from r1's pulled history, one from the attached evaluation.
    _cli(project, "claim", "add", "C1", "--run", "r1", "--metric", "psnr[-1]", "--from",
         "train.csv", "--split", "val", "--unit", "dB")
    _cli(project, "claim", "add", "C2", "--run", "eval-r1", "--metric", "val_psnr", "--split",
         "val", "--unit", "dB", "--statement", "31.2 dB PSNR on the validation split")
    # Someone approved tearing down box-b although its runs were never pulled.
    _cli(project, "teardown", "--instance", "box-b", "--yes", "--override",
         "scratch box: r3 and r4 are smoke tests", expect=0)


def cookbook() -> list[tuple[str, str]]:
    return [(m["sql"].strip(), m["out"]) for m in PAIR.finditer(PAGE.read_text("utf-8"))]


def shown_table(out: str) -> tuple[list[str], int]:
    """Columns and row count of a table as `labledger sql` prints it."""
    lines = out.rstrip("\n").splitlines()
    rule = lines[1]
    starts = [m.start() for m in re.finditer(r"-+", rule)]
    columns = [lines[0][a:b].strip() for a, b in zip(starts, [*starts[1:], None], strict=True)]
    return columns, len(lines) - 2


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = tmp_path_factory.mktemp("cookbook") / "project"
    build_ledger(project)
    return project


def test_the_page_has_at_least_ten_queries() -> None:
    assert len(cookbook()) >= 10
    body = PAGE.read_text("utf-8")
    assert body.count("```sql") == len(cookbook()), "every ```sql block needs a ```text output"


@pytest.mark.slow
@pytest.mark.parametrize(("sql", "out"), cookbook(),
                         ids=[f"q{n}" for n in range(1, len(cookbook()) + 1)])
def test_query_runs_and_returns_what_the_page_shows(example: Path, sql: str, out: str) -> None:
    proc = _cli(example, "sql", "--format", "csv", sql)
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    columns, count = shown_table(out)
    assert rows[0] == columns
    assert len(rows) - 1 == count


if __name__ == "__main__":
    # Regenerate the page's output blocks from a fresh example ledger.
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder) / "project"
        build_ledger(project)
        page = PAGE.read_text("utf-8")

        def _fill(m: re.Match[str]) -> str:
            table = _cli(project, "sql", m["sql"]).stdout
            return f"```sql\n{m['sql']}```\n\n```text\n{table}```"

        PAGE.write_text(PAIR.sub(_fill, page), encoding="utf-8")
