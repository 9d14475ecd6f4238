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
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=1, bytes=1)  # its stored copy is not here: deleting it is refused
    (project / "capsules" / "c2").mkdir(parents=True)
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "notes.txt").write_text("the run's notes\n")
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
    # second review: parsing kept in step with bash
    "cat > notes.md <<'EOF'\nDon't forget\nEOF\nrm -rf results",
    "cat > notes.md <<'EOF'\nDon't\nEOF\nssh -p 22222 root@ssh6.vast.ai 'kill 1'",
    "echo $'it\\'s'; rm -rf results",
    "vastai des\\\ntroy instance 222",
    "r\\\nm -rf results",
    # ssh forms
    "ssh root@ssh6.vast.ai -p 22222 'pkill python'",
    "ssh root@ssh6.vast.ai -p 22222 shutdown -h now",
    "ssh -p 22222 root@ssh6.vast.ai -- rm -rf /root/runs",
    "ssh -vp 22222 root@ssh6.vast.ai rm -rf /root/runs",
    "ssh -p 22222 root@ssh6.vast.ai 'bash -s' <<< 'rm -rf /root/runs'",
    "ssh root@ssh6.vast.ai rm /root/runs/r2/best.pth",
    "ssh root@ssh6.vast.ai truncate -s0 /root/runs/r2/best.pth",
    "ssh root@ssh6.vast.ai python -c \"import shutil; shutil.rmtree('/root/runs')\"",
    "mosh root@ssh6.vast.ai -- rm -rf /root/runs",
    "vastai execute 222 'rm -r /root/runs'",
    # provider verbs and APIs
    "vastai $(echo destroy) instance 222",
    "printf 'destroy instance 222' | xargs vastai",
    "vastai $'destroy' instance 222",
    "vastai recycle instance 222",
    "curl -X PUT -d '{\"state\":\"stopped\"}' https://console.vast.ai/api/v0/instances/222/",
    "wget --method=DELETE https://console.vast.ai/api/v0/instances/222/",
    "http DELETE https://console.vast.ai/api/v0/instances/222/",
    "python -c \"import requests; requests.delete('https://console.vast.ai/api/v0/instances/222/')\"",
    "python -c \"import subprocess as s; s.run(['vastai','destroy','instance','222'])\"",
    # deletes of results, the ledger, a capsule that does not verify
    "rm -rf {results,tmp}",
    "rm -rf .labledge{r,}",
    "rm -rf capsules/c{2,}",
    "rm -rf capsules/c2",
    "rm -rf ~+/results",
    "pushd .. && rm -rf project",
    "cd -P .. && rm -rf project",
    "busybox rm -rf results",
    "su -c 'rm -rf results'",
    "sudo -iu root rm -rf results",
    "exec -a x rm -rf results",
    "env -S 'rm -rf results'",
    "env --split-string='rm -rf results'",
    "chrt -i 0 rm -rf results",
    "taskset -c 0 rm -rf results",
    "flock f rm -rf results",
    "script -qc 'rm -rf results'",
    "parallel rm -rf ::: results",
    "echo 'rm -rf results' | bash",
    "bash <(echo rm -rf results)",
    "eval eval eval eval eval eval eval eval eval eval eval eval eval eval rm -rf results",
    "git clean -fdx",
    "python -c \"import shutil; shutil.rmtree('results')\"",
    "mv .labledger /tmp/t && rm -rf /tmp/t",
    "rsync -a --delete /tmp/empty/ results/",
    "rm -f results/*/*",
    "find results -type f | xargs rm -f",
    "tar --remove-files -czf r.tgz results",
    "find results -exec shred -u {} +",
    "rm results/r1/notes.txt",
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
    "rm -rf .labledger/cache/*",
    # second review: everyday commands that must not be refused
    "find . -name '*.pyc' -delete",
    "find . -type d -name __pycache__ -exec rm -rf {} +",
    "find . -name .DS_Store -delete",
    "rm -rf build dist *.egg-info",
    "rm -rf */__pycache__",
    "rm -rf **/__pycache__",
    "tmp=$(mktemp -d) && cp a $tmp && rm -rf \"$tmp\"",
    'rm -rf "$(mktemp -d)"',
    'rm -rf "$BUILD_DIR"',
    "rm -rf ${XDG_CACHE_HOME:-~/.cache}/torch",
    'git commit -m "fix: handle vastai destroy instance errors"',
    "git commit -F - <<'EOF'\nfix: retry kubectl delete on timeout\nEOF",
    "grep -rn 'vastai destroy instance' .",
    "rg 'kubectl delete' docs/",
    "sed -i 's/vastai stop instance/vastai destroy instance/' notes.md",
    "echo 'remember: vastai destroy instance 222 after the pull' >> NOTES.md",
    "grep -E 'start|stop|halt' log.txt",
    "rg 'def (shutdown|close)' src/",
    "pytest -k 'test_stop|shutdown'",
    "git log --grep 'halt|reboot' -E",
    "cat > /tmp/cleanup.sh <<'EOF'\nrm -rf results/tmp\nEOF",
    "ssh devbox 'pkill -f jupyter'",
    "ssh devbox 'rm -rf ~/tmp/scratch'",
    "$PYTHON stop.py",
    "$EDITOR remove.txt",
    "kill %1",
    "pkill -f tensorboard",
    "docker rm -f trainer",
    "rm -rf ~/.cache/pip",
    "rm -rf node_modules .venv",
    "ssh -p 22222 root@ssh6.vast.ai ls /root/runs",
    "kubectl get pods",
    "curl -sSL https://install.example.com | bash",
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
    assert "(the command names none of the recorded instances" in hidden.reasons[0]


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


@pytest.mark.parametrize("command", [
    "echo " + "$(" * 30 + ")" * 30 + "; vastai destroy instance 222",
    "echo '" + "curl -X DELETE " * 1300 + "'; vastai destroy instance 222",
    ";".join(f"curl -s -X DELETE https://api.example.com/items/{n}" for n in range(400)),
    "echo '" + "pspace machines " * 500 + "'",
    "eval " * 40 + "vastai destroy instance 222",
])
def test_adversarial_lines_are_judged_quickly(two_boxes: Path, command: str) -> None:
    import time

    start = time.perf_counter()
    verdict = judge(command, str(two_boxes), str(two_boxes))
    assert time.perf_counter() - start < 10  # an agent's hook timeout is minutes: fail-open
    if "vastai destroy" in command:
        assert not verdict.allowed


@pytest.mark.parametrize("command", ["rm -rf ~a\x00b", "cd ~a\x00b && rm -rf results"])
def test_nul_bytes_do_not_raise(two_boxes: Path, command: str) -> None:
    judge(command, str(two_boxes), str(two_boxes))


def test_a_payload_nested_too_deep_is_bad_input() -> None:
    from labledger.reconcile.hook import HookInputError, parse_payload

    with pytest.raises(HookInputError, match="nested too deep"):
        parse_payload(b"[" * 100_000 + b"]" * 100_000)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab $`'\"\\;&|()\n{}#<>*-rf=.")), max_size=60))
def test_parsing_never_raises(text: str) -> None:
    for cmd in simple_commands(text):
        assert cmd.argv  # every simple command found has a command word
