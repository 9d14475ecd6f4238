"""PEP 562 lazy re-exports for a package's `__init__`: names load from their module on first use.

Keeps `import labledger.ledger` and `import labledger.ingest` free of msgspec, torch and the rest
until a caller touches a name that needs them (`labledger emit` and `labledger run` start fast).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this sits on the `emit` start-up path
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


def lazy_getattr(package: str, home: Mapping[str, str], namespace: dict[str, object]
                 ) -> Callable[[str], object]:
    """A module `__getattr__` importing ``package.<home[name]>`` on first use, then caching."""

    def __getattr__(name: str) -> object:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__
