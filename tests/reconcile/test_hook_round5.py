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
  ``sweep-k9``, Azure ``azvm-fin3``.

``capsules/c2`` is a sealed capsule whose stored copy is missing (deleting it is refused).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, FILES, assert_blocked, assert_passes

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
            "azvm-fin3": ("generic-ssh", "azureuser@198.51.100.34")}


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
    # an ssh config alias for the unverified pod, as `~/.ssh/config` would hold it
    (project / "ssh_config").write_text("Host gpu\n    HostName 203.0.113.7\n"
                                        "    Port 22022\n    User root\n")
    # a git work tree (where `.labledger/` is ignored, as getting-started.md advises): git
    # clean's anchored `-e /capsules` is read from its top
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".gitignore").write_text(".labledger/\n")
    (project / "build").mkdir()
    (project / "build" / "a.o").write_bytes(b"\x7fELF")
    return project


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


def test_a_user_value_of_many_variables_without_its_closing_quote_is_judged_at_once(
        hook: Callable[..., Any]) -> None:
    """Review: the `-u` pattern tried every way to split "$AA$AA..." between a variable's name
    and plain word characters when the closing quote was missing, ten times longer for each
    "$AA" (102 s at seven); the agent's hook timeout then lets the command run. At thirty the
    old pattern would never finish (`run_cli` gives up after 120 s: a failure)."""
    command = ('curl -X DELETE -u "' + "$AA" * 30 + '!" '
               "https://rest.runpod.io/v1/pods/abc123")
    result = hook(command)  # (no closing quote: no credential, so every live box counts)
    assert_blocked(result, command)
    assert "instance 'pod-abc123'" in result.stderr


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


# 2: the general clouds' own CLIs -----------------------------------------------------------------
# Syntax from the providers' references: SkyPilot's CLI (docs.skypilot.co/en/stable/reference/
# cli.html: `sky down [CLUSTERS]...`, `-a/--all`, `sky stop`) and Python SDK (docs.skypilot.co/
# en/latest/reference/api.html: `sky.down(cluster_name)`); `gcloud compute instances delete|stop
# INSTANCE_NAMES --zone=ZONE` (cloud.google.com/sdk/gcloud/reference/compute/instances/delete,
# .../stop); `aws ec2 terminate-instances --instance-ids ID` (docs.aws.amazon.com/cli/latest/
# reference/ec2/terminate-instances.html, and boto3's `terminate_instances(InstanceIds=...)`);
# `az vm delete|deallocate --resource-group RG --name NAME` (learn.microsoft.com/cli/azure/vm; the
# REST operation learn.microsoft.com/rest/api/compute/virtual-machines/deallocate).
@pytest.mark.parametrize(("command", "instance"), [
    ("sky down llm-ft7", "llm-ft7"),
    ("sky down -y llm-ft7", "llm-ft7"),
    ("sky stop llm-ft7 --yes", "llm-ft7"),
    ("python -c \"import sky; sky.down('llm-ft7')\"", "llm-ft7"),
    ("python -c \"import subprocess; subprocess.run(['sky', 'down', '-y', 'llm-ft7'])\"",
     "llm-ft7"),
    ("gcloud compute instances delete train-a100 --zone=us-central1-a --quiet", "train-a100"),
    ("gcloud beta compute instances stop train-a100 --zone us-central1-a", "train-a100"),
    ("gcloud --project ml-lab compute instances suspend train-a100", "train-a100"),
    ("aws ec2 terminate-instances --instance-ids i-0a1b2c3d4e5f67890", "i-0a1b2c3d4e5f67890"),
    ("aws --region us-east-1 ec2 stop-instances --instance-ids i-0a1b2c3d4e5f67890",
     "i-0a1b2c3d4e5f67890"),
    ("python -c \"import boto3; boto3.client('ec2').terminate_instances("
     "InstanceIds=['i-0a1b2c3d4e5f67890'])\"", "i-0a1b2c3d4e5f67890"),
    ("az vm delete --resource-group rg-ml --name azvm-q4 --yes", "azvm-q4"),
    ("az vm deallocate -g rg-ml -n azvm-q4", "azvm-q4"),
    ("az vm stop -g rg-ml -n azvm-q4", "azvm-q4"),
])
def test_a_general_cloud_destroy_of_an_unverified_box_is_blocked(
        hook: Callable[..., Any], command: str, instance: str) -> None:
    assert_blocks_only(hook(command), command, instance)


@pytest.mark.parametrize("command", [
    "sky down sweep-k9",
    "gcloud compute instances delete eval-g2 --zone=us-central1-a --quiet",
    "aws ec2 terminate-instances --instance-ids i-0fedcba9876543210",
    "az vm delete --resource-group rg-ml --name azvm-fin3 --yes",
])
def test_a_general_cloud_destroy_of_a_verified_box_passes(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_passes(hook(command), command)


# a name the ledger does not know (or `--all`) stands for every live instance, as an unknown id
# of vastai or runpodctl does; so does a verb computed when it runs
@pytest.mark.parametrize("command", [
    "sky down -a -y",
    "sky down other-cluster",
    "gcloud compute instances delete scratch-vm --zone=us-central1-a",
    "aws ec2 terminate-instances --instance-ids i-0123456789abcdef0",
    "az vm deallocate --ids /subscriptions/x/resourceGroups/rg/providers/Microsoft.Compute/"
    "virtualMachines/other",
    "sky $ACTION llm-ft7",
    "echo down sweep-k9 | xargs sky",
])
def test_a_general_cloud_destroy_naming_no_recorded_box_stands_for_every_live_one(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "live instance 'llm-ft7'" in result.stderr


@pytest.mark.parametrize("command", [
    "sky launch -c llm-ft7 --gpus A100:8 train.yaml",
    "sky launch -c $CLUSTER task.yaml",  # a computed name, not a computed verb
    "sky status --refresh",
    "sky exec llm-ft7 'python eval.py'",
    "bash ~/sky/stop_watch.sh",
    "gcloud compute instances list --filter=name:train",
    "gcloud compute instances describe train-a100 --zone us-central1-a",
    "gcloud compute instances delete-access-config train-a100",
    "aws ec2 describe-instances --instance-ids i-0a1b2c3d4e5f67890",
    "az vm list -o table",
    "az vm start -g rg-ml -n azvm-q4",
])
def test_general_cloud_commands_that_destroy_nothing_pass(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_passes(hook(command), command)


# 3: autossh runs ssh, with its own `-M port` before ssh's options ------------------------------
# Shape: autossh's manual (`autossh [-V] [-M port[:echo_port]] [-f] [SSH_OPTIONS]`; `-M 0` turns
# its monitoring off, the usual form with ServerAliveInterval).
@pytest.mark.parametrize("command", [
    "autossh -M 0 root@203.0.113.7 'shutdown -h now'",
    "autossh -M0 root@203.0.113.7 -p 22022 'pkill -f train.py'",
    "autossh -M 20000 -o ServerAliveInterval=30 root@203.0.113.7 'rm -rf /workspace/runs'",
    "autossh -M 0 -F ssh_config gpu 'sudo shutdown -h now'",
    "autossh -M 0 gpu -F ssh_config -- tmux kill-server",
])
def test_autossh_runs_its_remote_command_on_the_box(hook: Callable[..., Any],
                                                    command: str) -> None:
    assert_blocks_only(hook(command), command, "pod-abc123")


@pytest.mark.parametrize("command", [
    "autossh -M 0 -f -N -L 8888:localhost:8888 root@203.0.113.7",
    "autossh -M 0 root@203.0.113.7 nvidia-smi",
    "autossh -M 0 devbox 'sudo reboot'",  # a machine the ledger does not know
])
def test_autossh_that_destroys_nothing_on_a_recorded_box_passes(hook: Callable[..., Any],
                                                                command: str) -> None:
    assert_passes(hook(command), command)


# 4: `git clean -e PATTERN` keeps what the pattern matches --------------------------------------
# Shape: the idiom `git clean -fdx -e .venv` (keep an environment through a full clean), as in
# git-clean(1): `-e <pattern>`, `--exclude=<pattern>` add to the ignore rules, and `-x` still
# honours them. Checked against real git 2.x in a scratch repository: `-e capsules`, `-e c2`,
# `-e /capsules`, `-e 'caps*'`, `-e capsules/c2`, `-e 'capsules/*'`, `-e '**/c2'` keep
# capsules/c2; `-X` removes it (there the pattern adds to what is removed), and so does a later
# `-e '!capsules'`; from a subfolder, `-e /capsules` is the top's `capsules`, not the subfolder's.
# The ledger `.labledger/` is ignored, so `-x` removes it unless it is excluded too.
@pytest.mark.parametrize("command", [
    "git clean -fdx -e capsules -e .labledger",
    "git clean -fdxe capsules -e .labledger/",
    "git clean -fdx --exclude=capsules/ --exclude=.labledger",
    "git clean -ffdx -e 'caps*' -e '.lab*'",
    "git clean -fdx -e c2 -e .labledger",
    "git clean -fdx -e /capsules -e /.labledger",
    "git clean -fdx -e 'capsules/*' -e '**/.labledger'",
    "git clean -f -edata",  # `-e data`, not `-d`: no folder is removed
])
def test_git_clean_excluding_the_capsule_and_the_ledger_passes(hook: Callable[..., Any],
                                                               command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize(("command", "deletes"), [
    ("git clean -fdx -e capsules", "the labledger ledger"),  # -x removes the ignored ledger
    ("git clean -fdx -e .labledger", "deletes the capsule"),
    ("git clean -fdX -e capsules -e .labledger", "deletes the capsule"),  # -X: removes those
    ("git clean -fdx -e capsules -e '!capsules' -e .labledger", "deletes the capsule"),
    ("git clean -fdx -e build -e .labledger", "deletes the capsule"),
    ("git clean -fdx -e capsules/c9 -e .labledger", "deletes the capsule"),
    ("git clean -fdx -enode_modules", "deletes the capsule"),  # `-e node_modules`, not a dry run
    ("git clean -fdx -e src/capsules -e .labledger", "deletes the capsule"),  # from the top: no
])
def test_git_clean_whose_exclusions_miss_a_protected_folder_is_blocked(
        hook: Callable[..., Any], command: str, deletes: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert deletes in result.stderr, result.stderr


# 5: the method in lower case -------------------------------------------------------------------
# curl sends `-X delete` as written; RFC 9110 section 9.1 makes the method case-sensitive, but
# whether RunPod's server (or a proxy before it) refuses it cannot be checked from here: judged
# as a DELETE (fail closed).
@pytest.mark.parametrize("command", [
    "curl -X delete https://rest.runpod.io/v1/pods/abc123 -H \"Authorization: Bearer $KEY\"",
    "curl --request Delete https://rest.runpod.io/v1/pods/abc123",
])
def test_a_lower_case_delete_method_is_judged_as_a_delete(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_blocks_only(hook(command), command, "pod-abc123")


def test_a_word_delete_in_a_request_body_is_no_method(hook: Callable[..., Any]) -> None:
    command = ("curl -X POST https://rest.runpod.io/v1/pods -H \"Authorization: Bearer $KEY\" "
               "-d '{\"name\": \"delete me later\", \"imageName\": \"runpod/pytorch\"}'")
    assert_passes(hook(command), command)
