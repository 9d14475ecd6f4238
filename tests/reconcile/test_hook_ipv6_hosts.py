"""The agent hook matches an ``ssh`` destroy to a box rented at an IPv6 address.

`rent --host` records an IPv6 address in brackets (``root@[2001:db8::22]:2222``), as ``--from``
and ``ssh://`` sources write it; a command line names it bare (``ssh -p 2222
root@2001:db8::22 ...``, as OpenSSH takes it), and so does ``ssh -G``. The host a command is
compared with is the address without brackets and port; a host an older labledger recorded
bare (``root@2001:db8::33``) still matches. Documentation addresses (RFC 3849).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from labledger.reconcile.hook import judge

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


@pytest.fixture
def boxes(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-a1b2", profile="runpod", host="root@[2001:db8::11]:22")
    pull_seed.full(FILES, run="r1", instance="pod-a1b2")  # pulled and verified
    pull_seed.rent("pod-c3d4", profile="runpod", host="root@[2001:db8::22]:2222")
    ledger.append("run.launched", run="r2", instance="pod-c3d4", command=["python"])
    pull_seed.rent("pod-e5f6", profile="runpod", host="root@2001:db8::33")  # recorded bare
    ledger.append("run.launched", run="r3", instance="pod-e5f6", command=["python"])
    return project


@pytest.mark.parametrize(("command", "instance"), [
    ("ssh -p 2222 root@2001:db8::22 'shutdown -h now'", "pod-c3d4"),
    ("ssh root@2001:db8::22 -p 2222 poweroff", "pod-c3d4"),
    ("ssh root@2001:db8::33 'rm -rf /root/runs'", "pod-e5f6"),
])
def test_a_destroy_of_an_unverified_ipv6_box_is_blocked_and_names_it(
        boxes: Path, command: str, instance: str) -> None:
    verdict = judge(command, str(boxes), str(boxes))
    assert not verdict.allowed, command
    assert [r.split(" is not pull-verified")[0] for r in verdict.reasons] == [
        f"instance {instance!r}"]


def test_a_destroy_of_the_verified_ipv6_box_is_allowed(boxes: Path) -> None:
    verdict = judge("ssh root@2001:db8::11 'shutdown -h now'", str(boxes), str(boxes))
    assert verdict.allowed, verdict.reasons


@pytest.mark.parametrize(("recorded", "command"), [
    # review 53 item 3: a rent before hosts were written in one form kept the case typed
    ("root@[2001:DB8::22]:2222", "ssh -p 2222 root@2001:db8::22 'shutdown -h now'"),
    ("root@[2001:db8::22]:2222", "ssh -p 2222 root@2001:DB8::22 'shutdown -h now'"),
    # the same address written out, or with leading zeros
    ("root@[2001:db8::22]:2222", "ssh -p 2222 root@2001:db8:0:0:0:0:0:22 'shutdown -h now'"),
    ("root@[2001:db8:0:0:0:0:0:22]:2222", "ssh -p 2222 root@2001:0db8::0022 poweroff"),
    # recorded bare by an older labledger, in capitals
    ("root@2001:DB8::22", "ssh root@2001:db8:0::22 'shutdown -h now'"),
    # DNS names are case-insensitive (RFC 4343)
    ("root@Box7.Example.COM", "ssh root@box7.example.com 'shutdown -h now'"),
    ("root@box7.example.com:2222", "ssh -p 2222 root@BOX7.Example.com poweroff"),
])
def test_a_host_written_in_another_case_or_form_names_the_same_box(
        ledger: Ledger, pull_seed: Any, project: Path, recorded: str, command: str) -> None:
    pull_seed.rent("pod-c3d4", profile="runpod", host=recorded)
    ledger.append("run.launched", run="r2", instance="pod-c3d4", command=["python"])
    verdict = judge(command, str(project), str(project))
    assert not verdict.allowed, command
    assert [r.split(" is not pull-verified")[0] for r in verdict.reasons] == [
        "instance 'pod-c3d4'"]


def test_another_address_is_not_the_rented_box(
        ledger: Ledger, pull_seed: Any, project: Path) -> None:
    pull_seed.rent("pod-c3d4", profile="runpod", host="root@[2001:DB8::22]:2222")
    ledger.append("run.launched", run="r2", instance="pod-c3d4", command=["python"])
    # 2001:db8::2 and 2001:db8::220 share text with the rented address but are other boxes
    for other in ("2001:db8::2", "2001:db8::220"):
        verdict = judge(f"ssh root@{other} 'shutdown -h now'", str(project), str(project))
        assert verdict.allowed, (other, verdict.reasons)


def test_the_address_is_matched_without_asking_ssh(
        ledger: Ledger, pull_seed: Any, project: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # no `ssh -G` to normalise the command's host (no ssh installed, or it timed out): the
    # hook compares the addresses itself
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))
    pull_seed.rent("pod-c3d4", profile="runpod", host="root@[2001:DB8::22]:2222")
    ledger.append("run.launched", run="r2", instance="pod-c3d4", command=["python"])
    for command in ("ssh -p 2222 root@2001:db8:0:0:0:0:0:22 'shutdown -h now'",
                    "ssh -p 2222 root@2001:Db8::22 poweroff"):
        verdict = judge(command, str(project), str(project))
        assert not verdict.allowed, command
