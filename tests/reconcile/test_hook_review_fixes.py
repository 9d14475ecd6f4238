"""`labledger hook` against the third review's findings, through the real console script.

One RunPod box, ``pod-abc123`` at ``203.0.113.7``, whose run r2 was never pulled: every
command that destroys it, stops it or deletes what protects it must exit 2. ``results`` is an
export root. Each test feeds the hook a Claude Code payload on stdin, as an agent would.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger

BOX = "root@203.0.113.7"
FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


def claude(command: str, cwd: str | Path | None) -> str:
    payload: dict[str, Any] = {"tool_name": "Bash", "tool_input": {"command": command}}
    if cwd is not None:
        payload["cwd"] = str(cwd)
    return json.dumps(payload)


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-abc123", profile="runpod", host=f"{BOX}:22022")
    ledger.append("run.launched", run="r2", instance="pod-abc123", command=["x"])
    (project / ".labledger" / "hook.toml").write_text('export-roots = ["results"]\n')
    (project / "results" / "r1").mkdir(parents=True)
    (project / "results" / "r1" / "best.pth").write_bytes(b"weights")
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("print(1)\n")
    return project


def assert_blocked(result: Any, command: str) -> None:
    assert result.returncode == 2, (command, result.stderr)
    assert result.stderr.startswith("labledger: blocked: "), command


def assert_passes(result: Any, command: str) -> None:
    assert result.returncode == 0, (command, result.stderr)
    assert result.stderr == "", command


# 1: an override or a confirmation is a person's decision -------------------------------------
@pytest.mark.parametrize("command", [
    "labledger teardown --instance pod-abc123 --yes --override 'not needed' -- "
    "runpodctl remove pod abc123",
    "labledger teardown --instance pod-abc123 --yes --override='not needed'",
    "labledger -q teardown --instance pod-abc123 --confirm-absent",
    "labledger emit teardown.approved --instance pod-abc123 --data '{}'",
    "labledger emit --instance pod-abc123 teardown.confirmed",
    "labledger release --instance pod-abc123",
    "python -m labledger teardown --instance pod-abc123 --yes --override x",
    "cd src && labledger teardown --instance pod-abc123 --yes --override x",
    "labledger ingest - <<'EOF'\n{\"kind\": \"teardown.approved\"}\nEOF",
    "cat events.jsonl | labledger ingest -",
    "labledger ingest not-written-yet.jsonl",
])
def test_an_agent_cannot_record_a_teardown_decision(hook: Callable[..., Any],
                                                    command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "a person's decision" in result.stderr
    assert "their own terminal" in result.stderr


@pytest.mark.parametrize("command", [
    "labledger gate teardown --instance pod-abc123",
    "labledger teardown --instance pod-abc123 --yes -- echo done",
    "labledger emit note --run r2 --data '{\"text\": \"teardown.approved later\"}'",
    "labledger log",
    "labledger ingest events.jsonl",
])
def test_labledger_commands_that_decide_nothing_pass(hook: Callable[..., Any], box: Path,
                                                     command: str) -> None:
    (box / "events.jsonl").write_text('{"kind": "note", "body": {}}\n')
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 2, 12: what runners, tracers and launchers run ----------------------------------------------
@pytest.mark.parametrize("command", [
    "uv run runpodctl remove pod abc123",
    "uv run --with requests python -c \"import runpod; runpod.terminate_pod('abc123')\"",
    "labledger run -- runpodctl remove pod abc123",
    "labledger run --run r9 scancel 4242",
    "labledger teardown --instance other --yes -- scancel 4242",
    "find . -maxdepth 0 -exec runpodctl remove pod abc123 \\;",
    "find . -maxdepth 0 -execdir scancel 4242 \\;",
    "docker exec tools runpodctl remove pod abc123",
    "docker exec -it -u root tools scancel 4242",
    "docker run --rm -e K=v image:1 scancel 4242",
    "docker compose exec worker scancel 4242",
    "strace -f scancel 4242",
    "srun scancel 4242",
    "srun -p gpu --time=1:00 scancel 4242",
    "sbatch --wrap 'scancel 4242'",
    "sbatch --wrap='scancel 4242'",
])
def test_what_a_runner_runs_is_judged(hook: Callable[..., Any], command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    "uv run pytest -q",
    "uv run python train.py --stop-at 100",
    "docker exec tools ls /root",
    "docker run --rm image:1 python -c 'print(1)'",
    "find . -name '*.py' -exec grep -n shutdown {} +",
    "labledger run -- python train.py",
    "strace -f python train.py",
    "srun -n 4 python train.py",
    "sbatch job.sh",
    "make test",
])
def test_runners_of_harmless_commands_pass(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 3: a relative cwd is relative to where the hook runs ----------------------------------------
@pytest.mark.parametrize("command", [
    "rm -rf .labledger", "find . -delete", "git clean -fdx", "mv .labledger /tmp/x",
    "rsync -a --delete /tmp/empty/ ./",
])
def test_a_relative_cwd_still_protects_the_ledger(hook: Callable[..., Any],
                                                  command: str) -> None:
    result = hook(command, cwd=".")
    assert_blocked(result, command)
    assert "the labledger ledger and store" in result.stderr


def test_a_relative_cwd_above_the_project_is_followed(hook: Callable[..., Any], box: Path,
                                                      run_cli: Callable[..., Any]) -> None:
    assert_blocked(hook(f"rm -rf ../{box.name}", cwd="."), "rm -rf ../project")
    # "." is where the hook runs (src/ here): its parent is the project
    from_src = run_cli("hook", input=claude("rm -rf ..", "."), cwd=box / "src")
    assert_blocked(from_src, "rm -rf .. from src/")


# 4: find -name above a protected folder ------------------------------------------------------
@pytest.mark.parametrize("command", [
    "find . -name '*.pth' -delete",
    "find . -iname '*.PTH' -delete",
    "find . -name '*.jsonl' -delete",  # the ledger's segments
    "find . -path '*/r1/*' -delete",
    "find . -regex '.*pth' -delete",  # a regex is not read: cannot tell
    "find . ! -name '*.py' -delete",  # a negation: cannot tell
    "find . -name '*.pth' -exec rm {} +",
])
def test_find_above_a_protected_folder_is_judged_by_what_it_holds(
        hook: Callable[..., Any], command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    "find . -name '*.pyc' -delete",
    "find . -iname '*.tmp' -delete",
    "find . -path '*/__pycache__/*' -delete",
    "find src -name '*.py' -delete",
])
def test_find_that_reaches_nothing_protected_passes(hook: Callable[..., Any],
                                                    command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 5: size -------------------------------------------------------------------------------------
def test_a_multi_megabyte_command_is_judged_in_linear_time(hook: Callable[..., Any]) -> None:
    start = time.perf_counter()
    result = hook("echo " + "a" * 4_000_000 + " ; runpodctl remove pod abc123")
    # the quadratic word builder took minutes here; linear parsing takes seconds
    assert time.perf_counter() - start < 20
    assert_blocked(result, "4 MB echo; runpodctl remove pod abc123")
    assert "instance 'pod-abc123'" in result.stderr


def test_a_command_over_the_size_cap_is_blocked(hook: Callable[..., Any]) -> None:
    result = hook("echo " + "a b " * 2_200_000)
    assert_blocked(result, "9 MB echo")
    assert "cannot be judged (fail closed)" in result.stderr


# 6: hook.toml is validated -------------------------------------------------------------------
@pytest.mark.parametrize(("toml", "expected"), [
    ('export_roots = ["results"]\n', "line 1: unknown key 'export_roots'"),
    ('# mine\npatterns = "mycloud kill"\n', "line 2: `patterns` must be a list"),
    ("patterns = [1, 2]\n", "`patterns` entry 0 must be a regex string"),
    ('patterns = [{regex = "x"}]\n', "a table needs a `pattern` string"),
    ("patterns = ['(']\n", "is not a valid regex"),
    ('export-roots = "results"\n', "`export-roots` must be a list of folders"),
])
def test_a_wrong_hook_toml_fails_closed_and_says_where(
        hook: Callable[..., Any], box: Path, toml: str, expected: str) -> None:
    (box / ".labledger" / "hook.toml").write_text(toml)
    result = hook("runpodctl remove pod abc123")
    assert_blocked(result, toml)
    assert f"{box / '.labledger' / 'hook.toml'}: {expected}" in result.stderr \
        or expected in result.stderr
    assert "hook.toml" in result.stderr
    assert hook("ls -la").returncode == 0  # a harmless command is not blocked by it


def test_a_pattern_table_with_a_note_is_read(hook: Callable[..., Any], box: Path) -> None:
    (box / ".labledger" / "hook.toml").write_text(
        "[[patterns]]\npattern = '\\bmycloud\\s+kill\\b'\nnote = 'ours'\n")
    assert_blocked(hook("mycloud kill 7"), "mycloud kill 7")
    assert hook("echo hi").returncode == 0


# 7, 8: computed command words, scripts fed on stdin ------------------------------------------
@pytest.mark.parametrize("command", [
    "$(which runpodctl) remove pod abc123",
    "$(command -v runpodctl) remove pod abc123",
    f"echo 'shutdown now' | ssh {BOX}",
    f"printf 'tmux kill-server\\n' | ssh -p 22022 {BOX}",
    f"ssh {BOX} <<'EOF'\npoweroff\nEOF",
    "python - <<'EOF'\nimport os; os.system('runpodctl remove pod abc123')\nEOF",
    "python3 <<'EOF'\nimport runpod\nrunpod.terminate_pod('abc123')\nEOF",
    "echo \"import shutil; shutil.rmtree('results')\" | python",
    "node - <<'EOF'\nrequire('child_process').execSync('runpodctl remove pod abc123')\nEOF",
])
def test_computed_words_and_stdin_scripts_are_judged(hook: Callable[..., Any],
                                                     command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    "python - <<'EOF'\nprint('hello')\nEOF",
    "cat data.json | python -m json.tool",
    "echo 'print(1)' | python",
    f"echo 'ls /root' | ssh {BOX}",
    f"cat notes.txt | ssh {BOX} 'cat > notes.txt'",
    "$(which python) train.py",
])
def test_harmless_stdin_scripts_pass(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 9: what the hook quarantines is recorded ----------------------------------------------------
def test_a_corrupt_object_the_hook_finds_is_recorded_as_quarantined(
        ledger: Ledger, pull_seed: Any, run_cli: Callable[..., Any], project: Path) -> None:
    pull_seed.rent("pod-good", profile="runpod", host="root@203.0.113.9:22")
    pull_seed.full(FILES, run="r1", instance="pod-good")
    pull_seed.corrupt("best.pth")
    result = run_cli("hook", input=claude("runpodctl remove pod pod-good", project))
    assert_blocked(result, "runpodctl remove pod pod-good")
    log = run_cli("--json", "log", "--kind", "object.quarantined")
    assert log.returncode == 0, log.stderr
    assert pull_seed.digests["best.pth"] in log.stdout


# 10: the block message quotes the command as written -----------------------------------------
@pytest.mark.parametrize(("command", "quoted"), [
    ("rm -rf results", "`rm -rf results` deletes"),
    ("rm -f results/x", "`rm -f results/x` deletes"),
    ("find results -name '*.pth' -delete", "`find results -name '*.pth' -delete` deletes"),
])
def test_the_message_quotes_the_command(hook: Callable[..., Any], command: str,
                                        quoted: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert quoted in result.stderr


def test_a_very_long_command_is_shortened_in_the_message(hook: Callable[..., Any]) -> None:
    result = hook("rm -rf results " + "x" * 5000)
    assert_blocked(result, "rm -rf results xxx...")
    assert "`rm -rf results xxxx" in result.stderr
    assert "x" * 400 not in result.stderr


# 11: a released instance, and advice that can be followed ------------------------------------
def test_the_advice_names_steps_an_agent_and_a_person_can_run(
        hook: Callable[..., Any]) -> None:
    result = hook("runpodctl remove pod abc123")
    assert_blocked(result, "runpodctl remove pod abc123")
    assert "`labledger gate teardown --instance pod-abc123`" in result.stderr
    assert "`labledger teardown --instance pod-abc123 -- COMMAND`" in result.stderr
    assert ("a person must run `labledger teardown --instance pod-abc123 --override REASON` "
            "in their own terminal") in result.stderr


def test_a_destroy_naming_only_a_released_instance_is_not_gated(
        hook: Callable[..., Any], run_cli: Callable[..., Any]) -> None:
    released = run_cli("release", "--instance", "pod-abc123")
    assert released.returncode == 0, released.stderr
    result = hook("runpodctl remove pod abc123")
    assert result.returncode == 0, result.stderr


# 12: more ways to stop a recorded box, and input that is not JSON ----------------------------
@pytest.mark.parametrize("command", [
    f"ssh {BOX} 'systemctl --force poweroff'",
    f"ssh {BOX} 'telinit 0'",
    f"ssh {BOX} 'init 0'",
    f"ssh {BOX} 'tmux kill-server'",
    f"ssh {BOX} 'tmux kill-session -t train'",
    f"rsync -a --delete ./empty/ {BOX}:/root/runs/",
    "systemctl --no-wall reboot",
])
def test_more_ways_to_stop_a_recorded_box(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert_blocked(result, command)
    assert "pod-abc123" in result.stderr


@pytest.mark.parametrize("command", [
    "systemctl status sshd",
    "systemctl --user restart tensorboard",
    "tmux kill-server",  # here, not on a box
    f"rsync -a ./results/ {BOX}:/root/backup/",
    "rsync -a --delete ./src/ devbox:/srv/src/",  # a machine the ledger does not know
])
def test_their_harmless_neighbours_pass(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


@pytest.mark.parametrize("text", [
    '{"tool_name": "Bash", "tool_input": {"command": "sudo shutdown -h now"',
    '{"tool_name": "Bash", "tool_input": {"command": "scancel 1"',
    '{"tool_name": "Bash", "tool_input": {"command": "ssh root@box poweroff"}',
    '{"tool_input": {"command": "labledger teardown --instance x --yes --override y"',
])
def test_input_that_is_not_json_is_scanned_command_by_command(
        box: Path, run_cli: Callable[..., Any], text: str) -> None:
    result = run_cli("hook", input=text)
    assert result.returncode == 2, (text, result.stderr)
    assert "fail closed" in result.stderr
    harmless = run_cli("hook", input='{"tool_input": {"command": "ls -la"')
    assert harmless.returncode == 0, harmless.stderr
