"""The SSH transport against a real sshd: host keys, targets, ~/.ssh/config, ProxyJump."""

from __future__ import annotations

import hashlib
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import HostKeyError, PullSourceError, TransportError
from labledger.ingest.transport_ssh import SshTarget, SshTransport, parse_target


def connect(sshd: Any, root: Path, tmp_path: Path, *, accept_new: bool = False,
            target: str | None = None, **kw: Any) -> SshTransport:
    kw.setdefault("ssh_config", tmp_path / "no_ssh_config")
    return SshTransport(parse_target(target or sshd.target(root)),
                        known_hosts=tmp_path / "known_hosts", accept_new=accept_new,
                        identity=sshd.client_key, user_known_hosts=tmp_path / "user_known_hosts",
                        use_agent=False, connect_retries=0, **kw)


@pytest.mark.parametrize(("spec", "want"), [
    ("box:/data/r1", SshTarget(host="box", dir="/data/r1")),
    ("root@box:2222:/data/r1", SshTarget(host="box", dir="/data/r1", user="root", port=2222)),
    ("u@10.0.0.5:runs/r1", SshTarget(host="10.0.0.5", dir="runs/r1", user="u")),
    ("[::1]:22:/r", SshTarget(host="::1", dir="/r", port=22)),
])
def test_parse_target(spec: str, want: SshTarget) -> None:
    assert parse_target(spec) == want


@pytest.mark.parametrize("spec", ["box", "box:", "/local/dir", "box:99999:/r"])
def test_parse_target_refuses(spec: str) -> None:
    with pytest.raises(PullSourceError):
        parse_target(spec)


def test_unknown_host_key_is_refused_and_nothing_is_pinned(tmp_path: Path, sshd: Any) -> None:
    before = set(threading.enumerate())
    with pytest.raises(HostKeyError, match="is unknown") as info:
        connect(sshd, tmp_path, tmp_path)
    assert info.value.fingerprint.startswith("SHA256:")
    assert not (tmp_path / "known_hosts").exists()
    assert set(threading.enumerate()) == before  # no paramiko transport thread left running


def test_accept_new_host_key_pins_it_on_first_use(tmp_path: Path, sshd: Any) -> None:
    connect(sshd, tmp_path, tmp_path, accept_new=True).close()
    assert (tmp_path / "known_hosts").read_text() == sshd.host_key_line
    connect(sshd, tmp_path, tmp_path).close()  # pinned now: no flag needed
    assert (tmp_path / "known_hosts").read_text() == sshd.host_key_line


def test_user_known_hosts_is_honoured(tmp_path: Path, sshd: Any) -> None:
    (tmp_path / "user_known_hosts").write_text(sshd.host_key_line)
    connect(sshd, tmp_path, tmp_path).close()
    assert not (tmp_path / "known_hosts").exists()


@pytest.mark.parametrize("bad", [
    b"oldbox ssh-ed25519 AAAA%%%not-base64\n",       # bad base64 (InvalidHostKey)
    b"oldbox ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\n",    # a key cut short
    b"caf\xe9box ssh-rsa AAAAB3NzaC1yc2E=\n",        # not UTF-8 (a Latin-1 editor)
    b"oldbox ssh-foo AAAAB3NzaC1yc2E=\n",             # a key type paramiko does not know
], ids=["base64", "short", "latin1", "unknown-type"])
def test_a_bad_line_in_known_hosts_is_skipped_as_openssh_does(tmp_path: Path, sshd: Any,
                                                               bad: bytes) -> None:
    """OpenSSH skips a known_hosts line it cannot read; paramiko's loader raised on some
    (InvalidHostKey, UnicodeDecodeError): a traceback out of every pull, or a refusal of a
    host whose key the file pins on another line."""
    (tmp_path / "user_known_hosts").write_bytes(bad + sshd.host_key_line.encode())
    connect(sshd, tmp_path, tmp_path).close()
    assert not (tmp_path / "known_hosts").exists()
    # a bad line alone pins nothing: the host is still unknown, and said so
    (tmp_path / "user_known_hosts").write_bytes(bad)
    with pytest.raises(HostKeyError, match="is unknown"):
        connect(sshd, tmp_path, tmp_path)


@pytest.mark.parametrize("accept_new", [False, True])
def test_changed_host_key_is_always_refused(tmp_path: Path, sshd: Any, accept_new: bool) -> None:
    other = tmp_path / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)],
                   check=True, capture_output=True)
    kind, b64 = other.with_suffix(".pub").read_text().split()[:2]
    pinned = f"[127.0.0.1]:{sshd.port} {kind} {b64}\n"
    (tmp_path / "known_hosts").write_text(pinned)
    with pytest.raises(HostKeyError, match="does not match the pinned ssh-ed25519 key"):
        connect(sshd, tmp_path, tmp_path, accept_new=accept_new)
    assert (tmp_path / "known_hosts").read_text() == pinned


def test_wrong_client_key_fails_authentication(tmp_path: Path, sshd: Any) -> None:
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)],
                   check=True, capture_output=True)
    (tmp_path / "known_hosts").write_text(sshd.host_key_line)
    before = set(threading.enumerate())
    with pytest.raises(TransportError, match="authentication as"):
        SshTransport(parse_target(sshd.target(tmp_path)), known_hosts=tmp_path / "known_hosts",
                     identity=stranger, ssh_config=tmp_path / "none", use_agent=False,
                     user_known_hosts=tmp_path / "none2", connect_retries=0)
    assert set(threading.enumerate()) == before


def test_nothing_listening_is_a_transport_error_after_retries(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(TransportError, match="cannot connect"):
        SshTransport(parse_target(f"root@127.0.0.1:{port}:/x"),
                     known_hosts=tmp_path / "kh", ssh_config=tmp_path / "none",
                     use_agent=False, connect_retries=2, backoff=0.01)


def test_ssh_config_alias_port_user_and_proxyjump(tmp_path: Path, sshd: Any) -> None:
    (tmp_path / "known_hosts").write_text(sshd.host_key_line)
    config = tmp_path / "ssh_config"
    config.write_text(
        f"Host jump\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  IdentityFile {sshd.client_key}\n"
        f"Host gpubox\n  HostName 127.0.0.1\n  Port {sshd.port}\n  User {sshd.user}\n"
        f"  ProxyJump jump\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "a.txt").write_text("hello\n")
    t = connect(sshd, tmp_path, tmp_path, target=f"gpubox:{tmp_path / 'data'}",
                ssh_config=config)
    try:
        assert len(t._chain) == 2  # through the jump host
        assert [s.name for s in t.list_dir("")] == ["a.txt"]
        assert b"".join(t.read("a.txt")) == b"hello\n"
    finally:
        t.close()


@pytest.mark.parametrize("hasher", ["python", "coreutils"])
def test_names_with_unicode_line_separators_are_hashed(tmp_path: Path, sshd: Any,
                                                       hasher: str) -> None:
    # U+2028 and U+0085 are no line breaks of the hasher's output (one line per file, ended by
    # "\n"): read with str.splitlines(), such a name was cut in two and reported never hashed
    root = tmp_path / "box"
    root.mkdir()
    names = ["notes\u2028v2.txt", "log\x85.txt", "plain.txt"]
    for name in names:
        (root / name).write_bytes(name.encode() * 3)
    t = connect(sshd, root, tmp_path, accept_new=True, hasher=hasher)
    try:
        got = t.hash_files(names)
    finally:
        t.close()  # (its reader thread must not outlive the test: fanout forks only alone)
    assert sorted(got) == sorted(names)
    for name in names:
        assert got[name].sha256 == hashlib.sha256(name.encode() * 3).hexdigest()
