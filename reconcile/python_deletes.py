"""The paths a Python program deletes, for the agent tool hook.

A program run by a command (``python -c PROGRAM``, ``python - <<EOF``) is read with `ast`,
never run, for what it removes (``shutil.rmtree``, ``os.remove``/``unlink``/``rmdir``/
``removedirs``, a ``Path``'s ``unlink()``/``rmdir()``, send2trash) and for what it moves out of
its place (``shutil.move``, ``os.rename``/``renames``/``replace``, a ``Path``'s
``rename()``/``replace()``: the source is gone from where it was, as with ``mv``). The hook
judges each path as it judges ``rm -r PATH``, and a computed one by the words that may feed it
and the folders the program lists (`python_listings`).

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
when its text holds a remover's or mover's name (fail closed). Never raises.
"""

from __future__ import annotations

import ast
import functools
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass

from labledger.reconcile.python_runs import parse_program

__all__ = ["ProgramDelete", "ProgramListing", "program_strings", "python_deletes",
           "python_listings"]


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
    computes (an operator's ``*`` is no glob); the whole text when it cannot be read."""
    tree = parse_program(program)
    if tree is None:
        return program
    return "\n".join(_text(node.value) for node in ast.walk(tree)
                     if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes))


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
        for _ in range(3):  # `q = p / "x"` after `p = Path(...)`
            for node in self.nodes:
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
        path = None if expr is None else self.literal_path(expr)
        relative = path is not None and not os.path.isabs(path)
        if relative and any(k.arg in ("dir_fd", "src_dir_fd") for k in call.keywords):
            path = None  # relative to an open folder's descriptor
        name = self._last_name(expr) if path is None else None
        yield ProgramDelete(path, folders, moves, relative and self.moves_folder, name)

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
