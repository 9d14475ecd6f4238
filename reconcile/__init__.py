"""Judgments over the ledger: PULL_VERIFIED, the teardown gate, EVIDENCE.json, document drift.

Layering: imports `labledger.cas` and `labledger.ledger`, never `labledger.ingest`, never the CLI.
"""

__all__: list[str] = []
