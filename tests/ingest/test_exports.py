"""The public names of `labledger.ingest` for capture: removing one is a deliberate API change."""

from __future__ import annotations

import labledger.ingest as api
from labledger.ingest import capsule, capsule_rules, checkpoint, errors, run_dir

CAPTURE = {
    "CapsuleBusyError": errors.CapsuleBusyError,
    "CapsuleCheck": capsule_rules.CapsuleCheck,
    "CapsuleConfigError": errors.CapsuleConfigError,
    "CapsuleExistsError": errors.CapsuleExistsError,
    "CapsuleInterruptedError": errors.CapsuleInterruptedError,
    "CapsuleQuarantinedError": errors.CapsuleQuarantinedError,
    "CapsuleRules": capsule_rules.CapsuleRules,
    "CapsuleRunningError": errors.CapsuleRunningError,
    "CapsuleSourceError": errors.CapsuleSourceError,
    "CheckpointSourceError": errors.CheckpointSourceError,
    "IngestError": errors.IngestError,
    "IngestedRun": run_dir.IngestedRun,
    "SealedCapsule": capsule.SealedCapsule,
    "check_capsule": capsule_rules.check_capsule,
    "close_capsule": capsule.close_capsule,
    "digest_file": checkpoint.digest_file,
    "ingest_run_dir": run_dir.ingest_run_dir,
    "load_rules": capsule_rules.load_rules,
    "record_checkpoint": checkpoint.record_checkpoint,
    "save_checkpoint": checkpoint.save_checkpoint,
}


def test_capture_names_are_exported_and_are_the_real_objects() -> None:
    missing = sorted(set(CAPTURE) - set(api.__all__))
    assert missing == []
    wrong = sorted(name for name, obj in CAPTURE.items() if getattr(api, name) is not obj)
    assert wrong == []


def test_all_is_sorted_and_resolvable() -> None:
    assert api.__all__ == sorted(api.__all__)
    assert [n for n in api.__all__ if not hasattr(api, n)] == []


def test_capture_errors_share_one_base() -> None:
    errs = [obj for name, obj in CAPTURE.items() if name.endswith("Error")]
    assert all(isinstance(e, type) and issubclass(e, errors.IngestError) for e in errs)
