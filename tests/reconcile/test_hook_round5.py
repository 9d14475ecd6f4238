"""`labledger hook` against the gaps a fifth red-team round found, through the real console script.

Real API calls carry a credential in a variable (``-H "Authorization: Bearer $RUNPOD_API_KEY"``,
``--api-key "$VAST_API_KEY"``): that names an account, not an instance, so the instance the
URL or the argument names is the one judged. Boxes recorded under the generic-ssh profile live
on EC2, GCP, Azure or a SkyPilot cluster, destroyed through those CLIs. The ledger holds, each
fed to the hook as a Claude Code payload on stdin:

- unverified (a run never pulled): RunPod ``pod-abc123`` at ``203.0.113.7``, EC2
  ``i-0a1b2c3d4e5f67890``, GCP ``train-a100``, SkyPilot cluster ``llm-ft7``, Azure ``azvm-q4``;
- verified (every file pulled and checked): RunPod ``pod-good77``, vast.ai ``vast-4821``, Lambda
  ``d5c3a1e07f2b4c6e9a8b7c6d5e4f3a21``, EC2 ``i-0fedcba9876543210``, GCP ``eval-g2``, SkyPilot
  ``sweep-k9``, Azure ``azvm-done``.

``capsules/c2`` is a sealed capsule whose stored copy is missing (deleting it is refused).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, FILES, assert_blocked, claude

UNVERIFIED = {"pod-abc123": ("runpod", f"{BOX}:22022"),
              "i-0a1b2c3d4e5f67890": ("generic-ssh", "ubuntu@198.51.100.20"),
              "train-a100": ("generic-ssh", "198.51.100.21"),
              "llm-ft7": ("generic-ssh", "ubuntu@198.51.100.22"),
              "azvm-q4": ("generic-ssh", "azureuser@198.51.100.24")}
VERIFIED = {"pod-good77": ("runpod", "root@203.0.113.8:22022"),
            "vast-4821": ("vastai", "root@ssh5.vast.ai:34821"),
            "d5c3a1e07f2b4c6e9a8b7c6d5e4f3a21": ("lambda", "ubuntu@192.0.2.30"),
            "i-0fedcba9876543210": ("generic-ssh", "ubuntu@198.51.100.30"),
            "eval-g2": ("generic-ssh", "198.51.100.31"),
            "sweep-k9": ("generic-ssh", "ubuntu@198.51.100.32"),
            "azvm-done": ("generic-ssh", "azureuser@198.51.100.34")}


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    for n, (instance, (profile, host)) in enumerate(UNVERIFIED.items()):
        pull_seed.rent(instance, profile=profile, host=host)
        ledger.append("run.launched", run=f"u{n}", instance=instance, command=["x"])
    for n, (instance, (profile, host)) in enumerate(VERIFIED.items()):
        pull_seed.rent(instance, profile=profile, host=host)
        pull_seed.full(FILES, run=f"v{n}", instance=instance)
    ledger.append("capsule.sealed", run="u0", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=1, bytes=1)  # its stored copy is not here: deleting it is refused
    (project / "capsules" / "c2").mkdir(parents=True)
    (project / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.91}\n')
    (project / "build").mkdir()
    (project / "build" / "a.o").write_bytes(b"\x7fELF")
    return project


@pytest.fixture
def hook(box: Path, run_cli: Callable[..., Any]) -> Callable[..., Any]:
    def run(command: str) -> Any:
        return run_cli("hook", input=claude(command, box))

    return run


def assert_passes(result: Any, command: str) -> None:
    assert result.returncode == 0, (command, result.stderr)
    assert result.stderr == "", command


def assert_blocks_only(result: Any, command: str, instance: str) -> None:
    """Blocked for ``instance``, named by the command, and for no other."""
    assert_blocked(result, command)
    assert f"instance {instance!r} is not pull-verified" in result.stderr, result.stderr
    assert "live instance" not in result.stderr, result.stderr
    assert "names none" not in result.stderr, result.stderr


# 1: a credential in a variable names an account, not an instance --------------------------------
# Shapes: RunPod's REST reference (docs.runpod.io api-reference: `DELETE
# https://rest.runpod.io/v1/pods/{podId}`, `POST .../pods/{podId}/stop`, with `--header
# 'Authorization: Bearer <token>'`); the vast.ai CLI's `--api-key` option (vastai --help) and
# vast-ai/vast-python's `VastAI(api_key=...)`; Lambda's Cloud API (`curl -u $LAMBDA_API_KEY:
# .../instance-operations/terminate -d '{"instance_ids": [...]}'`, docs.lambda.ai).
@pytest.mark.parametrize("command", [
    'curl -X DELETE -H "Authorization: Bearer $RUNPOD_API_KEY" '
    "https://rest.runpod.io/v1/pods/good77",
    "curl --request POST --url https://rest.runpod.io/v1/pods/good77/stop "
    '--header "Authorization: Bearer ${RUNPOD_API_KEY}"',
    'curl -s -X DELETE https://rest.runpod.io/v1/pods/good77 -H "Authorization: Bearer '
    '$(cat ~/.runpod/key)"',
    "wget -qO- --method=DELETE --header=\"Authorization: Bearer $RUNPOD_API_KEY\" "
    "https://rest.runpod.io/v1/pods/good77",
    'http DELETE https://rest.runpod.io/v1/pods/good77 "Authorization:Bearer $RUNPOD_API_KEY"',
    "bash -c 'curl -X DELETE -H \"Authorization: Bearer $RUNPOD_API_KEY\" "
    "https://rest.runpod.io/v1/pods/good77'",
    'vastai destroy instance 4821 --api-key "$VAST_API_KEY"',
    "vastai --api-key $VAST_API_KEY destroy instance 4821",
    "vastai destroy instance 4821 --api-key=$VAST_API_KEY",
    "VAST_API_KEY=$(cat ~/.vast_api_key) vastai destroy instance 4821",
    "python -c \"from vastai import VastAI; "
    "VastAI(api_key='$VAST_API_KEY').destroy_instance(id=4821)\"",
    'curl -u "$LAMBDA_API_KEY:" https://cloud.lambdalabs.com/api/v1/instance-operations/'
    "terminate -d '{\"instance_ids\": [\"d5c3a1e07f2b4c6e9a8b7c6d5e4f3a21\"]}'",
    "curl -u $LAMBDA_API_KEY: https://cloud.lambdalabs.com/api/v1/instance-operations/"
    "terminate -d '{\"instance_ids\": [\"d5c3a1e07f2b4c6e9a8b7c6d5e4f3a21\"]}'",
])
def test_a_credential_variable_leaves_the_named_verified_instance_judged(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    'curl -X DELETE -H "Authorization: Bearer $RUNPOD_API_KEY" '
    "https://rest.runpod.io/v1/pods/abc123",
    'vastai destroy instance 4821 --api-key "$VAST_API_KEY" && '
    "curl -X POST -H \"Authorization: Bearer $RUNPOD_API_KEY\" "
    "https://rest.runpod.io/v1/pods/abc123/stop",
    'ssh -i "$SSH_KEY" root@203.0.113.7 -p 22022 \'shutdown -h now\'',
])
def test_a_credential_variable_leaves_the_named_unverified_instance_judged(
        hook: Callable[..., Any], command: str) -> None:
    assert_blocks_only(hook(command), command, "pod-abc123")


@pytest.mark.parametrize("command", [
    'curl -X DELETE -H "Authorization: Bearer $RUNPOD_API_KEY" '
    "https://rest.runpod.io/v1/pods/$POD_ID",
    'vastai destroy instance $ID --api-key "$VAST_API_KEY"',
    'curl -X DELETE -H "X-Pod: $POD_ID" -H "Authorization: Bearer $RUNPOD_API_KEY" '
    "https://rest.runpod.io/v1/pods/good77",
])
def test_a_variable_where_the_instance_goes_still_stands_for_every_live_one(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "live instance 'pod-abc123'" in result.stderr
    assert "computed when it runs" in result.stderr


@pytest.mark.parametrize("command", [
    'vastai show instances --api-key "$VAST_API_KEY"',
    'curl -s -H "Authorization: Bearer $RUNPOD_API_KEY" https://rest.runpod.io/v1/pods',
    "ssh -i \"$SSH_KEY\" devbox 'pkill -f jupyter'",  # a machine the ledger does not know
])
def test_a_credential_variable_does_not_make_a_harmless_command_a_destroy(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)
