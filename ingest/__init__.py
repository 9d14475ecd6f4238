"""Everything that turns an action in the world into events and stored objects.

Run capture, checkpoint hooks, pulls over SSH or from a local directory and the checkpoint
loader live here. Layering: imports `labledger.cas` and `labledger.ledger`, never
`labledger.reconcile` and never the CLI.
"""

__all__: list[str] = []
