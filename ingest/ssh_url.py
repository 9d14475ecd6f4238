"""``ssh://`` sources as ``--from`` specs, without paramiko (the teardown gate reads them).

Invariant: `url_as_spec` reads back every source an SSH pull prints and records
(`SshTransport.source`: ``ssh://USER@HOST:PORT`` then the folder, a relative one after
``/~/``) as the ``[user@]HOST[:PORT]:DIR`` that reaches the same login and folder. A host is
rendered by `url_host`: an IPv6 address in brackets (``ssh://root@[::1]:22/r``, as RFC 3986
writes it), so the host, the port and the folder read apart; sources recorded before with a
bare IPv6 host (``ssh://root@::1:22/r``) are still read.

`canonical_host` does the same for a rented box's ``[user@]HOST[:PORT]`` (``rent --host``): an
IPv6 address is recorded in brackets (``root@[fe80::1]:2222``), so ``--from HOST:DIR`` built
from it parses back to the same host and port, and in one form (`normal_ipv6`: RFC 5952's
compressed lower case, ``2001:DB8:0::22`` -> ``2001:db8::22``), so that one address is one
recorded text; anything it cannot read as one host and at most one port is refused, never
guessed. Hosts are compared by `same_host` (an address by its value, a name in any case): a
ledger holds hosts recorded before they were normalised.
"""

from __future__ import annotations

__all__ = ["bare_source", "canonical_host", "canonical_source", "host_key", "is_ipv6",
           "normal_ipv6", "same_host", "shown_host", "url_as_spec", "url_host"]


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
            if not _ascii_port(port) or not is_ipv6(host):
                return None  # a bare IPv6 address needs its port after it, or brackets
            host = f"[{host}]"
    if not host or (port and not _ascii_port(port)) or (hostport.endswith(":") and not port):
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


def bare_source(source: str) -> str:
    """``source`` as labledger wrote it before IPv6 hosts were bracketed (``ssh://root@[::1]:22/r``
    -> ``ssh://root@::1:22/r``), the inverse of `canonical_source`: what an older pull keyed
    its partial files by. Any other source as it is."""
    if not source.startswith("ssh://"):
        return source
    authority, slash, path = source[len("ssh://"):].partition("/")
    user, at, hostport = authority.rpartition("@")
    if not hostport.startswith("["):
        return source
    host, _, tail = hostport[1:].partition("]")
    return f"ssh://{user}{at}{host}{tail}{slash}{path}"


def is_ipv6(host: str) -> bool:
    """Whether ``host`` is an IPv6 address, with a zone after ``%`` (``fe80::1%eth0``) that is
    not empty and holds no ``:`` (`zone_problem`)."""
    address, pct, zone = host.partition("%")
    return _is_ipv6_address(address) and (not pct or zone_problem(zone) is None)


def _is_ipv6_address(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def zone_problem(zone: str) -> str | None:
    """What is wrong with an IPv6 zone (the interface after ``%``), or None. A zone names an
    interface (``eth0``, ``enp3s0``, ``1``): never empty, and without ``:`` (it would read as
    a port), ``%``, brackets, ``/`` or spaces."""
    if not zone:
        return "no zone after '%' (an interface, as in fe80::1%eth0)"
    bad = sorted({c for c in zone if c in ":%[]/" or c.isspace()})
    if bad:
        return f"an IPv6 zone holds no {' or '.join(repr(c) for c in bad)}"
    return None


def _zone_refusal(host: str) -> ValueError | None:
    """The refusal for an IPv6 address whose zone is bad (``fe80::1%``), else None."""
    address, pct, zone = host.partition("%")
    if not pct or not _is_ipv6_address(address):
        return None
    problem = zone_problem(zone)
    return None if problem is None else ValueError(problem)


def _ascii_port(text: str) -> bool:
    """Whether ``text`` is a port's digits: ASCII only (``str.isdigit`` takes ``²`` and
    ``٣``, which ``int()`` refuses or reads as another number)."""
    return text.isascii() and text.isdigit()


def normal_ipv6(host: str) -> str:
    """An IPv6 address (``is_ipv6``) in RFC 5952's form: lower case, the longest run of zero
    groups compressed, no leading zeros (``2001:0DB8:0:0:0:0:0:22`` -> ``2001:db8::22``), an
    IPv4-mapped one with its IPv4 part dotted (``::ffff:192.0.2.1``); a zone as given (an
    interface's name is case-sensitive)."""
    import ipaddress

    text, pct, zone = host.partition("%")
    address = ipaddress.IPv6Address(text)
    mapped = address.ipv4_mapped
    return (f"::ffff:{mapped}" if mapped is not None else str(address)) + pct + zone


def host_key(host: str) -> object:
    """What a host is compared by: an IP address (brackets and case aside, written in any
    form: ``2001:DB8::22`` is ``2001:db8:0:0:0:0:0:22``) as its `ipaddress` value, with its
    zone; a name case-folded (DNS names are case-insensitive, RFC 4343)."""
    import ipaddress

    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        return bare.casefold()


def same_host(a: str, b: str) -> bool:
    """Whether two hosts (no user, no port) name the same box as far as text can tell
    (`host_key`)."""
    return host_key(a) == host_key(b)


def canonical_host(text: str) -> str:
    """``[user@]HOST[:PORT]`` as labledger records it (`rent --host`): an IPv6 address in
    brackets and in its normal form (``root@FE80::1`` -> ``root@[fe80::1]``, `normal_ipv6`),
    anything else as given. The user runs
    to the last ``@``, as OpenSSH reads it. Raises `ValueError` saying what is wrong: a bare
    IPv6 address that ends in ``:DIGITS`` while the part before is an address too
    (``root@::1:2222``: ``::1`` on port 2222, or ``::1:2222`` on port 22?) names both
    bracketed forms; an empty user, host or port, a port that is not ASCII digits in 1-65535,
    an empty zone or one holding ``:`` (``root@fe80::1%eth0:22`` names the bracketed form),
    brackets around what is not an IPv6 address, a second ``:``, a ``/`` or a host starting
    with ``-``."""
    user, at, hostport = text.rpartition("@")
    if at and not user:
        raise ValueError("no user before '@'")
    if any(c in user for c in ":/"):
        raise ValueError("a user holds no ':' or '/'")
    host, port = _host_and_port(hostport, user + at)
    if not host:
        raise ValueError("no host")
    if "/" in host:
        raise ValueError("a host holds no '/' (the folder on the box goes to `pull --from "
                         "HOST:DIR`)")
    if host.startswith("-"):
        raise ValueError("a host does not start with '-'")
    if port is not None:
        if not port:
            raise ValueError("no port after ':'")
        if not _ascii_port(port):
            raise ValueError(f"the port {port!r} is not a number")
        if not 0 < int(port) < 65536:
            raise ValueError(f"port {int(port)} is out of range (1-65535)")
    if is_ipv6(host):
        host = normal_ipv6(host)
    return f"{user}{at}{url_host(host)}{'' if port is None else ':' + str(int(port))}"


def _host_and_port(hostport: str, login: str) -> tuple[str, str | None]:
    """``HOST[:PORT]`` apart (the port None when there is no ``:``), an IPv6 host without its
    brackets; ``login`` (``user@`` or "") only words the errors."""
    if hostport.startswith("["):
        inside, closed, tail = hostport[1:].partition("]")
        if not closed:
            raise ValueError("no ']' closes the '['")
        bad_zone = _zone_refusal(inside)
        if bad_zone is not None:
            raise bad_zone
        if not is_ipv6(inside):
            raise ValueError("brackets hold an IPv6 address only")
        if tail and not tail.startswith(":"):
            raise ValueError("after ']' only ':PORT' may follow")
        return inside, tail[1:] if tail else None
    if hostport.count(":") < 2:
        host, colon, port = hostport.partition(":")
        return host, port if colon else None
    head, _, last = hostport.rpartition(":")
    if "%" in head and _ascii_port(last) and is_ipv6(head):
        # fe80::1%eth0:22: a zone holds no ':', so only a port can follow it
        raise ValueError(f"an IPv6 zone holds no ':': write {login}[{head}]:{last} for port "
                         f"{last}")
    bad_zone = _zone_refusal(hostport)
    if bad_zone is not None:
        raise bad_zone
    if not is_ipv6(hostport):
        raise ValueError("more than one ':' but not an IPv6 address (a port follows the host "
                         "once)")
    if _ascii_port(last) and is_ipv6(head):
        raise ValueError(f"{hostport} is an IPv6 address, and so is {head}: write "
                         f"{login}[{head}]:{last} for port {last}, or {login}[{hostport}] "
                         "for the address")
    return hostport, None


def shown_host(recorded: object) -> str | None:
    """A recorded host (``instance.rented``'s ``host``) as labledger writes it now: one
    recorded before hosts were checked with a bare IPv6 address (``root@::1``) in brackets;
    one that does not read as `canonical_host` reads it (ambiguous, malformed) as it is; None
    when none was recorded."""
    if not isinstance(recorded, str):
        return None
    try:
        return canonical_host(recorded)
    except ValueError:
        return recorded
