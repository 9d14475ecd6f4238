"""`SshTransport`: a box reached over SSH with paramiko (imported only here).

Host keys are checked against two known_hosts files: labledger's own (``.labledger/known_hosts``,
where `--accept-new-host-key` pins a key on first use) and the user's ``~/.ssh/known_hosts``. An
unknown key is refused unless ``accept_new`` is set; a key that differs from a pinned one of the
same type is always refused (`HostKeyError`). Authentication tries, in order: an explicit
identity file, the keys of a running ssh-agent, the config's ``IdentityFile`` entries and the
default ``~/.ssh/id_*`` keys, then a password the caller read from stdin (never argv).
``~/.ssh/config`` supplies host aliases (``HostName``), ``Port``, ``User``, ``IdentityFile``,
``ProxyJump`` (one or more hops, each a direct-tcpip channel through the previous) and
``ProxyCommand``. Keepalives are sent every 15 s; connecting is retried with backoff.

Listing uses SFTP (``READDIR`` reports ``lstat`` attributes, so links are never followed).
Names travel as bytes and are decoded as POSIX does (UTF-8, ``surrogateescape``): paramiko's own
``listdir_attr`` decodes them strictly and would fail the whole listing on one name that is not
valid UTF-8, so the ``READDIR`` loop is done here.
Hashing is one remote command fed the NUL-separated list of files on stdin: a Python helper
(``hashlib`` SHA-256, plus BLAKE3 when the box's python has ``blake3``) when the box has
``python3``, else ``xargs -0 sha256sum`` (plus ``b3sum`` when present). The box's ``python3`` is
the first of the login's ``PATH`` and the usual install places (``/usr/bin``, a conda under
``/opt/conda``, ``~/miniconda3``...) that runs: an SSH command's ``PATH`` is sshd's default,
not the one a container image's ``ENV`` or a ``.bashrc``'s conda init gives a terminal, so a
pytorch image's only Python is often not on it (`python3`). A file the box can no
longer open (rotated away since the listing) is that file's `RemoteHash.error`, not a failed
hash: the helper says so per file; after ``sha256sum`` an SFTP ``lstat`` tells a vanished file
from a box that failed to hash.

Still being written: once the batch is hashed, the Python helper makes ONE pass over the box's
``/proc`` (the method of `labledger.ingest._writers`, written out again: the helper is a
self-contained ``python3 -c`` script and cannot import labledger): for every process but the
helper and its ancestors (the login's shell and sshd), every ``/proc/PID/fd`` link is matched to
the hashed files by ``(st_dev, st_ino)`` (``fstat`` of the descriptor each file was hashed
from), and one held with write access (``O_WRONLY``/``O_RDWR`` in ``/proc/PID/fdinfo/FD``) is
reported (``W <pid> <name>\0<command>``) in `RemoteHash.writers`. Its cost grows with the
descriptors open on the box, not with the files listed. What the pass cannot see is not
reported: another user's processes when the login is not root, a writer on another machine of
a network volume, and any writer at all on a box without ``/proc`` or without ``python3`` (the
``sha256sum`` fallback has no such pass).

``DIR`` may start with ``~/`` (the login's home folder, as ``scp`` reads it; SFTP and the remote
commands start there). A ``DIR`` that does not exist on the box, or is not a folder, is bad
input (`PullSourceError`, exit 2), not a connection problem. paramiko's own log lines (a
traceback per failed connection attempt) are not printed: the error raised says what failed.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shlex
import socket
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import paramiko

from labledger.ingest.errors import (
    HostKeyError,
    PullSourceError,
    SecondFactorError,
    SftpUnavailableError,
    TransportError,
)
from labledger.ingest.ssh_url import url_as_spec, url_host
from labledger.ingest.transport import (
    CHUNK,
    FILE_ERRNOS,
    BoxWriter,
    FileUnreadableError,
    RemoteHash,
    RemoteStat,
    kind_of,
)
from labledger.ledger._words import counted
from labledger.ledger.durable import sync_file

# paramiko logs every failed handshake with a traceback; with no handler configured, Python's
# last-resort handler printed it on stderr before labledger's own one-line error. A NullHandler
# keeps that noise out and still lets an application's handlers see the records.
logging.getLogger("paramiko").addHandler(logging.NullHandler())

Hasher = Literal["auto", "python", "coreutils"]
Bulk = Literal["auto", "openssh", "sftp"]

_PY_HASH = r"""
import sys, os, hashlib
from concurrent.futures import ThreadPoolExecutor
try:
    import blake3
except Exception:
    blake3 = None
names = [n for n in sys.stdin.buffer.read().split(b"\0") if n]
def h(n):
    try:
        s = hashlib.sha256()
        b = blake3.blake3() if blake3 is not None else None
        fd = os.open(n, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        size = 0
        with os.fdopen(fd, "rb", buffering=0) as f:
            st = os.fstat(fd)
            while True:
                c = f.read(1 << 20)
                if not c:
                    break
                s.update(c)
                size += len(c)
                if b is not None:
                    b.update(c)
        return n, s.hexdigest(), (b.hexdigest() if b is not None else None), size, None, \
            (st.st_dev, st.st_ino)
    except OSError as e:
        return n, None, None, None, e, None
out = sys.stdout.buffer
ids = {}
with ThreadPoolExecutor(4) as p:
    for n, s, b, size, e, i in p.map(h, names):
        if e is not None:
            msg = (e.strerror or str(e)).encode("utf-8", "replace").replace(b"\n", b" ")
            out.write(b"E %d " % (e.errno or 0) + n + b"\0" + msg + b"\n")
            continue
        ids.setdefault(i, []).append(n)
        out.write(b"S " + s.encode() + b" %d  " % size + n + b"\n")
        if b is not None:
            out.write(b"B " + b.encode() + b"  " + n + b"\n")
"""

# Appended to `_PY_HASH` (same script: ``ids`` maps (st_dev, st_ino) to the names hashed): ONE
# pass over /proc once the batch is hashed, as `labledger.ingest._writers` does here. Skips the
# script itself and its ancestors (the login's shell, sshd); says nothing of what it cannot read.
_PY_WRITERS = r"""
def writable(info):
    try:
        with open(info, "rb") as f:
            for line in f.read(4096).splitlines():
                if line.startswith(b"flags:"):
                    return int(line.split(b":", 1)[1].strip(), 8) & 3 in (1, 2)
    except (OSError, ValueError):
        pass
    return False
def command(d):
    t = ""
    for part in ("/cmdline", "/comm"):
        try:
            with open(d + part, "rb") as f:
                t = f.read(4096).replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if t.strip():
            break
    t = " ".join("".join(c if c.isprintable() else " " for c in t).split())
    return (t[:79] + "\u2026" if len(t) > 80 else t) or "?"
skip, pid = set([os.getpid()]), os.getppid()
while pid > 1 and pid not in skip:
    skip.add(pid)
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            pid = int(f.read(1024).rsplit(b")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        break
try:
    pids = os.listdir("/proc") if ids else []
except OSError:
    pids = []
for p in pids:
    if not p.isdigit() or int(p) in skip:
        continue
    d = "/proc/" + p
    try:
        fds = os.listdir(d + "/fd")
    except OSError:
        continue
    held = []
    for fd in fds:
        try:
            st = os.stat(d + "/fd/" + fd)
        except OSError:
            continue
        i = (st.st_dev, st.st_ino)
        if i in ids and i not in held and writable(d + "/fdinfo/" + fd):
            held.append(i)
    if held:
        c = command(d).encode("utf-8", "replace")
        for i in held:
            for n in ids[i]:
                out.write(b"W " + p.encode() + b" " + n + b"\0" + c + b"\n")
"""
_PY_HASHER = _PY_HASH + _PY_WRITERS

_COREUTILS = (
    't=$(mktemp) || exit 98; cat > "$t"; '
    'xargs -0 -r -P 4 -n 64 sha256sum -- < "$t" | sed "s/^/S /"; '
    'if command -v b3sum >/dev/null 2>&1; then xargs -0 -r -n 64 b3sum -- < "$t" '
    '| sed "s/^/B /"; fi; rm -f "$t"'
)

def parse_hash_output(out: bytes) -> tuple[dict[str, str], dict[str, int], dict[str, str],
                                            dict[str, str], list[str], dict[str, list[BoxWriter]]]:
    """The box hasher's lines (`_PY_HASHER`, `_COREUTILS`): ``(sha256, sizes, blake3, gone,
    failed, writers)`` by name; ``gone``: files the box could no longer open (why), ``failed``:
    other files it could not hash (``name: message``)."""
    sha: dict[str, str] = {}
    sizes: dict[str, int] = {}
    b3: dict[str, str] = {}
    gone: dict[str, str] = {}
    failed: list[str] = []
    writers: dict[str, list[BoxWriter]] = {}
    for line in out.decode("utf-8", "surrogateescape").split("\n"):
        tag, _, rest = line.partition(" ")
        if tag == "W":  # "W <pid> <name>\0<command>": <pid> holds <name> open for writing
            pid, _, rest = rest.partition(" ")
            name, _, command = rest.partition("\0")
            if pid.isdigit():
                writers.setdefault(name, []).append(BoxWriter(int(pid), command))
            continue
        if tag == "E":  # "E <errno> <name>\0<message>": the helper could not open <name>
            number, _, rest = rest.partition(" ")
            name, _, message = rest.partition("\0")
            if number.isdigit() and int(number) in FILE_ERRNOS:
                gone[name] = f"cannot open it to hash: {message}"
            else:
                failed.append(f"{name}: {message}")
            continue
        # "<hex>[ <bytes hashed>]  <name>": the name is everything after the two spaces, as
        # it is (a name may itself start with "*" or a space).
        digest, sep, name = rest.partition("  ")
        if not sep:
            continue
        digest, _, hashed = digest.partition(" ")
        if tag == "S":
            sha[name] = digest
            if hashed.isdigit():
                sizes[name] = int(hashed)
        elif tag == "B":
            b3[name] = digest
    return sha, sizes, b3, gone, failed, writers


# The user runs to the LAST "@" before the host, as OpenSSH reads it (a directory user such as
# "jdoe@ad.univ.edu"); a user holds no ":" or "/", a host no "@".
_SPEC = re.compile(r"^(?:(?P<user>[^/:]+)@)?(?P<host>\[[^\]]+\]|[^:/\[\]@]+)"
                   r"(?::(?P<port>[0-9]+))?:(?P<dir>.*)$")


@dataclass(frozen=True)
class SshTarget:
    """A parsed ``[user@]HOST[:PORT]:DIR``."""

    host: str
    dir: str
    user: str | None = None
    port: int | None = None


def parse_target(spec: str) -> SshTarget:
    """Parse ``[user@]HOST[:PORT]:DIR``, or ``ssh://[user@]HOST[:PORT]/DIR`` (the source
    labledger prints and records; ``/~/DIR`` is under the login's home); raises
    `PullSourceError` when it does not fit, with the ``--from`` form of an ``ssh`` command
    line pasted from a provider's console (``ssh -p 41234 root@ssh5.vast.ai``)."""
    if spec.startswith("ssh://"):
        as_spec = url_as_spec(spec)
        if as_spec is None:
            raise PullSourceError(spec, "expected ssh://[user@]HOST[:PORT]/DIR (a host, a "
                                  "numeric port, a folder after them; IPv6 in brackets), e.g. "
                                  "ssh://root@box:2222/data/r1")
        spec = as_spec
    m = _SPEC.match(spec)
    if m is None or not m["dir"] or any(c.isspace() for c in m["host"] + (m["user"] or "")):
        raise PullSourceError(spec, "expected [user@]HOST[:PORT]:DIR, e.g. root@box:2222:/data/r1"
                              + (_as_spec_hint(spec) or _local_folder_hint(spec)))
    port = int(m["port"]) if m["port"] else None
    if port is not None and not 0 < port < 65536:
        raise PullSourceError(spec, f"port {port} is out of range")
    return SshTarget(host=m["host"].strip("[]"), dir=m["dir"], user=m["user"], port=port)


def _local_folder_hint(spec: str) -> str:
    """For a path with no host (``/mnt/runs/r1``, ``../box/export/r1``): the option that pulls a
    folder of this machine; else ""."""
    if spec.startswith(("/", "./", "../", "~")) or spec in (".", ".."):
        # (expanded: after "--from=" the shell leaves "~" as it is, and --from-dir takes the
        # path as given)
        return ("; a folder on this machine is pulled with --from-dir "
                + shlex.quote(os.path.expanduser(spec)))
    return ""


# ssh's options that take a value (ssh(1)): in a group (-vp 2222) the first of them takes the
# rest of the word, or the next word.
_SSH_VALUE_OPTIONS = "BbcDEeFIiJLlmOoPpQRSWw"


def _as_spec_hint(spec: str) -> str:
    """For an ``ssh`` command line (``ssh -p 41234 root@ssh5.vast.ai``, as a provider's console
    shows it): the ``--from`` that reaches the same login; else ""."""
    try:
        words = shlex.split(spec)
    except ValueError:
        return ""
    if not words or words[0] != "ssh":
        return ""
    port = user = login = ""
    i = 1
    while i < len(words):
        word = words[i]
        i += 1
        if word == "--":
            login = login or (words[i] if i < len(words) else "")
            break
        if not word.startswith("-") or word == "-":
            login = login or word
            continue
        for k, flag in enumerate(word[1:], start=1):
            if flag not in _SSH_VALUE_OPTIONS:
                continue
            value = word[k + 1:]
            if not value:
                if i >= len(words):
                    return ""
                value, i = words[i], i + 1
            if flag == "p":
                port = value
            elif flag == "l":
                user = value
            elif flag == "o":
                key, _, setting = value.replace("=", " ", 1).partition(" ")
                if key.lower() == "port":
                    port = setting.strip()
                elif key.lower() == "user":
                    user = setting.strip()
            break
    if login.startswith("ssh://"):
        return ""
    at_user, at, host = login.rpartition("@")
    user = at_user if at else user
    if not host or (port and not port.isdigit()):
        return ""
    host = url_host(host)
    return (f" (an ssh command: pull from the same login with --from "
            f"{user + '@' if user else ''}{host}{':' + port if port else ''}:DIR, DIR the run's "
            "folder on the box)")


def box_root(target: SshTarget, user: str, port: int) -> tuple[str, str]:
    """The pulled folder as remote commands name it, and the source recorded for it.

    "~/runs/r1" (as scp writes it) is "runs/r1": SFTP and remote commands start in the login's
    home folder, and a quoted "~" would be a folder named "~"."""
    folder = "." if target.dir in ("~", "~/") else (
        target.dir[2:] if target.dir.startswith("~/") else target.dir)
    root = folder.rstrip("/") or "/"
    sep = "" if root.startswith("/") else "/~/"
    return root, f"ssh://{user}@{url_host(target.host)}:{port}{sep}{root}"


def _known_name(host: str, port: int) -> str:
    return host if port == 22 else f"[{host}]:{port}"


def _load_known_hosts(known: paramiko.HostKeys, path: Path) -> None:
    """Add the keys of known_hosts file ``path`` to ``known``, skipping each line that is not
    one, as OpenSSH does: a line of bad base64, an unknown key type, bytes that are not UTF-8
    (paramiko's own `load` raised on the first two kinds, a traceback out of `pull`)."""
    from paramiko.hostkeys import HostKeyEntry

    for raw in path.read_bytes().splitlines():
        try:
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            continue
        if not line or line.startswith("#"):
            continue
        try:
            entry = HostKeyEntry.from_line(line)
        except Exception:  # noqa: BLE001 - any line paramiko cannot read is no pinned key
            continue
        if entry is None or entry.key is None:
            continue
        # as paramiko's `load` keeps an entry (lookups read its list, first line first)
        entry.hostnames = [name for name in entry.hostnames if not known.check(name, entry.key)]
        if entry.hostnames:
            known._entries.append(entry)


def fingerprint(key: paramiko.PKey) -> str:
    return str(key.fingerprint)  # "SHA256:..." (paramiko >= 3.2)


def unknown_host_key(name: str, fingerprint: str, known_hosts: Path) -> HostKeyError:
    """The refusal of a key pinned nowhere (both transports word it alike)."""
    return HostKeyError(name, fingerprint,
                        "is unknown. Check the fingerprint out of band (the provider's console), "
                        f"then pass --accept-new-host-key to pin it in {known_hosts}",
                        str(known_hosts))


def changed_host_key(name: str, fingerprint: str, kind: str, pinned: str,
                     files: tuple[Path, Path]) -> HostKeyError:
    """The refusal of a key that differs from the pinned one of its type ``kind``."""
    return HostKeyError(name, fingerprint,
                        f"does not match the pinned {kind} key {pinned} (in {files[0]} or "
                        f"{files[1]}). The box was replaced or someone is in the middle; a "
                        f"changed key is always refused. If the box really was reinstalled, "
                        f"remove its old line after checking the new fingerprint out of band",
                        str(files[0]))


def _load_config(path: Path | None) -> paramiko.SSHConfig:
    path = path if path is not None else Path.home() / ".ssh" / "config"
    if path.is_file():
        return paramiko.SSHConfig.from_path(str(path))
    return paramiko.SSHConfig()


# Where a box's python3 may be when an SSH command's PATH (sshd's default) does not have it: a
# container image's ENV and a .bashrc's `conda init` set PATH for terminals only. The first
# that runs and is 3.5 or later (the helpers' bytes formatting) is printed, as an absolute path.
_PYTHON3_PLACES = ("python3", "/usr/bin/python3", "/usr/local/bin/python3",
                   "/opt/conda/bin/python3", '"$HOME/miniconda3/bin/python3"',
                   '"$HOME/miniforge3/bin/python3"', '"$HOME/anaconda3/bin/python3"',
                   "/opt/miniconda3/bin/python3", "/opt/miniforge3/bin/python3",
                   "/opt/anaconda3/bin/python3", "/root/miniconda3/bin/python3")
_FIND_PYTHON3 = (
    f"for p in {' '.join(_PYTHON3_PLACES)}; do "
    "q=$(command -v \"$p\" 2>/dev/null) || continue; "
    "case \"$q\" in /*) ;; *) continue;; esac; "  # a relative PATH entry: the next place
    "\"$q\" -c 'import sys; sys.exit(sys.version_info < (3, 5))' >/dev/null 2>&1 && "
    "{ printf '%s\\n' \"$q\"; exit 0; }; done; exit 1")


# Why SFTP cannot be used on a box, and what to change there (`SftpUnavailableError`).
_REFUSED = "the SSH server refused SFTP, which pull reads files with"
_REFUSED_FIX = (
    "RunPod's \"Basic SSH\" proxy (ssh.runpod.io) carries no SFTP or SCP: pull from the pod's "
    "public IP and SSH port instead (\"SSH over exposed TCP\" in its Connect menu). Elsewhere, "
    "enable the server's SFTP (OpenSSH: a `Subsystem sftp` line in sshd_config; Dropbear: "
    "install sftp-server)")
# OpenSSH starts the SFTP server through the login shell, which reads ~/.bashrc even when not
# interactive: anything it prints lands in front of the protocol (OpenSSH FAQ 2.9, "sftp/scp
# fails at connection, but ssh is OK").
_PRINTED_FIX = (
    "A shell start-up file on the box prints something even when the login is not interactive "
    "(~/.bashrc, ~/.profile, /etc/bash.bashrc, a login banner script): make it print only for "
    "interactive shells, e.g. `[[ $- == *i* ]] || return` before its output, then pull again "
    "(`ssh BOX true | head -c 100` shows what it prints)")


class SshTransport:
    """A directory on a box reached over SSH (see the module docstring for the rules)."""

    def __init__(
        self,
        target: SshTarget,
        *,
        known_hosts: Path,
        accept_new: bool = False,
        identity: Path | None = None,
        password: str | None = None,
        ssh_config: Path | None = None,
        user_known_hosts: Path | None = None,
        use_agent: bool = True,
        hasher: Hasher = "auto",
        bulk: Bulk = "auto",
        connect_retries: int = 3,
        backoff: float = 1.0,
        timeout: float = 20.0,
    ) -> None:
        self.target = target
        self.known_hosts, self.accept_new = known_hosts, accept_new
        self.identity, self.password, self.use_agent = identity, password, use_agent
        self.hasher, self.timeout, self.bulk = hasher, timeout, bulk
        self.ssh_config_path = ssh_config
        self._python3: str | None = None  # the box's python3 (`python3`), once looked for
        self._python3_probed = False
        self.bulk_note: str | None = None  # why the OpenSSH stream was not used, if it was not
        self.stream: Any = None  # the running OpenSSH stream (FileStream), if any
        self.connect_retries, self.backoff = connect_retries, backoff
        self.user_known_hosts = (user_known_hosts if user_known_hosts is not None
                                 else Path.home() / ".ssh" / "known_hosts")
        self.config = _load_config(ssh_config)
        found = self.config.lookup(target.host)
        self.hostname = str(found.get("hostname", target.host))
        self.port = target.port or int(found.get("port", 22))
        self.user = target.user or str(found.get("user") or os.environ.get("USER") or "root")
        self.root, self.source = box_root(target, self.user, self.port)
        self._chain: list[paramiko.Transport] = []
        self._proxies: list[paramiko.ProxyCommand] = []
        self._sftp: paramiko.SFTPClient | None = None
        self._connect_with_retries()

    # -- connection -------------------------------------------------------------------------------
    def _connect_with_retries(self) -> None:
        try:
            self._retry_connect()
        except BaseException:
            self.close()  # a refused connection leaves no transport thread behind
            raise

    def _retry_connect(self) -> None:
        delay = self.backoff
        for attempt in range(self.connect_retries + 1):
            try:
                self._connect()
                return
            except (HostKeyError, SftpUnavailableError, SecondFactorError):
                raise  # a setting of the box or of this machine: trying again changes nothing
            except TransportError:
                if attempt == self.connect_retries:
                    raise
            except (OSError, EOFError, paramiko.SSHException) as exc:
                if attempt == self.connect_retries:
                    raise TransportError(self.source, f"cannot connect: {exc}") from exc
            self.close()
            time.sleep(delay)
            delay *= 2

    def _open_sock(self, host: str, port: int, cfg: dict[str, Any]) -> Any:
        jump = cfg.get("proxyjump")
        if jump and jump.lower() != "none":
            via: paramiko.Transport | None = None
            for hop in str(jump).split(","):
                via = self._hop(hop.strip(), via)
            assert via is not None
            return via.open_channel("direct-tcpip", (host, port), ("127.0.0.1", 0),
                                    timeout=self.timeout)
        command = cfg.get("proxycommand")
        if command and command.lower() != "none":
            proxy = paramiko.ProxyCommand(str(command))
            self._proxies.append(proxy)
            return proxy
        return socket.create_connection((host, port), timeout=self.timeout)

    def _hop(self, spec: str, via: paramiko.Transport | None) -> paramiko.Transport:
        m = re.match(r"^(?:(?P<user>[^@]+)@)?(?P<host>[^:]+)(?::(?P<port>[0-9]+))?$", spec)
        if m is None:
            raise TransportError(self.source, f"ProxyJump {spec!r} is not [user@]host[:port]")
        cfg = self.config.lookup(m["host"])
        host = str(cfg.get("hostname", m["host"]))
        port = int(m["port"] or cfg.get("port", 22))
        user = m["user"] or str(cfg.get("user") or self.user)
        sock: Any
        if via is None:
            sock = socket.create_connection((host, port), timeout=self.timeout)
        else:
            sock = via.open_channel("direct-tcpip", (host, port), ("127.0.0.1", 0),
                                    timeout=self.timeout)
        return self._handshake(sock, m["host"], host, port, user, cfg)

    def _handshake(self, sock: Any, alias: str, host: str, port: int, user: str,
                   cfg: dict[str, Any]) -> paramiko.Transport:
        t = paramiko.Transport(sock, default_window_size=64 * 1024 * 1024,
                               default_max_packet_size=256 * 1024)
        self._chain.append(t)
        t.start_client(timeout=self.timeout)
        self._check_host_key(t.get_remote_server_key(), host, port)
        self._authenticate(t, user, cfg)
        t.set_keepalive(15)
        return t

    def _connect(self) -> None:
        cfg = dict(self.config.lookup(self.target.host))
        sock = self._open_sock(self.hostname, self.port, cfg)
        t = self._handshake(sock, self.target.host, self.hostname, self.port, self.user, cfg)
        self._sftp = self._start_sftp(t)
        self._sftp.get_channel().settimeout(self.timeout * 3)

    def _start_sftp(self, t: paramiko.Transport) -> paramiko.SFTPClient:
        """SFTP over the logged-in transport ``t``. Only the server's own answers are a setting
        of the box (`SftpUnavailableError`, never retried): a "no" to the subsystem request,
        and bytes that are not SFTP where its first reply belongs. A channel that cannot be
        opened, or an SFTP server that starts and then dies (a fork failing on a busy box),
        is an ordinary failure, retried."""
        chan = t.open_session(timeout=self.timeout)
        try:
            chan.invoke_subsystem("sftp")
        except paramiko.SSHException:
            chan.close()
            if t.is_active():  # the server answered, and its answer was no
                raise SftpUnavailableError(self.source, _REFUSED, _REFUSED_FIX) from None
            raise
        try:
            return paramiko.SFTPClient(chan)
        except paramiko.SFTPError as exc:  # what came back was not SFTP
            chan.close()
            raise SftpUnavailableError(self.source, f"the box's SFTP session began with bytes "
                                       f"that are not SFTP ({exc})", _PRINTED_FIX) from None
        except BaseException:
            chan.close()
            raise

    def _check_host_key(self, key: paramiko.PKey, host: str, port: int) -> None:
        name = _known_name(host, port)
        known = paramiko.HostKeys()
        for path in (self.user_known_hosts, self.known_hosts):
            if path.is_file():
                try:
                    _load_known_hosts(known, path)
                except OSError as exc:
                    raise TransportError(self.source, f"cannot read {path}: {exc}") from exc
        entries = known.lookup(name) or {}
        pinned = entries.get(key.get_name())
        if pinned is not None:
            if pinned == key:
                return
            raise changed_host_key(name, fingerprint(key), key.get_name(), fingerprint(pinned),
                                   (self.known_hosts, self.user_known_hosts))
        if not self.accept_new:
            raise unknown_host_key(name, fingerprint(key), self.known_hosts)
        self.known_hosts.parent.mkdir(parents=True, exist_ok=True)
        with open(self.known_hosts, "a", encoding="ascii") as fh:
            fh.write(f"{name} {key.get_name()} {key.get_base64()}\n")
            fh.flush()
            sync_file(fh.fileno())

    def _keys(self, cfg: dict[str, Any]) -> Iterator[paramiko.PKey]:
        if self.identity is not None:
            try:
                yield paramiko.PKey.from_path(str(self.identity))
            except (OSError, paramiko.SSHException) as exc:
                raise TransportError(self.source,
                                     f"cannot use identity {self.identity}: {exc}") from exc
            return
        if self.use_agent:
            agent: paramiko.Agent | None = None
            try:
                agent = paramiko.Agent()
                yield from agent.get_keys()  # the agent signs during auth: keep it open till then
            except paramiko.SSHException:
                pass
            finally:
                if agent is not None:
                    agent.close()
        paths = [Path(p).expanduser() for p in cfg.get("identityfile", [])]
        paths += [Path.home() / ".ssh" / n for n in ("id_ed25519", "id_ecdsa", "id_rsa")]
        for p in paths:
            if p.is_file():
                try:
                    yield paramiko.PKey.from_path(str(p))
                except (OSError, paramiko.SSHException):
                    continue  # an encrypted or unreadable default key: try the next one

    def _authenticate(self, t: paramiko.Transport, user: str, cfg: dict[str, Any]) -> None:
        # A partial success (the key was accepted, the box wants more: AuthenticationMethods
        # publickey,keyboard-interactive) returns the methods still asked for.
        further: list[str] = []
        for key in self._keys(cfg):
            try:
                further = list(t.auth_publickey(user, key) or ()) or further
            except paramiko.AuthenticationException:
                continue
            if t.is_authenticated():
                return
        if self.password is not None:
            try:
                further = list(t.auth_password(user, self.password) or ()) or further
            except paramiko.AuthenticationException:
                pass
            if t.is_authenticated():
                return
        if further:
            raise SecondFactorError(self.source, user, further)
        raise TransportError(self.source, f"authentication as {user} failed (tried the "
                             f"identity file, agent and default keys"
                             f"{', and a password' if self.password is not None else ''})")

    @property
    def sftp(self) -> paramiko.SFTPClient:
        if self._sftp is None:
            raise TransportError(self.source, "not connected")
        return self._sftp

    def _abs(self, rel: str) -> str:
        return f"{self.root}/{rel}" if rel else self.root

    # -- Transport --------------------------------------------------------------------------------
    def _bytes(self, rel: str) -> bytes:
        """The absolute path on the box as bytes (paramiko would encode a ``str`` strictly)."""
        return self._abs(rel).encode("utf-8", "surrogateescape")

    def _listdir_attr(self, path: bytes) -> list[paramiko.SFTPAttributes]:
        """paramiko's ``listdir_attr``, with names decoded as POSIX does (see the module doc)."""
        from paramiko import sftp as proto

        sftp: Any = self.sftp  # paramiko's request layer is not typed
        t, msg = sftp._request(proto.CMD_OPENDIR, path)
        if t != proto.CMD_HANDLE:
            raise paramiko.SFTPError("expected a handle")
        handle = msg.get_binary()
        found: list[paramiko.SFTPAttributes] = []
        try:
            while True:
                try:
                    t, msg = sftp._request(proto.CMD_READDIR, handle)
                except EOFError:
                    break  # the end of the folder
                if t != proto.CMD_NAME:
                    raise paramiko.SFTPError("expected a name response")
                for _ in range(msg.get_int()):
                    name = msg.get_string().decode("utf-8", "surrogateescape")
                    longname = msg.get_string().decode("utf-8", "surrogateescape")
                    attr = paramiko.SFTPAttributes._from_msg(msg, name, longname)
                    if name not in (".", ".."):
                        found.append(attr)
        finally:
            sftp._request(proto.CMD_CLOSE, handle)
        return found

    def list_dir(self, rel: str) -> list[RemoteStat]:
        try:
            attrs = self._listdir_attr(self._bytes(rel))
            out = []
            for a in attrs:
                mode = a.st_mode or 0
                kind = kind_of(mode)
                target: str | None = None
                if kind == "symlink":
                    raw = self.sftp.readlink(self._bytes(f"{rel}/{a.filename}" if rel
                                                         else a.filename))
                    target = (raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes)
                              else raw)
                out.append(RemoteStat(a.filename, kind, a.st_size or 0, mode & 0o7777, target))
            return out
        except (OSError, EOFError, paramiko.SSHException, paramiko.SFTPError) as exc:
            if rel and isinstance(exc, OSError) and exc.errno == errno.ENOENT:
                raise FileUnreadableError(self.source, rel, "the folder vanished after it was "
                                          "listed") from exc
            if not rel and isinstance(exc, OSError):
                self._check_root(exc)
            raise TransportError(self.source, f"cannot list {rel or '.'}: {exc}") from exc

    def _check_root(self, exc: OSError) -> None:
        """The pulled folder could not be listed: raise `PullSourceError` (bad input, exit 2)
        when it does not exist or is not a folder, as for ``--from-dir``; else return."""
        try:
            mode = self.sftp.stat(self._bytes("")).st_mode or 0
        except OSError as missing:
            if missing.errno in (errno.ENOENT, errno.ENOTDIR):
                raise PullSourceError(self.source, f"{self.target.dir} does not exist on the box "
                                      f"(as {self.user}; a relative folder is under the login's "
                                      f"home)") from exc
            return
        except (EOFError, paramiko.SSHException):
            return
        if not stat.S_ISDIR(mode):
            raise PullSourceError(self.source,
                                  f"{self.target.dir} is not a folder on the box") from exc

    def exists_dir(self, rel: str) -> bool:
        import stat as _stat

        try:
            return _stat.S_ISDIR(self.sftp.lstat(self._abs(rel)).st_mode or 0)
        except FileNotFoundError:
            return False
        except (OSError, EOFError, paramiko.SSHException, paramiko.SFTPError) as exc:
            raise TransportError(self.source, f"cannot stat {rel}: {exc}") from exc

    def _has(self, command: str) -> bool:
        code, _, _ = self.run(f"command -v {command} >/dev/null 2>&1")
        return code == 0

    def python3(self) -> str | None:
        """The box's python3 (3.5 or later) as a command line word, or None (asked once)."""
        if not self._python3_probed:
            code, out, _ = self.run(_FIND_PYTHON3)
            # The last line: a start-up file may have printed before the probe did.
            found = out.decode("utf-8", "surrogateescape").strip().rsplit("\n", 1)[-1].strip()
            self._python3 = found if code == 0 and found.startswith("/") else None
            self._python3_probed = True
        return self._python3

    def has_python3(self) -> bool:
        return self.python3() is not None

    def run(self, command: str, stdin: bytes = b"") -> tuple[int, bytes, bytes]:
        """Run one remote command; returns (exit code, stdout, stderr)."""
        try:
            chan = self.sftp.get_channel().get_transport().open_session(timeout=self.timeout)
            chan.exec_command(command)
            if stdin:
                chan.sendall(stdin)
            chan.shutdown_write()
            out, err = bytearray(), bytearray()
            while True:
                if chan.recv_ready():
                    out += chan.recv(CHUNK)
                elif chan.recv_stderr_ready():
                    err += chan.recv_stderr(CHUNK)
                elif chan.exit_status_ready() and not chan.recv_ready():
                    while chan.recv_stderr_ready():
                        err += chan.recv_stderr(CHUNK)
                    break
                else:
                    time.sleep(0.005)
            code = chan.recv_exit_status()
            chan.close()
            return code, bytes(out), bytes(err)
        except (OSError, EOFError, paramiko.SSHException, AttributeError) as exc:
            raise TransportError(self.source, f"remote command failed: {exc}") from exc

    def hash_files(self, rels: Sequence[str]) -> dict[str, RemoteHash]:
        if not rels:
            return {}
        use_python = self.hasher == "python" or (self.hasher == "auto" and self.has_python3())
        python = shlex.quote(self.python3() or "python3")
        body = f"{python} -c {shlex.quote(_PY_HASHER)}" if use_python else _COREUTILS
        command = f"cd -- {shlex.quote(self.root)} || exit 97; {body}"
        names = b"".join(r.encode("utf-8", "surrogateescape") + b"\0" for r in rels)
        code, out, err = self.run(command, names)
        if code == 97:
            raise TransportError(self.source, f"cannot enter {self.root} on the box")
        sha, sizes, b3, gone, failed, writers = parse_hash_output(out)
        missing = [r for r in rels if r not in sha and r not in gone]
        if missing and not failed:
            # sha256sum only complains on stderr: ask SFTP whether the file is still there.
            for r in missing:
                problem = self._vanished(r)
                if problem is not None:
                    gone[r] = problem
            missing = [r for r in missing if r not in gone]
        if missing:
            why = failed[:1] or err.decode("utf-8", "replace").strip().splitlines()[-1:] or [
                f"exit {code}"]
            raise TransportError(self.source, "the box did not hash "
                                 f"{counted(len(missing), 'file')} (first: {missing[0]}): {why[0]}")
        return {r: (RemoteHash(None, error=gone[r]) if r in gone
                    else RemoteHash(sha256=sha[r], blake3=b3.get(r), size=sizes.get(r),
                                    writers=tuple(writers.get(r, ()))))
                for r in rels}

    def _vanished(self, rel: str) -> str | None:
        """Why ``rel`` is no longer a regular file on the box, or None when it still is."""
        try:
            mode = self.sftp.lstat(self._bytes(rel)).st_mode or 0
        except OSError as exc:
            if exc.errno in FILE_ERRNOS:
                return f"cannot open it to hash: {exc.strerror or exc}"
            raise TransportError(self.source, f"cannot stat {rel}: {exc}") from exc
        except (EOFError, paramiko.SSHException, paramiko.SFTPError) as exc:
            raise TransportError(self.source, f"cannot stat {rel}: {exc}") from exc
        return None if stat.S_ISREG(mode) else "it is no longer a regular file"

    def read(self, rel: str, offset: int = 0) -> Iterator[bytes]:
        try:
            fh = self.sftp.open(self._bytes(rel), "rb")
        except (OSError, EOFError, paramiko.SSHException, paramiko.SFTPError) as exc:
            if isinstance(exc, OSError) and exc.errno in FILE_ERRNOS:
                raise FileUnreadableError(self.source, rel, exc.strerror or str(exc)) from exc
            raise TransportError(self.source, f"cannot open {rel}: {exc}") from exc
        try:
            size = fh.stat().st_size or 0
            fh.seek(offset)
            if size > offset:
                fh.prefetch(size, max_concurrent_requests=128)
            while True:
                chunk = fh.read(CHUNK)
                if not chunk:
                    break
                yield chunk
        except (OSError, EOFError, paramiko.SSHException, paramiko.SFTPError) as exc:
            raise TransportError(self.source, f"reading {rel} failed: {exc}") from exc
        finally:
            # Best effort, whatever it raises: a read cut by Ctrl-C leaves the SFTP channel
            # mid-packet, and the close then fails ("Garbage packet received"); that must not
            # replace the interrupt (or the error) on its way out.
            try:
                fh.close()
            except Exception:  # noqa: BLE001, S110
                pass

    def read_many(self, items: Sequence[tuple[str, int]]
                  ) -> Iterator[tuple[str, int, Iterator[bytes]]]:
        """Stream many files, each from its offset, in request order (see `read`).

        Uses one OpenSSH ``ssh`` process (`labledger.ingest.transport_openssh`) when the box has
        ``python3`` and the client can log in non-interactively with the already pinned host
        key; otherwise SFTP file by file. With ``bulk="auto"`` a stream that cannot start falls
        back to SFTP silently (``bulk_note`` says why); once bytes flowed, a failure is raised.
        """
        stream = self.stream = self._open_stream(items) if items else None
        if stream is None:
            for rel, offset in items:
                yield rel, offset, self.read(rel, offset)
            return
        try:
            started = False
            for rel, offset, chunks in stream.files():
                started = True
                yield rel, offset, chunks
        except TransportError as exc:
            if started or self.bulk == "openssh":
                raise
            self.bulk_note = str(exc)
            for rel, offset in items:
                yield rel, offset, self.read(rel, offset)
        finally:
            stream.close()

    def _open_stream(self, items: Sequence[tuple[str, int]]) -> Any:
        from labledger.ingest.transport_openssh import FileStream, OpenSshLogin

        if self.bulk == "sftp":
            return None
        if not self.has_python3():
            self.bulk_note = "the box has no python3"
            if self.bulk == "openssh":
                raise TransportError(self.source, "bulk=openssh needs python3 on the box")
            return None
        login = OpenSshLogin(
            host=self.target.host, port=self.port, user=self.user,
            known_hosts=(self.known_hosts, self.user_known_hosts), identity=self.identity,
            ssh_config=self.ssh_config_path, use_agent=self.use_agent, timeout=self.timeout,
            password=self.password, host_key_alias=_known_name(self.hostname, self.port))
        try:
            return FileStream(login, self.root, items, self.source,
                              python=self.python3() or "python3")
        except TransportError as exc:
            if self.bulk == "openssh":
                raise
            self.bulk_note = str(exc)
            return None

    def reconnect(self) -> None:
        self.close()
        self._connect_with_retries()

    def close(self) -> None:
        if self._sftp is not None:
            try:
                self._sftp.close()
            except (OSError, EOFError, paramiko.SSHException):
                pass
        self._sftp = None
        for t in reversed(self._chain):
            t.close()
        for t in self._chain:
            if t.is_alive():
                t.join(5)  # its thread closes the socket (a ProxyCommand) on the way out
        self._chain = []
        for proxy in self._proxies:  # paramiko signals the command but never reaps it
            if proxy.process.poll() is None:
                proxy.close()
            try:
                proxy.process.wait(timeout=5)
            except Exception:  # noqa: BLE001 - best effort; kill below
                proxy.process.kill()
                proxy.process.wait()
            for pipe in (proxy.process.stdin, proxy.process.stdout, proxy.process.stderr):
                if pipe is not None:
                    pipe.close()
        self._proxies = []
