"""Shipped profiles load with a stamp on every fact; invalid ones name file, line and field."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec
import pytest

import labledger.profiles as api
from labledger.profiles import (
    InvalidProfileError,
    UnknownProfileError,
    get_profile,
    iter_facts,
    load_profiles,
    parse_profile,
    shipped_profiles,
    snapshot,
)
from labledger.profiles.profile import Profile

SHIPPED = ["autodl", "colab", "featurize", "generic-ssh", "gpushare", "kubernetes", "lambda",
           "lanrui", "local", "matpool", "paperspace", "runpod", "slurm", "vastai"]
STAMP = re.compile(r"[0-9]{4}-(0[1-9]|1[0-2])")

MINIMAL = """\
name = "mybox"
title = "My box"

[kind]
value = "ssh-host"
verified = "2026-06"
source = "me"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- shipped profiles ----------------------------------------------------------------------------
def test_exactly_the_documented_platforms_ship() -> None:
    assert sorted(shipped_profiles()) == SHIPPED


def test_profiles_ship_as_package_data() -> None:
    names = sorted(e.name for e in resources.files("labledger.profiles").iterdir()
                   if e.name.endswith(".toml"))
    assert names == [f"{n}.toml" for n in SHIPPED]


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_profile_loads_with_a_stamp_on_every_fact(name: str) -> None:
    loaded = shipped_profiles()[name]
    assert loaded.origin == "shipped"
    assert loaded.name == name
    facts = list(iter_facts(loaded.profile))
    assert facts
    for path, fact in facts:
        assert STAMP.fullmatch(fact.verified), (name, path)
        assert fact.source.strip(), (name, path)
        assert loaded.line(path) is not None, (name, path)


def _tables(value: Any, path: str) -> list[tuple[str, dict[str, Any]]]:
    """Every TOML table below the top level, independent of the schema's idea of a fact."""
    found: list[tuple[str, dict[str, Any]]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            sub = f"{path}.{key}" if path else key
            if isinstance(item, dict):
                found.append((sub, item))
                found += _tables(item, sub)
            elif isinstance(item, list):
                for i, element in enumerate(item):
                    if isinstance(element, dict):
                        found.append((f"{sub}[{i}]", element))
    return found


@pytest.mark.parametrize("name", SHIPPED)
def test_every_table_in_the_raw_toml_carries_verified_and_source(name: str) -> None:
    """Read the files without the schema: no table (no fact) may lack its own stamp."""
    text = resources.files("labledger.profiles").joinpath(f"{name}.toml").read_text("utf-8")
    tables = _tables(tomllib.loads(text), "")
    assert tables
    for path, table in tables:
        assert STAMP.fullmatch(str(table.get("verified", ""))), (name, path)
        assert str(table.get("source", "")).strip(), (name, path)


@pytest.mark.parametrize("name", SHIPPED)
def test_shell_patterns_compile(name: str) -> None:
    for item in shipped_profiles()[name].profile.shell_patterns:
        re.compile(item.pattern)


def test_domain_facts_are_in_the_profiles() -> None:
    """The facts DOMAIN.md states, as data (a change to them must be deliberate)."""
    p = {n: item.profile for n, item in shipped_profiles().items()}
    autodl_clock = p["autodl"].danger_clocks[0]
    assert (autodl_clock.starts_when, autodl_clock.after_hours) == ("stopped", 360)
    gpushare_clock = p["gpushare"].danger_clocks[0]
    assert (gpushare_clock.starts_when, gpushare_clock.after_hours) == ("stopped", 240)
    paperspace_clock = p["paperspace"].danger_clocks[0]
    assert (paperspace_clock.starts_when, paperspace_clock.after_hours) == ("running", 12)
    assert [s.inode_limit for s in p["autodl"].storage if s.path == "/root/autodl-fs"] == [200000]
    assert p["runpod"].preemption is not None
    assert p["runpod"].preemption.grace_seconds == 5
    assert p["vastai"].preemption is not None
    assert p["vastai"].preemption.grace_seconds == 0
    assert p["vastai"].preemption.signal == "none"
    assert p["lambda"].stop is not None
    assert p["lambda"].stop.stops_compute_billing is False
    assert p["autodl"].meter_stop is not None
    assert p["autodl"].meter_stop.irreversible is False
    for name in ("runpod", "vastai", "lambda"):
        meter_stop = p[name].meter_stop
        teardown = p[name].teardown
        assert meter_stop is not None
        assert meter_stop.irreversible is True
        assert teardown is not None
        assert teardown.acknowledged_is_confirmed is False
    assert [s.path for s in p["featurize"].storage if s.survives_destroy] == ["/home/featurize"]


@pytest.mark.parametrize(("name", "command", "effect"), [
    ("runpod", "runpodctl remove pod abc123", "destroy"),
    ("runpod", "runpodctl stop pod abc123", "stop"),
    ("vastai", "vastai destroy instance 4242", "destroy"),
    ("vastai", "vastai stop instance 4242", "stop"),
    ("kubernetes", "kubectl delete pod trainer-0", "destroy"),
    ("slurm", "scancel 1234", "destroy"),
    ("generic-ssh", "sleep 10; sudo shutdown -h now", "stop"),
    ("autodl", "python train.py && shutdown", "stop"),
    ("lambda", "curl -X POST https://cloud.lambdalabs.com/api/v1/instance-operations/terminate",
     "destroy"),
])
def test_shell_patterns_catch_destructive_commands(name: str, command: str, effect: str) -> None:
    profile = shipped_profiles()[name].profile
    effects = {p.effect for p in profile.shell_patterns if re.search(p.pattern, command)}
    assert effects == {effect}


@pytest.mark.parametrize(("name", "command"), [
    ("autodl", "python train.py --no-shutdown"),
    ("runpod", "runpodctl get pod abc123"),
    ("vastai", "vastai show instances"),
    ("kubernetes", "kubectl get pods"),
    ("generic-ssh", "grep -rn shutdown src/"),
    ("generic-ssh", 'git commit -m "handle halt signal"'),
    ("lambda", "man shutdown"),
    ("slurm", "git log --grep scancel"),
])
def test_shell_patterns_leave_harmless_commands_alone(name: str, command: str) -> None:
    profile = shipped_profiles()[name].profile
    assert not [p for p in profile.shell_patterns if re.search(p.pattern, command)]


def test_snapshot_round_trips_to_the_same_profile() -> None:
    for loaded in shipped_profiles().values():
        data = json.loads(json.dumps(snapshot(loaded.profile)))
        assert msgspec.convert(data, Profile) == loaded.profile


# --- user profiles -------------------------------------------------------------------------------
def test_user_profiles_add_and_replace_shipped_ones(tmp_path: Path) -> None:
    user = tmp_path / "profiles"
    write(user, "mybox", MINIMAL)
    replaced = MINIMAL.replace('"mybox"', '"autodl"').replace("My box", "AutoDL, my notes")
    path = write(user, "autodl", replaced)
    loaded = load_profiles(user)
    assert sorted(loaded) == sorted([*SHIPPED, "mybox"])
    assert loaded["mybox"].origin == "user"
    assert loaded["mybox"].overrides_shipped is False
    assert loaded["autodl"].origin == "user"
    assert loaded["autodl"].overrides_shipped is True
    assert loaded["autodl"].profile.title == "AutoDL, my notes"
    assert loaded["autodl"].file == str(path)
    assert loaded["autodl"].profile.danger_clocks == []  # a whole-file replacement, no merge
    assert get_profile("mybox", user).profile.kind.value == "ssh-host"


def test_no_user_folder_means_shipped_only(tmp_path: Path) -> None:
    assert sorted(load_profiles(tmp_path / "absent")) == SHIPPED
    assert sorted(load_profiles(None)) == SHIPPED


def test_unknown_profile_names_the_known_ones() -> None:
    with pytest.raises(UnknownProfileError) as info:
        get_profile("aws")
    assert "autodl" in str(info.value)
    assert info.value.name == "aws"


BASE = """\
name = "mybox"
title = "My box"

[kind]
value = "ssh-host"
verified = "2026-06"
source = "me"

[[danger-clocks]]
name = "first"
starts-when = "stopped"
after-hours = 10
action = "deletes it"
verified = "2026-06"
source = "me"

[[danger-clocks]]
name = "second"
starts-when = "running"
after-hours = 20
action = "stops it"
verified = "2026-06"
source = "me"

[[shell-patterns]]
pattern = 'rm -rf /'
effect = "destroy"
verified = "2026-06"
source = "me"
"""


@pytest.mark.parametrize(("old", "new", "line", "field", "words"), [
    # an unknown field (a typo) in the second array element
    ('after-hours = 20', 'after-hourz = 20', 20, "danger-clocks[1].after-hourz",
     "unknown field 'after-hourz'"),
    # an unknown top-level table
    ('[kind]', '[kinds]\nvalue = 1\n[kind]', 4, "kinds", "unknown field 'kinds'"),
    # a wrong type
    ('after-hours = 10', 'after-hours = "10"', 12, "danger-clocks[0].after-hours",
     "Expected `float`, got `str`"),
    # a value outside its set
    ('starts-when = "running"', 'starts-when = "paused"', 19, "danger-clocks[1].starts-when",
     "Invalid enum value 'paused'"),
    # a bad stamp: month 13
    ('verified = "2026-06"\nsource = "me"\n\n[[danger-clocks]]\nname = "first"',
     'verified = "2026-13"\nsource = "me"\n\n[[danger-clocks]]\nname = "first"', 6,
     "kind.verified", "'2026-13' is not a stamp"),
    # a stamp with a day, as a TOML date
    ('verified = "2026-06"\nsource = "me"\n\n[[shell-patterns]]',
     'verified = 2026-06-01\nsource = "me"\n\n[[shell-patterns]]', 22,
     "danger-clocks[1].verified", "'2026-06-01' is not a stamp"),
    # a missing stamp points at the fact's table
    ('effect = "destroy"\nverified = "2026-06"\n', 'effect = "destroy"\n', 25,
     "shell-patterns[0].verified", "missing required field 'verified'"),
    # a regex that does not compile
    ("pattern = 'rm -rf /'", "pattern = 'rm -rf ('", 26, "shell-patterns[0].pattern",
     "not a valid regular expression"),
    # the name must be the file's stem
    ('name = "mybox"', 'name = "other"', 1, "name", "differs from the file name"),
    # TOML syntax
    ('title = "My box"', 'title = "My box', 2, None, "not valid TOML"),
])
def test_invalid_user_profile_names_file_line_and_field(
        tmp_path: Path, old: str, new: str, line: int, field: str | None, words: str) -> None:
    assert BASE.count(old) == 1
    path = write(tmp_path / "profiles", "mybox", BASE.replace(old, new))
    with pytest.raises(InvalidProfileError) as info:
        load_profiles(tmp_path / "profiles")
    error = info.value
    assert error.file == str(path)
    assert error.line == line
    assert error.field == field
    assert words in str(error)
    assert str(error).startswith(f"{path}:{line}:")


def test_the_valid_base_loads(tmp_path: Path) -> None:
    """The fixture the invalid cases start from is itself valid (so each case tests one thing)."""
    write(tmp_path / "profiles", "mybox", BASE)
    assert len(load_profiles(tmp_path / "profiles")["mybox"].profile.danger_clocks) == 2


def test_an_empty_user_profile_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "profiles", "mybox", "# nothing yet\n")
    with pytest.raises(InvalidProfileError, match="the file is empty") as info:
        load_profiles(tmp_path / "profiles")
    assert info.value.file == str(path)


def test_parse_profile_without_a_file() -> None:
    profile = parse_profile(MINIMAL, "<text>")
    assert profile.name == "mybox"
    with pytest.raises(InvalidProfileError, match=r"^<text>:5: field 'kind.value'"):
        parse_profile(MINIMAL.replace('"ssh-host"', '"mainframe"'), "<text>")


_SPOT = MINIMAL + """
[preemption]
spot = true
grace-seconds = {grace}
verified = "2026-06"
source = "me"
"""


@pytest.mark.parametrize("grace", ["inf", "+inf", "nan"])
def test_a_number_that_is_not_finite_is_refused_by_line_and_field(grace: str) -> None:
    with pytest.raises(InvalidProfileError,
                       match=r"^<text>:(10|11): field 'preemption.grace-seconds'") as info:
        parse_profile(_SPOT.format(grace=grace), "<text>")
    assert "not a finite number" in str(info.value) or ">= 0" in str(info.value)


def test_a_fact_verified_in_the_future_is_refused() -> None:
    with pytest.raises(InvalidProfileError,
                       match=r"^<text>:6: field 'kind.verified': '2099-01' is in the future"):
        parse_profile(MINIMAL.replace('"2026-06"', '"2099-01"'), "<text>")
    assert parse_profile(_SPOT.format(grace="30.0"), "<text>").preemption is not None


# --- the package's surface and layering ----------------------------------------------------------
def test_all_is_pinned() -> None:
    assert api.__all__ == [
        "USER_DIRNAME", "Fact", "InvalidProfileError", "LoadedProfile", "Profile",
        "ProfileError", "StaleFact", "UnknownProfileError", "get_profile", "is_stale",
        "iter_facts", "load_profiles", "parse_profile", "shipped_profiles", "snapshot", "stale"]


def test_profiles_import_nothing_else_from_labledger() -> None:
    code = ("import sys, labledger.profiles as p; p.load_profiles(); "
            "print(sorted(m for m in sys.modules if m.startswith('labledger.') "
            "and not m.startswith('labledger.profiles')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
