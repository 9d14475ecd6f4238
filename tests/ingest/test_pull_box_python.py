"""A box whose only python3 is off an SSH command's PATH is still hashed by it (real sshd).

sshd gives a command the default PATH, not the one a container image's ``ENV`` or a
``.bashrc``'s ``conda init`` gives a terminal: on a pytorch image the only Python is often
``/opt/conda/bin/python3``, on AutoDL ``~/miniconda3/bin/python3``. labledger looked for
``python3`` on PATH alone, then fell back to ``xargs sha256sum``; on such a box (here an sshd
whose sessions get ``PATH=/nonexistent`` and a home with ``miniconda3/bin/python3``) the pull
failed (``mktemp: command not found``), and where coreutils were there, it lost the check for
files still being written, which only the Python helper makes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from tests.conftest import Sshd, cli_call

# Holds a file open for writing (a log a training loop keeps open) until stdin closes.
HOLDER = r"""
import sys
log = open(sys.argv[1], "a")
log.write("epoch 1  train loss 0.8231\n")
log.flush()
print("open", flush=True)
sys.stdin.readline()
"""


@pytest.fixture(scope="module")
def conda_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    home = tmp_path_factory.mktemp("box-home")
    (home / "miniconda3" / "bin").mkdir(parents=True)
    (home / "miniconda3" / "bin" / "python3").symlink_to(sys.executable)
    server = Sshd(tmp_path_factory.mktemp("sshd-conda"),
                  extra=(f"SetEnv PATH=/nonexistent HOME={home}",))
    yield server
    server.stop()


def _transport(server: Sshd, folder: Path, tmp_path: Path) -> SshTransport:
    (tmp_path / "known_hosts").write_text(server.host_key_line)
    return SshTransport(parse_target(server.target(folder)), known_hosts=tmp_path / "known_hosts",
                        identity=server.client_key, ssh_config=tmp_path / "none",
                        use_agent=False, user_known_hosts=tmp_path / "none2", connect_retries=0)


def test_the_box_python_is_found_off_the_command_path(conda_box: Sshd, tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    transport = _transport(conda_box, box, tmp_path)
    try:
        code, out, _ = transport.run("command -v python3")
        assert code != 0  # not on the command's PATH: the premise
        assert out == b""
        found = transport.python3()
        assert found is not None
        assert found.startswith("/")
        code, out, _ = transport.run(f"{found} -c 'import sys; print(sys.version_info[0])'")
        assert (code, out) == (0, b"3\n")
    finally:
        transport.close()


def test_a_pull_from_it_hashes_streams_and_sees_a_writer(
        conda_box: Sshd, ledger: Ledger, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    box = tmp_path / "box"
    box.mkdir()
    (box / "metrics.json").write_text('{"psnr": 31.42}')
    (tmp_path / "known_hosts").write_text(conda_box.host_key_line)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(box / "train.log")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "open\n"
        code, out, err = cli_call(capsys, "--json", "pull", "--run", "r1", "--no-verify",
                                  "--known-hosts", str(tmp_path / "known_hosts"),
                                  "--identity", str(conda_box.client_key),
                                  "--from", conda_box.target(box))
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait()
        if holder.stdout is not None:
            holder.stdout.close()
    assert code == 3, err  # the log is still being written: copied, not verified
    files = {f["path"]: f for f in json.loads(out)["files"]}
    assert files["metrics.json"]["status"] == "pulled"
    assert files["metrics.json"]["local_sha256"] == files["metrics.json"]["remote_sha256"]
    assert [w["pid"] for w in files["train.log"]["writers"]] == [holder.pid]
