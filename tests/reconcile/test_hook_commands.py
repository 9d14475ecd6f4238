"""The agent hook against the ways a command line can hide a destroy or a delete.

Two recorded instances: ``vast-111`` (its run pulled and verified: destroying it is fine) and
``vast-222`` (never pulled: destroying it, or anything that cannot be shown not to, is
blocked). Each row is a command line an agent could send; the hook must block or allow it,
judged through `judge` with a real ledger and store (the console script is covered by
tests/cli/test_cli_hook.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labledger.ledger.ledger import Ledger
from labledger.reconcile.hook import extract_command, judge
from labledger.reconcile.shell_words import simple_commands

FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


@pytest.fixture
def two_boxes(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("vast-111", host="root@ssh5.vast.ai:11111")
    pull_seed.rent("vast-222", host="root@ssh6.vast.ai:22222")
    pull_seed.full(FILES, run="r1", instance="vast-111")
    ledger.append("run.launched", run="r2", instance="vast-222", command=["python"])
    pull_seed.listed(FILES, run="r2", instance="vast-222")
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "src").mkdir()
    return project


BLOCKED = [
    # the destroying command names only what it computes; another instance named elsewhere
    'vastai destroy instance "$(cat .box_id)" && echo vast-111 done',
    "vastai destroy instance $((221+1)) # done with 111",
    "vastai destroy instance 999 && echo 111",
    "vastai destroy instance 222",
    # quoting, continuations, options before the verb, wrappers
    "vastai 'destroy' instance 222",
    'vastai destroy "instance" 222',
    "vastai \\\n destroy instance 222",
    "vastai --raw destroy instance 222",
    "vastai --api-key X destroy instance 222",
    'RUNPOD=1 runpodctl "remove" pod 222',
    "runpodctl pod delete 222",
    "kubectl -n train delete pod trainer-222",
    "kubectl --context gpu delete job j-222",
    "timeout 5 env A=1 nice -n 3 vastai destroy instance 222",
    "sudo -u root vastai stop instance 222",
    "bash -c 'vastai destroy instance 222'",
    "eval \"vastai destroy instance 222\"",
    "echo 222 | xargs vastai destroy instance",
    "V=vastai; $V destroy instance 222",
    "alias d='vastai destroy'; d instance 222",
    # through ssh on the box
    "ssh -p 22222 root@ssh6.vast.ai 'shutdown -h now'",
    "ssh -p 22222 root@ssh6.vast.ai /usr/sbin/shutdown now",
    "ssh -p 22222 root@ssh6.vast.ai rm -rf /root/runs/r2",
    "ssh root@ssh6.vast.ai 'kill 1'",
    # APIs
    "python -c \"import runpod as r; r.terminate_pod('222')\"",
    "curl -X DELETE https://console.vast.ai/api/v0/instances/222/",
    "curl -d '{\"query\": \"mutation { podTerminate(input: {podId: 222}) }\"}' "
    "https://api.runpod.io/graphql",
    # deleting an export root (always protected), above it or inside it, however written
    "rm -rf results",
    "bash -c 'rm -rf results'",
    'sh -c "rm -rf results"',
    "sudo -u root rm -rf results",
    "env rm -rf results",
    "time rm -rf results",
    "nice rm -rf results",
    "(rm -rf results)",
    "{ rm -rf results; }",
    "true & rm -rf results",
    "if true; then rm -rf results; fi",
    "echo results | xargs rm -rf",
    "rm -rf `echo results`",
    "rm -rf res*",
    'rm -rf "$PWD/results"',
    "rm -rf results/r1",
    "find results -delete",
    "cd src && rm -rf ../results",
    "rm -rf .",
    # the ledger itself
    "rm -rf .labledger",
    "rm -rf .labledger/ledger",
]

ALLOWED = [
    "ls -la",
    "vastai destroy instance 111",
    "vastai destroy instance vast-111",
    "vastai show instances",
    "ssh -p 11111 root@ssh5.vast.ai 'shutdown -h now'",
    "grep -rn shutdown src/",
    "man shutdown",
    "pytest -k reboot tests/",
    'git commit -m "handle halt signal"',
    "git log --grep scancel",
    "rm -rf build",
    "rm -rf src/__pycache__",
    "find . -name __pycache__ | xargs rm -rf",
    "rm -rf .labledger/cache",
    "rm results/r1/notes.txt",
]


@pytest.mark.parametrize("command", BLOCKED)
def test_blocked(two_boxes: Path, command: str) -> None:
    verdict = judge(command, str(two_boxes), str(two_boxes))
    assert not verdict.allowed, command
    assert verdict.reasons


@pytest.mark.parametrize("command", ALLOWED)
def test_allowed(two_boxes: Path, command: str) -> None:
    verdict = judge(command, str(two_boxes), str(two_boxes))
    assert verdict.allowed, (command, verdict.reasons)


def test_a_destroy_names_the_unverified_box_it_acts_on(two_boxes: Path) -> None:
    verdict = judge("vastai destroy instance 222 && echo vast-111", str(two_boxes),
                    str(two_boxes))
    assert not verdict.allowed
    assert "instance 'vast-222' is not pull-verified" in verdict.reasons[0]
    hidden = judge("vastai destroy instance $(cat id) && echo 111", str(two_boxes),
                   str(two_boxes))
    assert "live instance (the command names none" in hidden.reasons[0]


@pytest.mark.parametrize(("payload", "expected"), [
    ({"tool_name": "Bash", "tool_input": "vastai destroy instance 222"},
     "vastai destroy instance 222"),
    ({"command": ["vastai", "destroy", "instance", 222]}, "vastai destroy instance 222"),
    ({"command": "ls", "tool_input": {"command": "vastai destroy instance 222"}},
     "ls\nvastai destroy instance 222"),
    ({"tool": "x", "weird": {"deep": ["vastai destroy instance 222"]}},
     "x\nvastai destroy instance 222"),  # no known shape: all its strings
    ({"tool": "x", "weird": {"deep": ["ls"]}}, None),
])
def test_every_command_in_a_payload_is_judged(payload: dict[str, Any],
                                              expected: str | None) -> None:
    assert extract_command(json.loads(json.dumps(payload)))[0] == expected


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $`'\"\\;&|()\n{}#<>*-rf=.")), max_size=60))
def test_parsing_never_raises(text: str) -> None:
    for cmd in simple_commands(text):
        assert cmd.argv  # every simple command found has a command word
