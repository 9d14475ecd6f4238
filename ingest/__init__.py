"""Everything that turns an action in the world into events and stored objects.

Run capture, checkpoint hooks, pulls over SSH or from a local directory and the checkpoint
loader live here. Layering: imports `labledger.cas` and `labledger.ledger`, never
`labledger.reconcile` and never the CLI. Importing it never imports torch, DuckDB, pyarrow or
paramiko; the functions that need one import it themselves.
"""

from labledger.ingest.capsule import SealedCapsule, close_capsule
from labledger.ingest.capsule_rules import CapsuleCheck, CapsuleRules, check_capsule, load_rules
from labledger.ingest.checkpoint import digest_file, record_checkpoint, save_checkpoint
from labledger.ingest.checkpoint_load import LoadResult, load_checkpoints
from labledger.ingest.errors import (
    CapsuleConfigError,
    CapsuleExistsError,
    CapsuleInterruptedError,
    CapsuleQuarantinedError,
    CapsuleSourceError,
    CheckpointSourceError,
    IngestError,
)
from labledger.ingest.run_dir import IngestedRun, ingest_run_dir

__all__: list[str] = [
    "CapsuleCheck",
    "CapsuleConfigError",
    "CapsuleExistsError",
    "CapsuleInterruptedError",
    "CapsuleQuarantinedError",
    "CapsuleRules",
    "CapsuleSourceError",
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
