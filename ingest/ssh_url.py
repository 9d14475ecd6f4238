"""``ssh://`` sources as ``--from`` specs, without paramiko (the teardown gate reads them).

Invariant: `url_as_spec` reads back every source an SSH pull prints and records
(`SshTransport.source`: ``ssh://USER@HOST:PORT`` then the folder, a relative one after
``/~/``) as the ``[user@]HOST[:PORT]:DIR`` that reaches the same login and folder.
"""

from __future__ import annotations

__all__ = ["is_ipv6", "url_as_spec"]


def url_as_spec(url: str) -> str | None:
    """``ssh://[user@]HOST[:PORT]/DIR`` as ``[user@]HOST[:PORT]:DIR``, parted as labledger
    prints a source (`SshTransport.source`): the path is taken as it is (a ``#`` or ``?`` in a
    folder's name is part of it), ``/~/`` starts a folder under the login's home, ``/`` alone is
    the root, and an IPv6 host may be bare when a port follows it (``ssh://root@::1:22/r``).
    None when it names no host, or a port that is not a number."""
    rest = url[len("ssh://"):]
    cut = rest.find("/")
    if cut <= 0:
        return None
    authority, path = rest[:cut], rest[cut:]
    folder = path[3:] if path.startswith("/~/") else path
    user, at, hostport = authority.rpartition("@")
    host, port = hostport, ""
    if hostport.startswith("["):
        host, _, tail = hostport.partition("]")
        if tail and not tail.startswith(":"):
            return None  # "[::1]x"
        host, port = host + "]", tail[1:]
    elif ":" in hostport:
        host, _, port = hostport.rpartition(":")
        if ":" in host:
            if not port.isdigit() or not is_ipv6(host):
                return None  # a bare IPv6 address needs its port after it, or brackets
            host = f"[{host}]"
    if not host or (port and not port.isdigit()) or (hostport.endswith(":") and not port):
        return None
    return f"{user}{at}{host}{':' + port if port else ''}:{folder}"


def is_ipv6(host: str) -> bool:
    """Whether ``host`` is an IPv6 address (a zone after ``%`` allowed)."""
    import ipaddress

    try:
        ipaddress.IPv6Address(host.partition("%")[0])  # (a zone: fe80::1%eth0)
    except ValueError:
        return False
    return True
