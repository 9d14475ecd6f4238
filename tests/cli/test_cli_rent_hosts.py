"""`labledger rent --host`: an IPv6 address is recorded in brackets; a host that does not read
as ``[USER@]HOST[:PORT]`` is refused (exit 2) with nothing written.

The recorded host is what `pull --instance I` offers as ``--from HOST:DIR`` when no folder was
pulled before, and what the agent hook matches a command's host against. A bare IPv6 address
(``root@fe80::1``) pasted there read as host ``fe80:`` and port ``1``, or failed to parse:
brackets (``root@[fe80::1]``, as RFC 3986 and `ssh://` sources write it, and as ``--from``
takes it) keep the host and the port apart. ``::1:2222`` is itself an IPv6 address, so
``root@::1:2222`` could be ``::1`` on port 2222 or that address on port 22: refused, naming
both bracketed forms, never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from labledger.ingest.transport_ssh import SshTarget, parse_target
from labledger.ledger.ledger import Ledger
from labledger.profiles import shipped_profiles
from labledger.profiles import snapshot as profile_snapshot
from tests.conftest import cli_call as call

Snapshot = Callable[[Path], dict[str, bytes]]


def rented_host(project: Path) -> str | None:
    with Ledger.open(project) as ledger:
        (body,) = [r.body_dict() for r in ledger.records() if r.kind == "instance.rented"]
    host = body.get("host")
    assert host is None or isinstance(host, str)
    return host


@pytest.mark.parametrize(("given", "recorded", "target"), [
    ("::1", "[::1]", SshTarget("::1", "/r", None, None)),
    ("root@fe80::1", "root@[fe80::1]", SshTarget("fe80::1", "/r", "root", None)),
    # a link-local address with its zone
    ("root@fe80::1%eth0", "root@[fe80::1%eth0]", SshTarget("fe80::1%eth0", "/r", "root", None)),
    # one address, one recorded text: RFC 5952's compressed lower case (review 53 item 3: a
    # host recorded in capitals was not matched by the agent hook to a command's lower case)
    ("ubuntu@2001:db8:0:0:0:0:0:5", "ubuntu@[2001:db8::5]",
     SshTarget("2001:db8::5", "/r", "ubuntu", None)),
    ("root@[2001:DB8::22]:2222", "root@[2001:db8::22]:2222",
     SshTarget("2001:db8::22", "/r", "root", 2222)),
    ("root@2001:0DB8::0022", "root@[2001:db8::22]", SshTarget("2001:db8::22", "/r", "root", None)),
    ("root@FE80::1%eth0", "root@[fe80::1%eth0]", SshTarget("fe80::1%eth0", "/r", "root", None)),
    ("root@::FFFF:192.0.2.1", "root@[::ffff:192.0.2.1]",
     SshTarget("::ffff:192.0.2.1", "/r", "root", None)),
    ("root@[::1]:2222", "root@[::1]:2222", SshTarget("::1", "/r", "root", 2222)),
    ("[2001:db8::5]", "[2001:db8::5]", SshTarget("2001:db8::5", "/r", None, None)),
    ("root@ssh5.vast.ai:41234", "root@ssh5.vast.ai:41234",
     SshTarget("ssh5.vast.ai", "/r", "root", 41234)),
    ("root@203.0.113.7:22", "root@203.0.113.7:22", SshTarget("203.0.113.7", "/r", "root", 22)),
    ("gpu-box", "gpu-box", SshTarget("gpu-box", "/r", None, None)),  # an ssh config alias
    # ssh takes the user up to the last @
    ("jdoe@ad.univ.edu@login1", "jdoe@ad.univ.edu@login1",
     SshTarget("login1", "/r", "jdoe@ad.univ.edu", None)),
])
def test_a_host_is_recorded_with_an_ipv6_address_in_brackets(
        ledger: Ledger, project: Path, capsys: pytest.CaptureFixture[str], given: str,
        recorded: str, target: SshTarget) -> None:
    code, out, err = call(capsys, "--json", "rent", "--profile", "vastai", "--instance", "box1",
                          "--host", given)
    assert code == 0, err
    assert json.loads(out)["body"]["host"] == recorded
    assert rented_host(project) == recorded
    # a pull with just the instance names the --from to give (exit 2: no folder was pulled
    # before, nothing is written), and that form reaches the host and port given
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1")
    assert code == 2
    assert f"--from {recorded}:DIR" in err
    assert parse_target(f"{recorded}:/r") == target


@pytest.mark.parametrize(("given", "words"), [
    ("root@::1:2222", "write root@[::1]:2222 for port 2222, or root@[::1:2222]"),
    ("2001:db8::1:22", "write [2001:db8::1]:22 for port 22, or [2001:db8::1:22]"),
    ("root@[::1", "no ']' closes the '['"),
    ("root@[::1]x", "after ']' only ':PORT' may follow"),
    ("root@[gpu-box]:22", "brackets hold an IPv6 address"),
    ("root@box:22:33", "more than one ':'"),
    ("root@fe80::zz", "more than one ':'"),
    ("root@box:ssh", "the port 'ssh' is not a number"),
    ("root@box:0", "port 0 is out of range"),
    ("root@box:70000", "port 70000 is out of range"),
    ("root@box:", "no port after ':'"),
    ("root@", "no host"),
    ("root@:22", "no host"),
    ("@box", "no user before '@'"),
    ("me:secret@box", "a user holds no ':' or '/'"),
    ("root@box/runs", "a host holds no '/'"),
    ("-oProxyCommand=touch_x", "a host does not start with '-'"),
    ("a b", "is not a host"),
    # review 53 item 5: a zone is a name after '%', never empty, never holding ':' (so the
    # port after it is a port, and is not suggested as part of the zone)
    ("root@fe80::1%eth0:22", "an IPv6 zone holds no ':': write root@[fe80::1%eth0]:22 for "
                             "port 22"),
    ("root@[fe80::1%eth0:22]", "an IPv6 zone holds no ':'"),
    ("root@fe80::1%", "no zone after '%'"),
    ("root@[fe80::1%]:22", "no zone after '%'"),
    # a port is ASCII digits: '²' and '٣' are digits to str.isdigit, and int() refused the first
    ("root@box:\u00b2", "the port '\u00b2' is not a number"),
    ("root@[::1]:\u0663", "the port '\u0663' is not a number"),
])
def test_a_malformed_host_is_refused_and_nothing_is_written(
        ledger: Ledger, project: Path, snapshot: Snapshot, capsys: pytest.CaptureFixture[str],
        given: str, words: str) -> None:
    before = snapshot(project)
    code, out, err = call(capsys, "rent", "--profile", "vastai", "--instance", "box1",
                          "--host", given)
    assert code == 2, err
    assert out == ""
    assert f"{given!r} is not a host" in err
    assert words in err
    assert snapshot(project) == before


def test_a_host_an_older_labledger_recorded_bare_is_shown_and_offered_in_brackets(
        ledger: Ledger, capsys: pytest.CaptureFixture[str]) -> None:
    # recorded as given, before `rent` checked hosts
    ledger.append("instance.rented", instance="box1", profile="vastai", host="root@fe80::1",
                  profile_snapshot=profile_snapshot(shipped_profiles()["vastai"].profile))
    ledger.append("instance.rented", instance="box2", profile="vastai", host="root@::1:2222",
                  profile_snapshot=profile_snapshot(shipped_profiles()["vastai"].profile))
    code, _, err = call(capsys, "pull", "--run", "r1", "--instance", "box1")
    assert code == 2
    assert "--from root@[fe80::1]:DIR" in err
    code, out, err = call(capsys, "instances", "--json")
    assert code == 0, err
    hosts = {i["instance"]: i["host"] for i in json.loads(out)["instances"]}
    # an ambiguous one cannot be told apart now either: shown as it was recorded
    assert hosts == {"box1": "root@[fe80::1]", "box2": "root@::1:2222"}
