"""Platform profiles: what each GPU provider bills, destroys and when, as stamped TOML data.

Plain data plus a loader; imports nothing else from labledger.
"""

__all__: list[str] = []
