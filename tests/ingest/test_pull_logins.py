"""Ways into a box, each against a real OpenSSH sshd on 127.0.0.1: an ssh-agent, a password read
from stdin (never argv), ``~/.ssh/config`` aliases with ProxyJump and ProxyCommand."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import TransportError
from labledger.ingest.pull import pull
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from tests.conftest import at_terminal

LABLEDGER = Path(sys.executable).with_name("labledger")
PW_USER = "labledger-pw"
PW_PASSWORD = "correct horse battery staple"


def small_box(root: Path) -> Path:
    (root / "test" / "t1").mkdir(parents=True)
    (root / "empty").mkdir()
    (root / "run.json").write_text('{"run": "r1"}\n')
    (root / "test" / "t1" / "metrics.json").write_text('{"psnr": 31.4}\n')
    (root / "big.dat").write_bytes(os.urandom(2 * 1024 * 1024 + 5))
    return root


def pulled_paths(ledger: Ledger) -> list[str]:
    return sorted(r.body_dict()["path"] for r in ledger.records()
                  if r.kind == "artifact.pulled" and r.body_dict()["ok"])


# -- ssh-agent ------------------------------------------------------------------------------------
@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A real ssh-agent on a private socket; SSH_AUTH_SOCK points at it."""
    sock = tmp_path / "agent.sock"
    proc = subprocess.Popen(["ssh-agent", "-D", "-a", str(sock)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    for _ in range(200):
        if sock.exists():
            break
        subprocess.run(["sleep", "0.02"], check=True)
    monkeypatch.setenv("SSH_AUTH_SOCK", str(sock))
    yield sock
    proc.terminate()
    proc.wait()


def agent_transport(sshd: Any, box: Path, tmp_path: Path, **kw: Any) -> SshTransport:
    return SshTransport(parse_target(sshd.target(box)), known_hosts=tmp_path / "known_hosts",
                        accept_new=True, identity=None, use_agent=True,
                        ssh_config=tmp_path / "no_ssh_config",
                        user_known_hosts=tmp_path / "no_user_known_hosts", backoff=0.01,
                        connect_retries=0, **kw)


@pytest.mark.parametrize("bulk", ["openssh", "sftp"])
def test_agent_key_logs_in_and_pulls(ledger: Ledger, tmp_path: Path, sshd: Any, agent: Path,
                                     bulk: str) -> None:
    subprocess.run(["ssh-add", "-q", str(sshd.client_key)], check=True,
                   env={**os.environ, "SSH_AUTH_SOCK": str(agent)}, capture_output=True)
    box = small_box(tmp_path / "box")
    transport = agent_transport(sshd, box, tmp_path, bulk=bulk)
    try:
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]
    assert transport.bulk_note is None


def test_an_agent_without_the_key_is_refused(tmp_path: Path, sshd: Any, agent: Path) -> None:
    box = small_box(tmp_path / "box")
    with pytest.raises(TransportError, match="authentication"):
        agent_transport(sshd, box, tmp_path)


# -- password from stdin --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def password_sshd(tmp_path_factory: pytest.TempPathFactory, sshd: Any) -> Iterator[Any]:
    """An sshd that accepts passwords, and a local user with a known password.

    Creating the user needs root (CI runs as root); anything else is a failure, not a skip.
    """
    if os.geteuid() != 0 or shutil.which("useradd") is None or shutil.which("chpasswd") is None:
        pytest.fail("the password-login test creates a local user: run as root with useradd "
                    "and chpasswd (CI does)")
    exists = subprocess.run(["id", PW_USER], capture_output=True).returncode == 0
    if not exists:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/bin/sh", PW_USER],
                       check=True, capture_output=True)
    subprocess.run(["chpasswd"], input=f"{PW_USER}:{PW_PASSWORD}\n", text=True, check=True,
                   capture_output=True)
    server = type(sshd)(tmp_path_factory.mktemp("sshd-pw"), password_auth=True)
    yield server
    server.stop()


@pytest.fixture
def public_box() -> Iterator[Path]:
    """A box folder the unprivileged password user can read (pytest's tmp is root-only)."""
    root = Path(tempfile.mkdtemp(prefix="labledger-pw-box-"))
    root.chmod(0o755)
    try:
        box = small_box(root / "box")
        for p in [box, *box.rglob("*")]:
            p.chmod(0o755 if p.is_dir() else 0o644)
        yield box
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_password_from_stdin_pulls_through_the_cli(ledger: Ledger, tmp_path: Path,
                                                   password_sshd: Any, public_box: Path,
                                                   run_cli: Any, project: Path) -> None:
    home = tmp_path / "home"  # no default keys, no agent: only the password can work
    home.mkdir()
    env = {"HOME": str(home), "SSH_AUTH_SOCK": ""}
    target = f"{PW_USER}@127.0.0.1:{password_sshd.port}:{public_box}"
    done = run_cli("pull", "--run", "r1", "--from", target, "--password-stdin",
                   "--accept-new-host-key", "--no-verify", input=PW_PASSWORD + "\n", env=env)
    assert done.returncode == 0, done.stderr
    assert PW_PASSWORD not in done.stdout + done.stderr
    ledger_text = b"".join(p.read_bytes() for p in (project / ".labledger").rglob("*")
                          if p.is_file())
    assert PW_PASSWORD.encode() not in ledger_text
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]


def test_a_password_login_streams_the_bytes_through_openssh(
        tmp_path: Path, password_sshd: Any, public_box: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A password login (AutoDL, Featurize and others hand out passwords) used to fall back to
    paramiko's SFTP, about a quarter of scp's speed: the OpenSSH stream ran with BatchMode and
    could not log in. Its ssh now takes the password from an askpass helper, removed after."""
    from labledger.ingest import transport_openssh

    made: list[Path] = []
    real_mkdtemp = tempfile.mkdtemp

    def mkdtemp(*args: Any, **kwargs: Any) -> str:
        made.append(Path(real_mkdtemp(*args, **kwargs)))
        return str(made[-1])

    monkeypatch.setattr(transport_openssh.tempfile, "mkdtemp", mkdtemp)
    (tmp_path / "known_hosts").write_text(password_sshd.host_key_line)
    transport = SshTransport(
        parse_target(f"{PW_USER}@127.0.0.1:{password_sshd.port}:{public_box}"),
        known_hosts=tmp_path / "known_hosts", password=PW_PASSWORD,
        ssh_config=tmp_path / "none", use_agent=False, user_known_hosts=tmp_path / "none2",
        connect_retries=0)
    try:
        got = {rel: b"".join(chunks)
               for rel, _, chunks in transport.read_many([("big.dat", 0), ("run.json", 0)])}
        assert transport.bulk_note is None  # not the SFTP fallback
        assert transport.stream is not None
    finally:
        transport.close()
    assert got == {"big.dat": (public_box / "big.dat").read_bytes(),
                   "run.json": (public_box / "run.json").read_bytes()}
    assert len(made) == 1
    assert not made[0].exists()  # the helper (and the folder it was in) is gone


def test_a_password_typed_at_a_terminal_is_not_echoed(
        ledger: Ledger, tmp_path: Path, password_sshd: Any, public_box: Path,
        project: Path) -> None:
    """`--password-stdin` at a terminal read the line with echo on: the password showed on the
    screen. A real pseudo-terminal is the child's controlling terminal here."""
    home = tmp_path / "home"
    home.mkdir()
    target = f"{PW_USER}@127.0.0.1:{password_sshd.port}:{public_box}"
    argv = [str(LABLEDGER), "pull", "--run", "r1", "--from", target, "--password-stdin",
            "--accept-new-host-key", "--no-verify"]
    env = {**os.environ, "HOME": str(home), "SSH_AUTH_SOCK": ""}
    code, seen, answered = at_terminal(argv, env, project,
                                       {b"SSH password for": PW_PASSWORD.encode()})
    assert answered == 1, seen
    assert code == 0, seen
    assert PW_PASSWORD.encode() not in seen  # not echoed
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]


def test_a_wrong_password_fails_and_records_nothing(ledger: Ledger, tmp_path: Path,
                                                   password_sshd: Any, public_box: Path,
                                                   run_cli: Any, snapshot: Any,
                                                   project: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    before = snapshot(project / ".labledger" / "ledger")
    target = f"{PW_USER}@127.0.0.1:{password_sshd.port}:{public_box}"
    done = run_cli("pull", "--run", "r1", "--from", target, "--password-stdin",
                   "--accept-new-host-key", "--retries", "0", input="wrong\n",
                   env={"HOME": str(home), "SSH_AUTH_SOCK": ""})
    assert done.returncode == 1, done.stderr
    assert "authentication" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(project / ".labledger" / "ledger") == before


# -- ~/.ssh/config: aliases, ProxyJump, ProxyCommand ----------------------------------------------
def write_config(tmp_path: Path, sshd: Any, extra: str) -> Path:
    config = tmp_path / "ssh_config"
    config.write_text(
        f"Host jump\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.client_key}\n  IdentitiesOnly yes\n"
        f"  UserKnownHostsFile {tmp_path / 'known_hosts'}\n  StrictHostKeyChecking yes\n"
        f"Host gpubox\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.client_key}\n  IdentitiesOnly yes\n{extra}")
    (tmp_path / "known_hosts").write_text(sshd.host_key_line)
    return config


@pytest.mark.parametrize("bulk", ["auto", "sftp"])
@pytest.mark.parametrize("hop", ["ProxyJump jump", "ProxyCommand ssh -F {config} -W %h:%p jump"])
def test_config_alias_through_a_jump_host(ledger: Ledger, tmp_path: Path, sshd: Any,
                                          hop: str, bulk: str) -> None:
    config = write_config(tmp_path, sshd, "")
    config.write_text(config.read_text() + "  " + hop.format(config=config) + "\n")
    box = small_box(tmp_path / "box")
    transport = SshTransport(parse_target(f"gpubox:{box}"), known_hosts=tmp_path / "known_hosts",
                             use_agent=False, ssh_config=config,
                             user_known_hosts=tmp_path / "no_user_known_hosts",
                             bulk="auto" if bulk == "auto" else "sftp")
    try:
        assert len(transport._chain) == (2 if hop.startswith("ProxyJump") else 1)
        report = pull(ledger, transport, run="r1")
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]
    assert transport.source.startswith(f"ssh://{sshd.user}@gpubox:{sshd.port}/")
    if bulk == "auto":  # the OpenSSH stream honoured the same config (no silent fallback)
        assert transport.bulk_note is None
