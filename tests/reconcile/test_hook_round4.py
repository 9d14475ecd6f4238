"""`labledger hook` against a fourth red-team round, through the real console script.

An agent that rents GPUs writes destroys in the forms the providers document: SDK calls, REST
actions by POST, a provider CLI or ``scancel`` run through ssh on a login node, deletes whose
paths come from a listing or a program; and it previews deletes with ``-n`` first. One RunPod
box, ``pod-abc123`` at ``203.0.113.7``, whose run r2 was never pulled, and a Slurm job
recorded without a host: every command that destroys either must exit 2. ``capsules/c2`` is
a sealed capsule whose stored copy is missing (deleting it is refused); ``results`` is an
export root. Each test feeds the hook a Claude Code payload on stdin, as an agent would.
"""

from __future__ import annotations

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
    pull_seed.rent("job-48213", profile="slurm", host=None)
    ledger.append("run.launched", run="r3", instance="job-48213", command=["sbatch"])
    ledger.append("capsule.sealed", run="r2", path="capsules/c2", digest="blake3:" + "ab" * 32,
                  files=1, bytes=1)  # its stored copy is not here: deleting it is refused
    (project / "capsules" / "c2").mkdir(parents=True)
    (project / "capsules" / "c2" / "metrics.json").write_text('{"acc": 0.91}\n')
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "best.pth").write_bytes(b"weights")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("print(1)\n")
    (project / "empty").mkdir()
    return project


# 1: SDK calls the vast.ai Python SDK documents --------------------------------------------------
# Shape: akdasa-studios/lectorium modules/services/airflow/dags/services/vastai/actions/
# shutdown_instance.py (`VastAI(api_key=...).stop_instance(ID=...)`); the SDK also has
# destroy_instances(ids) and recycle_instance(id) (vastai-sdk's method list).
@pytest.mark.parametrize("command", [
    'python -c "from vastai import VastAI; VastAI(api_key=KEY).stop_instance(ID=4821)"',
    "python3 -c 'import vastai; vastai.VastAI().stop_instances(ids=[4821])'",
    "python -c 'from vastai import VastAI; VastAI().destroy_instances(ids=[4821, 4822])'",
    "python -c 'from vastai import VastAI; VastAI().recycle_instance(id=4821)'",
])
def test_vast_sdk_stop_destroy_and_recycle_are_destroys(hook: Callable[..., Any],
                                                        command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "pod-abc123" in result.stderr  # names no recorded id: each live one counts


# 2: RunPod's REST API stops a pod by POST -------------------------------------------------------
# Shape: docs.runpod.io api-reference, `POST https://rest.runpod.io/v1/pods/{podId}/stop` with a
# bearer token header.
@pytest.mark.parametrize("command", [
    "curl --request POST --url https://rest.runpod.io/v1/pods/abc123/stop "
    "--header 'Authorization: Bearer rp_key'",
    "curl -s -X POST https://rest.runpod.io/v1/pods/abc123/stop -H 'Authorization: Bearer k'",
    'python -c "import requests; requests.post(\'https://rest.runpod.io/v1/pods/abc123/stop\','
    ' headers=h)"',
])
def test_a_provider_api_stop_action_is_a_destroy_whatever_the_method(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "instance 'pod-abc123' is not pull-verified" in result.stderr


@pytest.mark.parametrize("command", [
    "curl -s https://rest.runpod.io/v1/pods/abc123 -H 'Authorization: Bearer k'",
    "curl -X POST https://rest.runpod.io/v1/pods/abc123/start -H 'Authorization: Bearer k'",
    "curl -s https://rest.runpod.io/v1/pods -H 'Authorization: Bearer k' | jq '.[].id'",
])
def test_reading_or_starting_a_pod_through_the_api_passes(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_passes(hook(command), command)


# 3: a provider's command run through ssh acts on the account, not on that machine ----------------
# Slurm jobs are cancelled on a login node (`ssh cluster scancel ...`; scancel's --me, -u and
# --name select jobs by owner or name, so the line names no job id).
@pytest.mark.parametrize("command", [
    "ssh hpc scancel --me",
    "ssh hpc 'scancel -u alice --partition gpu'",
    "ssh login1.hpc.example.edu scancel --name=train-llm",
    "ssh jump curl -X DELETE https://rest.runpod.io/v1/pods/xyz789",
])
def test_a_provider_destroy_through_ssh_on_an_unknown_host_is_judged_as_here(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "live instance" in result.stderr


@pytest.mark.parametrize("command", [
    "ssh devbox 'sudo reboot'",  # that machine's own power: not a recorded one
    "ssh devbox 'sudo shutdown -h now'",
    "ssh devbox 'pkill -f jupyter'",
    "ssh hpc squeue --me",
    "ssh hpc 'sacct -j 48213 --format=JobID,State,Elapsed'",
])
def test_what_acts_on_an_unknown_machine_itself_passes(hook: Callable[..., Any],
                                                       command: str) -> None:
    assert_passes(hook(command), command)


# 4: a delete whose paths are computed, on a line naming a folder above the capsule ---------------
@pytest.mark.parametrize("command", [
    "ls capsules | xargs rm -rf",
    "ls -d capsules/* | xargs -n1 rm -rf",
    "cd capsules && ls | xargs rm -rf",
    "rm -rf $(ls -d capsules/*)",
    'python -c "import shutil; shutil.rmtree(\\"capsules\\")"',
    "python -c 'import shutil; shutil.rmtree(\"capsules\", ignore_errors=True)'",
    "perl -MFile::Path -e 'rmtree(\"capsules\")'",
])
def test_a_computed_delete_on_a_line_naming_a_folder_above_a_capsule_is_judged(
        hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "deletes the capsule" in result.stderr


@pytest.mark.parametrize("command", [
    "find . -name '*.pyc' | xargs rm -f",  # the project folder itself does not count
    "ls src | xargs rm -f",
    "python -c \"import shutil; shutil.rmtree('build', ignore_errors=True)\"",
    "python -c 'import os; os.remove(\"tmp.txt\")'",
])
def test_a_computed_delete_elsewhere_passes(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


# 5: previews delete nothing ---------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "git clean -nd",
    "git clean -n -d -x",
    "git clean --dry-run -fdx",
    "git clean -ndX",
    "rsync -an --delete ./src/ ./capsules/",
    "rsync -av --dry-run --delete ./empty/ root@203.0.113.7:/workspace/runs/",
])
def test_a_dry_run_of_git_clean_or_rsync_delete_passes(hook: Callable[..., Any],
                                                        command: str) -> None:
    assert_passes(hook(command), command)


@pytest.mark.parametrize("command", [
    "git clean -fdx",
    "git clean -fd",
    "rsync -a --delete ./src/ ./capsules/",
    "rsync -av --delete ./empty/ root@203.0.113.7:/workspace/runs/",
])
def test_the_same_without_the_dry_run_is_judged(hook: Callable[..., Any],
                                                command: str) -> None:
    assert_blocked(hook(command), command)


# 6: `source` of a process substitution runs what it prints ---------------------------------------
@pytest.mark.parametrize("command", [
    'source <(echo "runpodctl remove pod abc123")',
    ". <(printf 'runpodctl stop pod abc123\\n')",
])
def test_sourcing_a_process_substitution_runs_its_output(hook: Callable[..., Any],
                                                          command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    "source <(kubectl completion bash)",
    "source .venv/bin/activate",
    'source <(echo "export CUDA_VISIBLE_DEVICES=0")',
])
def test_ordinary_source_passes(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)


# 7: the audit: forms checked this round that were already judged right ---------------------------
# Shapes: runpodctl's reference (docs.runpod.io runpodctl-stop-pod: `runpodctl stop pod ID`;
# `runpodctl pod delete` in the newer CLI), FrozenWolf-Cyber/crypto-mlops
# utils/kill_vast_ai_instances.py (`subprocess.run(["vastai", "destroy", "instance", id])`),
# the DigitalOcean Paperspace pspace reference (`pspace machine delete|stop ID`), Lambda's
# `POST /api/v1/instance-operations/terminate`.
@pytest.mark.parametrize("command", [
    "runpodctl remove pod abc123",
    "runpodctl stop pod abc123",
    "runpodctl pod delete abc123",
    "/usr/local/bin/runpodctl remove pod abc123",
    "bash -lc 'runpodctl remove pod abc123'",
    "sh -c 'runpodctl stop pod abc123'",
    "env RUNPOD_API_KEY=k runpodctl remove pod abc123",
    "sudo -E runpodctl remove pod abc123",
    "timeout 60 runpodctl remove pod abc123",
    "nohup runpodctl remove pod abc123 &",
    "echo abc123 | xargs runpodctl remove pod",
    "cd /tmp && runpodctl remove pod abc123",
    "(runpodctl remove pod abc123)",
    "false || runpodctl remove pod abc123",
    "echo $(runpodctl remove pod abc123)",
    "bash <<'EOF'\nrunpodctl remove pod abc123\nEOF",
    "runpodctl remove \\\n  pod abc123",
    "python -c \"import subprocess; subprocess.run(['runpodctl', 'remove', 'pod', 'abc123'])\"",
    "python3 -c 'import os; os.system(\"runpodctl stop pod abc123\")'",
    "uv run runpodctl remove pod abc123",
    "f(){ runpodctl remove pod abc123; }; f",
    "tmux send-keys -t train 'runpodctl remove pod abc123' Enter",
    "curl --request DELETE --url https://rest.runpod.io/v1/pods/abc123",
    "python -c \"import runpod; runpod.terminate_pod('abc123')\"",
    "vastai destroy instance 4821",
    "vastai --api-key k stop instance 4821",
    "pspace machine delete ps8x2k",
    "curl -u k: https://cloud.lambdalabs.com/api/v1/instance-operations/terminate -d @ids.json",
    "ssh root@203.0.113.7 -p 22022 'sudo poweroff'",
    "ssh root@203.0.113.7 'shutdown -h now'",
    "ssh root@203.0.113.7 bash -s <<'EOF'\nrm -rf /workspace/runs\nEOF",
    "ssh root@203.0.113.7 'cd /workspace && rm -rf runs'",
    "scancel 48213",
    "ssh jump 'runpodctl remove pod xyz789'",  # the ssh line itself names runpodctl
    "squeue --me -h -o %i | xargs scancel",
    "sudo shutdown -h now",
    "rm -rf capsules",
    "rm -rf ./capsules/c2/",
    "find capsules -type f -delete",
    "git clean -ffdx capsules",
    "mv capsules /tmp/old",
    "rm -rf results",
])
def test_forms_already_judged_destructive(hook: Callable[..., Any], command: str) -> None:
    assert_blocked(hook(command), command)


# Claude Code writes commit messages and PR bodies through `$(cat <<'EOF' ... EOF)`.
@pytest.mark.parametrize("command", [
    "git commit -m \"$(cat <<'EOF'\nDocument runpodctl remove pod after the pull\nEOF\n)\"",
    "gh pr create --title x --body \"$(cat <<'EOF'\nAdds scancel notes\nEOF\n)\"",
    "cat > notes.md <<'EOF'\nrunpodctl remove pod abc123\nEOF",
    "grep -rn 'remove pod' docs/",
    "runpodctl get pod",
    "vastai show instances",
    "python train.py --stop-after 100",
    "rm -rf build dist *.egg-info",
    "rm -rf .labledger/cache",
    "find . -name '*.pyc' -delete",
    "find . -name __pycache__ -type d -exec rm -rf {} +",
    "ssh root@203.0.113.7 nvidia-smi",
    "ssh root@203.0.113.7 'tail -n 50 /workspace/train.log'",
    "rsync -avz root@203.0.113.7:/workspace/runs/ ./runs/",
    "docker stop trainer",
    "kill %1",
])
def test_forms_already_passing(hook: Callable[..., Any], command: str) -> None:
    assert_passes(hook(command), command)
