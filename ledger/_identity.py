"""Who writes: the segment (writer) id of this machine or process, the actor, and id syntax.

Standard library only (no socket, getpass or msgspec): `labledger emit`'s fast path uses it.
"""

from __future__ import annotations

import os
import re

_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@+=-]{0,255}")
_WRITER_RE = re.compile(r"[^A-Za-z0-9._-]+")
_LEADING_DOTS = re.compile(r"^\.+")


def _writer_name(raw: str, limit: int) -> str:
    """``raw`` as a folder name under ``ledger/``: other characters as ``-``, and leading dots
    as ``_`` (``.`` and ``..`` would put the segment where no reader looks)."""
    cleaned = _WRITER_RE.sub("-", raw)[:limit]
    return _LEADING_DOTS.sub(lambda m: "_" * len(m.group(0)), cleaned)


def hostname() -> str:
    return os.uname().nodename or "host"


def default_writer(per_process: bool) -> str:
    """A segment id unique to this machine (hostname + machine-id), or to this process."""
    override = os.environ.get("LABLEDGER_WRITER")
    # per-process mode must hold with a fixed writer name too: it is what makes NFS safe
    suffix = f"-p{os.getpid()}-{os.urandom(3).hex()}" if per_process else ""
    if override:
        return _writer_name(override, 80) + suffix
    host = _writer_name(hostname(), 48)
    machine = ""
    for source in ("/etc/machine-id", "/var/lib/dbus/machine-id"):
        try:
            with open(source, encoding="ascii", errors="replace") as fh:
                machine = fh.read().strip()[:8]
            break
        except OSError:
            continue
    name = f"{host}-{machine}" if machine else host
    return name + suffix


def default_actor() -> str:
    """``$LABLEDGER_ACTOR``, else ``user@host`` (the user as getpass.getuser finds it)."""
    override = os.environ.get("LABLEDGER_ACTOR")
    if override:
        return override
    user = next((os.environ[n] for n in ("LOGNAME", "USER", "LNAME", "USERNAME")
                 if os.environ.get(n)), None)
    if user is None:
        try:
            import pwd

            user = pwd.getpwuid(os.getuid()).pw_name
        except (KeyError, OSError):
            user = "unknown"
    return f"{user}@{hostname()}"


def id_problem(what: str, value: str | None) -> str | None:
    """Why ``value`` is not a valid run/instance id, or None when it is (or is absent)."""
    if value is None or _ID_RE.fullmatch(value):  # fullmatch: `$` would allow a final \n
        return None
    return (f"{value!r} is not a valid {what} id (letters, digits and ._:@+=- ; at most 256; "
            "starting with a letter or digit)")


def id_from_env(name: str, what: str) -> str | None:
    """``$name`` as a run/instance id (``what``), None when unset or empty; an invalid value
    is refused (`InvalidEventError`) in words that say it came from the environment, since the
    user never typed it on this command line (`labledger run` exports it to what it runs)."""
    value = os.environ.get(name) or None
    problem = id_problem(what, value)
    if problem is None:
        return value
    from labledger.ledger.errors import InvalidEventError

    raise InvalidEventError(f"${name} is set: {problem}; unset it or pass --{what}",
                            field=what)
