"""An SSH server that lets the client in but where SFTP cannot be used: one that refuses it
(RunPod's "Basic SSH" proxy, ssh.runpod.io, carries no SFTP or SCP; a Dropbear box without
sftp-server), or one whose shell start-up file prints into the session before the SFTP server
speaks (OpenSSH FAQ 2.9). The pull says so at once, with what to change on the box, and is not
retried as if the network had failed; before, the first was "cannot connect: Channel closed."
after 7 s of retries and the second a paramiko traceback. Real sshds on 127.0.0.1: one without a
``Subsystem sftp`` line, one whose SFTP command echoes a banner first, as a ~/.bashrc that
prints on non-interactive logins does."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest import transport_ssh
from labledger.ingest.errors import SftpUnavailableError
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from tests.conftest import Sshd

LABLEDGER = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "labledger"


# The login shell of a box whose ~/.bashrc echoes a banner runs the SFTP server after it.
PRINTING = "/bin/sh -c 'echo Welcome to your GPU box; exec /usr/lib/openssh/sftp-server'"


@pytest.fixture(scope="module")
def no_sftp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    server = Sshd(tmp_path_factory.mktemp("sshd-no-sftp"), sftp=None)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def printing(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    if not Path("/usr/lib/openssh/sftp-server").exists():
        pytest.fail("OpenSSH's sftp-server is missing (package openssh-sftp-server, which "
                    "openssh-server depends on)")
    server = Sshd(tmp_path_factory.mktemp("sshd-printing"), sftp=PRINTING)
    yield server
    server.stop()


def _connect(server: Sshd, folder: Path) -> SshTransport:
    (folder / "known_hosts").write_text(server.host_key_line)
    return SshTransport(parse_target(server.target(folder)), known_hosts=folder / "known_hosts",
                        identity=server.client_key, ssh_config=folder / "none", use_agent=False,
                        user_known_hosts=folder / "none2", connect_retries=3)


@pytest.mark.parametrize(("server", "said", "fix"), [
    ("no_sftp", "refused SFTP", "ssh.runpod.io"),
    ("no_sftp", "refused SFTP", "Subsystem sftp"),
    ("printing", "began with bytes that are not SFTP", "[[ $- == *i* ]] || return"),
])
def test_sftp_that_cannot_be_used_is_said_at_once_and_not_retried(
        tmp_path: Path, server: str, said: str, fix: str, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    box: Sshd = request.getfixturevalue(server)
    slept: list[float] = []
    monkeypatch.setattr(transport_ssh.time, "sleep", slept.append)  # a retry would back off
    before = set(threading.enumerate())
    with pytest.raises(SftpUnavailableError) as info:
        _connect(box, tmp_path)
    assert slept == []
    assert set(threading.enumerate()) == before  # the connection left no thread behind
    assert said in info.value.problem
    assert fix in info.value.fix
    assert fix in str(info.value)


@pytest.mark.parametrize(("server", "said"), [
    ("no_sftp", "SSH over exposed TCP"),
    ("printing", "prints something even when the login is not interactive"),
])
def test_the_cli_exits_1_naming_the_fix_and_records_nothing(
        ledger: Ledger, server: str, said: str, snapshot: Callable[[Path], dict[str, bytes]],
        tmp_path: Path, request: pytest.FixtureRequest) -> None:
    no_sftp: Sshd = request.getfixturevalue(server)
    project = ledger.paths.project
    box = tmp_path / "box"
    box.mkdir()
    (box / "metrics.json").write_text('{"psnr": 31.4}')
    known = tmp_path / "known_hosts"
    known.write_text(no_sftp.host_key_line)
    before = snapshot(project / ".labledger")
    done = subprocess.run([str(LABLEDGER), "pull", "--run", "r1", "--known-hosts", str(known),
                           "--identity", str(no_sftp.client_key), "--from",
                           no_sftp.target(box)],
                          cwd=project, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert said in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(project / ".labledger") == before
    assert list(Ledger.open(project).records()) == []


def test_a_server_with_sftp_still_connects(tmp_path: Path, sshd: Any) -> None:
    """The refusal is read from the server's answer, not guessed: the same login to a server
    that offers SFTP reads the tree."""
    (tmp_path / "known_hosts").write_text(sshd.host_key_line)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.txt").write_text("a")
    transport = SshTransport(parse_target(sshd.target(tree)),
                             known_hosts=tmp_path / "known_hosts", identity=sshd.client_key,
                             ssh_config=tmp_path / "none", use_agent=False,
                             user_known_hosts=tmp_path / "none2", connect_retries=0)
    try:
        assert sorted(s.name for s in transport.list_dir(".")) == ["a.txt"]
    finally:
        transport.close()


def test_an_sftp_server_that_dies_once_is_retried_not_called_refused(
        tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """The server said yes to SFTP, but its SFTP server died at start (a fork failing on a box
    busy with training): that is no setting of the box, and the next try works."""
    starts = tmp_path / "starts"
    script = tmp_path / "sftp.sh"
    script.write_text(f"#!/bin/sh\necho start >> {starts}\n"
                      f"if [ $(wc -l < {starts}) -gt 1 ]; then exec /usr/lib/openssh/sftp-server; "
                      "fi\necho 'fork: Resource temporarily unavailable' >&2; exit 1\n")
    script.chmod(0o755)
    server = Sshd(tmp_path_factory.mktemp("sshd-flaky"), sftp=str(script))
    (tmp_path / "known_hosts").write_text(server.host_key_line)
    try:
        transport = SshTransport(parse_target(server.target(tmp_path)),
                                 known_hosts=tmp_path / "known_hosts",
                                 identity=server.client_key, ssh_config=tmp_path / "none",
                                 use_agent=False, user_known_hosts=tmp_path / "none2",
                                 connect_retries=3, backoff=0.01)
        transport.close()
    finally:
        server.stop()
    assert starts.read_text().count("start") == 2  # one failed start, then the retry worked
