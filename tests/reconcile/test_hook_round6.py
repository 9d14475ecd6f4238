"""`labledger hook` against what a review of the fifth round found, through the real console script.

The hook runs before every tool call an agent makes, so it must be quick and must not refuse
what is safe: a look at a capsule's folder (``du -sh capsules``) on the same line as a clean-up
elsewhere is not a delete of the capsule, a provider's documentation page is not its API, and
``aws s3 cp "$CKPT" ...`` destroys no instance. It must still see a delete that reaches a
capsule through a listing, a variable, a file or a working folder, and ``git -C DIR clean``.

The ledger holds RunPod ``pod-abc123`` at ``203.0.113.7`` (run r2, never pulled: every destroy
that may reach it is refused) and ``capsules/c2``, a sealed capsule whose stored copy is missing
(deleting it is refused). ``shards/`` holds 300 small files in 60 folders, ``data/`` a small
image tree, and ``build/`` is scratch. Each test feeds the hook a Claude Code payload on stdin.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked, assert_passes


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-abc123", profile="runpod", host=f"{BOX}:22022")
    ledger.append("run.launched", run="r2", instance="pod-abc123", command=["x"])
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=1, bytes=1)  # its stored copy is not here: deleting it is refused
    (project / "capsules" / "c2").mkdir(parents=True)
    (project / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.91}\n')
    # sharded outputs next to the capsules (as a data loader writes them): a glob over them
    # matches thousands of files, of which one folder's is the capsule's
    for n in range(60):
        shard = project / "shards" / f"s{n:03d}"
        shard.mkdir(parents=True)
        for k in range(5):
            (shard / f"part-{k}.json").write_text("{}\n")
    for split in ("train", "val"):
        (project / "data" / split).mkdir(parents=True)
        for k in range(20):
            (project / "data" / split / f"img_{k:04d}.jpg").write_bytes(b"\xff\xd8\xff")
    (project / "build").mkdir()
    (project / "build" / "a.o").write_bytes(b"\x7fELF")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".gitignore").write_text(".labledger/\n")
    return project


def assert_deletes_the_capsule(result: Any, command: str) -> None:
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr, result.stderr


# 1, 2: a computed delete is judged by the words that may feed it -------------------------------
# Shapes: `find ./ -name '*~' | xargs rm -f` in a Makefile's clean target (as in many embedded
# projects' Makefiles, e.g. an HR8P506 FreeRTOS port), `ls -t DIR/*.gz | tail -n +8 | xargs rm -f`
# in backup scripts, `cd DIR && ls | head -10 | xargs rm -f` in a FUSE benchmark script; a `du
# -sh` or `ls -la` of a results folder is how an agent looks before it cleans up.
@pytest.mark.parametrize("command", [
    "du -sh capsules; find /tmp/scratch -name '*.tmp' | xargs rm -f",
    "ls -la capsules && find . -name '*.pyc' | xargs rm -f",
    "du -sh capsules/*\nfind /tmp/scratch -name '*.tmp' -print0 | xargs -0 rm -f",
    "wc -l capsules/c2/metrics.json || find /tmp/scratch -type f -name '*.tmp' | xargs rm -f",
    'cat capsules/c2/metrics.json; rm -rf "$TMPDIR/scratch"',
    "du -sh capsules 2>/dev/null; python -c \"import shutil; shutil.rmtree('/tmp/scratch')\"",
    # what a look prints goes to the terminal, not into the delete
    "ls data/*/*.jpg | wc -l; find /tmp/scratch -name '*.tmp' | xargs rm -f",
    "(du -sh capsules) && ls -t build/*.o | tail -n +8 | xargs rm -f",
])
def test_a_look_at_the_capsules_beside_a_computed_delete_elsewhere_passes(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    # its own pipeline, substitution or program names the folder
    "ls capsules | xargs rm -rf",
    "du -sh capsules; ls capsules | xargs rm -rf",
    "ls capsules | bash -c 'xargs rm -rf'",
    "bash -c 'du -sh build; ls capsules | xargs rm -rf'",
    "(cd capsules; ls) | xargs rm -rf",
    "{ ls capsules; } | xargs rm -rf",
    "ls -d capsules/* | while read d; do rm -rf \"$d\"; done",
    "for d in capsules/*; do rm -rf \"$d\"; done",
    "xargs rm -rf < <(ls -d capsules/*)",
    "xargs rm -rf <<< capsules",
    "rm -rf $(ls -d capsules/*)",
    # an earlier command hands it a working folder, a variable or a file
    "cd capsules && ls | xargs rm -rf",
    "pushd capsules; ls | xargs rm -rf",
    "D=capsules; ls $D | xargs rm -rf",
    "export D=capsules && rm -rf \"$D\"/*",
    "ls -d capsules/* > /tmp/old.txt; xargs rm -rf < /tmp/old.txt",
    "ls -d capsules/* | tee /tmp/old.txt; cat /tmp/old.txt | xargs rm -rf",
    # a glob matching thousands of files, the capsule's among them
    "ls */*/*.json | xargs rm -f",
    "ls -d */* | xargs rm -rf",
])
def test_a_computed_delete_fed_the_capsules_folder_is_blocked(hook: Callable[..., Any],
                                                              command: str) -> None:
    assert_deletes_the_capsule(hook(command), command)


# 3: documentation pages are not the providers' APIs ----------------------------------------------
# Shapes: RunPod's API reference pages (docs.runpod.io/api-reference/pods/POST/pods/podId/stop),
# vast.ai's (docs.vast.ai/api-reference/instances/destroy-instance), Lambda's documentation site;
# the APIs themselves: rest.runpod.io/v1, console.vast.ai/api/v0, cloud.lambdalabs.com/api/v1,
# Paperspace's api.paperspace.com/v1 (and the legacy api.paperspace.io: `/machines/ID/stop`).
@pytest.mark.parametrize("command", [
    "curl -s https://docs.runpod.io/api-reference/pods/POST/pods/podId/stop",
    "curl -s https://docs.vast.ai/api-reference/instances/destroy-instance",
    "wget -qO- https://docs.lambdalabs.com/public-cloud/on-demand/terminate",
    "curl -sL https://docs.lambda.ai/public-cloud/on-demand/stop",
    "python -c \"import webbrowser; webbrowser.open('https://docs.runpod.io/pods/stop')\"",
])
def test_a_documentation_page_is_not_an_api_call(hook: Callable[..., Any],
                                                 command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "curl --request POST --url https://rest.runpod.io/v1/pods/abc123/stop",
    "curl -X POST https://api.paperspace.com/v1/machines/ps8x2q/stop -H \"Authorization: "
    "Bearer $PAPERSPACE_API_KEY\"",
    "curl -X POST 'https://api.paperspace.io/machines/ps8x2q/destroyMachine'",
    "python -c \"import requests; requests.post('https://cloud.lambda.ai/api/v1/"
    "instance-operations/terminate', json={'instance_ids': ['x']})\"",
])
def test_a_provider_api_stop_or_destroy_url_is_still_a_destroy(hook: Callable[..., Any],
                                                               command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "pod-abc123" in result.stderr


# 4: aws and gcloud: only a computed word where the destroy verb goes makes a destroy -------------
# Shapes: `aws s3 cp --recursive $MODEL_PATH s3://BUCKET/.../checkpoint-$N/`
# (mbinakba-avey/Gemma3-Finetune scripts/store_2_aws.sh), `aws s3 cp --recursive ${DIR}
# s3://${S3_PATH}/${RUN} --region ${AWS_REGION}` (edf42001/genetic-algorithm-rl-learning
# python/upload_to_s3.sh), `gcloud compute ssh "$INSTANCE_NAME" --zone=$ZONE`
# (christian-bick/edugraph-qwen2.5vl gcp/ssh.sh), `gcloud compute --project "P" scp ...`
# (fredzqm/NanoporeSeqBasecalling uploadAndRun.sh).
@pytest.mark.parametrize("command", [
    'aws s3 cp "$CKPT" s3://lab-ckpts/run7/',
    "aws s3 cp --recursive $MODEL_PATH s3://lab-ckpts/epoch-$EPOCH/ --region $AWS_REGION",
    'aws --profile "$AWS_PROFILE" --region us-east-1 s3 sync runs/ s3://lab-ckpts/runs/',
    "aws ec2 describe-instances --instance-ids $ID",
    'gcloud compute ssh "$INSTANCE_NAME" --zone=$ZONE',
    'gcloud compute --project "$PROJECT" scp train.py trainer-vm:~/ --zone us-east1-b',
    'gcloud storage cp "$CKPT" gs://lab-ckpts/',
    "gcloud alpha compute tpus tpu-vm ssh $INSTANCE --zone=$ZONE --worker=all",
])
def test_aws_and_gcloud_with_computed_arguments_destroy_nothing(
        hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "aws ec2 $ACTION --instance-ids i-0a1b2c3d4e5f67890",
    "aws $SERVICE terminate-instances --instance-ids i-0a1b2c3d4e5f67890",
    "aws --region $REGION ec2 $ACTION --instance-ids i-0a1b2c3d4e5f67890",
    "aws ec2 terminate-instances --instance-ids $ID",
    "echo terminate-instances --instance-ids i-0a1b2c3d4e5f67890 | xargs aws ec2",
    "gcloud compute instances $VERB train-a100 --zone us-central1-a",
    "gcloud beta compute instances $VERB train-a100",
    'gcloud --project "$PROJECT" compute instances $VERB train-a100',
    "gcloud compute $GROUP delete train-a100",
    "echo delete train-a100 | xargs gcloud compute instances",
])
def test_aws_and_gcloud_with_a_computed_verb_stand_for_every_live_instance(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "live instance 'pod-abc123'" in result.stderr
    assert "computed when it runs" in result.stderr


# 5: git's global options before `clean` ----------------------------------------------------------
# Shapes: `git -C "$REPO" ...` in setup scripts (git(1): `-C <path>` runs as if started there,
# several are joined; `-c name=value`, `--git-dir`, `--work-tree`), and `cd DIR; git clean -dxf`
# (firemodels/smv scripts/clean.sh) written in one command.
@pytest.mark.parametrize("command", [
    "git -C capsules clean -fdx",
    "git -C capsules/c2 clean -ffdx",
    'git -C "$PWD/capsules" clean -fd',
    "git -C capsules -C c2 clean -fdx",
    "git -c core.quotepath=off -C capsules clean -fdx",
    "git --no-pager -C capsules clean -fd",
    "git --git-dir=.git --work-tree=capsules clean -fdx",
    "git --work-tree capsules --git-dir .git clean -fdx",
    "git -C . clean -fdx -e .labledger",
])
def test_git_clean_after_global_options_is_judged_where_it_runs(hook: Callable[..., Any],
                                                                command: str) -> None:
    assert_deletes_the_capsule(hook(command), command)


@pytest.mark.parametrize("command", [
    "git -C build clean -fdx",
    "git -C capsules clean -nd",
    "git -C capsules clean -fdx --dry-run",
    "git -C capsules status --short",
    "git -C capsules clean -f",  # without -d no folder is removed
])
def test_git_clean_elsewhere_or_as_a_preview_passes(hook: Callable[..., Any],
                                                    command: str) -> None:
    assert_passes(hook(command), command)
