"""An SSH server that lets the client in but refuses SFTP (RunPod's "Basic SSH" proxy,
ssh.runpod.io, carries no SFTP or SCP; a Dropbear box without sftp-server): the pull says so
at once, with what to do, and is not retried as if the network had failed. A real sshd on
127.0.0.1 started without a ``Subsystem sftp`` line."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest import transport_ssh
from labledger.ingest.errors import SftpRefusedError
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from tests.conftest import Sshd

LABLEDGER = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "labledger"


@pytest.fixture(scope="module")
def no_sftp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    server = Sshd(tmp_path_factory.mktemp("sshd-no-sftp"), sftp=False)
    yield server
    server.stop()


def test_a_refused_sftp_subsystem_is_said_at_once_and_not_retried(
        tmp_path: Path, no_sftp: Sshd, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "known_hosts").write_text(no_sftp.host_key_line)
    slept: list[float] = []
    monkeypatch.setattr(transport_ssh.time, "sleep", slept.append)  # a retry would back off
    before = set(threading.enumerate())
    with pytest.raises(SftpRefusedError) as info:
        SshTransport(parse_target(no_sftp.target(tmp_path)), known_hosts=tmp_path / "known_hosts",
                     identity=no_sftp.client_key, ssh_config=tmp_path / "none", use_agent=False,
                     user_known_hosts=tmp_path / "none2", connect_retries=3)
    assert slept == []
    assert set(threading.enumerate()) == before  # the refused connection left no thread
    message = str(info.value)
    assert "refused SFTP" in message
    assert "ssh.runpod.io" in message
    assert "Subsystem sftp" in message


def test_the_cli_exits_1_naming_the_fix_and_records_nothing(
        ledger: Ledger, no_sftp: Sshd, snapshot: Callable[[Path], dict[str, bytes]],
        tmp_path: Path) -> None:
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
    assert "refused SFTP" in done.stderr
    assert "SSH over exposed TCP" in done.stderr
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
