"""Where a Python script writes when the path comes from its command line (for the agent hook).

`python_deletes.argument_writes` reads a script's writes whose path starts from a value the
command line gives it, with a placeholder where the value goes (``open(os.path.join(args.out,
"metrics.json"), "w")`` writes onto ``o:out`` between NULs, then ``/metrics.json``). Here the
line's values are put in: ``python train.py --out capsules/c2`` overwrites
``capsules/c2/metrics.json``. An
option or config field NAME takes, in order: the line's ``--NAME V``/``--NAME=V`` (``_`` or
``-``), or Hydra's and Fire's ``NAME=V``/``a.b.NAME=V`` (the last given); the key NAME
anywhere in a config file the line names (``--config exp.yaml``: YAML, JSON, TOML), the script
reads where the line names none (its ``--config`` option's default, a literal path it loads:
`_unnamed_configs`) or Hydra composes for it (`_hydra_composed`); argparse's literal default.
``sys.argv[K]`` is the K-th word. A config value's OmegaConf interpolation of another key
(``output_dir: ${paths.root_dir}/capsules``) is that key's value. A value computed when it runs
(``$OUT``, a resolver's ``${oc.env:ROOT}``, ``${hydra:runtime.output_dir}``) is not read: that
write is not judged, as any computed path of a program.

Invariants: files are only read (config files up to `_CONFIG_BYTES`); a file that does not
parse holds nothing; at most `_MOST_PATHS` paths a write; never raises.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from labledger.reconcile.python_deletes import ProgramWrite

__all__ = ["given_writes"]

_MOST_PATHS = 16  # the values of one write's placeholders combined, at most

# a value the command line gives a program, in a path `argument_writes` reads: an option's or
# a config field's (`o:NAME`), a word's (`a:K`, `sys.argv[K]`)
_GIVEN = re.compile(r"\0([oa]):([^\0]*)\0")
_CONFIG_BYTES = 1 << 20  # a config file named on the line read at most this long


def given_writes(cmd: Any, bases: list[Path]) -> list[ProgramWrite]:
    """Each write of the Python script ``cmd`` runs onto a path that starts from what its
    command line gives (`python_deletes.argument_writes`), each value put in: ``python
    train.py --out capsules/c2`` with ``open(os.path.join(args.out, "metrics.json"), "w")``
    overwrites ``capsules/c2/metrics.json``; ``shutil.copy(SRC, args.out)`` copies into that
    folder when it is one (the write's ``into``). An option is read as
    ``--NAME V``, ``--NAME=V`` (``_`` or ``-``), ``NAME=V`` or ``a.b.NAME=V`` (Hydra's, Fire's),
    the last given; else the values of the key NAME in the config files the line names
    (``--config exp.yaml``: YAML, JSON, TOML, from the latest working folder of ``bases``),
    in the config files the script reads itself (`_unnamed_configs`) or Hydra composes for it;
    else argparse's literal default; ``sys.argv[K]``: the K-th word. A part computed when it
    runs (``model_{epoch}.pt``) makes it a save of some file in the folder before it (kind
    ``folder``; an append or a new file: none). A value that cannot be read: none."""
    from labledger.reconcile.python_deletes import (
        ANY_NAME,
        ProgramWrite,
        argument_defaults,
        argument_writes,
    )
    from labledger.reconcile.shell_words import script_arguments

    if cmd.program is None or cmd.remote:
        return []
    words = script_arguments(cmd.argv)
    writes = argument_writes(cmd.program) if words is not None else ()
    if not writes or words is None:
        return []
    defaults = argument_defaults(cmd.program)
    configs: list[Any] | None = None

    def values(kind: str, name: str) -> list[str]:
        nonlocal configs
        if kind == "a":
            k = int(name) if name.isdigit() else 0
            return [words[k - 1]] if 0 < k <= len(words) else []
        given = _option_value(words, name)
        if given is not None:
            return [given]
        if configs is None:
            configs = _config_files(words + _unnamed_configs(cmd.program, words),
                                    bases[-1:]) + _hydra_composed(cmd, words, bases[-1])
        found = _config_values(configs, name)
        return found or ([defaults[name]] if name in defaults else [])

    found: list[ProgramWrite] = []
    for w in writes:
        for path in _put_given(w.path, values):
            kind, into, into_kind = w.kind, w.into, w.into_kind
            if ANY_NAME in path:
                if kind not in ("overwrite", "tree", "folder"):
                    continue  # an append or a new file, of some name: nothing lost
                head = path[:path.index(ANY_NAME)]
                path, kind = (head.rstrip("/") if head.endswith("/")
                              else os.path.dirname(head)) or ".", "folder"
                into = into_kind = None
            write = ProgramWrite(os.path.normpath(path), kind, w.elsewhere, into, into_kind)
            if write not in found:
                found.append(write)
    return found


def _put_given(path: str, values: Callable[[str, str], list[str]]) -> list[str]:
    """``path`` with each `_GIVEN` placeholder replaced by each value ``values`` gives it
    (an absolute one starts the path over, as ``os.path.join`` does; at most
    `_MOST_PATHS` paths); none when a placeholder has no value that can be read."""
    paths = [""]
    end = 0
    for m in _GIVEN.finditer(path):
        given = [v for v in values(m.group(1), m.group(2))
                 if v and not any(c in v for c in "$`\0")]
        if not given:
            return []
        between = path[end:m.start()]
        paths = [v if os.path.isabs(v) else p + between + v for p in paths for v in given]
        paths = paths[:_MOST_PATHS]
        end = m.end()
    return [p + path[end:] for p in paths]


def _config_files(words: list[str], bases: list[Path]) -> list[Any]:
    """What the config files ``words`` name hold (a word or an option's ``=`` value ending
    in `python_deletes.CONFIG_SUFFIXES`, a regular file there now of at most
    `_CONFIG_BYTES`), parsed; one that does not parse holds nothing."""
    import json
    import tomllib

    from labledger.reconcile.python_deletes import CONFIG_SUFFIXES

    found: list[Any] = []
    for word in words:
        name = word.partition("=")[2] if word.startswith("-") and "=" in word else word
        if not name.endswith(CONFIG_SUFFIXES) or any(c in name for c in "$`\0"):
            continue
        for base in bases:
            path = _resolve(base, name)
            try:
                if not path.is_file() or path.stat().st_size > _CONFIG_BYTES:
                    continue
                text = path.read_text(encoding="utf-8", errors="replace")
                if name.endswith(".json"):
                    found.append(json.loads(text))
                elif name.endswith(".toml"):
                    found.append(tomllib.loads(text))
                else:
                    import yaml  # type: ignore[import-untyped]

                    found.append(yaml.safe_load(text))
            except Exception:  # unreadable, or not its format: it holds nothing read here
                continue
    return found


def _unnamed_configs(program: str, words: list[str]) -> list[str]:
    """The config files the script reads though ``words`` name none: its argparse option's
    default where the line does not give that option (`python_deletes.config_defaults`), and
    the files it loads by a literal path (`python_deletes.config_reads`)."""
    from labledger.reconcile.python_deletes import config_defaults, config_reads

    found = [default for flags, default in config_defaults(program)
             if not any(w in flags or w.partition("=")[0] in flags for w in words)]
    return found + list(config_reads(program))


def _hydra_composed(cmd: Any, words: list[str], base: Path) -> list[Any]:
    """What the config files Hydra composes for the script ``cmd`` runs hold: its
    ``@hydra.main(config_path, config_name)`` (``--config-path|-cp``, ``--config-name|-cn``
    on the line first), from the script's folder, and the files its ``defaults`` list names
    there, one level (``- model: resnet``: ``model/resnet.yaml``; ``model=vit`` on the line:
    ``model/vit.yaml``)."""
    from labledger.reconcile.python_deletes import hydra_configs
    from labledger.reconcile.shell_words import script_file

    mains = hydra_configs(cmd.program) if cmd.program else ()
    script = script_file(cmd.argv, str(base)) if mains else None
    if script is None:
        return []
    folder_given = _option_value(words, "config-path", "-cp")
    name_given = _option_value(words, "config-name", "-cn")
    chosen = {w.split("=", 1)[0].lstrip("+~"): w.split("=", 1)[1] for w in words
              if "=" in w and not w.startswith("-") and "." not in w.split("=", 1)[0]}
    found: list[Any] = []
    for path, name in mains:
        folder = _resolve(Path(os.path.dirname(script)), folder_given or path)
        main = (name_given or name).removesuffix(".yaml") + ".yaml"
        composed = _config_files([main], [folder])
        found += composed
        for config in composed:
            defaults = config.get("defaults") if isinstance(config, dict) else None
            for entry in defaults[:64] if isinstance(defaults, list) else []:
                if isinstance(entry, str) and entry != "_self_":
                    found += _config_files([entry + ".yaml"], [folder])
                elif isinstance(entry, dict):  # `- paths: default`, `paths=other` on the line
                    found += _config_files([
                        f"{group.lstrip('/')}/{chosen.get(group, option)}.yaml"
                        for group, option in entry.items()
                        if isinstance(group, str) and isinstance(option, str)], [folder])
    return found


def _config_values(configs: list[Any], name: str) -> list[str]:
    """The string values of the key ``name`` anywhere in ``configs`` (10,000 nodes looked
    at, at most), each OmegaConf interpolation of another key in it (``${paths.root}/c2``)
    put in (`_interpolated`)."""
    found: list[str] = []
    for value in _raw_values(configs, name):
        for one in _interpolated(configs, value, 0):
            if one not in found:
                found.append(one)
    return found[:_MOST_PATHS]


def _raw_values(configs: list[Any], name: str) -> list[str]:
    found: list[str] = []
    stack = list(configs)
    seen = 0
    while stack and seen < 10_000:
        node = stack.pop()
        seen += 1
        if isinstance(node, dict):
            for key, value in node.items():
                if key == name and isinstance(value, str) and value not in found:
                    found.append(value)
                stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return found


# OmegaConf's interpolation of another key, ${paths.root_dir} (a resolver's, ${oc.env:ROOT},
# ${hydra:runtime.output_dir}, ${now:...}, has a colon: a value only the run knows)
_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*)\}")
_MOST_HOPS = 8  # interpolations followed through one another, at most (a cycle ends there)


def _interpolated(configs: list[Any], value: str, hops: int) -> list[str]:
    """``value`` with each interpolation of another key replaced by that key's values
    (`_key_values`), followed through theirs; as written when one cannot be resolved (its
    ``$`` then keeps the path from being judged: `_put_given`)."""
    if "${" not in value or hops >= _MOST_HOPS:
        return [value]
    out = [""]
    end = 0
    for m in _INTERPOLATION.finditer(value):
        choices = [one for raw in _key_values(configs, m.group(1))
                   for one in _interpolated(configs, raw, hops + 1)]
        if not choices:
            return [value]
        out = [done + value[end:m.start()] + choice for done in out for choice in choices]
        out = out[:_MOST_PATHS]
        end = m.end()
    return [done + value[end:] for done in out]


def _key_values(configs: list[Any], dotted: str) -> list[str]:
    """The values (strings and numbers, as strings) the key path ``dotted`` has in
    ``configs``: the whole path, else the path less its leading keys (a config group's file,
    ``paths/default.yaml``, holds ``root_dir`` that the composed config names
    ``paths.root_dir``)."""
    parts = dotted.split(".")
    for skip in range(len(parts)):
        found: list[str] = []
        for config in configs:
            node: Any = config
            for part in parts[skip:]:
                node = node.get(part) if isinstance(node, dict) else None
            if isinstance(node, (str, int, float)) and not isinstance(node, bool) \
                    and str(node) not in found:
                found.append(str(node))
        if found:
            return found
    return []


def _option_value(words: list[str], name: str, short: str = "") -> str | None:
    """The value ``words`` give the option or field ``name`` (`given_writes`; also as the
    flag ``short``), the last."""
    flags = {f"--{name}", f"--{name.replace('_', '-')}", *([short] if short else [])}
    found = None
    for i, word in enumerate(words):
        head, eq, value = word.partition("=")
        if head in flags:
            found = value if eq else (words[i + 1] if i + 1 < len(words) else None)
        elif eq and not word.startswith("-") and head.lstrip("+").rsplit(".", 1)[-1] == name:
            found = value
    return found


def _resolve(base: Path, path: str) -> Path:
    return Path(os.path.normpath(base / os.path.expanduser(path)))
