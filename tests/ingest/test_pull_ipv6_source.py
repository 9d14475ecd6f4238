"""An IPv6 box is recorded and printed with its host in brackets: ``ssh://root@[::1]:22/r``.

Before, a pull ``--from '[::1]:22:/r'`` recorded (``pull.listed``, ``--json``'s ``source``, the
``ok:`` line) ``ssh://root@::1:22/r``: a host ``::1:22`` (itself an IPv6 address) or ``::1`` on
port 22 cannot be told apart there, and a reader that splits at the last ``:`` (as for any
other host) gets it wrong for an address such as ``fe80::1``. Sources recorded that way before
are still read, and shown bracketed (`canonical_source`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

from labledger.ingest.pull import partial_name, partial_origins
from labledger.ingest.ssh_url import (
    canonical_host,
    canonical_source,
    is_ipv6,
    normal_ipv6,
    url_as_spec,
    url_host,
)
from labledger.ingest.transport_ssh import SshTarget, box_root, parse_target
from labledger.ledger.ledger import Ledger
from labledger.reconcile.pull_verified import (
    ObjectChecker,
    gate_events,
    open_store,
    verify_run,
)
from tests.conftest import Sshd

LABLEDGER = Path(sys.executable).with_name("labledger")

_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=12)
_HOST = st.one_of(
    st.builds(".".join, st.lists(st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789",
                                         min_size=1, max_size=10), min_size=1, max_size=4)),
    st.ip_addresses(v=4).map(str), st.ip_addresses(v=6).map(str))
_FOLDER = st.sampled_from(["/root/runs/r1", "runs/r1", "/", "~/runs/r 2", "/data/run #3"])


@given(user=_NAME, host=_HOST, port=st.integers(1, 65535), folder=_FOLDER)
def test_the_recorded_source_brackets_an_ipv6_host_and_reads_back(
        user: str, host: str, port: int, folder: str) -> None:
    root, source = box_root(SshTarget(host=host, dir=folder), user, port)
    authority = source[len("ssh://"):].split("/", 1)[0]
    shown_host = authority.rpartition("@")[2].rpartition(":")[0]
    assert shown_host == (f"[{host}]" if ":" in host else host)
    assert parse_target(source) == SshTarget(host=host, dir=root, user=user, port=port)
    spec = url_as_spec(source)
    assert spec is not None
    assert parse_target(spec) == SshTarget(host=host, dir=root, user=user, port=port)
    assert canonical_source(source) == source  # already as printed now


@given(user=st.none() | _NAME, host=_HOST, port=st.none() | st.integers(1, 65535))
def test_a_rented_host_is_recorded_as_the_from_form_that_reaches_it(
        user: str | None, host: str, port: int | None) -> None:
    # `rent --host`: what is recorded is offered as `pull --from HOST:DIR`
    login = f"{user}@" if user else ""
    # (an address in RFC 5952's form: Python 3.11 writes an IPv4-mapped one ::ffff:0:0, the
    # RFC and Python 3.13 ::ffff:0.0.0.0)
    host = normal_ipv6(host) if ":" in host else host
    written = f"{login}{url_host(host)}{'' if port is None else f':{port}'}"
    assert canonical_host(written) == written
    assert parse_target(f"{written}:/r") == SshTarget(host=host, dir="/r", user=user, port=port)
    if ":" not in host or port is not None:
        return
    # bare, as a user may type it: bracketed, unless the part before its last ":" is an
    # address too (::1:2 is one, and so is ::1, then on port 2): refused, naming both forms
    head, _, last = host.rpartition(":")
    if last.isdigit() and is_ipv6(head):
        with pytest.raises(ValueError, match=re.escape(
                f"write {login}[{head}]:{last} for port {last}, or {written}")):
            canonical_host(login + host)
    else:
        assert canonical_host(login + host) == written


@pytest.mark.parametrize(("recorded", "shown"), [
    ("ssh://root@::1:22/r", "ssh://root@[::1]:22/r"),  # recorded before hosts were bracketed
    ("ssh://u@fe80::1%eth0:2222/~/runs/r1", "ssh://u@[fe80::1%eth0]:2222/~/runs/r1"),
    ("ssh://root@[::1]:22/r", "ssh://root@[::1]:22/r"),
    ("ssh://root@box:22/r", "ssh://root@box:22/r"),
    ("dir:/mnt/runs/r1", "dir:/mnt/runs/r1"),
    ("box:/root/run", "box:/root/run"),  # not an ssh:// source: as it is
])
def test_an_older_bare_ipv6_source_is_shown_bracketed(recorded: str, shown: str) -> None:
    assert canonical_source(recorded) == shown


def test_the_gate_names_an_older_ipv6_listing_with_brackets(ledger: Ledger,
                                                            pull_seed: Any) -> None:
    # a listing recorded by an older labledger from box1; the gate of box2 names where it was
    # taken
    pull_seed.ledger.append("pull.listed", run="r1", instance="box1",
                            source="ssh://root@::1:2222/root/runs/r1", entries=[])
    pull_seed.ledger.append("run.launched", run="r1", instance="box2", command=["python"])
    result = verify_run("r1", gate_events(ledger), ObjectChecker(open_store(ledger)),
                        instance="box2")
    said = " ".join(result.problems)
    assert "ssh://root@[::1]:2222/root/runs/r1 (instance box1)" in said


def _env(project: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LABLEDGER_")}
    env.pop("SSH_AUTH_SOCK", None)
    env.update(LABLEDGER_ROOT=str(project), HOME=str(home), LABLEDGER_SETTLE_S="0",
               LABLEDGER_WRITER="test-writer")
    return env


def test_a_pull_from_ipv6_records_prints_and_pulls_again_bracketed(sshd6: Sshd,
                                                                   tmp_path: Path) -> None:
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    (box / "train.csv").write_text("step,loss\n100,0.41\n200,0.37\n")
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    env = _env(project, home)
    login = ["--identity", str(sshd6.client_key)]

    def labledger(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(LABLEDGER), *args], env=env, cwd=project,
                              capture_output=True, text=True, timeout=120, check=False)

    assert labledger("init", "-q").returncode == 0
    # the form docs/pull.md gives for an IPv6 box: the address in brackets, then the port
    first = labledger("pull", "--run", "r1", "--instance", "box6", *login,
                      "--accept-new-host-key", "--from", f"{sshd6.user}@[::1]:{sshd6.port}:{box}")
    assert first.returncode == 0, first.stderr
    want = f"ssh://{sshd6.user}@[::1]:{sshd6.port}{box}"
    assert f"ok: {want} -> run r1" in first.stderr
    with Ledger.open(project) as led:
        listed = [r.body_dict() for r in led.records() if r.kind == "pull.listed"]
    assert [b["source"] for b in listed] == [want]
    # the recorded source, pasted back into --from, pulls the same box again
    pasted = labledger("--json", "pull", "--run", "r1", "--instance", "box6", *login,
                       "--from", want)
    assert pasted.returncode == 0, pasted.stderr
    assert json.loads(pasted.stdout)["source"] == want
    # and --instance alone finds it
    again = labledger("pull", "--run", "r1", "--instance", "box6", *login)
    assert again.returncode == 0, again.stderr
    assert f"pulling from {sshd6.user}@[::1]:{sshd6.port}:{box}" in again.stderr
    assert f"ok: {want} -> run r1" in again.stderr


def test_a_partial_file_an_older_labledger_left_for_an_ipv6_box_is_resumed(
        sshd6: Sshd, tmp_path: Path) -> None:
    # A labledger from before sources were bracketed named the pull's source (and so the key
    # of its partial files) ssh://USER@::1:PORT/DIR; its pull was cut after 1 MiB of big.dat.
    # The same --from now names the source ssh://USER@[::1]:PORT/DIR: the received MiB is
    # resumed, not sent again, and no partial file is left behind.
    box = tmp_path / "box" / "r1"
    box.mkdir(parents=True)
    data = os.urandom(3 * 1024 * 1024 + 5)
    (box / "big.dat").write_bytes(data)
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    env = _env(project, home)
    got = subprocess.run([str(LABLEDGER), "init", "-q"], env=env, cwd=tmp_path,
                         capture_output=True, text=True, timeout=60, check=False)
    assert got.returncode == 0, got.stderr
    with Ledger.open(project) as led:
        store = open_store(led)
        store.init()
    older = f"ssh://{sshd6.user}@::1:{sshd6.port}{box}"
    assert canonical_source(older) == f"ssh://{sshd6.user}@[::1]:{sshd6.port}{box}"
    received = 1024 * 1024
    (store.tmp_dir / partial_name(older, "big.dat", len(data))).write_bytes(data[:received])

    done = subprocess.run(
        [str(LABLEDGER), "--json", "pull", "--run", "r1", "--instance", "box6", "--identity",
         str(sshd6.client_key), "--accept-new-host-key", "--from",
         f"{sshd6.user}@[::1]:{sshd6.port}:{box}"],
        env=env, cwd=project, capture_output=True, text=True, timeout=120, check=False)

    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    (big,) = summary["files"]
    assert (big["path"], big["status"], big["resumed_from"]) == ("big.dat", "pulled", received)
    assert summary["bytes_transferred"] == len(data) - received
    assert store.object_path(big["digest"]).read_bytes() == data
    assert sorted(p.name for p in store.tmp_dir.glob("pull-*")) == []


def test_gc_names_the_box_of_a_partial_file_under_either_name(ledger: Ledger) -> None:
    # a listing an older labledger recorded with the bare source: its partial file may be under
    # the name that labledger gave it, or under the current one a later pull renamed it to (and
    # was cut before it recorded a listing of its own); `cas gc` names the box either way
    older = "ssh://root@::1:2222/root/runs/r1"
    ledger.append("pull.listed", run="r1", instance="box6", source=older,
                  entries=[{"path": "big.dat", "size": 7, "sha256": "ab" * 32}],
                  manifest_digest="blake3:" + "cd" * 32)
    origins = partial_origins(ledger)
    current = partial_name("ssh://root@[::1]:2222/root/runs/r1", "big.dat", 7)
    assert partial_name(older, "big.dat", 7) == current  # keyed by the source as written now
    before = "pull-" + blake3(f"{older}\0big.dat\0{7}".encode()).hexdigest()[:40] + ".partial"
    shown = ("ssh://root@[::1]:2222/root/runs/r1", "big.dat")
    assert origins[current] == origins[before] == shown
    assert origins[before.replace(".partial", ".stored")] == shown


@pytest.mark.parametrize(("spec", "target"), [
    # a port is ASCII digits (review 53 item 5): '٣' (ARABIC-INDIC DIGIT THREE) is a digit to
    # Python's \d and int(), and was read as port 3; scp reads what follows as the folder
    ("root@[::1]:\u0663:/r", SshTarget("::1", "\u0663:/r", "root", None)),
    ("root@box:\u0663\u0663:/r", SshTarget("box", "\u0663\u0663:/r", "root", None)),
    ("root@box:22:/r", SshTarget("box", "/r", "root", 22)),
])
def test_a_from_port_is_ascii_digits(spec: str, target: SshTarget) -> None:
    assert parse_target(spec) == target
