"""`labledger hook` on Codex's ``apply_patch`` edits.

Codex hands a PreToolUse hook the patch as ``tool_input.command`` of the tool ``apply_patch``
(openai/codex ``codex-rs/core/src/tools/handlers/apply_patch_tests.rs``,
``pre_tool_use_payload_uses_json_patch_input``: ``tool_name: "apply_patch", tool_input:
{"command": PATCH}``), and runs the same patch when the model asks its shell for ``apply_patch
<<'EOF' ... EOF`` or the argv ``["apply_patch", PATCH]`` (``codex-rs/apply-patch/src/parser.rs``,
lenient mode). The hook read the patch text as a shell script: ``*** Update File:
.labledger/hook.toml`` and ``*** Delete File: capsules/c2/metrics.json`` passed, and a hunk line
``-echo x > .labledger/config.toml`` of a script being edited was blocked as a redirection.
Each file of a patch is now judged as the shell write it amounts to (`hook.patch_writes`): Add
File as ``tee P`` (codex's scenario 011: it overwrites a file there), Delete File as ``rm -f
P``, Update File as ``sed -i '' P``, with Move to as ``mv P D`` (scenario 010: it replaces D).

Project: `test_hook_writes`'s (``capsules/c2`` unverified, ``capsules/c3`` verified,
``results`` an export root), judged through the real console script.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.reconcile.test_hook_writes import box  # noqa: F401 - the project fixture

EXE = Path(sys.executable).with_name("labledger")


def _patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "\n".join(sections) + "\n*** End Patch\n"


def _update(path: str) -> str:
    return f"*** Update File: {path}\n@@\n-x = 1\n+x = 2"


def _hook(project: Path, payload: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(EXE), "hook"], input=json.dumps({**payload, "cwd": str(project)}),
                          capture_output=True, text=True, cwd=project, timeout=120, check=False)


def _codex(patch: str) -> dict[str, Any]:
    return {"tool_name": "apply_patch", "tool_input": {"command": patch}}


BLOCKED = [
    (_patch(_update(".labledger/hook.toml")), "hook.toml"),
    (_patch(_update("src/train.py"), _update(".labledger/config.toml")), "config.toml"),
    (_patch("*** Delete File: capsules/c2/metrics.json"), "capsules/c2"),
    (_patch("*** Add File: capsules/c2/metrics.json\n+{}"), "capsules/c2"),
    (_patch(_update("capsules/c2/train.log")), "capsules/c2"),
    (_patch("*** Update File: src/train.py\n*** Move to: capsules/c2/metrics.json\n@@\n-a\n+b"),
     "capsules/c2"),
    (_patch("*** Update File: capsules/c2/train.log\n*** Move to: src/log.txt\n@@\n-a\n+b"),
     "capsules/c2"),
    (_patch("*** Add File: .labledger/profiles/mine.toml\n+x = 1"), "the labledger ledger"),
    (_patch("*** Delete File: results/r1/notes.txt"), "an export root"),
    ("  *** Begin Patch  \n  *** Update File: .labledger/hook.toml\n@@\n-a\n+b\n*** End Patch\n",
     "hook.toml"),  # markers padded with blanks (codex's parser trims them)
]


@pytest.mark.parametrize(("patch", "what"), BLOCKED)
def test_a_codex_patch_onto_protected_bytes_is_blocked(
        box: Path, patch: str, what: str) -> None:  # noqa: F811
    before = {p: p.read_bytes() for p in box.rglob("*") if p.is_file() and ".git" not in p.parts}
    for payload in (_codex(patch),
                    {"command": ["apply_patch", patch]},
                    {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}EOF\n"]},
                    {"tool_name": "Bash",
                     "tool_input": {"command": f"cd src && cd .. && apply_patch <<'EOF'\n"
                                               f"{patch}EOF"}}):
        result = _hook(box, payload)
        assert result.returncode == 2, (payload, result.stderr)
        assert what in result.stderr, result.stderr
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("patch", [
    _patch(_update("src/train.py")),
    _patch("*** Add File: capsules/c2/notes.md\n+a new file in the capsule"),
    _patch(_update("capsules/c3/metrics.json")),  # its stored copy verifies
    _patch("*** Add File: .labledger/cache/x.txt\n+cache"),
    # a hunk of a script being edited: text, not a command the hook runs
    _patch("*** Update File: src/run.sh\n@@\n-echo x > .labledger/config.toml\n+echo x"),
    _patch("*** Update File: src/run.sh\n@@\n-rm -rf capsules/c2\n+rm -rf /tmp/scratch"),
])
def test_a_codex_patch_elsewhere_passes(box: Path, patch: str) -> None:  # noqa: F811
    (box / "src" / "run.sh").write_text("echo x > .labledger/config.toml\n")
    result = _hook(box, _codex(patch))
    assert result.returncode == 0, result.stderr


def test_a_shell_line_that_only_writes_patch_text_is_judged_as_written(
        box: Path) -> None:  # noqa: F811
    """No ``apply_patch`` runs: the here-document is data for cat, written to a new file."""
    command = f"cat > notes/patch.txt <<'EOF'\n{_patch(_update('.labledger/hook.toml'))}EOF"
    result = _hook(box, {"tool_name": "Bash", "tool_input": {"command": command}})
    assert result.returncode == 0, result.stderr
