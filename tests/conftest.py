"""Shared fixtures: every test gets its own project folder and ledger environment."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from labledger.ledger.ledger import Ledger

# Under nohup, every process the tests start inherits SIGHUP ignored, and `labledger run` keeps
# an ignored signal ignored (as nohup asks), so the tests that send it SIGHUP would wait for
# ever. A handler that does nothing keeps this process as immune as nohup made it and, unlike
# SIG_IGN, is not inherited across exec: the commands the tests start get the default.
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, lambda signum, frame: None)


@pytest.fixture(autouse=True)
def _isolated_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's ledger: LABLEDGER_* point into tmp_path."""
    for name in list(os.environ):
        if name.startswith("LABLEDGER_"):
            monkeypatch.delenv(name)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("LABLEDGER_ROOT", str(project))
    monkeypatch.setenv("LABLEDGER_WRITER", "test-writer")
    monkeypatch.setenv("LABLEDGER_ACTOR", "tester@test")
    monkeypatch.setenv("LABLEDGER_SETTLE_S", "0")  # no settle waits unless a test asks for one


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return tmp_path / "project"


@pytest.fixture
def ledger(project: Path) -> Iterator[Ledger]:
    led = Ledger.init(project)
    yield led
    led.close()


def ledger_with_rollover(project: Path, events_per_segment: int) -> Ledger:
    """A new ledger whose segments close after ``events_per_segment`` events (closed segments
    for tests to damage or cache)."""
    led = Ledger.init(project)
    config = led.paths.config
    config.write_text(config.read_text().replace(
        "segment_max_events = 200000", f"segment_max_events = {events_per_segment}"))
    return Ledger.open(project)


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` but a ledger's caches (``.labledger/cache/``: derived data a
    read may fill, e.g. which records were hashed, never the ledger or the store)."""
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*"))
            if p.is_file() and not _in_cache(p.relative_to(folder))}


def _in_cache(path: Path) -> bool:
    parts = path.parts
    return any(a == ".labledger" and b == "cache" for a, b in zip(parts, parts[1:], strict=False)) \
        or parts[:1] == ("cache",)


@pytest.fixture
def snapshot() -> Callable[[Path], dict[str, bytes]]:
    """Every file under a folder with its bytes: compare before/after to prove nothing changed."""
    return _snapshot


def cli_call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """`labledger ARGS` in-process through main() (the error -> exit-code mapping included):
    returns (exit code, stdout, stderr). Test modules import it: ``from tests.conftest import
    cli_call as call``."""
    from labledger.ledger.cli import main

    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    code = info.value.code
    assert isinstance(code, int)
    return code, out, err


@pytest.fixture
def run_cli(project: Path) -> Callable[..., subprocess.CompletedProcess[str]]:
    """Run the real `labledger` console script in a subprocess."""
    exe = Path(sys.executable).with_name("labledger")

    def run(*args: str, input: str | None = None, env: dict[str, str] | None = None,
            cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, **(env or {})}
        return subprocess.run([str(exe), *args], input=input, capture_output=True, text=True,
                              env=full_env, cwd=cwd or project, timeout=120, check=False)

    return run


class PullSeed:
    """Builds what `labledger pull` would record (part A), with real objects in the CAS."""

    def __init__(self, ledger: Ledger, tmp_path: Path) -> None:
        from labledger.ledger.artifacts import open_store

        self.ledger, self.store, self.tmp = ledger, open_store(ledger), tmp_path / "box"
        self.tmp.mkdir(exist_ok=True)
        self.digests: dict[str, str] = {}

    def rent(self, instance: str = "box1", profile: str = "vastai",
             host: str | None = "root@ssh5.vast.ai:22") -> None:
        from labledger.profiles import shipped_profiles, snapshot

        self.ledger.append("instance.rented", instance=instance, profile=profile, host=host,
                           profile_snapshot=snapshot(shipped_profiles()[profile].profile))

    def entry(self, path: str, data: bytes) -> dict[str, object]:
        import hashlib

        from blake3 import blake3

        return {"path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                "blake3": "blake3:" + blake3(data).hexdigest()}

    def listed(self, files: dict[str, bytes], run: str = "r1", instance: str = "box1",
               **extra: object) -> None:
        entries = [self.entry(p, d) for p, d in files.items()]
        self.ledger.append("pull.listed", run=run, instance=instance, source="box:/root/run",
                           entries=entries, **extra)

    def pulled(self, path: str, data: bytes, run: str = "r1", instance: str = "box1") -> str:
        source = self.tmp / path.replace("/", "_")
        source.write_bytes(data)
        result = self.store.put_file(source, sha256=True)
        sha = result.sha256
        self.ledger.append("artifact.pulled", run=run, instance=instance, path=path, ok=True,
                           size=len(data), remote_sha256=sha, local_sha256=sha,
                           digest=result.digest)
        self.digests[path] = result.digest
        return result.digest

    def verified(self, path: str, ok: bool = True, run: str = "r1",
                 instance: str = "box1") -> None:
        self.ledger.append("checkpoint.verified", run=run, instance=instance, path=path,
                           digest=self.digests[path], ok=ok, tensors=2, loader="torch")

    def full(self, files: dict[str, bytes], run: str = "r1", instance: str = "box1") -> None:
        """List, pull and (checkpoints) verify every file: a run that passes."""
        self.ledger.append("run.launched", run=run, instance=instance, command=["python"])
        self.listed(files, run=run, instance=instance)
        for path, data in files.items():
            self.pulled(path, data, run=run, instance=instance)
            if path.endswith(".pth"):
                self.verified(path, run=run, instance=instance)

    def corrupt(self, path: str) -> None:
        """Flip one byte of the stored object (as disk rot would)."""
        obj = self.store.object_path(self.digests[path])
        obj.chmod(0o644)
        raw = bytearray(obj.read_bytes())
        raw[0] ^= 0xFF
        obj.write_bytes(bytes(raw))


@pytest.fixture
def pull_seed(ledger: Ledger, tmp_path: Path) -> PullSeed:
    return PullSeed(ledger, tmp_path)


class Sshd:
    """A real OpenSSH sshd on 127.0.0.1 (random port) with a generated host and client key."""

    def __init__(self, folder: Path, *, password_auth: bool = False,
                 sftp: str | None = "internal-sftp", extra: tuple[str, ...] = ()) -> None:
        """``sftp``: the SFTP subsystem's command (None: the server offers no SFTP);
        ``extra``: more sshd_config lines, written first (sshd keeps a keyword's first value,
        so ``LogLevel VERBOSE`` there wins over the default below)."""
        import getpass
        import shutil
        import socket
        import time

        binary = Path("/usr/sbin/sshd")
        if not binary.exists() or shutil.which("ssh-keygen") is None:
            pytest.fail("OpenSSH server missing: /usr/sbin/sshd and ssh-keygen are needed for "
                        "the pull tests; .ci/run installs them with "
                        "`apt-get install -y openssh-server`")
        self.folder, self.user = folder, getpass.getuser()
        folder.mkdir(parents=True, exist_ok=True)
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)
        self.host_key = folder / "host_ed25519"
        self.client_key = folder / "client_ed25519"
        for key in (self.host_key, self.client_key):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "test",
                            "-f", str(key)], check=True, capture_output=True)
        (folder / "authorized_keys").write_text(
            (folder / "client_ed25519.pub").read_text(encoding="ascii"), encoding="ascii")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = folder / "sshd_config"
        config.write_text("\n".join([
            *extra, f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.host_key}",
            f"PidFile {folder / 'sshd.pid'}", f"AuthorizedKeysFile {folder / 'authorized_keys'}",
            "StrictModes no", "UsePAM no", "PermitRootLogin yes",
            f"PasswordAuthentication {'yes' if password_auth else 'no'}",
            *([f"Subsystem sftp {sftp}"] if sftp else []), "MaxStartups 100",
            "MaxSessions 100",
            "LogLevel ERROR", ""]), encoding="ascii")
        self.log = open(folder / "sshd.log", "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen([str(binary), "-D", "-e", "-f", str(config)],
                                     stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 15
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    pytest.fail("sshd did not start: "
                                + (folder / "sshd.log").read_text(errors="replace"))
                time.sleep(0.05)

    @property
    def host_key_line(self) -> str:
        """The server's key as a known_hosts line for [127.0.0.1]:port."""
        kind, b64 = (self.folder / "host_ed25519.pub").read_text(encoding="ascii").split()[:2]
        return f"[127.0.0.1]:{self.port} {kind} {b64}\n"

    def target(self, root: Path) -> str:
        return f"{self.user}@127.0.0.1:{self.port}:{root}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.log.close()


@pytest.fixture(scope="session")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """A real sshd for the whole session (pull tests); fails, never skips, when it is missing."""
    server = Sshd(tmp_path_factory.mktemp("sshd"))
    yield server
    server.stop()


def _ipv6_loopback() -> bool:
    import socket

    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.fixture(scope="session")
def sshd6(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """A real sshd that listens on ::1 as well as on 127.0.0.1 (where `Sshd` waits for it);
    fails, never skips, on a machine without IPv6 loopback."""
    if not _ipv6_loopback():
        pytest.fail("no IPv6 loopback (::1) on this machine: these tests need one")
    server = Sshd(tmp_path_factory.mktemp("sshd6"), extra=("ListenAddress ::1",))
    yield server
    server.stop()


def permissions_enforced(argv: list[str]) -> list[str]:
    """``argv`` run with file permissions enforced. Root ignores them (CAP_DAC_OVERRIDE), so as
    root the command runs under util-linux's ``setpriv`` without the capabilities that bypass
    them. Without setpriv the test fails: a permission test that cannot deny anything proves
    nothing, and must not pass or be skipped quietly."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("running as root without setpriv (util-linux): file permissions cannot be "
                    "enforced, so this test would judge nothing")
    drop = "-dac_override,-dac_read_search,-fowner"
    return [setpriv, f"--bounding-set={drop}", f"--inh-caps={drop}", *argv]


@pytest.fixture
def pull_project(ledger: Ledger, project: Path, tmp_path: Path,
                 monkeypatch: pytest.MonkeyPatch) -> Path:
    """Work in the project, with a HOME of its own: no ~/.ssh or agent of the developer's."""
    monkeypatch.chdir(project)
    (tmp_path / "home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)
    return project

def at_terminal(argv: list[str], env: dict[str, str], cwd: Path,
                answers: dict[bytes, bytes]) -> tuple[int, bytes, int]:
    """Run ``argv`` with a real pseudo-terminal as its controlling terminal (stdin, stdout and
    stderr); answer each prompt of ``answers`` as it shows. Returns (exit code, everything the
    terminal showed, prompts answered). The child is killed on any failure: never a hang."""
    import pty
    import select

    pid, master = pty.fork()
    if pid == 0:  # the child
        os.chdir(cwd)
        os.execve(argv[0], argv, env)
    seen, answered, done_at = b"", 0, 0
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 60)
            if not ready:
                raise AssertionError(f"no prompt, no output for 60 s: {seen!r}")
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            for prompt, answer in answers.items():
                if seen.count(prompt) > answered and seen.rfind(prompt) >= done_at:
                    os.write(master, answer + b"\n")
                    answered, done_at = answered + 1, len(seen)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(pid, 0)
        os.close(master)
    return os.waitstatus_to_exitcode(status), seen, answered
