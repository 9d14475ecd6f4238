"""``ssh://`` sources as ``--from`` specs, without paramiko (the teardown gate reads them).

Invariant: `url_as_spec` reads back every source an SSH pull prints and records
(`SshTransport.source`: ``ssh://USER@HOST:PORT`` then the folder, a relative one after
``/~/``) as the ``[user@]HOST[:PORT]:DIR`` that reaches the same login and folder. A host is
rendered by `url_host`: an IPv6 address in brackets (``ssh://root@[::1]:22/r``, as RFC 3986
writes it), so the host, the port and the folder read apart; sources recorded before with a
bare IPv6 host (``ssh://root@::1:22/r``) are still read.
"""

from __future__ import annotations

__all__ = ["canonical_source", "is_ipv6", "url_as_spec", "url_host"]


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


def url_host(host: str) -> str:
    """``host`` as a URL or ``--from`` names it: an IPv6 address (a bare one, so any host with a
    ``:``) in brackets, anything else as it is. ``[::1]:22`` reads as host and port, where a
    bare ``::1:22`` is itself an IPv6 address."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def canonical_source(source: str) -> str:
    """A recorded pull source as labledger prints it now: an ``ssh://`` source recorded with a
    bare IPv6 host (``ssh://root@::1:22/r``, before hosts were bracketed) with its host in
    brackets; any other source as it is."""
    if not source.startswith("ssh://"):
        return source
    spec = url_as_spec(source)
    if spec is None:
        return source
    authority = source[len("ssh://"):].split("/", 1)[0]
    user, at, hostport = authority.rpartition("@")
    if hostport.startswith("[") or hostport.count(":") < 2:
        return source
    host, _, port = hostport.rpartition(":")
    return f"ssh://{user}{at}{url_host(host)}:{port}{source[len('ssh://') + len(authority):]}"


def is_ipv6(host: str) -> bool:
    """Whether ``host`` is an IPv6 address (a zone after ``%`` allowed)."""
    import ipaddress

    try:
        ipaddress.IPv6Address(host.partition("%")[0])  # (a zone: fe80::1%eth0)
    except ValueError:
        return False
    return True
