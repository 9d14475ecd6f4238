"""`labledger pull` and `verify-pull` as a researcher uses them on a rented box, broken on purpose.

From a review that pulled real checkpoints over a real sshd and then broke things: odd names,
a folder written as scp writes it, a box that answers no SSH, Ctrl-C while the box hashes or
the bytes flow, a pull killed at the worst moment, a full disk, a file still growing, and the
commands `verify-pull` and the gate print as the next step.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.pull import pull
from labledger.ingest.transport import LocalTransport, RemoteHash, Transport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.artifacts import open_store
from labledger.ledger.ledger import Ledger
from tests.conftest import cli_call as call
from tests.conftest import permissions_enforced
from tests.ingest.conftest import Forwarding

pytestmark = pytest.mark.usefixtures("pull_project")  # conftest: the project, its own HOME

LABLEDGER = Path(sys.executable).with_name("labledger")


def ssh_args(sshd: Any, folder: Path | str) -> list[str]:
    target = folder if isinstance(folder, str) else sshd.target(folder)
    return ["--from", target, "--identity", str(sshd.client_key), "--accept-new-host-key"]


def records(project: Path, kind: str | None = None) -> list[Any]:
    return [r for r in Ledger.open(project).records() if kind is None or r.kind == kind]


def ssh_transport(sshd: Any, root: Path, tmp_path: Path, **kw: Any) -> SshTransport:
    return SshTransport(parse_target(sshd.target(root)), known_hosts=tmp_path / "kh",
                        accept_new=True, identity=sshd.client_key,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_kh", use_agent=False,
                        backoff=0.05, **kw)


# -- names and folders over SSH ----------------------------------------------------------------
def resumed_on_box2_then_box1_pulled_last(capsys: pytest.CaptureFixture[str], box: Path,
                                          tmp_path: Path) -> None:
    """Run r1 preempted on box1 and finished on box2 (one more file); box2 is pulled, then the
    stale box1 again, last."""
    box2 = tmp_path / "box2"
    shutil.copytree(box, box2)
    (box2 / "last.txt").write_text("resumed and finished\n")
    for instance, folder in (("box1", box), ("box2", box2), ("box1", box)):
        code, _, err = call(capsys, "pull", "--run", "r1", "--instance", instance,
                            "--from-dir", str(folder))
        assert code == 0, err


def test_names_starting_with_a_star_or_a_space_are_pulled_over_ssh(
        capsys: pytest.CaptureFixture[str], box: Path, sshd: Any) -> None:
    """The box's hash lines are "<hex> <bytes>  <name>": a name is taken as it is. A leading
    "*" was stripped (sha256sum's binary-mode marker), so one file named "*notes.txt" made
    every SSH pull of the folder fail with "the box did not hash 1 file(s)"."""
    names = ["*notes.txt", " lead.txt", "two  spaces.txt", "E 2 x", "-n", "$(id).txt"]
    for i, name in enumerate(names):
        (box / name).write_text(f"{i}\n")
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", *ssh_args(sshd, box))
    assert code == 0, err
    files = {f["path"]: f for f in json.loads(out)["files"]}
    for i, name in enumerate(names):
        assert files[name]["status"] == "pulled"
        assert open_store_bytes(files[name]["digest"]) == f"{i}\n".encode()


def open_store_bytes(digest: str) -> bytes:
    with Ledger.open() as ledger:
        return open_store(ledger).read_bytes(digest)


def test_a_folder_written_with_a_tilde_is_under_the_login_home(
        capsys: pytest.CaptureFixture[str], box: Path, sshd: Any, project: Path) -> None:
    """`--from box:~/runs/r1`, as scp and rsync take it: SFTP and remote commands start in the
    login's home, so "~/x" is "x" (a quoted "~" was a folder named "~": "No such file")."""
    import pwd

    home = Path(pwd.getpwnam(sshd.user).pw_dir)
    relative = os.path.relpath(box, home)
    target = f"{sshd.user}@127.0.0.1:{sshd.port}:~/{relative}"
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--no-verify",
                          *ssh_args(sshd, target))
    assert code == 0, err
    summary = json.loads(out)
    assert summary["source"].endswith(f"/~/{relative}")
    assert {f["path"] for f in summary["files"]} == {"run.json", "ckpt/best.pth"}


@pytest.mark.parametrize("where", ["missing", "a file"])
def test_a_folder_that_is_not_on_the_box_is_bad_input(
        capsys: pytest.CaptureFixture[str], box: Path, sshd: Any, project: Path,
        where: str) -> None:
    """As for `--from-dir`: exit 2, nothing recorded, and a message that says so (not "check
    the connection and run `labledger pull` again", which can never help)."""
    folder = box / "nope" if where == "missing" else box / "run.json"
    code, _, err = call(capsys, "pull", "--run", "r1", *ssh_args(sshd, folder))
    assert code == 2, err
    want = "does not exist on the box" if where == "missing" else "is not a folder on the box"
    assert f"{folder} {want}" in err
    assert "check the connection" not in err.lower()
    assert records(project) == []


def test_a_host_that_answers_no_ssh_is_one_clear_line(box: Path, project: Path) -> None:
    """A port that accepts and hangs up (a firewall, a box still booting, the wrong port):
    exit 1 with labledger's one line. paramiko logged a traceback for each connection attempt
    ("Exception (client): Error reading SSH protocol banner") on stderr before it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    port = server.getsockname()[1]
    stop = threading.Event()

    def hang_up() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conn.close()

    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    try:
        done = subprocess.run([str(LABLEDGER), "pull", "--run", "r1", "--from",
                               f"root@127.0.0.1:{port}:/x"], cwd=project, capture_output=True,
                              text=True, timeout=120, check=False)
    finally:
        stop.set()
        thread.join(5)
        server.close()
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "Exception (client)" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"labledger: error: ssh://root@127.0.0.1:{port}/x: cannot connect")
    assert records(project) == []


# -- Ctrl-C -------------------------------------------------------------------------------------
class SlowBox(Forwarding):
    """A box whose hash never finishes (hundreds of GiB on a slow disk) until released."""

    def __init__(self, inner: Transport) -> None:
        super().__init__(inner)
        self.release = threading.Event()
        self.hashing = threading.Event()

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        self.hashing.set()
        self.release.wait(60)
        return self.inner.hash_files(rels)


@pytest.mark.parametrize("over", ["ssh", "dir"])
def test_ctrl_c_while_the_box_hashes_stops_at_once(ledger: Ledger, box: Path, tmp_path: Path,
                                                   sshd: Any, over: str) -> None:
    """Ctrl-C stops the pull now, not when the box finishes hashing (it waited for the hash
    thread: 18 s for 8 GB here, minutes on a real run), and records nothing."""
    inner: Transport = (ssh_transport(sshd, box, tmp_path) if over == "ssh"
                        else LocalTransport(box))
    slow = SlowBox(inner)
    tmp = open_store(ledger).tmp_dir

    def interrupt() -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not list(tmp.glob("pull-*.partial")):
            time.sleep(0.01)  # the early files stream in while the box hashes
        time.sleep(0.2)
        os.kill(os.getpid(), signal.SIGINT)  # a real signal, as Ctrl-C sends

    threading.Thread(target=interrupt, daemon=True).start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            pull(ledger, slow, run="r1", verify_checkpoints=False)
        assert time.monotonic() - started < 10
    finally:
        slow.release.set()
        slow.close()
    assert [r.kind for r in ledger.records()] == []
    # Streamed while the box hashed, kept for the next pull; which is whole and recorded.
    assert list(open_store(ledger).tmp_dir.glob("pull-*.partial"))
    again = LocalTransport(box) if over == "dir" else ssh_transport(sshd, box, tmp_path)
    try:
        report = pull(ledger, again, run="r1", verify_checkpoints=False)
    finally:
        again.close()  # an open SSH connection keeps a thread: later forks would be refused
    assert report.ok, report.to_json()


class SessionProbe(Forwarding):
    """Records whether the OpenSSH stream's ``ssh`` runs in a session of its own."""

    own_session: bool | None = None

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        assert isinstance(self.inner, SshTransport)
        for rel, offset, chunks in self.inner.read_many(items):
            stream = self.inner.stream
            if stream is not None and self.own_session is None:
                self.own_session = os.getsid(stream.proc.pid) != os.getsid(0)
            yield rel, offset, chunks


def test_the_ssh_stream_runs_in_its_own_session(ledger: Ledger, box: Path, tmp_path: Path,
                                                sshd: Any) -> None:
    """A Ctrl-C at the terminal goes to the whole foreground process group. With ``ssh`` in it,
    the stream died under the read first; the pull then fell back to SFTP mid-interrupt and
    ended in a traceback (paramiko "Garbage packet received", exit 1) instead of exit 130."""
    probe = SessionProbe(ssh_transport(sshd, box, tmp_path, bulk="openssh"))
    try:
        assert pull(ledger, probe, run="r1", verify_checkpoints=False).ok
    finally:
        probe.close()
    assert probe.own_session is True


def _hang_report(proc: subprocess.Popen[str]) -> str:
    """What a hung child was doing: the processes around it, then (SIGABRT, with
    PYTHONFAULTHANDLER=1 in its environment) every thread's stack, or why there is none."""
    listing = subprocess.run(["ps", "--ppid", "2", "-p", "2", "--deselect",  # no kernel threads
                              "-o", "pid,ppid,pgid,stat,wchan:20,args"],
                             capture_output=True, text=True, check=False).stdout
    running = proc.poll() is None
    if running:
        os.kill(proc.pid, signal.SIGABRT)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired as exc:
        # what was read before the pipes stalled (the stack dump among it) is kept
        got = exc.stderr.decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else \
            (exc.stderr or "")
        ended = "after SIGABRT" if running else "after it ended"
        err = f"{got}\n(its pipes stayed open {ended}: a process it started holds them)"
    return f"running at the timeout: {running}\nprocesses:\n{listing}\nstderr:\n{err}"


def test_ctrl_c_at_the_terminal_mid_transfer_then_pull_again(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, sshd: Any) -> None:
    """A real `labledger pull` over SSH, SIGINT to its process group (what Ctrl-C does) while a
    checkpoint streams: exit 130, no traceback, no event claims the file; the next pull resumes
    the partial file at its offset and verify-pull passes."""
    with open(box / "big.dat", "wb") as fh:
        for _ in range(96):
            fh.write(os.urandom(1 << 20))
    call(capsys, "pull", "--run", "r0", "--no-verify", *ssh_args(sshd, box / "ckpt"))  # pins
    tmp = project / ".labledger" / "cas" / "tmp"
    proc = subprocess.Popen([str(LABLEDGER), "pull", "--run", "r1", "--instance", "box1",
                             "--no-verify", "--identity", str(sshd.client_key), "--from",
                             sshd.target(box)], cwd=project, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONFAULTHANDLER": "1"})
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            sizes = [p.stat().st_size for p in tmp.glob("pull-*.partial") if p.exists()]
            if any(8 << 20 < s < 90 << 20 for s in sizes):
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the pull ended before it could be interrupted"
        os.killpg(proc.pid, signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the interrupted pull did not finish within 60 s:\n{_hang_report(proc)}")
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):  # (left open, a failure here fails a later test)
            if pipe is not None:
                pipe.close()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert "pull interrupted" in err
    claimed = [r.body_dict()["path"] for r in records(project, "artifact.pulled")
               if r.run == "r1" and r.body_dict()["ok"]]
    assert "big.dat" not in claimed
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--instance", "box1",
                          "--no-verify", *ssh_args(sshd, box))  # the same command again
    assert code == 0, err
    big = next(f for f in json.loads(out)["files"] if f["path"] == "big.dat")
    assert big["status"] == "pulled"
    assert big["resumed_from"] > 0
    code, out, err = call(capsys, "pull", "--run", "r1", "--instance", "box1",  # loads them
                          "--identity", str(sshd.client_key))
    assert code == 0, err
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 0, err


# -- a pull killed at the worst moment; a full disk ---------------------------------------------
def test_a_pull_killed_after_a_file_was_staged_does_not_block_the_next(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed (SIGKILL, OOM, power) between a file's staging and the store's commit, a pull
    leaves that partial file whole and read-only (staging makes it so). The next pull, as a
    user who is not root, stopped on "[Errno 13] Permission denied" for every later try."""
    from labledger.cas.batch import Batch

    def killed(self: Batch) -> None:
        raise SystemExit(137)  # the process dies here

    monkeypatch.setattr(Batch, "commit", killed)
    code, _, _ = call(capsys, "pull", "--run", "r1", "--from-dir", str(box), "--no-verify")
    assert code == 137
    monkeypatch.undo()
    assert [r.kind for r in records(project)] == ["pull.listed"]
    left = list((project / ".labledger" / "cas" / "tmp").glob("pull-*.partial"))
    assert left
    assert all(not p.stat().st_mode & 0o222 for p in left)
    done = subprocess.run(permissions_enforced([str(LABLEDGER), "--json", "pull", "--run", "r1",
                                         "--from-dir", str(box), "--no-verify"]),
                          cwd=project, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["bytes_transferred"] == 0  # whole already: nothing crossed again
    assert all(f["status"] == "pulled" for f in summary["files"])


@pytest.mark.parametrize("fault", [KeyboardInterrupt, OSError])
def test_a_store_commit_that_fails_records_no_pull_of_its_objects(
        ledger: Ledger, box: Path, monkeypatch: pytest.MonkeyPatch,
        fault: type[BaseException]) -> None:
    """Ctrl-C (or an I/O error) while the received files are made durable and moved into the
    store: `pull`'s ``finally`` flushed again and recorded ``artifact.pulled`` (ok, with a
    digest) for objects that never reached the store."""
    from labledger.cas.batch import Batch

    def fails(self: Batch) -> None:
        raise fault

    monkeypatch.setattr(Batch, "commit", fails)
    with pytest.raises(fault):
        pull(ledger, LocalTransport(box), run="r1", verify_checkpoints=False)
    monkeypatch.undo()
    store = open_store(ledger)
    claimed = [r.body_dict() for r in ledger.records() if r.kind == "artifact.pulled"]
    assert [c["path"] for c in claimed if not store.exists(c.get("digest") or "")] == []
    report = pull(ledger, LocalTransport(box), run="r1", verify_checkpoints=False)
    assert report.ok, report.to_json()
    assert report.bytes_transferred == 0  # received whole before: resumed at their ends


def test_a_full_disk_is_one_clear_error_and_the_pull_resumes(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path) -> None:
    """The local disk fills mid-file (here: a file size limit, EFBIG, as a quota gives): exit 1
    with one line naming the partial file and what to do, not an OSError traceback; the bytes
    received stay, and the next pull resumes them."""
    import resource

    (box / "data.bin.dat").write_bytes(os.urandom(3 << 20))
    limit = 1 << 20

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails: EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run([str(LABLEDGER), "pull", "--run", "r1", "--from-dir", str(box),
                           "--no-verify"], cwd=project, capture_output=True, text=True,
                          timeout=120, check=False, preexec_fn=small_files)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert "no space left on the local disk" in line
    assert "run the same `labledger pull` again" in line
    assert ".partial" in line
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", "--from-dir", str(box),
                          "--no-verify")
    assert code == 0, err
    data = next(f for f in json.loads(out)["files"] if f["path"] == "data.bin.dat")
    assert data["status"] == "pulled"
    assert data["resumed_from"] == limit


# -- a file that changes between the listing and the hash ---------------------------------------
class GrowsBeforeHash(Forwarding):
    """The training loop appends to ``train.csv`` after the listing, before the box hashes."""

    def __init__(self, inner: Transport, file: Path) -> None:
        super().__init__(inner)
        self.file = file

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        with open(self.file, "a") as fh:
            fh.write("301,0.009\n")
        return self.inner.hash_files(rels)


@pytest.mark.parametrize("over", ["ssh", "dir"])
def test_a_file_that_grew_before_the_hash_is_pulled_as_hashed(
        ledger: Ledger, box: Path, tmp_path: Path, sshd: Any, over: str) -> None:
    """The manifest records the size of the bytes the box hashed. It recorded the listed size
    with the hash of the grown file, so the file failed twice ("SHA-256 mismatch" with two
    equal SHA-256s) and the run could not be pull-verified from that listing."""
    train = box / "train.csv"
    train.write_text("step,loss\n300,0.01\n")
    inner: Transport = (ssh_transport(sshd, box, tmp_path) if over == "ssh"
                        else LocalTransport(box))
    transport = GrowsBeforeHash(inner, train)
    try:
        report = pull(ledger, transport, run="r1", verify_checkpoints=False)
    finally:
        transport.close()
    assert report.ok, report.to_json()
    [got] = [f for f in report.files if f.path == "train.csv"]
    assert got.size == train.stat().st_size
    assert open_store(ledger).read_bytes(got.digest or "") == train.read_bytes()
    listed = [r.body_dict() for r in ledger.records() if r.kind == "pull.listed"][-1]
    [entry] = [e for e in listed["entries"] if e["path"] == "train.csv"]
    assert entry["size"] == train.stat().st_size
    assert list(open_store(ledger).tmp_dir.glob("pull-*.partial")) == []


# -- the next step verify-pull and the gate print ------------------------------------------------
ODD = ["[1] it's $HOME.txt", "two  spaces.txt", "q?.txt"]


def corrupt(project: Path, path: str) -> None:
    [digest] = {r.body_dict()["digest"] for r in records(project, "artifact.pulled")
                if r.body_dict()["path"] == path and r.body_dict()["ok"]}
    with Ledger.open(project) as ledger:
        obj = open_store(ledger).object_path(digest)
    obj.chmod(0o644)
    obj.write_bytes(b"rot")


def run_printed(capsys: pytest.CaptureFixture[str], command: str) -> tuple[int, str, str]:
    argv = shlex.split(command)  # as a shell reads it
    assert argv[0] == "labledger"
    return call(capsys, *argv[1:])


@pytest.mark.parametrize("instance", [None, "box1"])
def test_the_next_step_verify_pull_prints_runs_as_printed(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, tmp_path: Path,
        instance: str | None) -> None:
    """Each `next` pulls exactly the file it names: the path shell-quoted and its glob
    characters escaped, with where to pull from. verify-pull printed `labledger pull --run r1
    --only two  spaces.txt` (no source: exit 2; unquoted: two arguments)."""
    folder = tmp_path / "run folder"
    shutil.copytree(box, folder)
    for i, name in enumerate(ODD):
        decoy = name.replace("[1]", "1").replace("?", "x")  # what the name matches as a glob
        if decoy != name:
            (folder / decoy).write_text(f"decoy {i}\n")
        (folder / name).write_text(f"{i}\n")
    where = ["--instance", instance] if instance else []
    code, _, err = call(capsys, "pull", "--run", "r1", "--from-dir", str(folder), *where)
    assert code == 0, err
    for name in ODD:
        corrupt(project, name)
    code, out, err = call(capsys, "--json", "verify-pull", "r1")
    assert code == 3
    nexts = {a["path"]: a["next"] for a in json.loads(out)["verification"]["artifacts"]
             if not a["ok"]}
    assert sorted(nexts) == sorted(ODD)
    for name in ODD:
        assert "--from-dir" in nexts[name] or "--instance box1" in nexts[name]
        code, out, err = run_printed(capsys, nexts[name] + " --json")
        assert code == 0, (nexts[name], err)
        assert [f["path"] for f in json.loads(out)["files"]] == [name]
    code, _, err = call(capsys, "verify-pull", "r1")
    assert code == 0, err


def test_the_gate_next_step_for_an_odd_name_runs_as_printed(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path) -> None:
    import torch

    name = "ckpt/[best] run 2.pth"
    for seed, path in ((1, name), (2, "ckpt/b run 2.pth")):  # what "[best]" matches as a glob
        torch.manual_seed(seed)
        torch.save({"model_state_dict": torch.nn.Linear(2, 2).state_dict()}, box / path)
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1",
                        "--from-dir", str(box))
    assert code == 0, err
    corrupt(project, name)
    code, out, err = call(capsys, "--json", "gate", "teardown", "--instance", "box1")
    assert code == 3
    [step] = [a["next"] for r in json.loads(out)["runs"] for a in r["artifacts"] if not a["ok"]]
    assert step == "labledger pull --run r1 --instance box1 --only 'ckpt/[[]best] run 2.pth'"
    code, out, err = run_printed(capsys, step + " --json")
    assert code == 0, err
    assert [f["path"] for f in json.loads(out)["files"]] == [name]
    code, _, err = call(capsys, "gate", "teardown", "--instance", "box1")
    assert code == 0, err


# -- judging a run from one box (`verify_run(..., instance=I)`) ----------------------------------
def test_a_run_judged_from_one_box_and_its_markers(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, tmp_path: Path) -> None:
    """A run preempted on box1 and resumed on box2. Judged across boxes, the expected set is
    whichever box was listed last: pulling the stale box1 again after box2 drops box2's
    last.txt from it. Judged from one box (what the gate of that box says of the run), each
    box answers for itself, and its marker is bound to it: a gap of box2 leaves box1's marker
    alone; changed bytes invalidate every marker that names them."""
    from labledger.reconcile.pull_verified import (
        ObjectChecker,
        default_marker,
        invalidate_markers,
        ledger_head,
        load_events,
        verify_run,
        write_marker,
    )

    resumed_on_box2_then_box1_pulled_last(capsys, box, tmp_path)

    def judge(instance: str | None) -> Any:
        with Ledger.open(project) as ledger:
            events = load_events(ledger)
            result = verify_run("r1", events, ObjectChecker(open_store(ledger)),
                                instance=instance)
        return ledger, events, result

    box1_files = {"run.json", "ckpt/best.pth"}
    ledger, events, anywhere = judge(None)
    assert anywhere.ok
    assert {a.path for a in anywhere.artifacts} == box1_files
    _, _, two = judge("box2")
    assert two.ok
    assert {a.path for a in two.artifacts} == box1_files | {"last.txt"}
    _, _, one = judge("box1")
    assert one.ok
    assert one.instance == "box1"

    run_marker = default_marker(ledger, "r1")
    box1_marker = default_marker(ledger, "r1", "box1")
    assert box1_marker == project / ".labledger" / "verified" / "r1" / "instances" / \
        "box1" / "PULL_VERIFIED.json"
    assert "instance" not in write_marker(ledger, anywhere, ledger_head(events), run_marker)
    assert write_marker(ledger, one, ledger_head(events), box1_marker)["instance"] == "box1"

    corrupt(project, "last.txt")  # only box2 had it
    ledger, _, two = judge("box2")
    assert not two.ok
    assert invalidate_markers(ledger, two) == []  # neither marker is about last.txt
    assert run_marker.exists()
    assert box1_marker.exists()

    corrupt(project, "run.json")  # every marker names it
    ledger, _, one = judge("box1")
    assert not one.ok
    assert invalidate_markers(ledger, one) == [
        run_marker.with_name("PULL_VERIFIED.json.invalid"),
        box1_marker.with_name("PULL_VERIFIED.json.invalid")]
    for marker in (run_marker, box1_marker):
        assert not marker.exists()
        invalid = json.loads(marker.with_name("PULL_VERIFIED.json.invalid").read_text())
        assert any("run.json" in gap for gap in invalid["invalidated"]["gaps"])


def test_verify_pull_instance_judges_one_box_and_refuses_an_unknown_one(
        capsys: pytest.CaptureFixture[str], box: Path, project: Path, tmp_path: Path) -> None:
    """`verify-pull RUN --instance I` (the CLI of `verify_run(..., instance=I)`): box2's files
    are judged even after the stale box1 was pulled last, the marker goes under
    instances/box2 and names the box; an instance no event names is a usage error (exit 2,
    nothing written), not a box with nothing pulled."""
    resumed_on_box2_then_box1_pulled_last(capsys, box, tmp_path)
    code, out, err = call(capsys, "--json", "verify-pull", "r1", "--instance", "box2")
    assert code == 0, err
    document = json.loads(out)
    marker = project / ".labledger" / "verified" / "r1" / "instances" / "box2" / \
        "PULL_VERIFIED.json"
    assert document["path"] == str(marker)
    written = json.loads(marker.read_text())
    assert written["instance"] == "box2"
    assert written["files"] == 3  # run.json, ckpt/best.pth and box2's last.txt
    code, out, err = call(capsys, "verify-pull", "r1", "--instance", "box2")
    assert code == 0
    assert "from instance box2" in err
    before = sorted(p for p in (project / ".labledger").rglob("*"))
    code, out, err = call(capsys, "verify-pull", "r1", "--instance", "bxo2")
    assert code == 2
    assert "'bxo2' is not in the ledger" in err
    assert "box1, box2" in err
    assert sorted(p for p in (project / ".labledger").rglob("*")) == before
