"""`labledger pull` over loopback SSH vs `scp -r` and `rsync -a` of the same tree, in one run.

Starts a private sshd on 127.0.0.1 (as the tests do), builds a capsule (a few large
checkpoint-sized files, real torch checkpoints, many small files, empty directories), warms the
page cache, then times, each into a fresh destination:

- ``scp -r`` (OpenSSH client),
- ``rsync -a`` over ssh,
- ``labledger pull``: listing, remote SHA-256 in one batched command, the bytes over one OpenSSH
  stream into the CAS with hashing while receiving, every object made durable (fsync; scp and
  rsync leave theirs in the page cache), per-file events, and the checkpoint loads (torch).

Before each timed run the disk is synced, so no contender pays for another's writeback. CPU
seconds count every process involved (this one, its children, and the sshd side).

Goal: pull >= 0.8 of scp's throughput. Usage::

    .venv/bin/python benchmarks/bench_pull.py            # 1 GiB
    .venv/bin/python benchmarks/bench_pull.py --quick    # 128 MiB
"""

from __future__ import annotations

import argparse
import getpass
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path


def start_sshd(folder: Path) -> tuple[subprocess.Popen[bytes], int, Path]:
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f",
                        str(folder / name)], check=True)
    shutil.copy(folder / "client.pub", folder / "authorized_keys")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (folder / "sshd_config").write_text("\n".join([
        f"Port {port}", "ListenAddress 127.0.0.1", f"HostKey {folder / 'host'}",
        f"PidFile {folder / 'sshd.pid'}", f"AuthorizedKeysFile {folder / 'authorized_keys'}",
        "StrictModes no", "UsePAM no", "PermitRootLogin yes", "PasswordAuthentication no",
        "Subsystem sftp internal-sftp", "LogLevel ERROR", ""]))
    proc = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(folder / "sshd_config")])
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.05)
    kind, b64 = (folder / "host.pub").read_text().split()[:2]
    (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} {kind} {b64}\n")
    return proc, port, folder / "client"


def make_capsule(root: Path, total: int) -> int:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch
    (root / "ckpt").mkdir(parents=True)
    (root / "vis" / "empty").mkdir(parents=True)
    (root / "run.json").write_text('{"run": "bench"}\n')
    torch.manual_seed(0)
    torch.save({"model_state_dict": torch.nn.Linear(256, 256).state_dict()},
               root / "ckpt" / "best.pth")
    torch.save({"model_state_dict": torch.nn.Linear(256, 256).state_dict(), "step": 1},
               root / "ckpt" / "last.pth")
    small = total // 32
    for i in range(200):
        (root / "vis" / f"s{i:03d}.png").write_bytes(os.urandom(small // 200))
    big = (total - small) // 4
    for i in range(4):
        with open(root / f"shard{i}.bin.dat", "wb") as fh:
            left = big
            while left:
                n = min(left, 16 << 20)
                fh.write(os.urandom(n))
                left -= n
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    for p in root.rglob("*"):  # warm the page cache for every contender alike
        if p.is_file():
            p.read_bytes()
    return size


def _proc_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of its reaped children (utime, stime, cutime, cstime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def _own_cpu() -> float:
    import resource

    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn: object, sshd_pid: int) -> tuple[float, float]:
    """Wall seconds, and CPU seconds of everything involved: this process, its children (scp,
    ssh, the checkpoint loader) and the sshd side (session processes reaped by the listener)."""
    c0, s0 = _own_cpu(), _proc_cpu(sshd_pid)
    t0 = time.perf_counter()
    fn()  # type: ignore[operator]
    wall = time.perf_counter() - t0
    time.sleep(0.2)  # let the listener reap the session process
    return wall, (_own_cpu() - c0) + (_proc_cpu(sshd_pid) - s0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="128 MiB instead of 1 GiB")
    ap.add_argument("--size-mib", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3, help="rounds (medians are reported)")
    args = ap.parse_args()
    total = (args.size_mib or (128 if args.quick else 1024)) << 20
    work = Path(tempfile.mkdtemp(prefix="bench-pull-", dir=os.environ.get("BENCH_TMP")))
    proc, port, key = start_sshd(work)
    try:
        box = work / "box"
        size = make_capsule(box, total)
        user = getpass.getuser()
        ssh_opts = ["-o", f"UserKnownHostsFile={work / 'known_hosts'}",
                    "-o", "StrictHostKeyChecking=yes", "-o", "BatchMode=yes", "-i", str(key)]

        def scp() -> None:
            subprocess.run(["scp", "-q", "-r", "-P", str(port), *ssh_opts,
                            f"{user}@127.0.0.1:{box}", str(work / "scp")], check=True)

        def rsync() -> None:
            ssh = " ".join(["ssh", "-p", str(port), *ssh_opts])
            subprocess.run(["rsync", "-a", "-e", ssh, f"{user}@127.0.0.1:{box}/",
                            str(work / "rsync")], check=True)

        def pull() -> None:
            from labledger.ingest.pull import pull as do_pull
            from labledger.ingest.transport_ssh import SshTransport, parse_target
            from labledger.ledger.ledger import Ledger

            os.environ.setdefault("LABLEDGER_WRITER", "bench")
            with Ledger.init(work / "project") as ledger:
                t = SshTransport(parse_target(f"{user}@127.0.0.1:{port}:{box}"),
                                 known_hosts=work / "known_hosts", identity=key,
                                 ssh_config=work / "none", use_agent=False)
                try:
                    report = do_pull(ledger, t, run="bench")
                finally:
                    t.close()
                if not report.ok:
                    sys.exit(f"pull failed: {report.to_json()}")

        pull()  # warm-up: imports and first-use costs are not the transfer's
        shutil.rmtree(work / "project", ignore_errors=True)
        runs: dict[str, list[tuple[float, float]]] = {}
        for _ in range(args.repeat):
            for name, fn, dest in (("scp -r", scp, "scp"), ("rsync -a", rsync, "rsync"),
                                   ("labledger pull", pull, "project")):
                if name == "rsync -a" and not shutil.which("rsync"):
                    continue
                shutil.rmtree(work / dest, ignore_errors=True)
                os.sync()  # every contender starts on a quiet disk (scp and rsync never sync)
                runs.setdefault(name, []).append(timed(fn, proc.pid))
        wall = {n: statistics.median(w for w, _ in r) for n, r in runs.items()}
        cpu = {n: statistics.median(c for _, c in r) for n, r in runs.items()}
        mb = size / 1e6
        print(f"tree: {size / 2**20:.0f} MiB, {sum(1 for _ in box.rglob('*'))} entries, "
              f"{os.cpu_count()} CPUs, median of {args.repeat}")
        print(f"{'tool':<16}{'seconds':>9}{'MB/s':>9}{'vs scp':>8}{'CPU s':>8}")
        for name, secs in wall.items():
            print(f"{name:<16}{secs:>9.2f}{mb / secs:>9.0f}{wall['scp -r'] / secs:>8.2f}"
                  f"{cpu[name]:>8.2f}")
    finally:
        proc.terminate()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
