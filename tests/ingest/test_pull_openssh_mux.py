"""`--ssh openssh`: a pull through the system ssh over ONE master connection
(`labledger.ingest.transport_mux`), against real OpenSSH sshd instances on 127.0.0.1: the whole
pull logs in once, a second factor is answered once at a real pseudo-terminal, the master never
outlives the pull (done, refused, Ctrl-C), and host keys are refused as the paramiko path
refuses them."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labledger.ingest.errors import HostKeyError, SecondFactorError, TransportError
from labledger.ingest.pull import pull
from labledger.ingest.transport_mux import MuxTransport
from labledger.ingest.transport_ssh import SshTransport, parse_target
from labledger.ledger.ledger import Ledger
from tests.conftest import Sshd, at_terminal
from tests.ingest.test_pull_logins import (  # noqa: F401 - password_sshd: the password user
    LABLEDGER,
    PW_PASSWORD,
    PW_USER,
    password_sshd,
    pulled_paths,
    small_box,
)


# -- helpers --------------------------------------------------------------------------------------
@pytest.fixture
def scratch() -> Iterator[Path]:
    """A short, world-readable folder (a unix socket path has ~100 bytes; the password user must
    read what is under it): the transport's TMPDIR, a box, an sshd's files."""
    folder = Path(tempfile.mkdtemp(prefix="lmux-", dir="/tmp"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def private_tmp(scratch: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where this process's transport puts its master's folder, to see that it goes."""
    folder = scratch / "t"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def processes_naming(text: str) -> list[int]:
    """Live processes whose command line holds ``text`` (a master's socket folder)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if text.encode() in cmdline and state != b"Z":
            found.append(int(entry))
    return found


def log_mark(server: Sshd) -> int:
    return (server.folder / "sshd.log").stat().st_size


def log_since(server: Sshd, mark: int) -> str:
    with open(server.folder / "sshd.log", "rb") as fh:
        fh.seek(mark)
        return fh.read().decode("utf-8", "replace")


def mux(server: Sshd, box: Path, known_hosts: Path, **kw: Any) -> MuxTransport:
    kw.setdefault("identity", server.client_key)
    kw.setdefault("ssh_config", known_hosts.parent / "no_ssh_config")
    kw.setdefault("user_known_hosts", known_hosts.parent / "no_user_known_hosts")
    return MuxTransport(parse_target(server.target(box)), known_hosts=known_hosts,
                        use_agent=False, prompt=False, connect_retries=0, **kw)


def paramiko_box(server: Sshd, box: Path, known_hosts: Path, **kw: Any) -> SshTransport:
    kw.setdefault("identity", server.client_key)
    kw.setdefault("ssh_config", known_hosts.parent / "no_ssh_config")
    kw.setdefault("user_known_hosts", known_hosts.parent / "no_user_known_hosts")
    return SshTransport(parse_target(server.target(box)), known_hosts=known_hosts,
                        use_agent=False, connect_retries=0, **kw)


def pull_events(ledger: Ledger) -> list[tuple[str, dict[str, Any]]]:
    return [(r.kind, r.body_dict()) for r in ledger.records()
            if r.kind in ("pull.listed", "artifact.pulled")]


@pytest.fixture(scope="module")
def verbose_sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sshd]:
    """An sshd that logs each login ("Accepted publickey for ..."), to count them."""
    server = Sshd(tmp_path_factory.mktemp("sshd-verbose"), extra=("LogLevel VERBOSE",))
    yield server
    server.stop()


# -- one login for the whole pull ------------------------------------------------------------------
def test_a_whole_pull_logs_in_once_and_records_what_paramiko_records(
        ledger: Ledger, tmp_path: Path, verbose_sshd: Sshd, scratch: Path,
        private_tmp: Path) -> None:
    box = small_box(scratch / "box")
    (box / "ckpt").mkdir()
    (box / "ckpt" / "link.pth").symlink_to("../big.dat")  # listed as a link, refused, as before
    known = tmp_path / "known_hosts"
    known.write_text(verbose_sshd.host_key_line)
    through_paramiko = Ledger.init(tmp_path / "other")
    try:
        transport: Any = paramiko_box(verbose_sshd, box, known)
        try:
            baseline = pull(through_paramiko, transport, run="r1", verify_checkpoints=False)
        finally:
            transport.close()
        expected = pull_events(through_paramiko)
    finally:
        through_paramiko.close()

    mark = log_mark(verbose_sshd)
    transport = mux(verbose_sshd, box, known)
    master, folder = transport._master_pid, transport._dir
    assert master is not None
    assert folder is not None
    assert processes_naming(str(folder))
    try:
        report = pull(ledger, transport, run="r1", verify_checkpoints=False)
    finally:
        transport.close()
    assert report.counts() == baseline.counts()
    assert report.refused == baseline.refused == [
        "ckpt/link.pth: symlink to ../big.dat; refused (pass --allow-symlinks to record it as a "
        "link; it is never followed)"]
    assert pull_events(ledger) == expected  # the same listing, hashes, sizes and sources
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]
    log = log_since(verbose_sshd, mark)
    assert log.count("Accepted publickey") == 1, log  # probe, walk, hash, stream: one login
    # nothing outlives it: no ssh naming the master's folder, and no folder
    assert processes_naming(str(folder)) == []
    assert not folder.exists()
    assert list(private_tmp.iterdir()) == []


# -- a second factor, at a real terminal -----------------------------------------------------------
@pytest.fixture
def two_factor_sshd(password_sshd: Any, scratch: Path) -> Iterator[Sshd]:  # noqa: F811
    """A box that wants the key AND the password (``AuthenticationMethods publickey,password``,
    as a cluster asks for a Duo code after the key); its files are readable by the password user
    (password_sshd made it), who logs in with the fixture's client key."""
    server = Sshd(scratch / "sshd", password_auth=True,
                  extra=("LogLevel VERBOSE", "AuthenticationMethods publickey,password"))
    for path in (server.folder, server.folder / "authorized_keys"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield server
    server.stop()


# The ~/.ssh/config a cluster's users are told to write, in the shape of the Yale Center for
# Research Computing's sample (ycrc/ycrc.github.io, docs/clusters-at-yale/access/sample-config.md):
# ControlMaster auto with a ControlPath under ~/.ssh, then one alias per login node. labledger
# opens its own master: the user's ControlPath stays unused (a master it did not open was checked
# against keys it cannot see).
def cluster_config(home: Path, server: Sshd) -> Path:
    (home / ".ssh" / "sockets").mkdir(parents=True)
    config = home / ".ssh" / "config"
    config.write_text(
        "# one Duo prompt per day: reuse the first connection\n"
        "ControlMaster auto\n"
        f"ControlPath {home}/.ssh/sockets/%h_%p_%r\n"
        "ControlPersist 8h\n\n"
        "Host hpc-login\n"
        "     HostName 127.0.0.1\n"
        f"     Port {server.port}\n"
        f"     User {PW_USER}\n"
        f"     IdentityFile {server.client_key}\n")
    return config


def test_a_second_factor_is_asked_once_at_the_terminal(
        ledger: Ledger, tmp_path: Path, two_factor_sshd: Sshd, scratch: Path,
        project: Path) -> None:
    box = small_box(scratch / "box")
    for p in [box, *box.rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)
    home = scratch / "home"
    config = cluster_config(home, two_factor_sshd)
    (project / ".labledger" / "known_hosts").write_text(
        two_factor_sshd.host_key_line)
    env = {**os.environ, "HOME": str(home), "SSH_AUTH_SOCK": "", "TMPDIR": str(scratch)}
    pull_argv = [str(LABLEDGER), "pull", "--run", "r1", "--from", f"hpc-login:{box}",
                 "--no-verify", "--ssh-config", str(config)]
    # (ssh names the host by its HostKeyAlias, the name its key is pinned under)
    prompt = f"{PW_USER}@[127.0.0.1]:{two_factor_sshd.port}'s password:".encode()

    # paramiko alone cannot: the key is accepted, the password it cannot prompt for
    code, seen, answered = at_terminal([*pull_argv, "--ssh", "paramiko"], env, project,
                                       {prompt: PW_PASSWORD.encode()})
    assert code == 1, seen
    assert answered == 0, seen
    assert b"needs a second factor" in seen, seen
    assert b"Traceback" not in seen
    assert pulled_paths(ledger) == []

    mark = log_mark(two_factor_sshd)
    code, seen, answered = at_terminal(pull_argv, env, project, {prompt: PW_PASSWORD.encode()})
    assert code == 0, seen
    assert answered == 1, seen
    assert seen.count(prompt) == 1, seen  # asked once, for the whole pull
    assert PW_PASSWORD.encode() not in seen  # typed without echo
    assert b"logging in through OpenSSH" in seen
    assert pulled_paths(ledger) == ["big.dat", "run.json", "test/t1/metrics.json"]
    log = log_since(two_factor_sshd, mark)
    assert log.count(f"Accepted password for {PW_USER}") == 1, log
    # the user's ControlPath was not used, and labledger's own master is gone with its folder
    assert list((home / ".ssh" / "sockets").iterdir()) == []
    assert processes_naming(str(scratch / "labledger-mux-")) == []
    assert [p.name for p in scratch.iterdir() if p.name.startswith("labledger-mux-")] == []


def test_paramiko_reports_a_second_factor_it_cannot_answer(
        tmp_path: Path, two_factor_sshd: Sshd, scratch: Path) -> None:
    known = tmp_path / "known_hosts"
    known.write_text(two_factor_sshd.host_key_line)
    target = parse_target(f"{PW_USER}@127.0.0.1:{two_factor_sshd.port}:{scratch}")
    with pytest.raises(SecondFactorError) as info:
        SshTransport(target, known_hosts=known, identity=two_factor_sshd.client_key,
                     use_agent=False, ssh_config=tmp_path / "none",
                     user_known_hosts=tmp_path / "none2", connect_retries=0)
    assert info.value.methods == ["password"]
    assert "--ssh openssh" in str(info.value)


# -- nothing outlives it ---------------------------------------------------------------------------
def test_a_refused_login_leaves_no_master(tmp_path: Path, verbose_sshd: Sshd, scratch: Path,
                                          private_tmp: Path) -> None:
    stranger = tmp_path / "stranger"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stranger)],
                   check=True, capture_output=True)
    known = tmp_path / "known_hosts"
    known.write_text(verbose_sshd.host_key_line)
    with pytest.raises(TransportError, match="authentication as .* failed") as info:
        mux(verbose_sshd, small_box(scratch / "box"), known, identity=stranger)
    assert "Traceback" not in str(info.value)
    assert list(private_tmp.iterdir()) == []
    assert processes_naming(str(private_tmp)) == []


def slow_hashing_box(scratch: Path, marker: Path) -> tuple[Path, Path]:
    """A bin folder whose python3 runs the real one, but for the hash batch: that one says it
    started (``marker`` holds its pid) and then takes a minute, so a test can interrupt a pull
    mid-way."""
    bindir = scratch / "bin"
    bindir.mkdir()
    python = bindir / "python3"
    python.write_text("#!/bin/sh\n"
                      f'case "$*" in *hashlib*) echo $$ > {marker}; exec sleep 60;; esac\n'
                      f'exec {sys.executable} "$@"\n')
    python.chmod(0o755)
    return bindir, python


def test_ctrl_c_mid_pull_stops_the_master(ledger: Ledger, tmp_path: Path, scratch: Path,
                                          project: Path) -> None:
    marker = scratch / "hashing"
    bindir, _ = slow_hashing_box(scratch, marker)
    (scratch / "home").mkdir()  # no start-up file puts another python3 first on the PATH
    server = Sshd(scratch / "sshd",
                  extra=(f"SetEnv PATH={bindir}:/usr/bin:/bin HOME={scratch / 'home'}",))
    children = scratch / "t"
    children.mkdir()
    try:
        box = small_box(scratch / "box")
        (project / ".labledger" / "known_hosts").write_text(server.host_key_line)
        env = {**os.environ, "HOME": str(tmp_path), "SSH_AUTH_SOCK": "",
               "TMPDIR": str(children)}
        # Its own session and process group, no terminal: a Ctrl-C is SIGINT to that group.
        proc = subprocess.Popen(
            [str(LABLEDGER), "pull", "--run", "r1", "--from", server.target(box),
             "--identity", str(server.client_key), "--ssh", "openssh", "--no-verify",
             "--ssh-config", str(tmp_path / "none")],
            cwd=project, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            deadline = time.monotonic() + 60
            while not marker.exists() or not marker.read_text().strip():
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the box never started hashing"
                time.sleep(0.05)
            assert processes_naming(str(children))  # the master (and the hash's client) run
            os.killpg(proc.pid, signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        assert proc.returncode == 130, err
        assert b"Traceback" not in err
        assert processes_naming(str(children)) == []
        assert list(children.iterdir()) == []
    finally:
        server.stop()
        if marker.exists() and marker.read_text().strip():  # the box's half: its hash
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(marker.read_text()), signal.SIGKILL)


# -- host keys: refused exactly as paramiko refuses them ---------------------------------------
def test_an_unpinned_host_key_is_refused_as_paramiko_refuses_it(
        tmp_path: Path, verbose_sshd: Sshd, scratch: Path, private_tmp: Path) -> None:
    box = small_box(scratch / "box")
    known = tmp_path / "known_hosts"
    errors: list[HostKeyError] = []
    for connect in (paramiko_box, mux):
        with pytest.raises(HostKeyError) as info:
            connect(verbose_sshd, box, known)
        errors.append(info.value)
    assert str(errors[1]) == str(errors[0])  # the same fingerprint, the same words
    assert errors[1].to_json() == errors[0].to_json()
    assert "is unknown" in str(errors[0])
    assert not known.exists()  # nothing pinned
    assert list(private_tmp.iterdir()) == []

    # --accept-new-host-key pins the same line paramiko pins; the next login needs no flag
    mux(verbose_sshd, box, known, accept_new=True).close()
    pinned = known.read_text()
    known.unlink()
    paramiko_box(verbose_sshd, box, known, accept_new=True).close()
    assert pinned == known.read_text() == verbose_sshd.host_key_line
    mux(verbose_sshd, box, known).close()


def test_a_changed_host_key_is_refused_as_paramiko_refuses_it(
        tmp_path: Path, verbose_sshd: Sshd, scratch: Path, private_tmp: Path) -> None:
    other = tmp_path / "other_host_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)],
                   check=True, capture_output=True)
    kind, blob = (tmp_path / "other_host_key.pub").read_text().split()[:2]
    known = tmp_path / "known_hosts"
    known.write_text(f"[127.0.0.1]:{verbose_sshd.port} {kind} {blob}\n")
    box = small_box(scratch / "box")
    errors = []
    for connect in (paramiko_box, mux):
        for accept_new in (False, True):  # a changed key is refused, flag or not
            with pytest.raises(HostKeyError) as info:
                connect(verbose_sshd, box, known, accept_new=accept_new)
            errors.append(str(info.value))
    assert len(set(errors)) == 1, errors
    assert "does not match the pinned ssh-ed25519 key" in errors[0]
    assert known.read_text() == f"[127.0.0.1]:{verbose_sshd.port} {kind} {blob}\n"
    assert list(private_tmp.iterdir()) == []


def test_a_jump_host_is_reached_with_the_same_checking(ledger: Ledger, tmp_path: Path,
                                                       verbose_sshd: Sshd, scratch: Path,
                                                       private_tmp: Path) -> None:
    """ProxyJump hops run as ``ssh -W`` processes carrying labledger's host-key options (ssh's
    own ProxyJump would check them against the user's files only); the pull logs in twice, once
    at the hop and once at the box, for the whole pull."""
    from tests.ingest.test_pull_logins import write_config

    config = write_config(tmp_path, verbose_sshd, "  ProxyJump jump\n")
    box = small_box(scratch / "box")
    mark = log_mark(verbose_sshd)
    transport = MuxTransport(parse_target(f"gpubox:{box}"), known_hosts=tmp_path / "known_hosts",
                             ssh_config=config, user_known_hosts=tmp_path / "none",
                             use_agent=False, prompt=False, connect_retries=0)
    try:
        report = pull(ledger, transport, run="r1", verify_checkpoints=False)
    finally:
        transport.close()
    assert report.ok, report.to_json()
    assert transport.source.startswith(f"ssh://{verbose_sshd.user}@gpubox:{verbose_sshd.port}/")
    assert log_since(verbose_sshd, mark).count("Accepted publickey") == 2
    assert processes_naming(str(private_tmp)) == []

    (tmp_path / "known_hosts").write_text("")  # the hop's key is pinned nowhere: refused
    with pytest.raises(TransportError):
        MuxTransport(parse_target(f"gpubox:{box}"), known_hosts=tmp_path / "known_hosts",
                     ssh_config=config, user_known_hosts=tmp_path / "none", use_agent=False,
                     prompt=False, connect_retries=0)
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("widening", [
    "KnownHostsCommand /bin/cat {key_file}",        # its output trusted beside the files
    "HostKeyAlias trusted-alias",                   # the key looked up under another name
    "StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null",
], ids=["KnownHostsCommand", "HostKeyAlias", "StrictHostKeyChecking"])
def test_the_users_config_cannot_widen_what_is_trusted(
        tmp_path: Path, verbose_sshd: Sshd, scratch: Path, private_tmp: Path,
        widening: str) -> None:
    """The master reads the user's ssh config (aliases, ports, users, jump hosts), and OpenSSH
    takes a config's KnownHostsCommand or HostKeyAlias unless the command line sets them: a host
    whose key labledger's and the user's known_hosts both lack was reached (review). Both paths
    refuse it, in the same words."""
    box = small_box(scratch / "box")
    key_file = scratch / "served_key"
    key_file.write_text(verbose_sshd.host_key_line)
    user_known = tmp_path / "user_known_hosts"  # where HostKeyAlias would find its alias
    user_known.write_text("trusted-alias " + verbose_sshd.host_key_line.split(" ", 1)[1])
    config = tmp_path / "ssh_config"
    config.write_text("Host *\n  " + widening.format(key_file=key_file) + "\n")
    known = tmp_path / "known_hosts"
    errors = []
    for connect in (paramiko_box, mux):
        with pytest.raises(HostKeyError) as info:
            connect(verbose_sshd, box, known, ssh_config=config, user_known_hosts=user_known)
        errors.append(str(info.value))
    assert errors[1] == errors[0]
    assert "is unknown" in errors[0]
    assert not known.exists()
    assert list(private_tmp.iterdir()) == []


@pytest.mark.parametrize("folder", ["t d", "t%d"])
def test_a_temp_folder_with_a_space_or_a_percent_is_no_control_path(
        tmp_path: Path, verbose_sshd: Sshd, scratch: Path, monkeypatch: pytest.MonkeyPatch,
        folder: str) -> None:
    """ssh splits a ControlPath at a space and expands its %-tokens: with TMPDIR so named the
    master could not start (review); its socket now goes under /tmp."""
    tmp = scratch / folder
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    box = small_box(scratch / "box")
    known = tmp_path / "known_hosts"
    known.write_text(verbose_sshd.host_key_line)
    transport = mux(verbose_sshd, box, known)
    try:
        assert sorted(s.name for s in transport.list_dir("")) == sorted(
            p.name for p in box.iterdir())
    finally:
        transport.close()
    assert list(tmp.iterdir()) == []


def test_the_bulk_streams_ssh_trusts_only_what_paramiko_checked(tmp_path: Path) -> None:
    """A paramiko login's bytes stream through a second, OpenSSH connection
    (`transport_openssh.OpenSshLogin`): its options win over the user's config the same way,
    so that connection trusts the key paramiko checked, under its name, and nothing a config's
    KnownHostsCommand, HostKeyAlias or VerifyHostKeyDNS would add. Read back with ``ssh -G``,
    which evaluates the config as the connection would."""
    from labledger.ingest.transport_openssh import OpenSshLogin

    config = tmp_path / "ssh_config"
    config.write_text("Host *\n  KnownHostsCommand /bin/cat /etc/hostname\n"
                      "  HostKeyAlias evil\n  VerifyHostKeyDNS yes\n")
    login = OpenSshLogin(host="box", port=2222, user="root", known_hosts=(tmp_path / "kh",),
                         ssh_config=config, host_key_alias="[10.0.0.5]:2222")
    argv = login.argv("true")
    assert argv[-3:] == ["--", "box", "true"]
    shown = subprocess.run([*argv[:-3], "-G", "box"], capture_output=True, text=True,
                           check=True).stdout.splitlines()
    settings = dict(line.split(" ", 1) for line in shown if " " in line)
    assert settings["hostkeyalias"] == "[10.0.0.5]:2222"
    assert settings["verifyhostkeydns"] == "false"
    assert settings.get("knownhostscommand", "none") == "none"
    assert settings["stricthostkeychecking"] == "true"
