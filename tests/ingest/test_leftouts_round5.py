"""Left-outs of the last round, in the ingest layer:

* `check_capsule` read run.json twice, once for the run's id (`named_runs`) and once for its
  own checks: it now reads it once (FIFO-safe) and hands the value to the id check;
* a bare IPv6 source with no port (``ssh://user@[::1]/DIR``, ``user@[::1]:DIR``) pulls from a
  real sshd listening on ::1, through paramiko and through the system OpenSSH client alike
  (the port comes from the SSH config, as for any host named without one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Sshd

LABLEDGER = Path(sys.executable).with_name("labledger")

# Counts the opens of run.json while the capsule is checked: an audit hook sees every open
# (io.open and os.open alike), so nothing in the checker is replaced.
_COUNT_OPENS = """
import sys
from pathlib import Path
from labledger.ingest.capsule_rules import CapsuleRules, check_capsule

opened = []
sys.addaudithook(lambda event, args: opened.append(args[0]) if event == "open"
                 and str(args[0]).endswith("run.json") else None)
check = check_capsule(Path(sys.argv[1]), CapsuleRules(load_checkpoints="never"), run="r2",
                      known=lambda run: run == "r1")
print(len(opened), len(check.problems))
"""


def test_check_capsule_reads_run_json_once(tmp_path: Path) -> None:
    # before: two opens (the id check, then the run.json checks)
    folder = tmp_path / "r1"
    (folder / "test" / "kodak").mkdir(parents=True)
    # run.json in the shape a training script writes next to its outputs (id, seed, git
    # commit, config: the fields of `save_run_log` in the run-log helpers the code search
    # shows; our names and numbers), here with a file inventory (a problem of its own)
    (folder / "run.json").write_text(json.dumps(
        {"run_id": "r1", "seed": 7, "git": "4be1c0d", "params": {"lr": 0.0002},
         "files": ["best.pth"]}))
    done = subprocess.run([sys.executable, "-c", _COUNT_OPENS, str(folder)],
                          capture_output=True, text=True, timeout=60, check=True,
                          env={**os.environ})
    opens, problems = (int(n) for n in done.stdout.split())
    assert opens == 1
    assert problems >= 2  # the id problem (r1, a known run) and the inventory both found


@pytest.mark.parametrize("mode", ["paramiko", "openssh"])
@pytest.mark.parametrize("form", ["ssh://{user}@[::1]{box}", "{user}@[::1]:{box}"])
def test_a_bare_ipv6_source_without_a_port_pulls(sshd6: Sshd, tmp_path: Path, mode: str,
                                                 form: str) -> None:
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    (box / "run.json").write_text('{"run": "r1"}\n')
    (box / "train.csv").write_text("step,loss\n100,0.41\n200,0.37\n")
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    # A Host block for the address, as ~/.ssh/config would hold it: the source names no port
    config = home / "ssh_config"
    config.write_text(f"Host ::1\n    Port {sshd6.port}\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABLEDGER_")}
    env.pop("SSH_AUTH_SOCK", None)
    env.update(LABLEDGER_ROOT=str(project), HOME=str(home), LABLEDGER_SETTLE_S="0",
               LABLEDGER_WRITER="test-writer")
    project.mkdir(exist_ok=True)  # (the autouse fixture made it)
    subprocess.run([str(LABLEDGER), "init", "-q"], env=env, cwd=project, check=True)
    source = form.format(user=sshd6.user, box=box)
    done = subprocess.run(
        [str(LABLEDGER), "--json", "pull", "--run", "r1", "--from", source, "--ssh", mode,
         "--ssh-config", str(config), "--identity", str(sshd6.client_key),
         "--accept-new-host-key", "--instance", "box6"],
        env=env, cwd=project, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["source"] == f"ssh://{sshd6.user}@[::1]:{sshd6.port}{box}"
    assert sorted(f["path"] for f in summary["files"]) == ["run.json", "train.csv"]
    pinned = (project / ".labledger" / "known_hosts").read_text()
    assert pinned.startswith(f"[::1]:{sshd6.port} ssh-ed25519 ")
    # the recorded source is pulled from again by --instance alone
    again = subprocess.run(
        [str(LABLEDGER), "pull", "--run", "r1", "--instance", "box6", "--ssh", mode,
         "--ssh-config", str(config), "--identity", str(sshd6.client_key)],
        env=env, cwd=project, capture_output=True, text=True, timeout=120, check=False)
    assert again.returncode == 0, again.stderr
    assert f"pulling from {sshd6.user}@[::1]:{sshd6.port}:{box}" in again.stderr
