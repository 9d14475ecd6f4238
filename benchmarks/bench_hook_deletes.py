"""The agent hook on a line with a computed delete, in a project holding a large data tree.

The hook runs before every shell command an agent runs, so its cost is paid on every tool call.
A delete whose paths are computed when it runs (``find ... | xargs rm -f``) makes the hook look
for words of the line that may feed it a protected folder (a recorded capsule, a folder above
one); a glob among those words (``data/*/*.jpg``) is what it matches now. Before, every glob
word was expanded in full (``glob.glob``, every match listed) once per protected folder and per
computed delete; now each word is read once, and a glob is matched against each protected
folder's own path, only what it may match inside that folder looked for on disk.

The project (deterministic): a ledger with one rented box whose run was never pulled, 31
sealed capsules (``capsules/c00`` ... ``c30``, one file each), and ``data/`` holding
``--files`` JPEG-named files in ``--dirs`` folders (100,000 in 100 by default). Commands, each
fed to the real ``labledger hook`` process as a Claude Code payload on stdin (what the agent
waits for):

* ``look + delete``: ``ls data/*/*.jpg | wc -l; find /tmp/scratch -name '*.tmp' | xargs rm -f``
  (the review's reproduction: the glob is another pipeline's, a count printed to the terminal);
* ``glob delete``: ``ls */*/*.jpg | xargs rm -f`` (the glob feeds the delete: it is judged);
* ``rm glob``: ``rm -rf data/*/*.jpg`` (a literal delete target that is a glob: before, it was
  expanded in full and every match checked against every protected folder; now it is matched
  part by part against each protected folder's path);
* ``find feed``: ``find . -name '*.pyc' | xargs rm -f`` (a find above the capsules feeding the
  delete: what each protected folder holds is matched against its ``-name`` test);
* ``many computed``: a generated line of 1,000 deletes whose paths are computed
  (``rm -rf "$D0"; rm -rf "$D1"; ...``): each was fed its own text (the whole line but
  itself), read once per delete, so judging it grew with the square of its length (48 s for
  1,000; 168 s for 2,000, past an agent's hook timeout, which lets the command run); now the
  deletes of one line share one feed, read once;
* ``ls -la``: a command that deletes nothing (the floor: starting Python and the CLI).

Contenders: this tree's hook and, with ``--against REV``, the hook at git revision REV
(``git archive``, run from a package folder of links as the tests' ``PYTHONPATH`` does),
interleaved (order rotated every round); medians of wall time, and each one's verdict (exit 0
allowed, 2 blocked) so a changed verdict is visible.

    .venv/bin/python benchmarks/bench_hook_deletes.py --against HEAD~1   # 100,000 files, 5 rounds
    .venv/bin/python benchmarks/bench_hook_deletes.py --quick            # 20,000 files, 3 rounds

Exit status 0 (the verdicts are printed, not judged).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path

from _bench import REPO, add_tmp_base, make_tmp

COMMANDS = {
    "look + delete": "ls data/*/*.jpg | wc -l; find /tmp/scratch -name '*.tmp' | xargs rm -f",
    "glob delete": "ls */*/*.jpg | xargs rm -f",
    "rm glob": "rm -rf data/*/*.jpg",
    "find feed": "find . -name '*.pyc' | xargs rm -f",
    "many computed": "; ".join(f'rm -rf "$D{i}"' for i in range(1000)),
    "ls -la": "ls -la",
}
CAPSULES = 31
# the package folders of labledger: (import name, folder in the repository)
PACKAGES = ("ledger", "cas", "ingest", "reconcile", "profiles")


def build_project(project: Path, files: int, dirs: int) -> None:
    """The ledger (one unverified box, the capsules sealed) and the data tree."""
    sys.path.insert(0, str(package_folder(REPO, project.parent / "pkg-build")))
    from labledger.ledger.ledger import Ledger

    with Ledger.init(project) as ledger:
        ledger.append("instance.rented", instance="pod-abc123", profile="runpod",
                      host="root@203.0.113.7:22022", price_per_hour=1.2, currency="USD")
        ledger.append("run.launched", run="r0", instance="pod-abc123", command=["python"])
        for n in range(CAPSULES):
            folder = project / "capsules" / f"c{n:02d}"
            folder.mkdir(parents=True)
            (folder / "metrics.json").write_text('{"acc": 0.9}\n')
            ledger.append("capsule.sealed", run="r0", path=f"capsules/c{n:02d}",
                          digest="blake3:" + f"{n:02x}" * 32, files=1, bytes=13)
    per_dir = -(-files // dirs)
    made = 0
    for d in range(dirs):
        folder = project / "data" / f"shard_{d:03d}"
        folder.mkdir(parents=True)
        for k in range(min(per_dir, files - made)):
            (folder / f"img_{k:05d}.jpg").write_bytes(b"\xff\xd8\xff")
        made += min(per_dir, files - made)


def package_folder(source: Path, folder: Path) -> Path:
    """A folder holding ``labledger/<package>`` links into ``source`` (a repository tree)."""
    top = folder / "labledger"
    top.mkdir(parents=True, exist_ok=True)
    for name in PACKAGES:
        link = top / name
        if not link.exists():
            link.symlink_to(source / name, target_is_directory=True)
    return folder


def archive(rev: str, into: Path) -> Path:
    """The repository at ``rev``, unpacked into ``into``."""
    data = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True,
                          check=True).stdout
    into.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def run_hook(package: Path, project: Path, command: str) -> tuple[float, int]:
    """(seconds, exit status) of one ``labledger hook`` process judging ``command``."""
    payload = json.dumps({"tool_name": "Bash", "tool_input": {"command": command},
                          "cwd": str(project)})
    env = {**os.environ, "PYTHONPATH": str(package)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "import sys; from labledger.ledger._main "
                           "import main; sys.exit(main())", "hook"], input=payload, text=True,
                          capture_output=True, env=env, cwd=project, check=False)
    return time.perf_counter() - start, done.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=100_000, help="files in data/")
    parser.add_argument("--dirs", type=int, default=100, help="folders they are spread over")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--against", metavar="REV", help="also time the hook at this git "
                        "revision (e.g. HEAD~1)")
    parser.add_argument("--quick", action="store_true", help="20,000 files, 3 rounds")
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.files, args.rounds = 20_000, 3
    tmp = make_tmp(args.tmp_base)
    try:
        project = tmp / "project"
        start = time.perf_counter()
        build_project(project, args.files, args.dirs)
        print(f"project: {args.files:,} files in {args.dirs} folders, {CAPSULES} capsules "
              f"({time.perf_counter() - start:.1f} s to build)")
        contenders = {"this tree": package_folder(REPO, tmp / "pkg-new")}
        if args.against:
            old = archive(args.against, tmp / "old")
            contenders[args.against] = package_folder(old, tmp / "pkg-old")
        times: dict[tuple[str, str], list[float]] = {}
        verdicts: dict[tuple[str, str], set[int]] = {}
        names = list(contenders)
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            for label, command in COMMANDS.items():
                for name in order:
                    seconds, status = run_hook(contenders[name], project, command)
                    times.setdefault((name, label), []).append(seconds)
                    verdicts.setdefault((name, label), set()).add(status)
        print(f"\nmedian wall time of `labledger hook` over {args.rounds} rounds "
              f"(load average {os.getloadavg()[0]:.1f}):")
        print(f"{'command':<16}" + "".join(f"{name:>22}" for name in names))
        for label in COMMANDS:
            cells = []
            for name in names:
                verdict = "/".join({0: "allowed", 2: "blocked"}.get(s, f"exit {s}")
                                   for s in sorted(verdicts[(name, label)]))
                cells.append(f"{statistics.median(times[(name, label)]):>9.3f} s {verdict:>9}")
            print(f"{label:<16}" + "".join(f"{c:>22}" for c in cells))
        for label, command in COMMANDS.items():
            print(f"  {label}: {command if len(command) < 100 else command[:96] + ' ...'}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
