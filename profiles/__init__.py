"""Platform profiles: what each GPU provider bills, destroys and when, as stamped TOML data.

Plain data plus a loader; imports nothing else from labledger (``ingest`` and ``reconcile``
read it, the CLI renders it).

Invariants
----------
* Every fact carries its own ``verified = "YYYY-MM"`` stamp and ``source``; staleness is judged
  from that stamp only, never from a date found elsewhere in the text.
* Profiles are validated strictly: an unknown key, a wrong type or a malformed stamp is refused
  with the file, line and field named.
* User profiles in ``.labledger/profiles/`` add to or replace shipped ones, whole files at a time.
* A rental records a snapshot of its profile (:func:`snapshot`), so editing a profile later never
  changes history.
"""

from labledger.profiles.errors import InvalidProfileError, ProfileError, UnknownProfileError
from labledger.profiles.loader import (
    USER_DIRNAME,
    LoadedProfile,
    get_profile,
    load_profiles,
    parse_profile,
    shipped_profiles,
)
from labledger.profiles.profile import Fact, Profile, iter_facts, snapshot
from labledger.profiles.stale import StaleFact, is_stale, stale

__all__ = [
    "USER_DIRNAME",
    "Fact",
    "InvalidProfileError",
    "LoadedProfile",
    "Profile",
    "ProfileError",
    "StaleFact",
    "UnknownProfileError",
    "get_profile",
    "is_stale",
    "iter_facts",
    "load_profiles",
    "parse_profile",
    "shipped_profiles",
    "snapshot",
    "stale",
]
