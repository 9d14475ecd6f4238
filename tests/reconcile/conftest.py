"""The agent hook's tests: `hook(command)` runs the real `labledger hook` on a Claude Code
payload whose cwd is the test module's own `box` project (or ``cwd``)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_review_fixes import claude


@pytest.fixture
def hook(box: Path, run_cli: Callable[..., Any]) -> Callable[..., Any]:
    def run(command: str, cwd: str | Path | None = None) -> Any:
        return run_cli("hook", input=claude(command, box if cwd is None else cwd))

    return run
