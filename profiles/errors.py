"""Errors a caller of the profile loader can act on.

Hierarchy (the CLI maps each to an exit code in `labledger.ledger.cli._errors`)::

    ProfileError                 exit 2: bad input, nothing was written
    ├── InvalidProfileError      a profile file that does not parse or validate (file, line, field)
    └── UnknownProfileError      no shipped or user profile of that name
"""

from __future__ import annotations


class ProfileError(Exception):
    """Base for profile errors a caller can act on."""

    def to_json(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": str(self)}


class InvalidProfileError(ProfileError):
    """A profile file that does not parse or does not match the schema.

    ``file`` is the path (or the packaged resource name), ``line`` the 1-based line of the
    offending key or table (None when it cannot be located), ``field`` the dotted path inside
    the profile (``danger-clocks[0].after-hours``).
    """

    def __init__(self, file: str, line: int | None, field: str | None, problem: str) -> None:
        where = f"{file}:{line}" if line is not None else file
        what = f" field {field!r}:" if field else ""
        super().__init__(
            f"{where}:{what} {problem}; fix the file (see docs/profiles.md for the format)")
        self.file, self.line, self.field, self.problem = file, line, field, problem

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "file": self.file, "line": self.line, "field": self.field,
                "problem": self.problem}


class UnknownProfileError(ProfileError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(
            f"no platform profile named {name!r}; known: {', '.join(known)} "
            "(add your own as .labledger/profiles/<name>.toml)")
        self.name, self.known = name, known

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "name": self.name, "known": self.known}
