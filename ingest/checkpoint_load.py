"""Load checkpoints safely, in a child process, to prove they are usable bytes.

A checkpoint counts as loadable when ``torch.load(path, map_location="cpu", weights_only=True)``
succeeds (no pickle code runs), the result holds at least one tensor, and every floating-point
tensor is finite. The load runs in a separate interpreter with a timeout so a hostile or huge
file can neither run code in nor hang the calling process, and a crash (out of memory) fails
only the child. The child prints one JSON line per file as it finishes, so a timeout still
reports the files it finished.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import msgspec

LOADER = "torch.load(weights_only=True)"

_CHILD = r"""
import json, math, sys, warnings
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
    import torch

def walk(obj, out, depth=0):
    if depth > 64:
        return
    if isinstance(obj, torch.Tensor):
        out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            walk(v, out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            walk(v, out, depth + 1)

for path in sys.argv[1:]:
    result = {"path": path, "ok": False, "tensors": 0, "error": None}
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
        tensors = []
        walk(obj, tensors)
        result["tensors"] = len(tensors)
        bad = [i for i, t in enumerate(tensors)
               if (t.is_floating_point() or t.is_complex()) and t.numel()
               and not bool(torch.isfinite(t).all())]
        if not tensors:
            result["error"] = "it holds no tensors"
        elif bad:
            result["error"] = f"{len(bad)} of {len(tensors)} tensors hold NaN or infinity"
        else:
            result["ok"] = True
    except Exception as exc:
        first = (str(exc).strip().splitlines() or [""])[0][:300]
        result["error"] = ("torch.load(weights_only=True) failed: " + type(exc).__name__
                           + (f": {first}" if first else ""))
    print(json.dumps(result), flush=True)
"""


class LoadResult(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of loading one checkpoint: ``ok``, the tensor count, and why not."""

    path: str
    ok: bool
    tensors: int = 0
    error: str | None = None


def torch_available() -> bool:
    """Whether torch can be imported here (checked without importing it)."""
    return importlib.util.find_spec("torch") is not None


def load_checkpoints(paths: Sequence[Path], *, timeout: float = 300.0) -> list[LoadResult]:
    """Load each checkpoint in one child interpreter; one `LoadResult` per path, in order.

    A path the child did not finish within ``timeout`` seconds (all of them together) is
    reported as not ok. The caller decides what to do when torch is missing
    (`torch_available`); this function then reports every path as not ok.
    """
    if not paths:
        return []
    done: dict[str, LoadResult] = {}
    stderr = ""
    timed_out = False
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, paths)],
                              capture_output=True, text=True, timeout=timeout, check=False)
        stdout, stderr = proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        timed_out = True
        raw = exc.stdout or b""
        stdout = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
            done[item["path"]] = LoadResult(path=item["path"], ok=bool(item["ok"]),
                                            tensors=int(item["tensors"]), error=item["error"])
        except (ValueError, KeyError, TypeError):
            continue
    last = (stderr.strip().splitlines() or ["no output"])[-1][:300]
    why = (f"did not load within {timeout:g} s" if timed_out
           else f"the loader process failed ({last})")
    return [done.get(str(p)) or LoadResult(path=str(p), ok=False, error=why) for p in paths]
