"""Loading profiles: the shipped TOML files, then the user's, which add or replace them.

* Shipped profiles are package data (``labledger/profiles/*.toml``).
* User profiles are ``<project>/.labledger/profiles/*.toml``. A user file whose name matches a
  shipped one replaces it as a whole (no key-by-key merge: a half-overridden profile would mix
  facts checked at different times without saying so).
* A profile's ``name`` must equal its file's stem, so ``rent --profile NAME`` always finds the
  file a user would look for.
* Every error names the file, the line and the field (tomllib keeps no line numbers, so the
  line is found by :mod:`labledger.profiles._lines`).
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import msgspec

from labledger.profiles._lines import (
    PathKey,
    format_path,
    key_lines,
    line_of,
    parse_path,
)
from labledger.profiles.errors import InvalidProfileError, UnknownProfileError
from labledger.profiles.profile import Profile

USER_DIRNAME = "profiles"  # under .labledger/

_MSGSPEC_AT = re.compile(r" - at `(\$[^`]*)`$")
_FIELD_NAMED = re.compile(r"(unknown|missing required) field `([^`]+)`")


@dataclass(frozen=True)
class LoadedProfile:
    """A profile with where it came from and where each of its keys sits."""

    profile: Profile
    file: str
    origin: Literal["shipped", "user"]
    text: str
    overrides_shipped: bool = False
    lines: Mapping[PathKey, int] = field(default_factory=dict, repr=False)

    @property
    def name(self) -> str:
        return self.profile.name

    def line(self, path: str) -> int | None:
        """The line of a fact path such as ``danger-clocks[0]``."""
        return line_of(dict(self.lines), parse_path("$." + path))


def _lookup(data: Any, path: PathKey) -> Any:
    for part in path:
        try:
            data = data[part]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def _validation_error(file: str, data: Any, lines: dict[PathKey, int],
                      exc: msgspec.ValidationError) -> InvalidProfileError:
    message = str(exc)
    at = _MSGSPEC_AT.search(message)
    path = parse_path(at.group(1)) if at else ()
    problem = _MSGSPEC_AT.sub("", message)
    named = _FIELD_NAMED.search(problem)
    if named is not None:
        path = (*path, named.group(2))
    if path and path[-1] == "verified" and named is None:
        value = _lookup(data, path)
        problem = (f"'{value}' is not a stamp; write verified = \"YYYY-MM\" (the month the fact "
                   "was last checked)")
    elif named is not None and named.group(1) == "unknown":
        problem = f"unknown field {named.group(2)!r} (a typo, or a key this labledger lacks)"
    elif named is not None:
        problem = f"missing required field {named.group(2)!r}"
    return InvalidProfileError(file, line_of(lines, path), format_path(path) or None, problem)


def parse_profile(text: str, file: str, *, expected_name: str | None = None) -> Profile:
    """Parse and validate one profile's TOML text.

    Raises :class:`InvalidProfileError` with the file, line and field on any problem.
    """
    return _parse(text, file, expected_name)[1]


def _parse(text: str, file: str,
           expected_name: str | None) -> tuple[dict[PathKey, int], Profile, dict[str, Any]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        raise InvalidProfileError(file, int(found.group(1)) if found else None, None,
                                  f"not valid TOML ({exc})") from None
    if not data:
        raise InvalidProfileError(file, None, None,
                                  "the file is empty; a profile needs at least name, title and "
                                  "a [kind] fact")
    lines = key_lines(text)
    try:
        profile = msgspec.convert(data, Profile)
    except msgspec.ValidationError as exc:
        raise _validation_error(file, data, lines, exc) from None
    _check_values(file, data, lines, (), _this_month())
    if expected_name is not None and profile.name != expected_name:
        raise InvalidProfileError(
            file, line_of(lines, ("name",)), "name",
            f"name {profile.name!r} differs from the file name {expected_name!r}.toml")
    for index, item in enumerate(profile.shell_patterns):
        try:
            re.compile(item.pattern)
        except re.error as exc:
            path: PathKey = ("shell-patterns", index, "pattern")
            raise InvalidProfileError(file, line_of(lines, path), format_path(path),
                                      f"not a valid regular expression ({exc})") from None
    return lines, profile, data


def _this_month() -> str:
    from datetime import UTC, datetime, timedelta

    # a day ahead: a fact checked today east of UTC is not "in the future"
    return (datetime.now(UTC) + timedelta(days=1)).strftime("%Y-%m")


def _check_values(file: str, data: Any, lines: dict[PathKey, int], path: PathKey,
                  month: str) -> None:
    """What the schema cannot say: numbers are finite (TOML has ``inf`` and ``nan``; a grace
    window of ``inf`` seconds is never reached) and no fact was verified in the future (it
    would never go stale, so `profiles stale` would never name it)."""
    items: Any = (data.items() if isinstance(data, dict)
                  else enumerate(data) if isinstance(data, list) else ())
    for key, value in items:
        here: PathKey = (*path, key)
        if isinstance(value, float) and not math.isfinite(value):
            raise InvalidProfileError(file, line_of(lines, here), format_path(here),
                                      f"{value} is not a finite number")
        if key == "verified" and isinstance(value, str) and value > month:
            raise InvalidProfileError(file, line_of(lines, here), format_path(here),
                                      f"'{value}' is in the future (this month is "
                                      f"{month}); write the month the fact was checked")
        _check_values(file, value, lines, here, month)


def _load_file(text: str, file: str, stem: str, origin: Literal["shipped", "user"],
               overrides: bool = False) -> LoadedProfile:
    lines, profile, _ = _parse(text, file, stem)
    return LoadedProfile(profile=profile, file=file, origin=origin, text=text,
                         overrides_shipped=overrides, lines=lines)


def _display(entry: Any) -> str:
    """A packaged file's real path where it has one (the editable link tree points home)."""
    try:
        return str(Path(str(entry)).resolve())
    except OSError:
        return str(entry)


def _shipped_files() -> Iterator[tuple[str, str, str]]:
    """(stem, display path, text) of every packaged profile."""
    root = resources.files("labledger.profiles")
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".toml") and entry.is_file():
            yield entry.name[:-5], _display(entry), entry.read_text(encoding="utf-8")


def shipped_profiles() -> dict[str, LoadedProfile]:
    """The profiles packaged with labledger, by name."""
    return {stem: _load_file(text, file, stem, "shipped")
            for stem, file, text in _shipped_files()}


def load_profiles(user_dir: Path | None = None) -> dict[str, LoadedProfile]:
    """Shipped profiles, then ``user_dir/*.toml`` adding to or replacing them, sorted by name.

    Raises :class:`InvalidProfileError` for the first file that does not validate.
    """
    loaded = shipped_profiles()
    if user_dir is not None and user_dir.is_dir():
        for path in sorted(user_dir.glob("*.toml")):
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise InvalidProfileError(str(path), None, None,
                                          f"cannot read it ({exc})") from None
            loaded[path.stem] = _load_file(text, str(path), path.stem, "user",
                                           overrides=path.stem in loaded)
    return dict(sorted(loaded.items()))


def get_profile(name: str, user_dir: Path | None = None) -> LoadedProfile:
    """One profile by name (a user profile wins); raises :class:`UnknownProfileError`."""
    profiles = load_profiles(user_dir)
    try:
        return profiles[name]
    except KeyError:
        raise UnknownProfileError(name, sorted(profiles)) from None
