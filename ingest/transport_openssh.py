"""Bulk file bytes over the system OpenSSH client: the fast path of an SSH pull.

paramiko's SFTP is pure Python and moves about a quarter of what ``scp`` moves on the same link;
the OpenSSH client does the cipher work in C. So an `SshTransport` keeps paramiko for what must be
judged in-process (host key, listing, the remote hash command) and streams the *bytes* of many
files through one ``ssh`` process running a tiny sender on the box.

Invariants:

* **No weaker host-key rule.** The ``ssh`` process runs with ``StrictHostKeyChecking=yes``
  against the same two known_hosts files paramiko checked (labledger's pins first), so it can
  only reach a host whose key is already pinned; it never adds one. ``BatchMode=yes``: it never
  prompts. A password login (``--password-stdin``) is answered by an askpass helper instead
  (``SSH_ASKPASS_REQUIRE=force``, a script in a private temp folder that prints the password
  from the ``ssh`` process's environment, readable by the same user and root only, as that
  user's files are); it is offered to the password and keyboard-interactive methods once, so a
  second factor fails the login and the caller falls back to SFTP, as it does wherever this
  path cannot start.
* **Framing cannot be confused by file contents.** For each requested ``(offset, name)`` the
  sender writes ``F <n>\\n`` and then exactly ``n`` bytes (``n`` = size at open minus offset;
  a file that shrinks while being sent is padded with zeros, which the receiver's SHA-256
  comparison then rejects), or ``E <len>\\n<message>`` when the file cannot be opened as a
  regular file (links are never followed: ``O_NOFOLLOW``). An ``E`` is about that file alone
  (it vanished after the listing): the stream goes on, and only that file's chunks raise
  `FileUnreadableError`.
* Any failure (no ``ssh`` binary, refused login, a cut connection, a short stream) raises
  `TransportError`; bytes already handed out stay valid, so the caller resumes from them.
* The ``ssh`` process runs in a session of its own, so a Ctrl-C reaches labledger only; the
  stream is stopped by `FileStream.close` on the way out.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from labledger.ingest.errors import TransportError
from labledger.ingest.ssh_url import url_host
from labledger.ingest.transport import FileUnreadableError

_READ = 1 << 20

# Runs on the box under python3 (any version >= 3.3); reads "offset\0name\0..." on stdin.
_SENDER = r"""
import os, stat, sys
items = sys.stdin.buffer.read().split(b"\0")
out = sys.stdout.buffer
out.flush()
fd1 = sys.stdout.fileno()
def put(b):
    v = memoryview(b)
    while v:
        v = v[os.write(fd1, v):]
for i in range(0, len(items) - 1, 2):
    off, name = int(items[i]), items[i + 1]
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as e:
        msg = (e.strerror or str(e)).encode("utf-8", "replace")
        put(b"E %d\n" % len(msg) + msg)
        continue
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            msg = b"not a regular file"
            put(b"E %d\n" % len(msg) + msg)
            continue
        n = max(st.st_size - off, 0)
        put(b"F %d\n" % n)
        pos, left = off, n
        while left:
            try:
                k = os.sendfile(fd1, fd, pos, min(left, 1 << 24))
            except (OSError, AttributeError):
                os.lseek(fd, pos, 0)
                b = os.read(fd, min(left, 1 << 20))
                k = len(b)
                if k:
                    put(b)
            if k == 0:
                put(bytes(min(left, 1 << 20)))
                k = min(left, 1 << 20)
            pos += k
            left -= k
    finally:
        os.close(fd)
"""


def has_aes_ni() -> bool:
    """Whether this CPU has AES instructions (then AES-GCM is the cheapest SSH cipher)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return " aes " in f" {line.split(':', 1)[1].strip()} "
    except OSError:
        pass
    return False


@functools.cache
def has_known_hosts_command(ssh: str) -> bool:
    """Whether this ssh knows ``KnownHostsCommand`` (OpenSSH 8.5 and later; an older one
    refuses the option, and has no such command to turn off)."""
    try:
        said = subprocess.run([ssh, "-V"], capture_output=True, check=False, timeout=10).stderr
    except (OSError, subprocess.SubprocessError):
        return False
    m = re.search(rb"OpenSSH_(\d+)\.(\d+)", said)
    return m is not None and (int(m[1]), int(m[2])) >= (8, 5)


@dataclass(frozen=True)
class OpenSshLogin:
    """How to reach the box with the ``ssh`` binary, mirroring the paramiko connection."""

    host: str  # as the user wrote it: ~/.ssh/config aliases and ProxyJump apply
    port: int
    user: str
    known_hosts: tuple[Path, ...]
    identity: Path | None = None
    ssh_config: Path | None = None  # None: the user's default (~/.ssh/config)
    use_agent: bool = True
    timeout: float = 20.0
    password: str | None = field(default=None, repr=False)  # never shown in a repr or a log
    # the name paramiko checked the key under ("host" or "[host]:port"): the same entry, and
    # none other, is what this connection may trust
    host_key_alias: str | None = None

    def argv(self, remote_command: str) -> list[str]:
        exe = shutil.which("ssh")
        if exe is None:
            raise TransportError(f"ssh://{url_host(self.host)}", "no ssh client on PATH")
        files = " ".join(f'"{p}"' for p in self.known_hosts)
        ciphers = ("aes128-gcm@openssh.com,aes256-gcm@openssh.com,chacha20-poly1305@openssh.com"
                   if has_aes_ni() else
                   "chacha20-poly1305@openssh.com,aes128-gcm@openssh.com,aes256-gcm@openssh.com")
        ciphers += ",aes128-ctr,aes192-ctr,aes256-ctr"
        if self.password is None:
            login = ["-o", "BatchMode=yes"]
        else:  # answered by the askpass helper (`askpass_env`), once, and never a key
            login = ["-o", "BatchMode=no", "-o", "NumberOfPasswordPrompts=1",
                     "-o", "PreferredAuthentications=password,keyboard-interactive"]
        argv = [exe, "-T", "-e", "none", "-x", "-a", *login,
                "-o", "StrictHostKeyChecking=yes",
                # the command line wins over the user's config: nothing there widens what is
                # trusted (a KnownHostsCommand's keys, a HostKeyAlias, SSHFP records)
                *(["-o", f"HostKeyAlias={self.host_key_alias}"] if self.host_key_alias else []),
                "-o", "VerifyHostKeyDNS=no",
                *(["-o", "KnownHostsCommand=none"] if has_known_hosts_command(exe) else []),
                "-o", f"UserKnownHostsFile={files}", "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "UpdateHostKeys=no", "-o", "CheckHostIP=no",
                "-o", f"ConnectTimeout={max(1, int(self.timeout))}",
                "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4",
                "-o", f"Ciphers={ciphers}", "-o", "Compression=no",
                "-p", str(self.port), "-l", self.user]
        if self.ssh_config is not None:
            argv += ["-F", str(self.ssh_config) if self.ssh_config.is_file() else "/dev/null"]
        if self.identity is not None:
            argv += ["-i", str(self.identity), "-o", "IdentitiesOnly=yes"]
        if not self.use_agent:
            argv += ["-o", "IdentityAgent=none"]
        return [*argv, "--", self.host, remote_command]

    def askpass_env(self, folder: Path) -> dict[str, str] | None:
        """The environment that has ``ssh`` take the password from an askpass helper written
        into ``folder`` (a private temp folder), or None without a password."""
        if self.password is None:
            return None
        helper = folder / "askpass"
        helper.write_text('#!/bin/sh\nprintf \'%s\\n\' "$LABLEDGER_SSH_PASSWORD"\n',
                          encoding="ascii")
        helper.chmod(0o700)
        return {**os.environ, "SSH_ASKPASS": str(helper), "SSH_ASKPASS_REQUIRE": "force",
                # OpenSSH before 8.4 asks the helper only with a DISPLAY and no terminal (the
                # stream runs in a session of its own, so it has none)
                "DISPLAY": os.environ.get("DISPLAY") or ":0",
                "LABLEDGER_SSH_PASSWORD": self.password}


class SshCommandLine(Protocol):
    """What `FileStream` needs of a login: `OpenSshLogin`, or a multiplexed connection's
    (`labledger.ingest.transport_mux`)."""

    @property
    def password(self) -> str | None: ...

    def argv(self, remote_command: str) -> list[str]: ...

    def askpass_env(self, folder: Path) -> dict[str, str] | None: ...


class FileStream:
    """One ``ssh`` process streaming many files; iterate `files` in request order."""

    def __init__(self, login: SshCommandLine, root: str, items: Sequence[tuple[str, int]],
                 source: str, *, python: str = "python3") -> None:
        self.source = source
        self.items = list(items)
        command = (f"cd -- {shlex.quote(root)} || exit 97; "
                   f"exec {shlex.quote(python)} -c {shlex.quote(_SENDER)}")
        self._askpass: Path | None = None
        try:
            env = None
            if login.password is not None:
                self._askpass = Path(tempfile.mkdtemp(prefix="labledger-askpass-"))
                env = login.askpass_env(self._askpass)
            # In a session of its own: a Ctrl-C at the terminal goes to labledger alone, which
            # stops the stream itself (`close`), instead of killing ``ssh`` under a running
            # read first (a cut stream read as a transport failure, then retried over SFTP).
            self.proc = subprocess.Popen(
                login.argv(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, bufsize=0, close_fds=True, start_new_session=True,
                env=env)
        except OSError as exc:
            self._drop_askpass()
            raise TransportError(source, f"cannot start ssh: {exc}") from exc
        except BaseException:
            self._drop_askpass()
            raise
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self._fd = self.proc.stdout.fileno()
        try:
            import fcntl

            fcntl.fcntl(self._fd, 1031, 1 << 20)  # F_SETPIPE_SZ: fewer, larger reads
        except (OSError, ImportError):
            pass
        request = b"".join(b"%d\0%s\0" % (off, os.fsencode(rel)) for rel, off in self.items)
        try:
            self.proc.stdin.write(request)
            self.proc.stdin.close()
        except OSError as exc:
            self.close()
            raise TransportError(source, f"ssh refused the file list: {self._why()}") from exc
        self._buf = bytearray()

    def _why(self) -> str:
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "no answer"
        err = self.proc.stderr.read() if self.proc.stderr is not None else b""
        last = (err.decode("utf-8", "replace").strip().splitlines() or [""])[-1]
        code = self.proc.returncode
        if code == 97:
            return "cannot enter the directory on the box"
        if code == 127:
            return "the box has no python3"
        return f"ssh exited {code}" + (f": {last}" if last else "")

    def _fill(self, want: int) -> None:
        while len(self._buf) < want:
            chunk = os.read(self._fd, _READ)
            if not chunk:
                raise TransportError(self.source, f"the stream ended early ({self._why()})")
            self._buf += chunk

    def _line(self) -> bytes:
        while True:
            i = self._buf.find(b"\n")
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[:i + 1]
                return line
            if len(self._buf) > 64:
                raise TransportError(self.source, "the stream is not in the expected framing")
            self._fill(len(self._buf) + 1)

    def files(self) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        """Yield ``(rel, offset, chunks)`` per requested file; consume ``chunks`` fully first.

        A file the box could not open yields chunks that raise `FileUnreadableError` naming it;
        the stream itself goes on to the next file.
        """
        try:
            for rel, offset in self.items:
                tag, _, num = self._line().partition(b" ")
                if tag == b"E":
                    n = int(num)
                    self._fill(n)
                    msg = bytes(self._buf[:n]).decode("utf-8", "replace")
                    del self._buf[:n]
                    yield rel, offset, self._unreadable(rel, msg)
                    continue
                if tag != b"F" or not num.isdigit():
                    raise TransportError(self.source, "the stream is not in the expected framing")
                yield rel, offset, self._chunks(int(num))
        except OSError as exc:
            raise TransportError(self.source, f"reading the stream failed: {exc}") from exc

    def _unreadable(self, rel: str, message: str) -> Iterator[bytes]:
        raise FileUnreadableError(self.source, rel, message)
        yield b""  # unreachable: makes this a generator, so it raises when consumed

    def _chunks(self, n: int) -> Iterator[bytes]:
        left = n
        if self._buf:
            head = bytes(self._buf[:left])
            del self._buf[:len(head)]
            left -= len(head)
            yield head
        while left:
            chunk = os.read(self._fd, min(left, _READ))
            if not chunk:
                raise TransportError(self.source, f"the stream ended early ({self._why()})")
            if len(chunk) > left:  # cannot happen: reads are capped at `left`
                raise TransportError(self.source, "the stream is not in the expected framing")
            left -= len(chunk)
            yield chunk

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for f in (self.proc.stdout, self.proc.stderr):
            if f is not None:
                f.close()
        self._drop_askpass()

    def _drop_askpass(self) -> None:
        if self._askpass is not None:
            shutil.rmtree(self._askpass, ignore_errors=True)
            self._askpass = None
