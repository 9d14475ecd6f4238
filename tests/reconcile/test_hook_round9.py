"""`labledger hook` against what the review of the eighth round found, through the real console
script.

A redirection's target is no help flag (``vastai destroy instance 123 -y > -h`` destroys);
``git clean`` is judged as git would run it at its place in the line; what ``runpodctl exec
python FILE`` runs on the pod is FILE's program; more listings feed a computed delete.

The ledger holds RunPod ``pod-abc123`` at ``203.0.113.7`` (run r2, never pulled: every destroy
that may reach it is refused) and ``capsules/c2``, a sealed capsule whose stored copy is
missing (deleting it is refused): the fixture of `test_hook_round8`. Each test feeds the hook a
Claude Code payload.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile import test_hook_round8 as round8
from tests.reconcile.test_hook_review_fixes import assert_blocked, assert_passes

box = round8.box  # the same project: pod-abc123 unverified, capsules/c2 not stored
assert_deletes_a_capsule = round8.assert_deletes_a_capsule


# 1: a redirection and its target are not the CLI's words -----------------------------------------
# bash(1) REDIRECTION: `[n]>word`, `[n]>>word`, `[n]>|word`, `&>word`, `&>>word`, `[n]<word`,
# `[n]<>word`, `[n]>&digit`, `<<<word`; the word may follow the operator after blanks. vastai
# 1.9.1 run with `> -h` sends the DELETE: argparse never sees the `-h`, bash opens a file of
# that name.
@pytest.mark.parametrize("command", [
    "vastai destroy instance 123 -y > -h",
    "vastai destroy instance 123 -y 2> --help",
    "vastai destroy instance 123 -y >-h",
    "vastai destroy instance 123 -y &> --help",
    "vastai destroy instance 123 -y &>> -h",
    "vastai destroy instance 123 -y >| -h",
    "vastai destroy instance 123 -y < -h",
    "vastai destroy instance 123 -y <> -h",
    "vastai destroy instance 123 -y 2>&1 >--help",
    "vastai destroy instance 123 <<< --help",
    "runpodctl remove pod abc123 >> -h",
    "kubectl delete pod trainer > --help",
    "gcloud compute tpus tpu-vm delete t1 --zone z --quiet > -h",
])
def test_a_redirection_target_is_no_help_flag(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


@pytest.mark.parametrize("command", [
    "vastai destroy instance 123 --help > help.txt",
    "vastai destroy instance 123 -h 2>&1 | less",
    "runpodctl remove pod abc123 -h >/dev/null 2>&1",
    "kubectl delete pod trainer --help &> out.txt",
    "vastai destroy instance 123 2>err.txt --help",
])
def test_a_help_flag_beside_a_redirection_still_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)
