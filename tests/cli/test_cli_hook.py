"""`labledger hook` through the real console script, as a coding agent would run it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from labledger.ledger.ledger import Ledger

RunCli = Callable[..., subprocess.CompletedProcess[str]]
FILES = {"best.pth": b"\x80weights" * 100, "train.csv": b"step,loss\n1,0.5\n"}


def claude(command: str, cwd: Path | None = None) -> str:
    payload: dict[str, Any] = {"session_id": "s", "hook_event_name": "PreToolUse",
                               "tool_name": "Bash", "tool_input": {"command": command}}
    if cwd is not None:
        payload["cwd"] = str(cwd)
    return json.dumps(payload)


def seed_unverified(ledger: Ledger, pull_seed: Any) -> None:
    pull_seed.rent("123", host="root@ssh5.vast.ai:22")
    ledger.append("run.launched", run="r1", instance="123")
    pull_seed.listed(FILES, instance="123")


def test_blocks_destroy_before_verification_and_allows_after(
        ledger: Ledger, pull_seed: Any, run_cli: RunCli) -> None:
    seed_unverified(ledger, pull_seed)
    blocked = run_cli("hook", input=claude("vastai destroy instance 123"))
    assert blocked.returncode == 2
    assert "instance '123' is not pull-verified" in blocked.stderr
    assert "r1: best.pth: never pulled" in blocked.stderr
    assert blocked.stdout == ""
    for path, data in FILES.items():
        pull_seed.pulled(path, data, instance="123")
    pull_seed.verified("best.pth", instance="123")
    allowed = run_cli("hook", input=claude("vastai destroy instance 123"))
    assert allowed.returncode == 0, allowed.stderr
    assert allowed.stdout + allowed.stderr == ""


def test_allows_harmless_commands_silently(ledger: Ledger, pull_seed: Any,
                                           run_cli: RunCli) -> None:
    seed_unverified(ledger, pull_seed)
    result = run_cli("hook", input=claude("ls -la"))
    assert result.returncode == 0
    assert result.stdout + result.stderr == ""


def test_other_tools_are_never_judged(ledger: Ledger, run_cli: RunCli) -> None:
    payload = json.dumps({"tool_name": "Read", "tool_input": {"file_path": "/etc/hosts"}})
    result = run_cli("hook", input=payload)
    assert result.returncode == 0
    assert result.stderr == ""


def test_garbage_input_fails_closed_for_a_destructive_command(ledger: Ledger,
                                                              run_cli: RunCli) -> None:
    result = run_cli("hook", input='{"tool_name": "Bash", "tool_input": {"command": '
                                   '"vastai destroy instance 123"')
    assert result.returncode == 2
    assert "fail closed" in result.stderr


def test_garbage_input_without_a_destroy_pattern_is_allowed(ledger: Ledger,
                                                            run_cli: RunCli) -> None:
    result = run_cli("hook", input="not json at all { ls")
    assert result.returncode == 0
    assert result.stderr == ""


def test_an_internal_failure_blocks_a_destructive_command(ledger: Ledger, project: Path,
                                                          run_cli: RunCli) -> None:
    (project / ".labledger" / "hook.toml").write_text("patterns = [ broken")
    result = run_cli("hook", input=claude("vastai destroy instance 123"))
    assert result.returncode == 2
    assert "could not judge a destructive command" in result.stderr
    harmless = run_cli("hook", input=claude("echo hi"))
    assert harmless.returncode == 0


def test_codex_and_gemini_shapes(ledger: Ledger, pull_seed: Any, run_cli: RunCli) -> None:
    seed_unverified(ledger, pull_seed)
    codex = json.dumps({"command": ["bash", "-lc", "runpodctl remove pod 123"]})
    gemini = json.dumps({"tool_name": "run_shell_command",
                         "tool_input": {"command": "vastai destroy instance 123"}})
    generic = json.dumps({"tool": "shell", "args": {"command": "vastai stop instance 123"}})
    for payload in (codex, gemini, generic):
        result = run_cli("hook", input=payload)
        assert result.returncode == 2, payload


def test_maps_by_host_and_blocks_unnamed_when_a_live_box_is_unverified(
        ledger: Ledger, pull_seed: Any, run_cli: RunCli) -> None:
    seed_unverified(ledger, pull_seed)
    by_host = run_cli("hook", input=claude(
        "curl -X POST https://cloud.lambdalabs.com/api/v1/instance-operations/terminate "
        "-d '{\"host\": \"ssh5.vast.ai\"}'"))
    assert by_host.returncode == 2
    assert "instance '123'" in by_host.stderr
    unnamed = run_cli("hook", input=claude("scancel 999"))
    assert unnamed.returncode == 2
    assert "the command names none" in unnamed.stderr


def test_an_ssh_config_alias_of_a_recorded_host_is_that_instance(
        ledger: Ledger, pull_seed: Any, run_cli: RunCli, tmp_path: Path) -> None:
    seed_unverified(ledger, pull_seed)
    config = tmp_path / "ssh_config"  # what ~/.ssh/config would say (ssh -G reads it the same)
    config.write_text("Host box\n  HostName ssh5.vast.ai\n  User root\n")
    aliased = run_cli("hook", input=claude(f"ssh -F {config} box 'rm -rf /root/run'"))
    assert aliased.returncode == 2, aliased.stderr
    assert "instance '123' is not pull-verified" in aliased.stderr
    other = run_cli("hook", input=claude(f"ssh -F {config} devbox 'rm -rf /tmp/x'"))
    assert other.returncode == 0, other.stderr  # a machine no event names
    pwned = tmp_path / "pwned"  # the hook never runs what the judged command's config says
    evil = tmp_path / "evil_config"
    evil.write_text(f'Match exec "touch {pwned}"\n  HostName ssh5.vast.ai\nHost box\n'
                    "  HostName ssh5.vast.ai\n")
    judged = run_cli("hook", input=claude(f"ssh -F {evil} box 'rm -rf /root/run'"))
    assert judged.returncode == 2
    assert not pwned.exists()
    legacy = run_cli("hook", input=claude("./vast.py destroy instance 123"))
    assert legacy.returncode == 2
    assert "instance '123'" in legacy.stderr


def test_an_override_approval_lets_the_command_through(
        ledger: Ledger, pull_seed: Any, run_cli: RunCli) -> None:
    seed_unverified(ledger, pull_seed)
    approve = run_cli("teardown", "--instance", "123", "--yes", "--override", "data is junk")
    assert approve.returncode == 0, approve.stderr
    result = run_cli("hook", input=claude("vastai destroy instance 123"))
    assert result.returncode == 0, result.stderr


def test_rm_of_a_recorded_capsule_is_judged_by_its_stored_copy(
        ledger: Ledger, pull_seed: Any, project: Path, run_cli: RunCli) -> None:
    capsule = project / "export" / "r1"
    capsule.mkdir(parents=True)
    (capsule / "train.csv").write_bytes(FILES["train.csv"])
    digest = pull_seed.store.put(capsule).digest
    ledger.append("capsule.sealed", run="r1", path="export/r1", digest=digest, files=1,
                  bytes=len(FILES["train.csv"]))
    assert run_cli("hook", input=claude("rm -rf export", cwd=project)).returncode == 0
    assert run_cli("hook", input=claude("rm -rf build", cwd=project)).returncode == 0
    file_digest = pull_seed.store.ls(digest)[0].digest
    pull_seed.digests["x"] = file_digest
    pull_seed.corrupt("x")
    blocked = run_cli("hook", input=claude("rm -rf export/", cwd=project))
    assert blocked.returncode == 2
    assert "deletes the capsule" in blocked.stderr


def test_no_duckdb_on_the_harmless_path(ledger: Ledger, run_cli: RunCli) -> None:
    result = run_cli("hook", input=claude("ls"), env={"PYTHONPROFILEIMPORTTIME": "1"})
    assert result.returncode == 0
    assert "labledger.reconcile.hook" in result.stderr  # the import profile was written
    assert "duckdb" not in result.stderr
