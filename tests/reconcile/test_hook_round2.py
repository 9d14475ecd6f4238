"""`labledger hook` against the fourth review's findings, through the real console script.

One RunPod box, ``pod-abc123`` at ``203.0.113.7``, whose run r2 was never pulled: every
command that destroys it must exit 2. Each test feeds the hook a Claude Code payload on stdin.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from labledger.ledger.ledger import Ledger
from tests.reconcile.test_hook_review_fixes import BOX, assert_blocked

DESTROY = "runpodctl remove pod pod-abc123"
PY_DESTROY = f'import os; os.system("{DESTROY}")'


@pytest.fixture
def box(ledger: Ledger, pull_seed: Any, project: Path) -> Path:
    pull_seed.rent("pod-abc123", profile="runpod", host=f"{BOX}:22022")
    ledger.append("run.launched", run="r2", instance="pod-abc123", command=["x"])
    return project


# 1: here-documents belong to the command that opened them; `2>&1` is not a separator -------
@pytest.mark.parametrize("command", [
    f"python3 - <<'EOF' 2>&1\n{PY_DESTROY}\nEOF",
    f"python3 - <<'EOF' | tail -5\n{PY_DESTROY}\nEOF",
    f"python3 - <<'EOF' &>log.txt\n{PY_DESTROY}\nEOF",
    f"bash <<'EOF' && echo done\n{DESTROY}\nEOF",
    f"bash <<'EOF' >&2\n{DESTROY}\nEOF",
    f"ssh -p 22022 {BOX} <<'EOF' | tee log\nrm -rf /root/runs\nEOF",
])
def test_a_here_document_goes_to_the_command_that_opened_it(hook: Callable[..., Any],
                                                           command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    f"cat > notes.txt <<'EOF' && bash run_tests.sh\n{DESTROY}\nEOF",
    f"cat > notes.txt <<'EOF' 2>&1 | tee copy.txt\n{DESTROY}\nEOF",
    "make test 2>&1 | tail -5",
    "python train.py >log 2>&1 &",
])
def test_a_here_document_written_to_a_file_stays_data(hook: Callable[..., Any],
                                                      command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 2: emit's value options come from the click command ----------------------------------------
def test_emit_attach_does_not_hide_the_kind(hook: Callable[..., Any]) -> None:
    command = "labledger emit --attach notes.txt instance.released --instance pod-abc123"
    assert_blocked(hook(command), command)


def test_every_value_option_of_emit_is_known_to_the_hook(hook: Callable[..., Any]) -> None:
    """Pins the hook to `labledger emit`'s own options: one added there cannot hide a kind."""
    import click

    from labledger.ledger.cli.record import emit

    options = [o for p in emit.params if isinstance(p, click.Option)
               and not p.is_flag and not p.count for o in p.opts]
    assert "--attach" in options
    for option in options:
        command = f"labledger emit {option} x.txt instance.released --instance pod-abc123"
        assert_blocked(hook(command), command)


# 3: runners with global options before the subcommand ---------------------------------------
@pytest.mark.parametrize("command", [
    f"docker --context prod run --rm img {DESTROY}",
    f"docker -H tcp://h:2375 exec box {DESTROY}",
    f"docker compose -f test.yml run --rm app {DESTROY}",
    f"docker-compose -p proj exec app {DESTROY}",
    f"uv -q run {DESTROY}",
    f"uv --directory . run {DESTROY}",
    "uv --offline run kubectl delete pod x",
    f"uv --no-cache tool run {DESTROY}",
    f"kubectl -n prod exec pod -- {DESTROY}",
    f"git bisect run {DESTROY}",
])
def test_a_runner_after_global_options_is_judged(hook: Callable[..., Any],
                                                 command: str) -> None:
    assert_blocked(hook(command), command)


# 4: a shell run through ssh reads the piped text as its script -------------------------------
@pytest.mark.parametrize("command", [
    f"echo 'rm -rf /root/runs' | ssh -p 22022 {BOX} bash",
    f"echo 'rm -rf /root/runs' | ssh -p 22022 {BOX} bash -s",
    f"echo 'rm -rf /root/runs' | ssh -p 22022 {BOX} sh",
    f"printf 'rm -rf /root/runs\\n' | ssh -p 22022 {BOX} sudo bash",
    f"ssh -p 22022 {BOX} bash <<'EOF'\nrm -rf /root/runs\nEOF",
])
def test_a_script_piped_into_a_remote_shell_is_judged(hook: Callable[..., Any],
                                                       command: str) -> None:
    assert_blocked(hook(command), command)


def test_a_harmless_script_piped_into_a_remote_shell_passes(hook: Callable[..., Any]) -> None:
    assert hook(f"echo 'nvidia-smi' | ssh -p 22022 {BOX} bash").returncode == 0


# 5: "data" commands that run program text ----------------------------------------------------
@pytest.mark.parametrize("command", [
    f"git -c alias.x='!{DESTROY}' x",
    f"git -c core.sshCommand='{DESTROY}' fetch",
    f"git submodule foreach '{DESTROY}'",
    f"git submodule foreach --recursive {DESTROY}",
    f"git rebase -x '{DESTROY}' HEAD~1",
    f"git rebase --exec='{DESTROY}' HEAD~1",
    f"git filter-branch --tree-filter '{DESTROY}' HEAD",
    f"awk 'BEGIN{{system(\"{DESTROY}\")}}'",
    f"awk 'BEGIN{{print \"x\" | \"{DESTROY}\"}}'",
    f"make --eval='x: ; {DESTROY}' x",
    f"echo '{DESTROY}' | sudo -s",
    f"echo '{DESTROY}' | sudo -i",
])
def test_program_text_run_by_a_text_tool_is_judged(hook: Callable[..., Any],
                                                   command: str) -> None:
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    f'git commit -m "stop calling {DESTROY} by hand"',
    f"grep -rn '{DESTROY}' docs",
    "git -c user.name=me commit -m wip",
    "git rebase -i HEAD~3",
    "git submodule foreach git pull",
    "awk '{print $1}' log.txt",
    "awk -F, '{s += $2} END {print s}' data.csv",
    "make --eval='x: ; echo hi' x",
    "sudo -v",
])
def test_their_harmless_forms_pass(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 6: a command word computed anywhere in it ---------------------------------------------------
@pytest.mark.parametrize("command", [
    "r$(echo unpod)ctl remove pod pod-abc123",
    "ru${X}npodctl remove pod pod-abc123",
    "run`echo pod`ctl remove pod pod-abc123",
    "./bin/$TOOL destroy instance 1",
])
def test_a_computed_command_word_before_a_destroy_verb_is_judged(
        hook: Callable[..., Any], command: str) -> None:
    assert_blocked(hook(command), command)


def test_a_computed_command_word_without_a_destroy_verb_passes(
        hook: Callable[..., Any]) -> None:
    assert hook("$EDITOR notes.txt").returncode == 0
    assert hook("py${V}thon train.py --epochs 3").returncode == 0


# 7: Python's options ---------------------------------------------------------------------------
@pytest.mark.parametrize("flags", ["-Wignore", "-W ignore", "-E", "-I", "-Eu", "-OO", "-X dev",
                                   "-Xdev -u"])
def test_python_options_before_a_stdin_program(hook: Callable[..., Any], flags: str) -> None:
    command = f"python3 {flags} - <<'EOF'\n{PY_DESTROY}\nEOF"
    assert_blocked(hook(command), command)


@pytest.mark.parametrize("command", [
    f"python3 -c 'print(1)' <<'EOF'\n{DESTROY}\nEOF",
    f"python3 -m json.tool <<'EOF'\n{{\"note\": \"{DESTROY}\"}}\nEOF",
    f"python3 -u train.py <<'EOF'\n{DESTROY}\nEOF",
])
def test_python_reading_stdin_as_data_passes(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


# 8: only the kind of an emit counts as unreadable --------------------------------------------
@pytest.mark.parametrize("command", [
    "labledger emit metric.logged --run $RUN --set psnr=31",
    'labledger emit note --run r2 --set text="$(date)"',
    "labledger emit metric.logged --run r2 --set step=${STEP}",
])
def test_an_emit_with_computed_values_passes(hook: Callable[..., Any], command: str) -> None:
    result = hook(command)
    assert result.returncode == 0, (command, result.stderr)


@pytest.mark.parametrize("command", [
    "labledger emit $KIND --instance pod-abc123",
    "labledger emit instance.{released,x} --instance pod-abc123",
    "echo instance.released | xargs labledger emit --instance pod-abc123",
    "find . -name k -exec labledger emit {} --instance pod-abc123 \\;",
])
def test_an_emit_whose_kind_is_computed_is_blocked(hook: Callable[..., Any],
                                                    command: str) -> None:
    assert_blocked(hook(command), command)


# 9: comments are skipped in linear time, never by recursion ---------------------------------
def test_thousands_of_comments_in_a_substitution_pass(hook: Callable[..., Any]) -> None:
    command = "echo $(" + "\n#c" * 1500 + "\n)"
    result = hook(command)
    assert result.returncode == 0, result.stderr[:300]


# 10: hook.toml ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("content", "expected"), [
    (b'patterns = ["\xff"]\n', "not UTF-8"),
    (b'patterns = [""]\n', "line 1: `patterns` entry 0 ('') matches the empty string"),
    (b'patterns = ["x*"]\n', "matches the empty string"),
])
def test_a_hook_toml_that_cannot_be_used_is_named(hook: Callable[..., Any], box: Path,
                                                  content: bytes, expected: str) -> None:
    (box / ".labledger" / "hook.toml").write_bytes(content)
    result = hook(DESTROY)
    assert_blocked(result, DESTROY)
    assert str(box / ".labledger" / "hook.toml") in result.stderr
    assert expected in result.stderr
    assert hook("ls -la").returncode == 0  # the empty pattern does not block everything


def test_a_backtracking_pattern_is_stopped_and_blocks(hook: Callable[..., Any],
                                                      box: Path) -> None:
    (box / ".labledger" / "hook.toml").write_text('patterns = ["(a+)+$"]\n')
    start = time.monotonic()
    result = hook("echo " + "a" * 31 + "b")
    assert time.monotonic() - start < 30
    assert_blocked(result, "(a+)+$")
    assert "'(a+)+$'" in result.stderr
    assert "took over" in result.stderr
    assert hook("ls").returncode == 0


# 11: a command nested deep in an unknown payload shape ---------------------------------------
def test_a_command_nested_deep_in_an_unknown_shape_is_found(box: Path,
                                                            run_cli: Callable[..., Any]) -> None:
    value: Any = {"command": DESTROY}
    for _ in range(40):
        value = {"x": [value]}
    value["cwd"] = str(box)
    result = run_cli("hook", input=json.dumps(value))
    assert_blocked(result, "nested")
