"""Everything that turns an action in the world into events and stored objects.

Run capture, checkpoint hooks, pulls over SSH or from a local directory and the checkpoint
loader live here. Layering: imports `labledger.cas` and `labledger.ledger`, never
`labledger.reconcile` and never the CLI. Importing it never imports torch, DuckDB, pyarrow or
paramiko; the functions that need one import it themselves.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: `labledger run` pays for every import at launch
if TYPE_CHECKING:
    from labledger.ingest.capsule import SealedCapsule, close_capsule
    from labledger.ingest.capsule_rules import CapsuleCheck, CapsuleRules, check_capsule, load_rules
    from labledger.ingest.checkpoint import digest_file, record_checkpoint, save_checkpoint
    from labledger.ingest.checkpoint_load import LoadResult, load_checkpoints
    from labledger.ingest.errors import (
        CapsuleBusyError,
        CapsuleConfigError,
        CapsuleExistsError,
        CapsuleInterruptedError,
        CapsuleQuarantinedError,
        CapsuleRunningError,
        CapsuleSourceEmptyError,
        CapsuleSourceError,
        CapsuleSourceMissingError,
        CheckpointSourceError,
        IngestError,
    )
    from labledger.ingest.run_dir import IngestedRun, ingest_run_dir

from labledger.ledger._lazy import lazy_getattr  # noqa: E402 - after the type-only block

# Public names load on first use (PEP 562): `labledger run` imports only what it needs.
_HOME = {
    "CapsuleBusyError": "errors",
    "CapsuleCheck": "capsule_rules",
    "CapsuleConfigError": "errors",
    "CapsuleExistsError": "errors",
    "CapsuleInterruptedError": "errors",
    "CapsuleQuarantinedError": "errors",
    "CapsuleRules": "capsule_rules",
    "CapsuleRunningError": "errors",
    "CapsuleSourceEmptyError": "errors",
    "CapsuleSourceError": "errors",
    "CapsuleSourceMissingError": "errors",
    "CheckpointSourceError": "errors",
    "IngestError": "errors",
    "IngestedRun": "run_dir",
    "LoadResult": "checkpoint_load",
    "SealedCapsule": "capsule",
    "check_capsule": "capsule_rules",
    "close_capsule": "capsule",
    "digest_file": "checkpoint",
    "ingest_run_dir": "run_dir",
    "load_checkpoints": "checkpoint_load",
    "load_rules": "capsule_rules",
    "record_checkpoint": "checkpoint",
    "save_checkpoint": "checkpoint",
}

__all__: list[str] = [
    "CapsuleBusyError",
    "CapsuleCheck",
    "CapsuleConfigError",
    "CapsuleExistsError",
    "CapsuleInterruptedError",
    "CapsuleQuarantinedError",
    "CapsuleRules",
    "CapsuleRunningError",
    "CapsuleSourceEmptyError",
    "CapsuleSourceError",
    "CapsuleSourceMissingError",
    "CheckpointSourceError",
    "IngestError",
    "IngestedRun",
    "LoadResult",
    "SealedCapsule",
    "check_capsule",
    "close_capsule",
    "digest_file",
    "ingest_run_dir",
    "load_checkpoints",
    "load_rules",
    "record_checkpoint",
    "save_checkpoint",
]


__getattr__ = lazy_getattr(__name__, _HOME, globals())
