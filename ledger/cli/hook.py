"""`labledger hook`: the agent pre-tool-call hook (exit 0 allows silently, exit 2 blocks)."""

from __future__ import annotations

import sys

import click

from labledger.ledger.cli._context import state

EXIT_BLOCK = 2  # Claude Code, Gemini CLI and Codex hooks treat exit 2 as "block, show stderr"


def _block(message: str) -> None:
    click.echo(message, err=True)
    click.get_current_context().exit(EXIT_BLOCK)


@click.command()
@click.option("--root", type=click.Path(file_okay=False), metavar="DIR",
              help="Project folder holding .labledger/ (default: the payload's cwd, "
                   "$LABLEDGER_ROOT, else the nearest parent).")
def hook(root: str | None) -> None:
    """Judge a coding agent's tool call (JSON on stdin) before it runs.

    Blocks (exit 2, reason on stderr) commands that destroy or stop an instance, or delete
    (or write over) a recorded capsule, while what they would destroy is not pull-verified,
    and any delete or write of the project's ledger and its settings; an agent's file tools
    (Write, Edit, Codex's apply_patch) are judged as the writes they make. Allows everything
    else (exit 0, no output). Fails closed: an internal error while judging a destructive
    command blocks. Input that is not JSON is blocked only when it looks destructive.
    See docs/agent-hook.md for the settings that install it.

    Example: echo '{"tool_name":"Bash","tool_input":{"command":"ls"}}' | labledger hook
    """
    from labledger.reconcile.hook import HookInputError, judge, looks_destructive, parse_payload

    raw = sys.stdin.buffer.read()
    try:
        command, cwd = parse_payload(raw)
    except HookInputError as exc:
        if looks_destructive(raw.decode("utf-8", errors="replace")):
            _block(f"labledger: blocked: {exc}, and it contains a destructive command; "
                   "nothing could be checked (fail closed)")
        return
    if command is None:
        return
    try:
        verdict = judge(command, cwd, root or state().root)
    except Exception as exc:  # noqa: BLE001 - fail closed on a destructive command
        try:
            destructive = looks_destructive(command, cwd)
        except Exception:  # noqa: BLE001
            destructive = True
        if destructive:
            _block(f"labledger: blocked: could not judge a destructive command "
                   f"({type(exc).__name__}: {exc}); fail closed")
        return
    if not verdict.allowed:
        _block(verdict.message())
