"""`MuxTransport`: a box reached only through the system OpenSSH client, over ONE connection.

For boxes paramiko cannot log in to: a second factor after the key (university clusters: a Duo
push or a TOTP code asked by keyboard-interactive, ``AuthenticationMethods
publickey,keyboard-interactive``), a password typed at the terminal, a key passphrase. The
transport opens an OpenSSH *master* connection of its own (``ssh -M -S SOCKET -N -f``): the user
answers whatever that login asks, once, on the terminal (ssh reads ``/dev/tty``); then every
operation (the python3 probe, the listing, the remote hash batch, the file stream, ``exists_dir``)
is ``ssh -S SOCKET`` over that master, with no new authentication. `connect` picks it (``labledger
pull --ssh auto|openssh|paramiko``).

Invariants:

* **Its own master, never the user's.** The user's ``ControlMaster``/``ControlPath`` (which
  ``ssh -G`` shows) is not reused: a master someone else opened was checked against whatever
  known_hosts and ``StrictHostKeyChecking`` that login used, and what key it saw cannot be asked
  afterwards. The master listens on ``s`` in a private 0700 temp folder (``mkdtemp``); clients run
  with ``-F /dev/null``, ``BatchMode=yes`` and ``ProxyCommand=false``, so when the master is gone
  a client fails at once instead of logging in again.
* **Same host-key rule as paramiko** (`labledger.ingest.transport_ssh`): the master, and every
  ``ProxyJump`` hop (rebuilt here as ``ProxyCommand`` ssh processes carrying the same options),
  run with ``StrictHostKeyChecking=yes`` against labledger's known_hosts then the user's
  (``GlobalKnownHostsFile=/dev/null``, ``CheckHostIP=no``, ``UpdateHostKeys=no``); with
  ``accept_new`` (``--accept-new-host-key``) ``accept-new``, which pins an unknown key in
  labledger's file (first in the list, unhashed, as paramiko writes it) and refuses a changed one.
  A refusal is the same `HostKeyError`, with the same words, as the paramiko path's.
* **Nothing left behind.** `close` (and every failure while connecting, Ctrl-C included) stops
  the clients it started, sends the master ``-O exit``, waits for its process to end (killing it
  after a few seconds), and removes the temp folder. ``ControlPersist`` bounds a master whose
  labledger was killed outright (SIGKILL): it exits after `IDLE_S` seconds with no session.
* **A python3 on the box is needed** (found by the same probe as the paramiko path,
  `labledger.ingest.transport_ssh._FIND_PYTHON3`): it lists (one walk of the whole tree, links
  never followed), hashes (`_PY_HASHER`) and sends (the file stream of
  `labledger.ingest.transport_openssh`). A box without one is `BoxPythonMissingError` (exit 1),
  said at connect, before anything is listed or recorded.
* A Ctrl-C while ssh prompts reaches ssh too (it shares labledger's terminal until it has logged
  in), so both stop; once logged in the master is in a session of its own (``-f``) and clients
  start in one, so a Ctrl-C reaches labledger alone, which closes them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from labledger.ingest.errors import (
    BoxPythonMissingError,
    HostKeyError,
    PullSourceError,
    SecondFactorError,
    TransportError,
)
from labledger.ingest.ssh_url import url_host
from labledger.ingest.transport import (
    FileUnreadableError,
    RemoteHash,
    RemoteStat,
    kind_of,
)
from labledger.ingest.transport_openssh import has_known_hosts_command
from labledger.ledger._words import counted

if TYPE_CHECKING:
    from labledger.ingest.transport import Transport
    from labledger.ingest.transport_ssh import SshTarget

SshMode = Literal["auto", "openssh", "paramiko"]
IDLE_S = 600  # ControlPersist: a master no labledger closed ends after this long with no session

# Runs on the box: lists the folders named on stdin ("rel\0recursive\0"), links never followed.
# Output, NUL-separated fields: D rel | X rel errno message | E name mode size link-target.
# A recursive walk skips the pulled folder's own .labledger (pull never lists it).
_WALKER = r"""
import os, stat, sys
rel, recursive = sys.stdin.buffer.read().split(b"\0")[:2]
out = sys.stdout.buffer
def put(*fields):
    out.write(b"".join(f + b"\0" for f in fields))
stack = [rel]
while stack:
    d = stack.pop()
    try:
        names = os.listdir(d or b".")
    except OSError as e:
        msg = (e.strerror or str(e)).encode("utf-8", "replace")
        put(b"X", d, b"%d" % (e.errno or 0), msg)
        continue
    put(b"D", d)
    for n in names:
        p = d + b"/" + n if d else n
        try:
            st = os.lstat(p)
        except OSError:
            continue
        t = b""
        if stat.S_ISLNK(st.st_mode):
            try:
                t = os.readlink(p)
            except OSError:
                pass
        put(b"E", n, b"%d" % st.st_mode, b"%d" % st.st_size, t)
        if recursive == b"1" and stat.S_ISDIR(st.st_mode) and (d or n != b".labledger"):
            stack.append(p)
"""

_PID = re.compile(r"pid=(\d+)")
_SERVER_KEY = re.compile(r"Server host key: (\S+) (SHA256:\S+)")
_OFFENDING = re.compile(r"Offending \S+ key in (.+):(\d+)")
# ssh's own words for a connection that never reached the login (retried, as paramiko's are)
_UNREACHED = ("Connection refused", "Connection timed out", "No route to host",
              "kex_exchange_identification", "Connection closed by", "Connection reset",
              "Could not resolve hostname", "Network is unreachable")


def terminal_available() -> bool:
    """Whether this process has a terminal ssh can prompt on (``/dev/tty`` opens)."""
    try:
        fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def connect(mode: SshMode, target: SshTarget, *, known_hosts: Path, accept_new: bool = False,
            identity: Path | None = None, password: str | None = None,
            ssh_config: Path | None = None,
            on_switch: Callable[[str], None] | None = None) -> Transport:
    """The transport ``labledger pull --ssh MODE`` uses for ``target``.

    ``paramiko``: `SshTransport` alone. ``openssh``: `MuxTransport` alone. ``auto`` (the
    default): paramiko, as for any key or password login; when the box accepts the first factor
    and asks for a second one paramiko cannot prompt for (`SecondFactorError`) and a terminal is
    there to answer it, OpenSSH logs in instead (``on_switch`` is told why first); without a
    terminal the error stands.
    """
    if mode == "openssh":
        return MuxTransport(target, known_hosts=known_hosts, accept_new=accept_new,
                            identity=identity, ssh_config=ssh_config)
    from labledger.ingest.transport_ssh import SshTransport

    try:
        return SshTransport(target, known_hosts=known_hosts, accept_new=accept_new,
                            identity=identity, password=password, ssh_config=ssh_config)
    except SecondFactorError as exc:
        if mode != "auto" or not terminal_available():
            raise
        if on_switch is not None:
            on_switch(f"{exc.problem}: logging in through OpenSSH instead (answer its prompt "
                      f"once; --ssh openssh goes there directly)")
    return MuxTransport(target, known_hosts=known_hosts, accept_new=accept_new,
                        identity=identity, ssh_config=ssh_config)


class _Client:
    """The ssh command line of one operation over the master (for `FileStream`)."""

    password = None

    def __init__(self, mux: MuxTransport) -> None:
        self.mux = mux

    def argv(self, remote_command: str) -> list[str]:
        return self.mux.client_argv(remote_command)

    def askpass_env(self, folder: Path) -> dict[str, str] | None:
        return None


class MuxTransport:
    """A directory on a box, every byte through one OpenSSH master (module docstring)."""

    def __init__(self, target: SshTarget, *, known_hosts: Path, accept_new: bool = False,
                 identity: Path | None = None, ssh_config: Path | None = None,
                 user_known_hosts: Path | None = None, use_agent: bool = True,
                 prompt: bool | None = None, connect_retries: int = 3, backoff: float = 1.0,
                 timeout: float = 20.0) -> None:
        from labledger.ingest.transport_ssh import box_root

        exe = shutil.which("ssh")
        if exe is None:
            raise TransportError(f"ssh://{url_host(target.host)}", "--ssh openssh needs the "
                                 "OpenSSH client (ssh) on PATH, and there is none")
        self.ssh, self.target = exe, target
        self.known_hosts, self.accept_new = known_hosts, accept_new
        self.user_known_hosts = (user_known_hosts if user_known_hosts is not None
                                 else Path.home() / ".ssh" / "known_hosts")
        self.identity, self.use_agent, self.timeout = identity, use_agent, timeout
        self.connect_retries, self.backoff = connect_retries, backoff
        self.config_args = ([] if ssh_config is None else
                            ["-F", str(ssh_config) if ssh_config.is_file() else "/dev/null"])
        self.prompt = terminal_available() if prompt is None else prompt
        resolved = self._resolve()
        self.hostname = resolved.get("hostname", target.host)
        self.port = int(resolved.get("port", "22"))
        self.user = resolved.get("user") or os.environ.get("USER") or "root"
        self.jumps = resolved.get("proxyjump", "none")
        self.root, self.source = box_root(target, self.user, self.port)
        self.python: str | None = None
        self._dir: Path | None = None
        self._master_pid: int | None = None
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._streams: set[Any] = set()
        self._listed: dict[str, list[RemoteStat] | Exception] = {}
        try:
            self._connect_with_retries()
            self.python = self._find_python()
        except BaseException:
            self.close()  # a refused login, a Ctrl-C at the prompt: no master, no folder left
            raise

    # -- the master -------------------------------------------------------------------------------
    def _resolve(self) -> dict[str, str]:
        """``ssh -G``: the host as the user's config resolves it (HostName, Port, User...)."""
        return self._config_of(self._login_args(), self.target.host)

    def _config_of(self, login: list[str], host: str) -> dict[str, str]:
        """What ``ssh -G`` prints for ``host`` under the user's config, keys lower-cased (the
        first value of each kept, as ssh keeps it)."""
        argv = [self.ssh, *self.config_args, "-G", *login, "--", host]
        done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, check=False)
        if done.returncode != 0:
            raise TransportError(f"ssh://{url_host(host)}", "ssh -G cannot read the SSH config: "
                                 f"{_last_line(done.stderr)}")
        found: dict[str, str] = {}
        for line in done.stdout.decode("utf-8", "replace").splitlines():
            key, _, value = line.partition(" ")
            found.setdefault(key.lower(), value.strip())
        return found

    def _login_args(self) -> list[str]:
        return [*(["-l", self.target.user] if self.target.user else []),
                *(["-p", str(self.target.port)] if self.target.port else [])]

    def _checking(self, alias: str, *, batch: bool = False) -> list[str]:
        """The host-key rule and login options of the master and of every hop (``batch``:
        never prompt, even at a terminal). ``alias``: the name its key is pinned under, as
        paramiko pins it (``host`` or ``[host]:port``). Options from the command line win over
        the user's config, so none there can widen what is trusted: no ``KnownHostsCommand``
        (its output would be trusted beside the files), no ``HostKeyAlias`` (the key looked up
        under another name), no ``VerifyHostKeyDNS`` (a key trusted from SSHFP records)."""
        files = " ".join('"' + str(p).replace("%", "%%") + '"'
                         for p in (self.known_hosts, self.user_known_hosts))
        argv = ["-o", f"StrictHostKeyChecking={'accept-new' if self.accept_new else 'yes'}",
                "-o", f"HostKeyAlias={alias}", "-o", "VerifyHostKeyDNS=no",
                *(["-o", "KnownHostsCommand=none"] if has_known_hosts_command(self.ssh)
                  else []),
                "-o", f"UserKnownHostsFile={files}", "-o", "GlobalKnownHostsFile=/dev/null",
                "-o", "UpdateHostKeys=no", "-o", "CheckHostIP=no", "-o", "HashKnownHosts=no",
                "-o", f"BatchMode={'no' if self.prompt and not batch else 'yes'}",
                "-o", f"ConnectTimeout={max(1, int(self.timeout))}",
                "-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=4",
                "-o", "ClearAllForwardings=yes", "-o", "PermitLocalCommand=no",
                "-o", "LogLevel=INFO", "-x", "-a", "-T"]
        if self.identity is not None:
            argv += ["-i", str(self.identity), "-o", "IdentitiesOnly=yes"]
        if not self.use_agent:
            argv += ["-o", "IdentityAgent=none"]
        return argv

    def _hops(self, *, batch: bool = False) -> list[str]:
        """``ProxyCommand`` for the master when the config names ``ProxyJump`` hops: each hop an
        ``ssh -W`` with the same checking (ssh's own ProxyJump would not pass it on)."""
        if self.jumps.lower() == "none":
            return []
        command = "none"
        for hop in self.jumps.split(","):
            m = re.match(r"^(?:ssh://)?(?:(?P<user>[^@]+)@)?(?P<host>\[[^\]]+\]|[^:]+)"
                         r"(?::(?P<port>\d+))?$", hop.strip())
            if m is None:
                raise TransportError(self.source, f"ProxyJump {hop!r} is not [user@]host[:port]")
            words = [self.ssh, *self.config_args,
                     *self._checking(self._hop_alias(m["host"].strip("[]"), m["port"]),
                                     batch=batch),
                     "-o", "ControlMaster=no", "-o", "ControlPath=none",
                     "-o", f"ProxyCommand={command}",
                     *(["-l", m["user"]] if m["user"] else []),
                     *(["-p", m["port"]] if m["port"] else []),
                     "-W", "[%h]:%p", "--", m["host"].strip("[]")]
            # The ssh that runs this command expands %-tokens in it: every literal % doubled
            # (the command of the hop before is itself a literal here), but -W's own.
            command = " ".join(w if w == "[%h]:%p" else shlex.quote(w.replace("%", "%%"))
                               for w in words)
        return ["-o", f"ProxyCommand={command}"]

    @property
    def alias(self) -> str:
        """The name the box's key is pinned under (as paramiko pins it)."""
        from labledger.ingest.transport_ssh import _known_name

        return _known_name(self.hostname, self.port)

    def _hop_alias(self, host: str, port: str | None) -> str:
        """The name a ProxyJump hop's key is pinned under: its HostName and Port as the user's
        config resolves them (``ssh -G``), as the paramiko path names it."""
        from labledger.ingest.transport_ssh import _known_name

        found = self._config_of(["-p", port] if port else [], host)
        return _known_name(found.get("hostname", host), int(found.get("port") or port or 22))

    def _connect_with_retries(self) -> None:
        delay = self.backoff
        for attempt in range(self.connect_retries + 1):
            try:
                self._open_master()
                return
            except _Unreached as exc:
                if attempt == self.connect_retries:
                    raise TransportError(self.source, f"cannot connect: {exc}") from None
            time.sleep(delay)
            delay *= 2

    def _open_master(self) -> None:
        if self._dir is None:
            # A short folder: a unix socket path has ~100 bytes, and ssh adds 17 while binding;
            # and a plain one: ssh splits ControlPath at a space and expands its "%" tokens.
            base = tempfile.gettempdir()
            plain = len(base) <= 40 and _PLAIN_PATH.fullmatch(base) is not None
            self._dir = Path(tempfile.mkdtemp(prefix="labledger-mux-",
                                              dir=base if plain else "/tmp"))
        socket = self._dir / "s"
        argv = [self.ssh, *self.config_args, *self._checking(self.alias), *self._hops(),
                "-o", "ControlMaster=yes", "-o", f"ControlPath={socket}",
                "-o", f"ControlPersist={IDLE_S}", "-N", "-f", *self._login_args(),
                "--", self.target.host]
        # stderr: ssh's own messages (a banner, a failed login) are shown as they come when a
        # terminal is there, and kept to explain a failure. After logging in, the master goes
        # to the background (-f) with its stderr on /dev/null: the pipe ends there.
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        said: list[str] = []
        reader = threading.Thread(target=self._relay, args=(proc, said), daemon=True,
                                  name="labledger-ssh-stderr")
        reader.start()
        try:
            code = proc.wait()
        except BaseException:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            raise
        reader.join(5)
        if code != 0:
            self._login_failed("".join(said))
        try:
            self._master_pid = self._check()
        except subprocess.TimeoutExpired:
            self._master_pid = None
        if self._master_pid is None:
            raise TransportError(self.source, "ssh logged in but its control socket does not "
                                 "answer")

    def _relay(self, proc: subprocess.Popen[bytes], said: list[str]) -> None:
        assert proc.stderr is not None
        for raw in iter(proc.stderr.readline, b""):
            line = raw.decode("utf-8", "replace")
            said.append(line)
            if self.prompt:
                sys.stderr.write(line)
                sys.stderr.flush()
        proc.stderr.close()

    def _login_failed(self, said: str) -> None:
        """Raise what ssh's failed login means, in labledger's words."""
        last = _last_line(said.encode())
        if "Host key verification failed" in said:
            raise self._host_key_error(said)
        if "Permission denied" in said or "Too many authentication failures" in said:
            raise TransportError(self.source, f"authentication as {self.user} failed (ssh: "
                                 f"{last})")
        if any(word in said for word in _UNREACHED):
            raise _Unreached(last)
        raise TransportError(self.source, f"ssh could not log in: {last or 'no reason given'}")

    def _host_key_error(self, said: str) -> HostKeyError:
        """The `HostKeyError` paramiko would raise. ssh names the server's key only in its debug
        output: one more connection (``-v``, batch mode) is refused at the same check and says
        it, before any login."""
        from labledger.ingest.transport_ssh import changed_host_key, unknown_host_key

        argv = [self.ssh, *self.config_args, *self._checking(self.alias, batch=True),
                *self._hops(batch=True), "-o", "ControlMaster=no", "-o", "ControlPath=none",
                "-v", *self._login_args(), "--", self.target.host, "true"]
        try:
            probe = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL,
                                   check=False, timeout=self.timeout * 3)
            debug = probe.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            debug = ""  # the refusal stands; only the fingerprint goes unsaid
        key = _SERVER_KEY.search(debug)
        kind, fingerprint = (key[1], key[2]) if key else ("?", "(not shown by ssh)")
        name = self.hostname if self.port == 22 else f"[{self.hostname}]:{self.port}"
        if "has changed" not in said + debug:
            return unknown_host_key(name, fingerprint, self.known_hosts)
        pinned = "?"
        offending = _OFFENDING.search(said + debug)
        if offending is not None:
            pinned = _line_fingerprint(Path(offending[1]), int(offending[2]))
        return changed_host_key(name, fingerprint, kind, pinned,
                                (self.known_hosts, self.user_known_hosts))

    def _control(self, command: str) -> subprocess.CompletedProcess[bytes]:
        assert self._dir is not None
        return subprocess.run([self.ssh, "-F", "/dev/null", "-S", str(self._dir / "s"),
                               "-O", command, "labledger-box"], capture_output=True,
                              stdin=subprocess.DEVNULL, check=False, timeout=30)

    def _check(self) -> int | None:
        """The master's pid, or None when it does not answer."""
        done = self._control("check")
        found = _PID.search(done.stderr.decode("utf-8", "replace"))
        return int(found[1]) if done.returncode == 0 and found else None

    def _stop_master(self) -> None:
        if self._dir is None:
            return
        if (self._dir / "s").exists():
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                self._master_pid = self._check() or self._master_pid
                self._control("exit")
        pid, self._master_pid = self._master_pid, None
        if pid is not None:
            deadline = time.monotonic() + 5
            while _alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _alive(pid):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    # -- operations over the master -----------------------------------------------------------
    def client_argv(self, remote_command: str) -> list[str]:
        """One operation over the master. Never a login of its own: no config, batch mode, and
        a ``ProxyCommand`` that fails should the master be gone."""
        if self._dir is None:
            raise TransportError(self.source, "not connected")
        return [self.ssh, "-F", "/dev/null", "-S", str(self._dir / "s"),
                "-o", "ControlMaster=no", "-o", "BatchMode=yes", "-o", "ProxyCommand=false",
                "-o", "LogLevel=ERROR", "-T", "-x", "-a", "-e", "none",
                "--", "labledger-box", remote_command]

    def run(self, command: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
        """One remote command over the master: (exit code, stdout, stderr). Exit 255 (ssh's
        own failure: the master is gone) is a `TransportError`."""
        try:
            # In a session of its own: a Ctrl-C reaches labledger alone, which closes it.
            proc = subprocess.Popen(self.client_argv(command), stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    start_new_session=True)
        except OSError as exc:
            raise TransportError(self.source, f"cannot start ssh: {exc}") from exc
        with self._lock:
            self._running.add(proc)
        try:
            out, err = proc.communicate(stdin)
        finally:
            with self._lock:
                self._running.discard(proc)
        if proc.returncode == 255:
            raise TransportError(self.source, f"the connection to the box was lost (ssh: "
                                 f"{_last_line(err) or 'exit 255'})")
        return proc.returncode, out, err

    def _find_python(self) -> str:
        from labledger.ingest.transport_ssh import _FIND_PYTHON3

        code, out, _ = self.run(_FIND_PYTHON3)
        # The last line: a start-up file may have printed before the probe did.
        found = out.decode("utf-8", "surrogateescape").strip().rsplit("\n", 1)[-1].strip()
        if code != 0 or not found.startswith("/"):
            raise BoxPythonMissingError(self.source)
        return found

    def _in_root(self, body: str) -> str:
        root = shlex.quote(self.root)
        return (f"[ -e {root} ] || exit 96; [ -d {root} ] || exit 95; "
                f"cd -- {root} || exit 97; {body}")

    def _python(self, script: str) -> str:
        return self._in_root(f"exec {shlex.quote(self.python or 'python3')} -c "
                             f"{shlex.quote(script)}")

    def _root_problem(self, code: int) -> None:
        if code == 96:
            raise PullSourceError(self.source, f"{self.target.dir} does not exist on the box "
                                  f"(as {self.user}; a relative folder is under the login's "
                                  f"home)")
        if code == 95:
            raise PullSourceError(self.source, f"{self.target.dir} is not a folder on the box")
        if code == 97:
            raise TransportError(self.source, f"cannot enter {self.root} on the box")

    # -- Transport ----------------------------------------------------------------------------
    def list_dir(self, rel: str) -> list[RemoteStat]:
        """The root's listing walks the whole tree in one remote command; each folder's
        listing is then handed out once (a second listing of the same folder asks again)."""
        if rel not in self._listed:
            self._walk(rel, recursive=not rel)
        got = self._listed.pop(rel, None)
        if got is None:
            raise TransportError(self.source, f"cannot list {rel or '.'}: not in the answer")
        if isinstance(got, Exception):
            raise got
        return got

    def _walk(self, rel: str, *, recursive: bool) -> None:
        request = rel.encode("utf-8", "surrogateescape") + (b"\0" + b"1\0" if recursive
                                                            else b"\0" + b"0\0")
        code, out, err = self.run(self._python(_WALKER), request)
        self._root_problem(code)
        if code != 0:
            raise TransportError(self.source, f"cannot list {rel or '.'}: "
                                 f"{_last_line(err) or f'exit {code}'}")
        fields = out.split(b"\0")
        current: list[RemoteStat] | None = None
        i = 0
        while i < len(fields) - 1:
            tag = fields[i]
            if tag == b"D":
                current = []
                self._listed[_text(fields[i + 1])] = current
                i += 2
            elif tag == b"X":
                where, number, message = (_text(fields[i + 1]), int(fields[i + 2]),
                                          _text(fields[i + 3]))
                self._listed[where] = self._unlistable(where, number, message)
                current, i = None, i + 4
            elif tag == b"E" and current is not None:
                mode = int(fields[i + 2])
                kind = kind_of(mode)
                current.append(RemoteStat(_text(fields[i + 1]), kind, int(fields[i + 3]),
                                          mode & 0o7777,
                                          _text(fields[i + 4]) if kind == "symlink" else None))
                i += 5
            else:
                raise TransportError(self.source, "the box's listing is not in the expected "
                                     "framing")

    def _unlistable(self, rel: str, number: int, message: str) -> Exception:
        if rel and number in (errno.ENOENT, errno.ENOTDIR):
            return FileUnreadableError(self.source, rel, "the folder vanished after it was "
                                       "listed")
        return TransportError(self.source, f"cannot list {rel or '.'}: {message}")

    def exists_dir(self, rel: str) -> bool:
        path = shlex.quote(rel)
        code, _, err = self.run(self._in_root(f"[ -d {path} ] && [ ! -L {path} ]"))
        if code in (0, 1):
            return code == 0
        self._root_problem(code)
        raise TransportError(self.source, f"cannot stat {rel}: {_last_line(err)}")

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        from labledger.ingest.transport_ssh import _PY_HASHER, parse_hash_output

        if not rels:
            return {}
        names = b"".join(r.encode("utf-8", "surrogateescape") + b"\0" for r in rels)
        code, out, err = self.run(self._python(_PY_HASHER), names)
        self._root_problem(code)
        sha, sizes, b3, gone, failed, writers = parse_hash_output(out)
        missing = [r for r in rels if r not in sha and r not in gone]
        if missing:
            why = failed[:1] or [_last_line(err) or f"exit {code}"]
            raise TransportError(self.source, "the box did not hash "
                                 f"{counted(len(missing), 'file')} (first: {missing[0]}): {why[0]}")
        return {r: (RemoteHash(None, error=gone[r]) if r in gone
                    else RemoteHash(sha256=sha[r], blake3=b3.get(r), size=sizes.get(r),
                                    writers=tuple(writers.get(r, ()))))
                for r in rels}

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        for _, _, chunks in self.read_many([(rel, offset)]):
            yield from chunks

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        from labledger.ingest.transport_openssh import FileStream

        if not items:
            return
        stream = FileStream(_Client(self), self.root, items, self.source,
                            python=self.python or "python3")
        with self._lock:
            self._streams.add(stream)
        try:
            yield from stream.files()
        finally:
            stream.close()
            with self._lock:
                self._streams.discard(stream)

    def reconnect(self) -> None:
        """A new master (a lost connection: the box may ask for its second factor again)."""
        self._stop_clients()
        self._stop_master()
        self._listed.clear()
        self._connect_with_retries()

    def _stop_clients(self) -> None:
        with self._lock:
            running, streams = list(self._running), list(self._streams)
        for proc in running:
            if proc.poll() is None:
                proc.kill()
        for stream in streams:
            with contextlib.suppress(OSError):
                stream.close()

    def close(self) -> None:
        self._stop_clients()
        self._stop_master()
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
            self._dir = None


class _Unreached(Exception):
    """ssh never reached the login (refused, timed out): retried like paramiko's connect."""


# A temp folder ssh takes as a ControlPath as it is: no space, no "%" token
_PLAIN_PATH = re.compile(r"[A-Za-z0-9._/-]+")


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _last_line(raw: bytes) -> str:
    lines = [line.strip() for line in raw.decode("utf-8", "replace").splitlines()]
    lines = [line for line in lines if line]
    return lines[-1] if lines else ""


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie no one reaped yet counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def _line_fingerprint(path: Path, number: int) -> str:
    """The SHA256 fingerprint of the key on line ``number`` of a known_hosts file."""
    import base64
    import hashlib

    try:
        line = path.read_text(encoding="ascii", errors="replace").splitlines()[number - 1]
        blob = base64.b64decode(line.split()[2])
    except (OSError, IndexError, ValueError):
        return "?"
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
