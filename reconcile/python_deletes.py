"""The paths a Python program deletes or writes onto, for the agent tool hook.

A program run by a command (``python -c PROGRAM``, ``python - <<EOF``, a local ``python
FILE``'s text: `shell_words`) is read with `ast`, never run, for what it removes
(``shutil.rmtree``, ``os.remove``/``unlink``/``rmdir``/``removedirs``, a ``Path``'s
``unlink()``/``rmdir()``, send2trash) and for what it moves out of its place
(``shutil.move``, ``os.rename``/``renames``/``replace``, a ``Path``'s ``rename()``/
``replace()``: the source is gone from where it was, as with ``mv``). The hook judges each
path as it judges ``rm -r PATH``, and a computed one by the words that may feed it and the
folders the program lists (`python_listings`); a folder the program made itself
(``tempfile.mkdtemp()``, ``with tempfile.TemporaryDirectory() as d``) deletes nothing that was
there, and the text it writes for people (docstrings, ``help=``) feeds nothing
(`program_strings`).

It is read too for the files it writes onto (`python_writes`), as a write destroys a file's
bytes as surely as a remove: ``open``/``io.open``/``gzip.open``/... and a ``Path``'s ``open()``
by their mode, ``os.open`` by its flags, ``Path.write_text``/``write_bytes``, ``os.truncate``,
the destination of ``os.rename``/``replace``/``renames``, ``shutil.copy``/``copy2``/
``copyfile``/``move`` (a copy into a folder: the file named as its source there) and
``shutil.copytree`` (over what is there with ``dirs_exist_ok``), a Path's ``rename``/
``replace`` target, savers (``torch.save``, ``numpy.save``, ``df.to_csv``, ``fig.savefig``,
`_SAVERS`, `_SAVER_METHODS`), savers over a folder or a file (``model.save_pretrained(DIR)``,
``trainer.save_model(DIR)``, any ``.save(P)``: `_FOLDER_SAVER_METHODS`; ``.save(obj, P)``;
``TrainingArguments(output_dir=DIR)``: `_TRAINER_SETTINGS`; Lightning's and Keras'
``ModelCheckpoint``), ``h5py.File`` by its
mode, ``sqlite3.connect`` (not when the program's SQL only reads), ``fileinput`` in place.
Each says what it does to a file there:
overwrites it (truncates, replaces, changes it in place), appends to it, creates a new one only,
copies a folder over it, saves over what is there; ``Path.touch()`` and reads write nothing.
Only a path written out is judged (literals as for a delete, and a name bound once to one, or
the binding in effect at a write of the module's straight-line code, followed a bounded depth;
after an ``os.chdir``, from the folders the program may be in: `_Writes`); a computed one (a
parameter, ``os.path.join(args.out, "ckpt.pt")``, an f-string) writes nothing judged: programs
write to computed paths all the time. A mode or flags not read may write. The exception: a
path that starts from what the command line gives the program (`argument_writes`:
``os.path.join(args.out, "metrics.json")``, ``f"{cfg.output_dir}/model_{epoch}.pt"``,
``sys.argv[1]``), read with the option's name in its place, for the hook to put the value the
line gives there (``python train.py --out capsules/c2`` overwrites ``capsules/c2/metrics.json``).

Invariants: a function is known by what it is, not how it is written: the program's imports
(``import shutil as sh``, ``from os import rename as mv``, ``from shutil import *``), its plain
assignments (``f = shutil.rmtree``), ``getattr(MODULE, "NAME")``, ``__import__``,
``importlib.import_module`` and ``sys.modules[...]`` are followed to a qualified name. A call of
a remover or mover yields its path (a mover's source); a path made of literals only (``"a"``,
``Path("a") / "b"``, ``os.path.join``, ``+``, ``Path.cwd()``) is literal, relative to the
program's working folder (any folder, for a program that changes it: ``os.chdir``; the
``.parent`` of ``Path.cwd()``, ``resolve()``, ``os.path.abspath``/``realpath`` is the folder
above it, of ``Path(".")`` the same folder, as pathlib reads it); any other
(a variable, an f-string, ``sys.argv``, a path relative to a ``dir_fd``) is computed (None). A
remover named but not called here (``map(shutil.rmtree, ...)``, ``partial(os.unlink, ...)``),
``getattr`` of a computed name on a module holding removers, ``exec``/``eval`` of anything but
a literal (a literal is read as a program of its own) yield a computed delete. A method call
whose receiver cannot be told (``x.remove(p)``: os or a list?) counts, unless the receiver is
plainly a value (a list, a set, a string, a name only ever bound to one); a one-argument
``rename``/``replace`` moves its receiver only when that is a ``Path``. Only names rooted in an
import (or ``getattr``-like builtins) are followed, each to at most `_MOST_BINDINGS` names:
past that the program deletes something computed (fail closed, in bounded time). A program
this Python cannot parse (newer syntax, nesting too deep for `ast`) deletes something computed
when its text holds a remover's or mover's name (fail closed), and writes nothing judged.
Never raises.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from labledger.reconcile.python_runs import parse_program

__all__ = ["ANY_NAME", "ProgramDelete", "ProgramListing", "ProgramWrite", "argument_writes",
           "argument_defaults", "hydra_configs", "program_strings", "python_deletes",
           "python_listings", "python_writes"]


@dataclass(frozen=True)
class ProgramDelete:
    """One path a program deletes: as it names it (relative: to its working folder), or None
    when computed; whether it may remove a folder (not only a file); whether it moves it;
    whether the program changes its working folder first (a relative path may then be from
    any folder)."""

    path: str | None
    folders: bool = True
    moves: bool = False
    elsewhere: bool = False
    # a computed path's last part when written out (``os.path.join(root, "__pycache__")``):
    # it deletes only what is so named
    name: str | None = None


# qualified name -> (the keyword its path may be given as, it removes folders)
# (Python 3.11 library reference: os, shutil; send2trash 1.8; distutils.dir_util)
_REMOVERS = {
    "os.remove": ("path", False), "os.unlink": ("path", False), "os.rmdir": ("path", True),
    "os.removedirs": ("name", True), "shutil.rmtree": ("path", True),
    "send2trash.send2trash": ("paths", True), "send2trash.send2trash.send2trash": ("paths", True),
    "distutils.dir_util.remove_tree": ("directory", True),
}
# qualified name -> the keyword its source may be given as
_MOVERS = {"os.rename": "src", "os.renames": "old", "os.replace": "src", "shutil.move": "src"}
_PATH_TYPES = {"pathlib." + t for t in ("Path", "PosixPath", "PurePath", "PurePosixPath")}
# a Path's own methods (also called unbound: `Path.unlink(p)`)
_PATH_REMOVERS = {"unlink": False, "rmdir": True}
_PATH_MOVERS = {"rename", "replace"}
# a Path's methods that return a Path (Python 3.11 library reference, pathlib)
_PATH_VALUED = {"joinpath", "with_suffix", "with_name", "with_stem", "resolve", "absolute",
                "expanduser", "relative_to", "readlink", "rename", "replace"}
_MODULES = {"os", "posix", "shutil", "pathlib", "send2trash", "distutils.dir_util"}
# method names that remove or move whatever the receiver is (no list or str has them)
_REMOVER_METHODS = {"rmtree": True, "removedirs": True, "remove_tree": True,
                    "send2trash": True, "remove": False, "unlink": False}
_MOVER_METHODS = {"move", "rename", "renames"}
# the names a program cannot be parsed may delete by (fail closed)
_FALLBACK = re.compile(r"\b(rmtree|remove|unlink|rmdir|removedirs|renames?|replace|move"
                       r"|send2trash|remove_tree)\b")
_CHANGES_FOLDER = {"chdir", "fchdir"}
# what lists a folder (Python 3.11 library reference: os, pathlib; Path.walk is 3.12's)
_LISTERS = {"os.listdir": "ls -A", "os.scandir": "ls -A", "os.walk": "find", "os.fwalk": "find"}
_PATH_LISTERS = {"iterdir": "ls -A", "glob": "ls -A", "rglob": "find", "walk": "find"}
_LAST_NAMES = {q.rpartition(".")[2] for q in (*_REMOVERS, *_MOVERS)} | set(_PATH_REMOVERS) | \
    _PATH_MOVERS
_COMPUTED = ProgramDelete(None)
# builtins a bound name may reach a remover through (`g = getattr`, `imp = __import__`)
_REACHING_BUILTINS = {"getattr", "__import__", "exec", "eval", "builtins", "globals", "vars"}
# a qualified name of more dots than this is none a remover's (``send2trash.send2trash.
# send2trash``, ``pathlib.Path.unlink``: 2) nor becomes one (a name is only ever extended)
_LONGEST_NAME = 4
_MOST_BINDINGS = 64  # the qualified names one local name may hold


@functools.lru_cache(maxsize=32)
def python_deletes(program: str) -> tuple[ProgramDelete, ...]:
    """What ``program`` deletes or moves away (see the module docstring)."""
    tree = parse_program(program)
    if tree is not None:
        try:
            # each once: a loop deleting 1,000 paths it computes is one computed delete
            return tuple(dict.fromkeys(_Reader(tree).deletes()))
        except RecursionError:  # nested deeper than this reads
            pass
    # the box's Python may read what this one cannot (`type T = int`, PEP 701 f-strings)
    return (_COMPUTED,) if _FALLBACK.search(program) else ()


@dataclass(frozen=True)
class ProgramListing:
    """A folder a program lists, as the shell command that lists it as it does: ``lister``
    (``ls -A``: its entries, dot ones too; ``find``: all below), limited to entries named
    ``name`` (a glob's last part) when given; ``elsewhere``: after ``os.chdir``, the folder
    may be relative to any folder."""

    lister: str
    path: str
    elsewhere: bool = False
    name: str | None = None


# a listing this cannot read (nested too deep): everything may be listed (fail closed)
_EVERYTHING = ProgramListing("find", "/")


@functools.lru_cache(maxsize=8)
def python_listings(program: str) -> tuple[ProgramListing, ...]:
    """The folders ``program`` lists (a computed delete may be fed what they list):
    ``os.listdir``/``os.scandir``/a ``Path``'s ``iterdir()`` as ``ls -A FOLDER``,
    ``os.walk``/``os.fwalk``/a ``Path``'s ``walk()`` as ``find FOLDER``, a ``Path``'s
    ``glob(PATTERN)``/``rglob(PATTERN)`` as ``find FOLDER -name`` the pattern's last part. A
    folder it computes is not listed here: its words feed the delete. A program that cannot
    be read lists everything."""
    tree = parse_program(program)
    if tree is None:
        return (_EVERYTHING,)
    try:
        return tuple(dict.fromkeys(_Reader(tree).listings()))
    except RecursionError:  # nested deeper than this reads
        return (_EVERYTHING,)


def program_strings(program: str) -> str:
    """The string literals of ``program``, a line each: the words that may feed a path it
    computes (an operator's ``*`` is no glob); the whole text when it cannot be read. Text
    written for people is none: docstrings, what a ``help=``/``description=``/``epilog=``
    argument says (argparse, click), a literal repeated (``"*" * 80``) or printed or logged
    as given (a literal is used where it is written, only there): a script's "writes under
    capsules/" there feeds no delete; nor does the name of a file it opens to read."""
    tree = parse_program(program)
    if tree is None:
        return program
    prose = _prose(tree)
    return "\n".join(_text(node.value) for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes)
                     and id(node) not in prose)


_PROSE_KEYWORDS = {"help", "description", "epilog"}


def _prose(tree: ast.Module) -> set[int]:
    """The string constants of ``tree`` written for people: docstrings (a module's, a
    class's, a function's first statement), ``help=``/``description=``/``epilog=`` values,
    a repeated one, one given to ``print`` or a logger as it is; and a file opened to be read
    (`_opens_to_read`): none feeds a path the program computes."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                      | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                    isinstance(first.value.value, str):
                found.add(id(first.value))
        elif isinstance(node, ast.keyword) and node.arg in _PROSE_KEYWORDS and \
                isinstance(node.value, ast.Constant):
            found.add(id(node.value))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):  # "*" * 80
            found.update(id(side) for side in (node.left, node.right)
                         if isinstance(side, ast.Constant))
        elif isinstance(node, ast.Call) and _prints(node.func):
            found.update(id(a) for a in node.args if isinstance(a, ast.Constant))
        elif isinstance(node, ast.Call) and _opens_to_read(node) and node.args and \
                isinstance(node.args[0], ast.Constant):
            found.add(id(node.args[0]))  # the file read: named here, used only here
    return found


def _opens_to_read(call: ast.Call) -> bool:
    """``call`` opens a file to read it: ``open(P)``, ``gzip.open(P, "rt")`` (`_OPENERS`,
    as written: a module's own name), by a literal mode that writes nothing."""
    func = call.func
    name = func.id if isinstance(func, ast.Name) else (
        f"{func.value.id}.{func.attr}" if isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name) else "")
    if name not in _OPENERS or name == "zipfile.ZipFile":
        return False
    _, position, keyword, default = _OPENERS[name]
    mode = _argument(call, position, keyword)
    text = default if mode is None else _literal_str(mode)
    return text is not None and _opened_kind(text) is None


# logging's methods (Python 3.11 library reference: logging.Logger): what they are given is
# written to a log, as print's is to the terminal
_LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}


def _prints(func: ast.expr) -> bool:
    """``func`` shows text: ``print``, a logger's method (``logger.info``, ``logging.warning``)."""
    if isinstance(func, ast.Name):
        return func.id == "print"
    return isinstance(func, ast.Attribute) and func.attr in _LOG_METHODS


class _Reader:
    """One program's names (`qualified`) and the deletes of its calls."""

    def __init__(self, tree: ast.Module) -> None:
        self.nodes = list(ast.walk(tree))  # a node before those inside it
        self.stars: set[str] = set()  # `from MODULE import *`
        self.bound: dict[str, set[str]] = {}  # a local name -> the qualified names it holds
        self.values: dict[str, list[ast.expr | None]] = {}  # a name -> what is bound to it
        self.aliasing: set[int] = set()  # the values of plain assignments (`f = shutil.rmtree`)
        self.overflow = False  # a name's bindings passed `_MOST_BINDINGS`: fail closed
        self._read_bindings()
        self.path_names = self._path_names()
        self.moves_folder = any(self._changes_folder(n) for n in self.nodes)
        self.temp_names: set[str] | None = None  # (`_temp_names`, read when first asked)

    # --- names ----------------------------------------------------------------------------
    def _read_bindings(self) -> None:
        assigned: list[tuple[str, ast.expr]] = []
        plain_targets: set[int] = set()  # the names a plain assignment binds (read below)
        for node in self.nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    local = a.asname or a.name.split(".")[0]
                    self._bind(local, a.name if a.asname else local)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name == "*":
                        self.stars.add(node.module)
                    else:
                        self._bind(a.asname or a.name, f"{node.module}.{a.name}")
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if node.value is not None and all(isinstance(t, ast.Name) for t in targets):
                    self.aliasing.add(id(node.value))
                    for t in targets:
                        assert isinstance(t, ast.Name)
                        plain_targets.add(id(t))
                        assigned.append((t.id, node.value))
                        self.values.setdefault(t.id, []).append(node.value)
                    continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del) and \
                    id(node) not in plain_targets:
                self.values.setdefault(node.id, []).append(None)  # a loop, an unpacking
            elif isinstance(node, ast.arg):
                self.values.setdefault(node.arg, []).append(None)
        # `f = shutil.rmtree; g = f`: followed until nothing new is learnt; only names rooted
        # in an import or a builtin that reaches one are bound (`node = node.left` binds
        # nothing), each set and chain capped (`a = a.x` grows them without end)
        roots = {q.split(".")[0] for qs in self.bound.values() for q in qs} | \
            {m.split(".")[0] for m in self.stars} | _REACHING_BUILTINS
        for _ in range(8):
            before = sum(len(v) for v in self.bound.values())
            for name, value in assigned:
                for q in self.qualified(value):
                    if q.split(".")[0] in roots:
                        self._bind(name, q)
            if sum(len(v) for v in self.bound.values()) == before:
                break

    def _bind(self, local: str, qualified: str) -> None:
        if qualified.count(".") >= _LONGEST_NAME:
            return  # longer than any remover's name, and only ever extended: none of them
        names = self.bound.setdefault(local, set())
        if len(names) >= _MOST_BINDINGS:
            self.overflow = True  # read no further: judged as a computed delete
            return
        names.add(qualified)

    def qualified(self, expr: ast.expr) -> set[str]:
        """The qualified names ``expr`` may stand for (``sh.rmtree`` -> ``shutil.rmtree``);
        a name bound by nothing stands for itself (a builtin, a local)."""
        if isinstance(expr, ast.Name):
            if expr.id in self.bound:
                return {_plain_os(q) for q in self.bound[expr.id]}
            # a builtin or a local, or what a `from M import *` brought
            return {expr.id} | {_plain_os(f"{m}.{expr.id}") for m in self.stars}
        if isinstance(expr, ast.Attribute):
            return {_plain_os(f"{q}.{expr.attr}") for q in self.qualified(expr.value)}
        if isinstance(expr, ast.NamedExpr):  # `(f := shutil.rmtree)('capsules')`
            return self.qualified(expr.value)
        if isinstance(expr, ast.Call):
            called = self.qualified(expr.func)
            name = _literal_str(expr.args[1]) if len(expr.args) > 1 else None
            if "getattr" in called and name is not None and expr.args:
                return {_plain_os(f"{q}.{name}") for q in self.qualified(expr.args[0])}
            module = _literal_str(expr.args[0]) if expr.args else None
            if module is not None and called & {"__import__", "importlib.import_module"}:
                return {_plain_os(module)}
        if isinstance(expr, ast.Subscript):
            key = _literal_str(expr.slice)
            if key is not None and "sys.modules" in self.qualified(expr.value):
                return {_plain_os(key)}
        return set()

    def _path_names(self) -> set[str]:
        """The names bound to a ``Path`` (``p = Path("x")``, ``for p in d.iterdir()``, a
        parameter annotated ``Path``): their ``rename``/``replace`` move a file."""
        found: set[str] = set()
        # (the nodes that may bind one, picked once: a long script's are few of its nodes)
        binders = [n for n in self.nodes if isinstance(
            n, ast.Assign | ast.AnnAssign | ast.NamedExpr | ast.For | ast.comprehension
            | ast.arg)]
        for _ in range(3):  # `q = p / "x"` after `p = Path(...)`
            for node in binders:
                if isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr) and \
                        node.value is not None and self.is_path(node.value):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    found.update(t.id for t in targets if isinstance(t, ast.Name))
                elif isinstance(node, ast.For | ast.comprehension) and \
                        isinstance(node.target, ast.Name) and self._lists_paths(node.iter):
                    found.add(node.target.id)
                elif isinstance(node, ast.arg) and node.annotation is not None and \
                        self.qualified(node.annotation) & _PATH_TYPES:
                    found.add(node.arg)
            self.path_names = found
        return found

    def is_path(self, expr: ast.expr) -> bool:
        """``expr`` is a ``Path``: made by one, joined to one, a Path's path-valued method."""
        if isinstance(expr, ast.Name):
            return expr.id in getattr(self, "path_names", ())
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            return self.is_path(expr.left)
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            return self.is_path(expr.value)
        if isinstance(expr, ast.Call):
            names = self.qualified(expr.func)
            if names & {*_PATH_TYPES, *(t + m for t in _PATH_TYPES for m in (".cwd", ".home"))}:
                return True
            return isinstance(expr.func, ast.Attribute) and \
                expr.func.attr in _PATH_VALUED and self.is_path(expr.func.value)
        return False

    def _lists_paths(self, expr: ast.expr) -> bool:
        return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and \
            expr.func.attr in _PATH_LISTERS and self.is_path(expr.func.value)

    def _plain_value(self, expr: ast.expr) -> bool:
        """``expr`` is plainly a value with methods of its own (``kinds.remove(k)``: a list,
        not os): a container, a string, a comprehension, or a name only ever bound to one."""
        if isinstance(expr, ast.List | ast.Set | ast.Dict | ast.Tuple | ast.ListComp
                      | ast.SetComp | ast.DictComp | ast.Constant | ast.JoinedStr):
            return True
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and \
                expr.func.id in ("list", "set", "dict", "sorted", "str", "frozenset") and \
                expr.func.id not in self.bound:
            return True
        if isinstance(expr, ast.Name) and expr.id not in self.bound:
            values = self.values.get(expr.id, [])
            return bool(values) and all(
                v is not None and not isinstance(v, ast.Name) and self._plain_value(v)
                for v in values)
        return False

    def _changes_folder(self, node: ast.AST) -> bool:
        """``os.chdir``, ``contextlib.chdir``, a method or a string of that name: the
        program's relative paths are not relative to the command's working folder."""
        if isinstance(node, ast.Attribute):
            return node.attr in _CHANGES_FOLDER
        if isinstance(node, ast.Name):  # `from os import chdir as cd`
            return any(q.rsplit(".", 1)[-1] in _CHANGES_FOLDER
                       for q in self.bound.get(node.id, ()))
        return isinstance(node, ast.Constant) and node.value in _CHANGES_FOLDER

    # --- deletes --------------------------------------------------------------------------
    def deletes(self) -> Iterator[ProgramDelete]:
        if self.overflow:
            yield _COMPUTED
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        for node in self.nodes:
            if isinstance(node, ast.Call):
                yield from self._call(node)
            if id(node) not in called and id(node) not in self.aliasing and \
                    self._names_a_remover(node):
                yield _COMPUTED  # `map(shutil.rmtree, dirs)`, `partial(os.unlink, p)`

    def listings(self) -> Iterator[ProgramListing]:
        for call in self.nodes:
            if not isinstance(call, ast.Call):
                continue
            names = self.qualified(call.func)
            lister = next((_LISTERS[q] for q in names if q in _LISTERS), None)
            folder: ast.expr | None = call.args[0] if call.args else None
            name = None
            if lister is None and isinstance(call.func, ast.Attribute) and \
                    call.func.attr in _PATH_LISTERS and not self._plain_value(call.func.value):
                lister, folder = _PATH_LISTERS[call.func.attr], call.func.value
                if call.func.attr in ("glob", "rglob"):
                    lister = "find"
                    name = _last_part(_literal_str(call.args[0]) if call.args else None)
            if lister is None:
                continue
            path = "." if folder is None else self.literal_path(folder)
            if path is not None:
                yield ProgramListing(lister, path,
                                     self.moves_folder and not os.path.isabs(path), name)

    def _names_a_remover(self, node: ast.AST) -> bool:
        """``node`` is a remover or mover itself, read (not called there): ``shutil.rmtree``,
        ``f`` bound to one, ``getattr(os, "unlink")``."""
        if isinstance(node, ast.Attribute):
            last = node.attr
        elif isinstance(node, ast.Name):
            last = node.id if node.id in self.bound or self.stars else ""
        elif isinstance(node, ast.Call) and len(node.args) > 1:
            last = _literal_str(node.args[1]) or ""
        else:
            return False
        # (a cheap look first: most names are no remover's)
        if not last or not isinstance(getattr(node, "ctx", ast.Load()), ast.Load) or (
                last not in _LAST_NAMES and not isinstance(node, ast.Name)):
            return False
        return any(q in _REMOVERS or q in _MOVERS or _path_method(q) is not None
                   for q in self.qualified(node))

    def _call(self, call: ast.Call) -> Iterator[ProgramDelete]:
        func = call.func
        names = self.qualified(func)
        if isinstance(func, ast.Name) and func.id in ("exec", "eval") and \
                func.id not in self.bound:
            code = _literal_str(call.args[0]) if call.args else None
            yield from python_deletes(code) if code is not None else (_COMPUTED,)
            return
        if names & {"getattr", "builtins.getattr"} and len(call.args) > 1 and \
                _literal_str(call.args[1]) is None and \
                any(q in _MODULES for q in self.qualified(call.args[0])):
            yield _COMPUTED  # getattr(shutil, NAME): any of its removers
            return
        known = False
        for q in names:
            if q in _REMOVERS:
                keyword, folders = _REMOVERS[q]
                yield from self._paths(_argument(call, 0, keyword), call, folders, False)
                known = True
            elif q in _MOVERS:
                yield from self._paths(_argument(call, 0, _MOVERS[q]), call, True, True)
                known = True
            elif (method := _path_method(q)) is not None:  # `Path.unlink(p)`
                yield from self._paths(_argument(call, 0, "self"), call,
                                       _PATH_REMOVERS.get(method, True),
                                       method in _PATH_MOVERS)
                known = True
        if known or any(q.rpartition(".")[0] in _MODULES for q in names):
            return  # a known module's other functions (`os.path.exists`) delete nothing
        if isinstance(func, ast.Attribute):
            yield from self._method(call, func)
        elif isinstance(func, ast.Name) and func.id in _REMOVER_METHODS and call.args:
            # `rmtree(p)` imported by a name this cannot see (`from tools import *`)
            yield from self._paths(call.args[0], call, _REMOVER_METHODS[func.id], False)

    def _method(self, call: ast.Call, func: ast.Attribute) -> Iterator[ProgramDelete]:
        """A method of a receiver this cannot name: a ``Path``'s (``p.unlink()``,
        ``Path("x").rename(t)``), or a remover or mover reached another way."""
        method, receiver, args = func.attr, func.value, call.args
        keywords = {k.arg for k in call.keywords}
        if method in _PATH_REMOVERS and not args and keywords <= {"missing_ok"}:
            yield from self._paths(receiver, call, _PATH_REMOVERS[method], False)
        elif method in _PATH_MOVERS and (len(args), keywords) in ((1, set()), (0, {"target"})):
            # a Path's rename(target)/replace(target) (str.replace takes two); another's
            # (pandas `s.rename("acc")`, `df.replace({...})`) moves nothing, but a literal
            # path given is what a Path's would overwrite: judged as deleted
            if self.is_path(receiver):
                yield from self._paths(receiver, call, True, True)
            elif args and _literal_str(args[0]) is not None:
                yield from self._paths(args[0], call, True, True)
        elif self._plain_value(receiver):
            return  # `kinds.remove("x")`: a list's own method
        elif method in _REMOVER_METHODS and args:
            yield from self._paths(args[0], call, _REMOVER_METHODS[method], False)
        elif method in _MOVER_METHODS and len(args) >= 2:
            yield from self._paths(args[0], call, True, True)

    def _paths(self, expr: ast.expr | None, call: ast.Call, folders: bool,
               moves: bool) -> Iterator[ProgramDelete]:
        if isinstance(expr, ast.List | ast.Tuple):  # send2trash([a, b])
            for element in expr.elts:
                yield from self._paths(element, call, folders, moves)
            return
        if expr is not None and self._made_here(expr):
            return  # a folder the program made itself: nothing there before it ran
        path = None if expr is None else self.literal_path(expr)
        relative = path is not None and not os.path.isabs(path)
        if relative and any(k.arg in ("dir_fd", "src_dir_fd") for k in call.keywords):
            path = None  # relative to an open folder's descriptor
        name = self._last_name(expr) if path is None else None
        yield ProgramDelete(path, folders, moves, relative and self.moves_folder, name)

    def _made_here(self, expr: ast.expr) -> bool:
        """``expr`` is a new folder the program made (``tempfile.mkdtemp()``, a name bound
        only ever to one, or to ``with tempfile.TemporaryDirectory() as NAME``): removing it
        removes nothing that was there before the program ran, whatever ``dir=`` it is in."""
        if isinstance(expr, ast.Call):
            return "tempfile.mkdtemp" in self.qualified(expr.func)
        if not isinstance(expr, ast.Name) or expr.id in self.bound:
            return False
        if self.temp_names is None:
            self.temp_names = self._temp_names()
        return expr.id in self.temp_names

    def _temp_names(self) -> set[str]:
        """The names every binding of which is a new folder (`_made_here`): each bound as
        often that way as any way at all (an assignment, a loop, a parameter, ``del``, a def)."""
        bindings: dict[str, int] = {}
        made: dict[str, int] = {}
        for node in self.nodes:
            name = None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
                name = node.id
            elif isinstance(node, ast.arg):
                name = node.arg
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                            | ast.ExceptHandler | ast.MatchAs | ast.MatchStar):
                name = node.name
            elif isinstance(node, ast.alias):
                name = node.asname or node.name.split(".")[0]
            if name is not None:
                bindings[name] = bindings.get(name, 0) + 1
            if isinstance(node, ast.withitem):  # `with tempfile.TemporaryDirectory() as d`
                target, value = node.optional_vars, node.context_expr
                maker = "tempfile.TemporaryDirectory"
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value, maker = node.targets[0], node.value, "tempfile.mkdtemp"
            else:
                continue
            if isinstance(target, ast.Name) and isinstance(value, ast.Call) and \
                    maker in self.qualified(value.func):
                made[target.id] = made.get(target.id, 0) + 1
        return {n for n, count in made.items() if bindings.get(n) == count}

    def _last_name(self, expr: ast.expr | None) -> str | None:
        """The literal last part of a path joined of others (``os.path.join(root, "x")``,
        ``p / "x"``): a plain name, no folder, glob or ``..`` of its own."""
        last: ast.expr | None = None
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
            last = expr.right
        elif isinstance(expr, ast.Call) and len(expr.args) > 1 and not expr.keywords and \
                self.qualified(expr.func) & {"os.path.join", "posixpath.join"}:
            last = expr.args[-1]
        name = None if last is None else _literal_str(last)
        if name is None or name in ("", ".", "..") or any(c in name for c in "/*?[\\"):
            return None
        return name

    def literal_path(self, expr: ast.expr) -> str | None:
        """The path ``expr`` names when it is made of literals only, else None."""
        found = self._literal(expr)
        return None if found is None else found[0]

    def _literal(self, expr: ast.expr) -> tuple[str, bool] | None:
        """(the path ``expr`` names, relative to the program's folder; whether it is anchored
        there: ``Path.cwd()``, ``resolve()``, ``os.path.abspath``/``realpath`` name the real
        folder, whose ``.parent`` is the one above, where ``PurePath('.').parent`` is
        ``.`` again), or None when not made of literals only."""
        text = _literal_str(expr)
        if text is not None:
            return text, False
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bytes):
            return os.fsdecode(expr.value), False
        if isinstance(expr, ast.Attribute) and expr.attr in ("curdir", "pardir") and \
                self.qualified(expr.value) & {"os", "os.path"}:
            return ("." if expr.attr == "curdir" else ".."), False
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div | ast.Add):
            left, right = self._literal(expr.left), self._literal(expr.right)
            if left is None or right is None:
                return None
            if isinstance(expr.op, ast.Add):
                return left[0] + right[0], left[1]
            return _joined([left, right])
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            inner = self._literal(expr.value)
            return None if inner is None else _parent(*inner)
        if isinstance(expr, ast.Call):
            return self._literal_call(expr)
        return None

    def _literal_call(self, call: ast.Call) -> tuple[str, bool] | None:
        names = self.qualified(call.func)
        found = [self._literal(a) for a in call.args]
        if call.keywords or any(a is None for a in found):
            return None
        args = [a for a in found if a is not None]
        parts = [a[0] for a in args]
        if names & (_PATH_TYPES | {"os.path.join", "posixpath.join"}):
            return _joined(args) if args else (".", False)
        if names & {"os.getcwd", *(t + ".cwd" for t in _PATH_TYPES)} and not parts:
            return ".", True
        if names & {*(t + ".home" for t in _PATH_TYPES)} and not parts:
            return os.path.expanduser("~"), True
        if names & {"os.path.expanduser"} and len(parts) == 1:
            return os.path.expanduser(parts[0]), args[0][1]
        if names & {"os.path.abspath", "os.path.realpath"} and len(parts) == 1:
            return parts[0], True
        if names & {"os.path.dirname"} and len(parts) == 1:
            return _parent(*args[0])
        if names & {"str", "os.fspath", "os.path.normpath"} and len(parts) == 1:
            return args[0]
        if isinstance(call.func, ast.Attribute):  # a Path's own: joinpath, resolve, ...
            receiver = self._literal(call.func.value)
            method = call.func.attr
            if receiver is None:
                return None
            if method == "joinpath":
                return _joined([receiver, *args])
            if method in ("resolve", "absolute") and not parts:
                return receiver[0], True
            if method == "expanduser" and not parts:
                return os.path.expanduser(receiver[0]), receiver[1]
        return None


# --- writes -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProgramWrite:
    """One file a program writes onto, by a path it writes out (relative: to its working
    folder), and what the write does to a file already there (`_KINDS`); ``elsewhere``: the
    program changes its working folder first. A writer that puts its file inside the path when
    that is a folder (``shutil.copy(SRC, DIR)``, ``shutil.move``) says what it does there,
    ``into_kind``, to the file named ``into`` (None: a name computed)."""

    path: str
    kind: str
    elsewhere: bool = False
    into: str | None = None
    into_kind: str | None = None


# what a write does to a file already at its path: replaces, truncates or changes it in place;
# adds to its end; only makes a new one (fails on one there); copies a folder over it (any file
# below may be replaced); saves over what is there, a file or the files of a folder (a model's
# ``save_pretrained(DIR)``: nothing lost where nothing is there)
_KINDS = ("overwrite", "append", "create", "tree", "folder")
# opening a file: qualified name -> (its path's keyword, its mode's position and keyword, the
# mode when none is given) (Python 3.11 library reference: open, io, codecs, gzip, bz2, lzma,
# tarfile, zipfile, builtins, logging.FileHandler(filename, mode='a'))
_OPENERS = {
    "open": ("file", 1, "mode", "r"), "io.open": ("file", 1, "mode", "r"),
    "io.FileIO": ("file", 1, "mode", "r"), "codecs.open": ("filename", 1, "mode", "r"),
    "gzip.open": ("filename", 1, "mode", "rb"), "gzip.GzipFile": ("filename", 1, "mode", "rb"),
    "bz2.open": ("filename", 1, "mode", "rb"), "lzma.open": ("filename", 1, "mode", "rb"),
    "tarfile.open": ("name", 1, "mode", "r"), "zipfile.ZipFile": ("file", 1, "mode", "r"),
    "builtins.open": ("file", 1, "mode", "r"),
    "logging.FileHandler": ("filename", 1, "mode", "a"),
}
# writing a whole file: qualified name -> (its path's position and keyword, the suffix added
# to a path without it) (os.truncate; torch 2.3 torch.save(obj, f), torch.jit.save(m, f);
# numpy 1.26 save/savez/savez_compressed (".npy"/".npz" appended when missing), savetxt;
# joblib 1.4 dump(value, filename); safetensors save_file(tensors, filename); matplotlib
# pyplot.savefig(fname); OpenCV imwrite(filename, img); scipy.io.savemat(file_name, mdict))
_SAVERS: dict[str, tuple[int, str, str | None]] = {
    "os.truncate": (0, "path", None), "torch.save": (1, "f", None),
    "torch.jit.save": (1, "f", None), "numpy.save": (0, "file", ".npy"),
    "numpy.savez": (0, "file", ".npz"), "numpy.savez_compressed": (0, "file", ".npz"),
    "numpy.savetxt": (0, "fname", None), "joblib.dump": (1, "filename", None),
    "safetensors.torch.save_file": (1, "filename", None),
    "safetensors.numpy.save_file": (1, "filename", None),
    "matplotlib.pyplot.savefig": (0, "fname", None), "cv2.imwrite": (0, "filename", None),
    "scipy.io.savemat": (0, "file_name", None),
}
# putting a file where another may be: qualified name -> (the destination's keyword, what
# it does inside a folder there: None when it replaces the path itself or fails) (os.rename/
# replace/renames replace a file at dst; shutil.copyfile overwrites dst; shutil.copy/copy2
# copy into a folder dst as its source's name, overwriting; shutil.move moves into a folder
# dst, failing when the name is taken there, else renames onto dst)
_PLACERS: dict[str, tuple[str, str | None]] = {
    "os.rename": ("dst", None), "os.replace": ("dst", None), "os.renames": ("new", None),
    "shutil.copyfile": ("dst", None), "shutil.copy": ("dst", "overwrite"),
    "shutil.copy2": ("dst", "overwrite"), "shutil.move": ("dst", "create"),
}
# a Path's methods that write the file it names (also called unbound: `Path.write_text(p)`)
_PATH_WRITERS = {"write_text", "write_bytes", "open", "rename", "replace"}
# methods that write the whole file their first argument names, whoever has them: pandas 2.2
# DataFrame/Series.to_* (its keyword for that argument), numpy ndarray.tofile(fid),
# matplotlib Figure.savefig(fname), PIL Image.save(fp), Keras Model.save(filepath), xarray
# Dataset.to_netcdf(path)
_SAVER_METHODS = {
    "to_csv": "path_or_buf", "to_json": "path_or_buf", "to_parquet": "path",
    "to_pickle": "path", "to_feather": "path", "to_excel": "excel_writer",
    "to_hdf": "path_or_buf", "to_html": "buf", "to_latex": "buf", "to_markdown": "buf",
    "to_string": "buf", "to_xml": "path_or_buffer", "to_stata": "path", "to_orc": "path",
    "to_netcdf": "path", "tofile": "fid", "savefig": "fname",
}
# methods that save over what their first argument names, a file or the files of a folder,
# whoever has them: transformers 4.x PreTrainedModel/PreTrainedTokenizer.save_pretrained(
# save_directory) writes config.json, model.safetensors (tokenizer_config.json, ...) into it and
# deletes a previous save's weight shards there ("Clean the folder from a previous save"),
# Trainer.save_model(output_dir) the same; xgboost/LightGBM Booster.save_model(fname) a file;
# accelerate Accelerator.save_state(output_dir) (model.safetensors, optimizer.bin, ...), datasets
# Dataset.save_to_disk(dataset_path) (data-*.arrow, state.json, dataset_info.json);
# PIL Image.save(fp) a file, Keras 2 Model.save(filepath) a SavedModel folder (a path without
# .keras/.h5): any `.save(P)` is read so (a report saved outside the protected folders passes)
_FOLDER_SAVER_METHODS = {"save_pretrained": "save_directory", "save_model": "output_dir",
                         "save_state": "output_dir", "save_to_disk": "dataset_path",
                         "save": "fp"}
# `.save(obj, P)`: a second argument naming where the first is saved when the first names no
# path (accelerate Accelerator.save(obj, f); TF1 Saver.save(sess, save_path))
_SAVED_TO = ("f", "save_path")
# a trainer's settings naming the folder it saves into (transformers TrainingArguments(
# output_dir, ...), Seq2SeqTrainingArguments; TRL's *Config subclass it): checkpoint-N folders,
# the oldest deleted past save_total_limit, and `trainer.save_model()` (no folder: output_dir)
# replacing config.json and the weights there
_TRAINER_SETTINGS = {"transformers": "TrainingArguments", "trl": "Config"}
# Lightning's ModelCheckpoint(dirpath=DIR) saves "epoch=N-step=M.ckpt" and "last.ckpt" into
# DIR (over a previous run's of the same name) and deletes those it keeps no more (save_top_k);
# Keras' ModelCheckpoint(filepath) saves over its file each epoch
_LIGHTNING = frozenset({"pytorch_lightning", "lightning", "lightning_fabric"})
_KERAS = frozenset({"keras", "tensorflow", "tf_keras"})
# an experiment tracker's run, whose `.save(glob_str)` uploads the files it names: it links them
# into the run's own folder and writes none of them (wandb Run.save(glob_str, base_path,
# policy); SwanLab's save the same)
_TRACKER_RUNS = {"wandb.init", "swanlab.init"}
# h5py 3 File(name, mode='r'): r+/a change the file in place, w truncates, w-/x only create
_H5_MODES = {"r": None, "r+": "overwrite", "a": "overwrite", "w": "overwrite", "w-": "create",
             "x": "create"}
# SQL a program's strings hold: a query that only reads (SQLite writes a database's file only
# for a statement that changes it), and one that writes; calls that write a database
_SQL_READ = re.compile(r"^\s*(?:select|with|explain)\b", re.IGNORECASE)
_SQL_WRITE = re.compile(r"\b(?:insert|update|delete|replace|create|drop|alter|vacuum|reindex"
                        r"|attach|analyze|begin|savepoint)\b|\bpragma\s+[\w.]+\s*=",
                        re.IGNORECASE)
_DB_WRITERS = {"commit", "executescript", "to_sql", "iterdump", "backup"}
_MOST_FOLDERS = 16  # the os.chdir folders a relative write is judged from (past this: any)
_LONGEST_PATH = 4096  # PATH_MAX: a path read longer than this is none a program writes
_DEEPEST_NAMES = 32  # the names followed one to the next (`b = a`, `c = b / "x"`, ...)


@functools.lru_cache(maxsize=32)
def python_writes(program: str) -> tuple[ProgramWrite, ...]:
    """The files ``program`` writes onto by paths it writes out (see the module docstring);
    none for a program this Python cannot read: its paths cannot be read either."""
    reader = _write_reader(program)
    if reader is None:
        return ()
    try:
        return tuple(dict.fromkeys(reader.writes()))
    except RecursionError:  # nested deeper than this reads
        return ()


def _opened_kind(mode: str) -> str | None:
    """What opening a file in ``mode`` does to it (``'r'``, ``'rb'``: nothing)."""
    if "w" in mode or ("r" in mode and "+" in mode):
        return "overwrite"
    if "a" in mode:
        return "append"
    return "create" if "x" in mode else None


def _flags_kind(flags: int) -> str | None:
    """What ``os.open`` with ``flags`` does to the file there (read only: nothing)."""
    if flags & os.O_TRUNC:
        return "overwrite"
    if not flags & (os.O_WRONLY | os.O_RDWR):
        return None
    if flags & os.O_APPEND:
        return "append"
    return "create" if flags & os.O_CREAT and flags & os.O_EXCL else "overwrite"


class _Writes(_Reader):
    """The writes of one program's calls. A path is read as `_Reader` reads a delete's, and a
    name bound once (``out = Path("runs")``, not a loop's or a parameter's) as what it is bound
    to, each followed once, at most `_DEEPEST_NAMES` deep; a path longer than `_LONGEST_PATH`
    is none (``b = a + a`` doubling it: bounded). A name bound more than once, each time by a
    plain assignment of the straight-line code of one body (the module's, or one function's:
    not in a branch, a loop or another function), is read at a write in that body as the
    binding in effect: the last before the write's statement; elsewhere it is computed.

    A relative path is from the folders the program may be in when it writes (`_folders`):
    after ``os.chdir(LITERAL)`` statements of the module's straight-line code, the folder they
    lead to (in a function, which may run after any of them: each); after any other change
    (a computed folder, a chdir in a branch or a loop, ``with contextlib.chdir(P)``), any
    folder above the command's (``elsewhere``) and each literal one the program names."""

    def __init__(self, tree: ast.Module) -> None:
        self.followed: dict[str, tuple[str, bool] | None] = {}
        self.depth = 0
        # the statement whose bindings are in effect: (its body: the module's or a function's,
        # its index there)
        self.at: tuple[int, int] | None = None
        self.in_def = False  # the write read now is in a function (or a lambda)
        super().__init__(tree)
        self.imported = {q.split(".")[0] for qs in self.bound.values() for q in qs} | \
            {m.split(".")[0] for m in self.stars}
        # a node -> (its body, the index of its statement there): `at`; none in a lambda
        self.top: dict[int, tuple[int, int]] = {}
        self.in_function: set[int] = set()  # the nodes of a function's (or a lambda's) body
        self.assigned_at: dict[int, tuple[int, int]] = {}  # a plain assignment's value -> `at`
        # (a body, a name) -> the plain assignments of its straight-line code binding the name
        self.straight: dict[tuple[int, str], list[tuple[int, ast.expr]]] = {}
        self.module = id(tree)
        self._read_bodies(tree)
        self.changes, self.steps = self._folder_changes(tree)
        self.tracker_runs = self._tracker_runs(tree)

    def _tracker_runs(self, tree: ast.Module) -> set[str]:
        """The names bound to a tracker's run (`_TRACKER_RUNS`: ``run = wandb.init()``,
        ``with wandb.init() as run``)."""
        found: set[str] = set()
        for node in self.nodes:
            pairs: list[tuple[ast.expr | None, ast.expr]] = []
            if isinstance(node, ast.Assign):
                pairs = [(t, node.value) for t in node.targets]
            elif isinstance(node, ast.withitem):
                pairs = [(node.optional_vars, node.context_expr)]
            for target, value in pairs:
                if isinstance(target, ast.Name) and isinstance(value, ast.Call) and \
                        self.qualified(value.func) & _TRACKER_RUNS:
                    found.add(target.id)
        return found

    def _read_bodies(self, tree: ast.Module) -> None:
        """Where each node stands (`top`): its body (the module's, a function's) and its
        statement there, in a function or not; the plain assignments of each body's
        straight-line code."""
        todo: list[tuple[int, list[ast.stmt]]] = [(self.module, tree.body)]
        while todo:
            scope, body = todo.pop()
            for index, statement in enumerate(body):
                stack: list[ast.AST] = [statement]
                while stack:
                    node = stack.pop()
                    if isinstance(node, ast.Lambda):
                        self.in_function.update(id(n) for n in ast.walk(node))
                        continue
                    self.top[id(node)] = (scope, index)
                    if scope != self.module:
                        self.in_function.add(id(node))
                    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                        todo.append((id(node), node.body))  # a body of its own
                        stack += [*node.decorator_list, node.args, *filter(None, [node.returns])]
                    else:
                        stack.extend(ast.iter_child_nodes(node))
                if isinstance(statement, ast.Assign | ast.AnnAssign) and \
                        statement.value is not None:
                    targets = statement.targets if isinstance(statement, ast.Assign) \
                        else [statement.target]
                    if all(isinstance(t, ast.Name) for t in targets):
                        self.assigned_at[id(statement.value)] = (scope, index)
                        for t in targets:
                            assert isinstance(t, ast.Name)
                            self.straight.setdefault((scope, t.id), []).append(
                                (index, statement.value))

    def _folder_changes(self, tree: ast.Module) -> tuple[bool, list[tuple[int, str]]]:
        """(whether the program changes its folder other than by `steps`; the ``os.chdir(
        LITERAL)`` statements of its straight-line code, in order, each with the folder it
        names) (a change of folder not read: `_changes_folder`)."""
        if not self.moves_folder:
            return False, []
        calls = {id(n.func): n for n in self.nodes if isinstance(n, ast.Call)}
        straight = {id(s.value) for s in tree.body if isinstance(s, ast.Expr)}
        steps: list[tuple[int, int, str]] = []  # (its line, its module statement, the folder)
        other = False
        for node in self.nodes:
            if not self._changes_folder(node):
                continue
            call = calls.get(id(node))
            folder = None
            named = None if call is None or len(call.args) + len(call.keywords) != 1 else \
                _argument(call, 0, "path")  # os.chdir(path), contextlib.chdir(path)
            if call is not None and named is not None:
                self.at = self.top.get(id(call))
                try:
                    folder = self.literal_path(named)
                finally:
                    self.at = None
            if folder is None or id(call) not in straight:
                other = True
            if folder is not None and call is not None:
                steps.append((call.lineno, self.top.get(id(call), (0, -1))[1], folder))
        steps.sort()
        return other, [(index, folder) for _, index, folder in steps[:_MOST_FOLDERS]]

    def _literal(self, expr: ast.expr) -> tuple[str, bool] | None:
        if isinstance(expr, ast.Name):
            return self._named(expr.id)
        found = super()._literal(expr)
        return None if found is None or len(found[0]) > _LONGEST_PATH else found

    def _named(self, name: str) -> tuple[str, bool] | None:
        values = self.values.get(name, [])
        if name in self.bound or not values or None in values:
            return None
        if len(values) == 1 and values[0] is not None:
            return self._follow(name, values[0])
        # bound more than once: at a write of a body's straight-line code, the binding in
        # effect, when each is a plain assignment there
        if self.at is None:
            return None
        scope, at = self.at
        straight = self.straight.get((scope, name), [])
        if len(straight) != len(values):
            return None
        before = [(index, value) for index, value in straight if index < at]
        return self._follow(f"{name}@{scope}.{before[-1][0]}", before[-1][1]) \
            if before else None

    def _follow(self, key: str, value: ast.expr) -> tuple[str, bool] | None:
        """The path ``value`` names, bound to the name ``key`` says, read once: with the
        bindings in effect where it is bound."""
        if key in self.followed or self.depth >= _DEEPEST_NAMES:
            return self.followed.get(key)  # (None while it is followed: bound to itself)
        self.followed[key] = None
        self.depth += 1
        at, self.at = self.at, self.assigned_at.get(id(value))
        try:
            self.followed[key] = self._literal(value)
        finally:
            self.depth -= 1
            self.at = at
        return self.followed[key]

    def writes(self) -> Iterator[ProgramWrite]:
        for node in self.nodes:
            if isinstance(node, ast.Call):
                self.at, self.in_def = self.top.get(id(node)), id(node) in self.in_function
                yield from self._write_call(node)

    def _folders(self) -> tuple[list[str], bool]:
        """(the folders a relative path written now is from, relative to the command's;
        whether any folder above it too): `_Writes`."""
        if not self.moves_folder:
            return ["."], False
        folders = ["."]
        if self.changes:  # each literal folder it names, alone and after those before
            chain = "."
            for _, step in self.steps:
                chain = os.path.join(chain, step)
                folders += [chain, step]
        elif self.at is not None and not self.in_def:  # the chdirs before this statement
            for index, step in self.steps:
                if index < self.at[1]:
                    folders = [os.path.join(folders[0], step)]
        else:  # in a function: after any of them
            for _, step in self.steps:
                folders.append(os.path.join(folders[-1], step))
        found = [os.path.normpath(f) for f in folders]
        return list(dict.fromkeys(found))[:_MOST_FOLDERS * 2], self.changes

    def _write_call(self, call: ast.Call) -> Iterator[ProgramWrite]:
        func = call.func
        if isinstance(func, ast.Name) and func.id in ("exec", "eval") and \
                func.id not in self.bound:
            code = _literal_str(call.args[0]) if call.args else None
            yield from python_writes(code) if code is not None else ()
            return
        known = False
        for q in self.qualified(func):
            found = self._known_write(q, call)
            if found is not None:
                known = True
                yield from found
        if not known and isinstance(func, ast.Attribute):
            yield from self._write_method(call, func)

    def _known_write(self, q: str, call: ast.Call) -> list[ProgramWrite] | None:
        """The writes of ``call`` of the function named ``q``; None when it is no writer."""
        if q in _OPENERS:
            keyword, position, mode_keyword, default = _OPENERS[q]
            kind = self._mode_kind(_argument(call, position, mode_keyword), default)
            return [] if kind is None else self._written(_argument(call, 0, keyword), call, kind)
        if q == "h5py.File":
            mode = _argument(call, 1, "mode")
            found = ("r", False) if mode is None else self._literal(mode)
            kind = "overwrite" if found is None else _H5_MODES.get(found[0], "overwrite")
            return [] if kind is None else self._written(_argument(call, 0, "name"), call, kind)
        if q == "sqlite3.connect":
            return self._database(call)
        if q == "os.open":
            kind = self._os_open_kind(_argument(call, 1, "flags"))
            return [] if kind is None else self._written(_argument(call, 0, "path"), call, kind)
        if q in _SAVERS:
            position, keyword, suffix = _SAVERS[q]
            return self._written(_argument(call, position, keyword), call, "overwrite", suffix)
        if q in _PLACERS:
            keyword, into_kind = _PLACERS[q]
            source = _argument(call, 0, "old" if q == "os.renames" else "src")
            return self._written(_argument(call, 1, keyword), call, "overwrite",
                                 into=self._into(source), into_kind=into_kind)
        if q == "shutil.copytree":  # over what is there only with dirs_exist_ok
            exist_ok = _argument(call, 6, "dirs_exist_ok")
            kind = "create" if exist_ok is None or (
                isinstance(exist_ok, ast.Constant) and not exist_ok.value) else "tree"
            return self._written(_argument(call, 1, "dst"), call, kind)
        if q in ("fileinput.input", "fileinput.FileInput"):  # inplace: rewrites each file
            inplace = _argument(call, 1, "inplace")
            if inplace is None or (isinstance(inplace, ast.Constant) and not inplace.value):
                return []
            return self._written(_argument(call, 0, "files"), call, "overwrite")
        root, name = q.split(".")[0], q.rpartition(".")[2]
        if root in _TRAINER_SETTINGS and name.endswith(_TRAINER_SETTINGS[root]):
            return self._written(_argument(call, 0, "output_dir"), call, "folder")
        if name == "ModelCheckpoint" and root in _LIGHTNING:
            return self._written(_argument(call, 0, "dirpath"), call, "folder")
        if name == "ModelCheckpoint" and root in _KERAS:
            return self._keras_checkpoint(call)
        owner, _, method = q.rpartition(".")
        if owner in _PATH_TYPES and method in _PATH_WRITERS:  # `Path.write_text(p, ...)`
            return list(self._path_write(method, _argument(call, 0, "self"), call.args[1:],
                                         call, unbound=True))
        return None

    def _keras_checkpoint(self, call: ast.Call) -> list[ProgramWrite]:
        """Keras' ``ModelCheckpoint(filepath)``: a save over that file each epoch, or, where
        the name is formatted when it saves (``"ckpt/w.{epoch:02d}.keras"``), over some file
        of the folder before the first ``{``."""
        filepath = _argument(call, 0, "filepath")
        path = self.literal_path(filepath) if filepath is not None else None
        if path is None or "{" not in path:
            return self._written(filepath, call, "overwrite")
        folder = os.path.dirname(path[:path.index("{")]) or "."
        return self._written(ast.Constant(folder), call, "folder")

    def _write_method(self, call: ast.Call, func: ast.Attribute) -> Iterator[ProgramWrite]:
        """A method of a receiver this cannot name: a ``Path``'s (``Path("x").write_text()``,
        ``out.open("w")``), or a saver's (``df.to_csv("x")``) of anything but a module."""
        method, receiver = func.attr, func.value
        if method in _PATH_WRITERS:
            yield from self._path_write(method, receiver, call.args, call)
        elif method in _FOLDER_SAVER_METHODS and not self._plain_value(receiver) and \
                not any(q.split(".")[0] in self.imported for q in self.qualified(receiver)) \
                and not (isinstance(receiver, ast.Name) and receiver.id in self.tracker_runs):
            yield from self._written(self._saved_to(method, call), call, "folder")
        elif method in _SAVER_METHODS and not self._plain_value(receiver) and \
                not any(q.split(".")[0] in self.imported for q in self.qualified(receiver)):
            mode = next((k.value for k in call.keywords if k.arg == "mode"), None)
            kind = "overwrite" if mode is None else self._mode_kind(mode, "w")
            if kind is not None:
                yield from self._written(_argument(call, 0, _SAVER_METHODS[method]), call,
                                         kind)

    def _saved_to(self, method: str, call: ast.Call) -> ast.expr | None:
        """Where a folder saver's ``call`` saves: its first argument, or for ``.save(obj, P)``
        whose first names no path, its second (`_SAVED_TO`)."""
        first = _argument(call, 0, _FOLDER_SAVER_METHODS[method])
        if method != "save" or (first is not None and self._literal(first) is not None):
            return first
        return _argument(call, 1, _SAVED_TO[0]) or next(
            (k.value for k in call.keywords if k.arg in _SAVED_TO), first)

    def _path_write(self, method: str, path: ast.expr | None, args: list[ast.expr],
                    call: ast.Call, unbound: bool = False) -> Iterator[ProgramWrite]:
        """A Path's ``write_text``/``write_bytes`` (the file it names), ``open(mode)``,
        ``rename(target)``/``replace(target)`` (the target, replaced); ``unbound``: called
        as ``Path.rename(p, target)``, ``path`` is surely a Path."""
        if path is None:
            return
        if method in ("write_text", "write_bytes"):
            yield from self._written(path, call, "overwrite")
        elif method == "open":
            mode = args[0] if args else next(
                (k.value for k in call.keywords if k.arg == "mode"), None)
            kind = self._mode_kind(mode, "r")
            yield from self._written(path, call, kind) if kind is not None else ()
        elif unbound or self.is_path(path):  # (pandas `s.rename("acc")` renames no file)
            target = args[0] if args else next(
                (k.value for k in call.keywords if k.arg == "target"), None)
            yield from self._written(target, call, "overwrite")

    def _database(self, call: ast.Call) -> list[ProgramWrite]:
        """``sqlite3.connect(database)``: a database opened to read and write (its statements
        change the file in place); none for ``:memory:`` or a ``mode=ro`` URI (``uri=True``)."""
        path = self._literal(_argument(call, 0, "database") or ast.Constant(None))
        uri = _argument(call, 5, "uri")
        if path is None:
            return []
        text = path[0]
        if uri is not None and not (isinstance(uri, ast.Constant) and not uri.value):
            if not text.startswith("file:"):
                return []
            text, _, query = text[5:].partition("?")
            if "mode=ro" in query.split("&"):
                return []
        if text in ("", ":memory:") or self._only_reads_sql:
            return []
        return self._written(ast.Constant(text), call, "overwrite")

    @functools.cached_property
    def _only_reads_sql(self) -> bool:
        """The program's SQL only reads: a string of it is a query (``SELECT``, ``WITH``), none
        changes a database (`_SQL_WRITE`), and it calls no writer (``commit``, ``to_sql``):
        its database opened read-write is only read. (A query computed from no literal may
        write: a program with none is read as writing.)"""
        strings = [n.value for n in self.nodes
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        return any(_SQL_READ.match(t) for t in strings) and \
            not any(_SQL_WRITE.search(t) for t in strings) and \
            not any(isinstance(n, ast.Attribute) and n.attr in _DB_WRITERS for n in self.nodes)

    def _mode_kind(self, mode: ast.expr | None, default: str) -> str | None:
        """What opening in ``mode`` does (`_opened_kind`); one not read may write."""
        found = (default, False) if mode is None else self._literal(mode)
        return "overwrite" if found is None else _opened_kind(found[0])

    def _os_open_kind(self, flags: ast.expr | None) -> str | None:
        """What ``os.open(path, flags)`` does (`_flags_kind`); flags not read may write.
        None flags or a string (``open`` of ``from os import *`` read as the builtin's
        ``open(p, "w")`` too): no ``os.open`` that runs."""
        if flags is None or (isinstance(flags, ast.Constant) and
                             not isinstance(flags.value, int)):
            return None
        value = self._flags(flags)
        return "overwrite" if value is None else _flags_kind(value)

    def _flags(self, expr: ast.expr) -> int | None:
        """The value of ``os.O_WRONLY | os.O_TRUNC`` (this machine's), or None."""
        if isinstance(expr, ast.Constant) and type(expr.value) is int:
            return expr.value
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            left, right = self._flags(expr.left), self._flags(expr.right)
            return None if left is None or right is None else left | right
        values = {getattr(os, q[3:], None) for q in self.qualified(expr)
                  if q.startswith("os.O_")}
        value = values.pop() if len(values) == 1 else None
        return value if isinstance(value, int) else None

    def _into(self, source: ast.expr | None) -> str | None:
        """The name a file copied or moved into a folder gets there: its source's last part."""
        path = None if source is None else self.literal_path(source)
        name = os.path.basename(path.rstrip("/")) if path else ""
        return name if name not in ("", ".", "..") else None

    def _written(self, expr: ast.expr | None, call: ast.Call, kind: str,
                 suffix: str | None = None, into: str | None = None,
                 into_kind: str | None = None) -> list[ProgramWrite]:
        """The write of the path ``expr`` names (each of a list's); none when computed."""
        if isinstance(expr, ast.List | ast.Tuple):  # fileinput.input(["a", "b"])
            return [w for e in expr.elts
                    for w in self._written(e, call, kind, suffix, into, into_kind)]
        path = None if expr is None else self.literal_path(expr)
        if path is None:
            return []  # computed: a program writes to paths it computes all the time
        relative = not os.path.isabs(path)
        if relative and any(k.arg in ("dir_fd", "src_dir_fd", "dst_dir_fd")
                            for k in call.keywords):
            return []  # relative to an open folder's descriptor: computed
        if suffix is not None and not path.endswith(suffix):
            path += suffix
        if not relative:
            return [ProgramWrite(path, kind, False, into, into_kind)]
        folders, elsewhere = self._folders()
        return [ProgramWrite(os.path.normpath(os.path.join(f, path)) if f != "." else path,
                             kind, elsewhere, into, into_kind) for f in folders]


def _joined(parts: list[tuple[str, bool]]) -> tuple[str, bool]:
    """``os.path.join`` of literal paths: anchored as its last absolute part, or the first."""
    anchored = parts[0][1]
    for text, part_anchored in parts[1:]:
        if os.path.isabs(text):
            anchored = part_anchored
    return os.path.join(*(p for p, _ in parts)), anchored


def _parent(path: str, anchored: bool) -> tuple[str, bool]:
    """The folder holding ``path``: of an anchored one, the real folder above (``..`` of the
    working folder); of another, as `PurePath.parent` reads it (``PurePath('..').parent``
    is ``.``)."""
    if anchored or os.path.isabs(path):
        return os.path.normpath(os.path.join(path, "..")), anchored
    return os.path.dirname(os.path.normpath(path)) or ".", False


def _text(value: str | bytes) -> str:
    return value if isinstance(value, str) else os.fsdecode(value)


def _last_part(pattern: str | None) -> str | None:
    """What a glob's matches are named (``'**/*.pyc'``: ``*.pyc``); None when any name
    (``'**'``, a pattern not written out)."""
    last = (pattern or "").rstrip("/").rpartition("/")[2]
    return last if last and last != "**" else None


def _plain_os(name: str) -> str:
    """``posix.remove`` is ``os.remove`` (os re-exports posix's functions)."""
    return "os" + name[5:] if name == "posix" or name.startswith("posix.") else name


def _path_method(qualified: str) -> str | None:
    """``pathlib.Path.unlink`` -> ``unlink`` (a Path's remover or mover named unbound)."""
    owner, _, method = qualified.rpartition(".")
    if owner in _PATH_TYPES and (method in _PATH_REMOVERS or method in _PATH_MOVERS):
        return method
    return None


def _literal_str(expr: ast.expr) -> str | None:
    return expr.value if isinstance(expr, ast.Constant) and isinstance(expr.value, str) \
        else None


def _argument(call: ast.Call, position: int, keyword: str) -> ast.expr | None:
    """The argument at ``position`` or given as ``keyword``; None when neither is there
    (``f(*args)``: a starred one stands for it, computed)."""
    if len(call.args) > position:
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


# --- writes to where the command line says ------------------------------------------------
# In a path read by `argument_writes`: the value of an option or field NAME (``args.NAME``,
# ``cfg["NAME"]``) is ``\0o:NAME\0``, of ``sys.argv[K]`` ``\0a:K\0``, and any other part not
# made of literals `ANY_NAME` (``model_{epoch}.pt``: some name)
ANY_NAME = "\0*\0"


def _leads_with_argument(path: str) -> bool:
    """``path`` starts from a value the command line gives: its first placeholder is an
    option's or an argument's, with no computed part before it."""
    first = path.find("\0")
    return first >= 0 and path.startswith(("\0o:", "\0a:"), first)


class _ArgumentWrites(_Writes):
    """`_Writes` whose paths may start from what the command line gives (`argument_writes`):
    while a written path is read (`_written`), an attribute or a string key of anything
    (``args.out``, ``cfg.train.output_dir``, ``opts["out"]``: an option or a config field of
    that name) and ``sys.argv[K]`` are placeholders, and any other computed part is
    `ANY_NAME`; what is not a written path (a mode, a source) is read as `_Writes` reads it."""

    placeholders = False  # a written path is read now, with placeholders
    given = False  # only writes onto a path the command line gives are read (`writes`)

    def _follow(self, key: str, value: ast.expr) -> tuple[str, bool] | None:
        # (a name's path read with placeholders is not the one read without)
        return super()._follow(("\0" if self.placeholders else "") + key, value)

    def _literal(self, expr: ast.expr) -> tuple[str, bool] | None:
        found = super()._literal(expr)
        if found is not None or not self.placeholders:
            return found
        given = self._given(expr)
        if given is not None:
            return given, False
        if isinstance(expr, ast.JoinedStr):  # f"{args.out}/model_{epoch}.pt"
            parts: list[str] = []
            for value in expr.values:
                inner = _literal_str(value) if isinstance(value, ast.Constant) else (
                    self._literal(value.value) if isinstance(value, ast.FormattedValue)
                    and value.format_spec is None and value.conversion in (-1, 115) else None)
                parts.append(inner if isinstance(inner, str) else
                             inner[0] if inner is not None else ANY_NAME)
            return "".join(parts), False
        return ANY_NAME, False

    def _given(self, expr: ast.expr) -> str | None:
        """The placeholder of a value the command line gives: ``X.NAME``, ``X["NAME"]``
        (``X`` anything but a module), ``sys.argv[K]``."""
        if isinstance(expr, ast.Attribute) and isinstance(
                expr.value, ast.Name | ast.Attribute) and not any(
                q in self.imported for q in self.qualified(expr.value)):
            return f"\0o:{expr.attr}\0"
        if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant):
            key = expr.slice.value
            if "sys.argv" in self.qualified(expr.value):
                return f"\0a:{key}\0" if type(key) is int and key >= 1 else None
            if isinstance(key, str) and re.fullmatch(r"[A-Za-z_][\w.-]*", key):
                return f"\0o:{key}\0"
        return None

    def _written(self, expr: ast.expr | None, call: ast.Call, kind: str,
                 suffix: str | None = None, into: str | None = None,
                 into_kind: str | None = None) -> list[ProgramWrite]:
        if not self.given:
            return super()._written(expr, call, kind, suffix, into, into_kind)
        self.placeholders = True
        try:
            found = super()._written(expr, call, kind, suffix, into, into_kind)
        finally:
            self.placeholders = False
        return [w for w in found if _leads_with_argument(w.path)]

    def given_writes(self) -> list[ProgramWrite]:
        """The writes onto a path the command line gives (`argument_writes`)."""
        self.given = True
        try:
            return list(dict.fromkeys(self.writes()))
        finally:
            self.given = False


@functools.lru_cache(maxsize=8)
def _write_reader(program: str) -> _ArgumentWrites | None:
    """One reader of ``program``'s writes for `python_writes` and `argument_writes` (reading
    its names is most of the cost: done once); None when it does not parse."""
    tree = parse_program(program)
    if tree is None:
        return None
    try:
        return _ArgumentWrites(tree)
    except RecursionError:  # nested deeper than this reads
        return None


# what a program that reads its command line (or a config file) holds: sys.argv, an argument
# parser (argparse, click, typer, fire, absl, docopt, tyro, jsonargparse, simple_parsing,
# transformers'), Hydra, OmegaConf, a config file's name (`config_reads`)
_TAKES_ARGUMENTS = re.compile(r"argv|parse_args|ArgumentParser|hydra|click|typer|fire|absl"
                              r"|docopt|tyro|jsonargparse|simple_parsing|OmegaConf"
                              r"|\.(?:ya?ml|json|toml)\b")


@functools.lru_cache(maxsize=32)
def argument_writes(program: str) -> tuple[ProgramWrite, ...]:
    """The writes of ``program`` whose path starts from a value its command line gives, the
    value's place held by a placeholder (`ANY_NAME` above): ``open(os.path.join(args.out,
    "metrics.json"), "w")`` is a write onto ``\\0o:out\\0/metrics.json``. A program that
    parses its options with transformers' ``HfArgumentParser`` saves into ``output_dir``
    (its ``TrainingArguments``: checkpoints and ``save_model()``). None read for a program
    this Python cannot parse."""
    if not _TAKES_ARGUMENTS.search(program):
        return ()  # (reading a program's writes again costs: only one that reads its line)
    reader = _write_reader(program)
    if reader is None:
        return ()
    try:
        found = reader.given_writes()
    except RecursionError:  # nested deeper than this reads
        return ()
    if "HfArgumentParser" in program:
        found.append(ProgramWrite("\0o:output_dir\0", "folder"))
    return tuple(found)


@functools.lru_cache(maxsize=32)
def argument_defaults(program: str) -> dict[str, str]:
    """The default of each option ``program`` gives argparse, by its name as the program
    reads it (``add_argument("--out-dir", default="runs")`` -> ``{"out_dir": "runs"}``; an
    explicit ``dest``), where the default is a literal string."""
    reader = _write_reader(program) if "add_argument" in program else None
    defaults: dict[str, str] = {}
    for node in reader.nodes if reader is not None else ():
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        flags = [a.value for a in node.args
                 if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        default = _literal_str(keywords["default"]) if "default" in keywords else None
        dest = _literal_str(keywords["dest"]) if "dest" in keywords else None
        longs = [f for f in flags if f.startswith("--")]
        name = dest or (longs[0][2:] if longs else flags[0].lstrip("-") if flags else None)
        if name and default is not None:
            defaults[name.replace("-", "_")] = default
    return defaults


# the config files a program reads: YAML, JSON, TOML (`config_reads`, `config_defaults`)
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml")
# a method loading a config by its path: OmegaConf.load, mmengine's and mmcv's
# Config.fromfile, detectron2's CfgNode.merge_from_file, json/yaml loaders of the same name
_CONFIG_LOADERS = frozenset({"load", "fromfile", "from_file", "load_config", "merge_from_file",
                             "load_yaml", "load_json"})
# what a pathlib.Path made of a literal path reads it with
_PATH_READS = frozenset({"read_text", "read_bytes", "open"})


@functools.lru_cache(maxsize=32)
def config_reads(program: str) -> tuple[str, ...]:
    """The config files (`CONFIG_SUFFIXES`) ``program`` reads by a literal path, relative to
    the folder it runs in: ``open("configs/exp.yaml")`` (to read), ``OmegaConf.load(P)``,
    ``Config.fromfile(P)`` (mmengine), ``cfg.merge_from_file(P)`` (detectron2),
    ``Path(P).read_text()``. A training script that loads its own config file writes where
    that file says, though the line names no file."""
    if not any(s in program for s in CONFIG_SUFFIXES):
        return ()
    reader = _write_reader(program)
    if reader is None:
        return ()
    found: list[str] = []
    for node in reader.nodes:
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        path: ast.expr | None = None
        if _opens_to_read(node) or (isinstance(func, ast.Attribute)
                                    and func.attr in _CONFIG_LOADERS):
            path = node.args[0] if node.args else None
        elif isinstance(func, ast.Attribute) and func.attr in _PATH_READS \
                and isinstance(func.value, ast.Call) and func.value.args \
                and any(q.endswith("Path") for q in reader.qualified(func.value.func)) \
                and (func.attr != "open" or _literal_str(
                    _argument(node, 0, "mode") or ast.Constant("r")) in ("r", "rb", "rt")):
            path = func.value.args[0]
        text = _literal_str(path) if path is not None else None
        if text is not None and text.endswith(CONFIG_SUFFIXES) and text not in found:
            found.append(text)
    return tuple(found)


@functools.lru_cache(maxsize=32)
def config_defaults(program: str) -> tuple[tuple[tuple[str, ...], str], ...]:
    """(the option's flags, its default) of each argparse option of ``program`` whose
    literal default is a config file (`CONFIG_SUFFIXES`): ``add_argument("--config", "-c",
    default="configs/base.yaml")``, the file read where the line gives no such option."""
    reader = _write_reader(program) if "add_argument" in program else None
    found: list[tuple[tuple[str, ...], str]] = []
    for node in reader.nodes if reader is not None else ():
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add_argument"):
            continue
        default = next((_literal_str(k.value) for k in node.keywords if k.arg == "default"),
                       None)
        flags = tuple(a.value for a in node.args
                      if isinstance(a, ast.Constant) and isinstance(a.value, str)
                      and a.value.startswith("-"))
        if default is not None and default.endswith(CONFIG_SUFFIXES) and flags:
            found.append((flags, default))
    return tuple(found)


@functools.lru_cache(maxsize=32)
def hydra_configs(program: str) -> tuple[tuple[str, str], ...]:
    """(config_path, config_name) of each ``@hydra.main(config_path=..., config_name=...)``
    of ``program`` given as literal strings: the config Hydra composes for a run (its
    ``config_path`` relative to the script's folder)."""
    if "hydra" not in program:
        return ()
    reader = _write_reader(program)
    if reader is None:
        return ()
    found: list[tuple[str, str]] = []
    for node in reader.nodes:
        if not isinstance(node, ast.Call) or not any(
                q.endswith("hydra.main") or q == "hydra.main" for q in reader.qualified(node.func)):
            continue
        path = _argument(node, 0, "config_path")
        name = _argument(node, 1, "config_name")
        path_text = _literal_str(path) if path is not None else None
        name_text = _literal_str(name) if name is not None else None
        if path_text is not None and name_text is not None:
            found.append((path_text, name_text))
    return tuple(found)
