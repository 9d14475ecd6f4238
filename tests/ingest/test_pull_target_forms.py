"""`--from` in the forms a user has in hand: the ``ssh://`` source labledger itself prints and
records (a pull's summary, ``pull.listed``, `labledger log`), and a provider console's ``ssh``
command line, which is refused with the ``--from`` that reaches the same login.

Before, ``ssh://root@box:2222/data/r1`` parsed as a host named ``ssh`` with the folder
``//root@box:2222/data/r1`` (a "cannot connect" after the retries), and ``ssh -p 41234
root@ssh5.vast.ai -L 8080:localhost:8080`` as a user ``ssh -p 41234 root``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labledger.ingest.errors import PullSourceError
from labledger.ingest.transport_ssh import SshTarget, parse_target
from tests.conftest import cli_call as call


@pytest.mark.parametrize(("spec", "want"), [
    ("ssh://root@box:2222/data/r1", SshTarget(host="box", dir="/data/r1", user="root", port=2222)),
    ("ssh://root@box:22/~/runs/r1", SshTarget(host="box", dir="runs/r1", user="root", port=22)),
    ("ssh://root@box:22/~/.", SshTarget(host="box", dir=".", user="root", port=22)),
    ("ssh://box/data/r1", SshTarget(host="box", dir="/data/r1")),
    ("ssh://root@::1:22/r", SshTarget(host="::1", dir="/r", user="root", port=22)),
    ("ssh://root@[::1]:22/r", SshTarget(host="::1", dir="/r", user="root", port=22)),
    ("ssh://root@[::1]/r", SshTarget(host="::1", dir="/r", user="root")),
    # a folder's name is taken as it is: no URL query, fragment or escapes
    ("ssh://root@box:22/data/run #3?v=2%20", SshTarget(host="box", dir="/data/run #3?v=2%20",
                                                      user="root", port=22)),
    # what a pull from the root prints
    ("ssh://u@box:22/", SshTarget(host="box", dir="/", user="u", port=22)),
    # a directory user (SSSD): the user runs to the last "@", as OpenSSH reads it
    ("ssh://jdoe@ad.univ.edu@box:22/d", SshTarget(host="box", dir="/d", user="jdoe@ad.univ.edu",
                                                  port=22)),
    ("jdoe@ad.univ.edu@box:/d", SshTarget(host="box", dir="/d", user="jdoe@ad.univ.edu")),
    ("box:runs/x@y", SshTarget(host="box", dir="runs/x@y")),
    ("root@box:/data/x@y", SshTarget(host="box", dir="/data/x@y", user="root")),
])
def test_the_printed_ssh_source_is_a_from(spec: str, want: SshTarget) -> None:
    assert parse_target(spec) == want


@pytest.mark.parametrize("spec", ["ssh://root@box", "ssh://", "ssh:///r", "ssh://root@box:99999/r",
                                  "ssh://root@box:abc/data", "ssh://root@box:/d", "ssh://:22/d",
                                  "ssh://root@[::1]x/d", "ssh://root@fe80::1/data"])
def test_an_ssh_url_without_a_host_or_folder_is_refused(spec: str) -> None:
    with pytest.raises(PullSourceError):
        parse_target(spec)


@pytest.mark.parametrize(("pasted", "hint"), [
    # AutoDL's console: "ssh -p PORT root@connect.<region>.seetacloud.com"
    ("ssh -p 12345 root@connect.westb.seetacloud.com",
     "--from root@connect.westb.seetacloud.com:12345:DIR"),
    # vast.ai's: the port, the login, then a forwarded port for Jupyter
    ("ssh -p 41234 root@ssh5.vast.ai -L 8080:localhost:8080", "--from root@ssh5.vast.ai:41234:DIR"),
    # RunPod's "Basic SSH": the pod's login and a key
    ("ssh 1a2b3c-64410d@ssh.runpod.io -i ~/.ssh/id_ed25519",
     "--from 1a2b3c-64410d@ssh.runpod.io:DIR"),
    ("ssh -p2222 -i key.pem ubuntu@203.0.113.7", "--from ubuntu@203.0.113.7:2222:DIR"),
    ("ssh -l root -p 2222 box", "--from root@box:2222:DIR"),
    ("ssh -o Port=2222 root@h", "--from root@h:2222:DIR"),
    ("ssh -oPort=2222 -o User=u h", "--from u@h:2222:DIR"),
    ("ssh -vp 2222 root@h", "--from root@h:2222:DIR"),
    ("ssh -p 22 root@::1", "--from root@[::1]:22:DIR"),
])
def test_a_pasted_ssh_command_is_refused_with_its_from(pasted: str, hint: str) -> None:
    with pytest.raises(PullSourceError) as info:
        parse_target(pasted)
    assert hint in str(info.value)
    suggested = hint.split()[1].replace("DIR", "/data/r1")
    parse_target(suggested)  # the hint itself is a --from that parses


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)
_HOST = st.one_of(
    st.builds(".".join, st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789",
                                         min_size=1, max_size=10), min_size=1, max_size=4)),
    st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str))
_PART = st.text(st.characters(blacklist_characters="/\0\n", blacklist_categories=("Cs",)),
                min_size=1, max_size=8).filter(lambda p: p not in (".", "..", "~"))
_FOLDER = st.builds(lambda absolute, parts: ("/" if absolute else "") + "/".join(parts),
                    st.booleans(), st.lists(_PART, min_size=1, max_size=4))


@given(user=_NAME, host=_HOST, port=st.integers(1, 65535), folder=_FOLDER)
def test_every_source_a_pull_prints_parses_back_to_its_target(
        user: str, host: str, port: int, folder: str) -> None:
    """`SshTransport.source` is ``ssh://USER@HOST:PORT`` then the folder: absolute as it is, a
    relative one after ``/~/``; read back, it names the same login and folder. (Built here with
    an IPv6 host bare, as labledger recorded it before it bracketed one: still read. The
    bracketed form it prints now: test_pull_ipv6_source.py.)"""
    root = folder.rstrip("/") or "/"
    sep = "" if root.startswith("/") else "/~/"
    printed = f"ssh://{user}@{host}:{port}{sep}{root}"
    assert parse_target(printed) == SshTarget(host=host, dir=root, user=user, port=port)


def test_pull_again_from_the_source_its_summary_printed(
        capsys: pytest.CaptureFixture[str], sshd: Any, ledger: Any, tmp_path: Path) -> None:
    box = tmp_path / "box"
    box.mkdir()
    (box / "metrics.json").write_text('{"psnr": 31.42}')
    known = tmp_path / "known_hosts"
    known.write_text(sshd.host_key_line)
    login = ["--known-hosts", str(known), "--identity", str(sshd.client_key)]
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", *login,
                          "--from", sshd.target(box))
    assert code == 0, err
    source = json.loads(out)["source"]
    assert source.startswith("ssh://")
    code, out, err = call(capsys, "--json", "pull", "--run", "r1", *login, "--from", source)
    assert code == 0, err
    again = json.loads(out)
    assert again["source"] == source
    assert again["bytes_transferred"] == 0  # the same files, already stored


def test_the_cli_refuses_a_pasted_ssh_command_with_exit_2_and_writes_nothing(
        capsys: pytest.CaptureFixture[str], ledger: Any,
        snapshot: Any) -> None:
    before = snapshot(ledger.paths.home)
    code, _, err = call(capsys, "pull", "--run", "r1", "--from",
                        "ssh -p 12345 root@connect.westb.seetacloud.com")
    assert code == 2
    assert "--from root@connect.westb.seetacloud.com:12345:DIR" in err
    assert snapshot(ledger.paths.home) == before
