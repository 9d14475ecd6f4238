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
program's working folder (any folder, for a program that changes it: ``os.chdir``); any other
(a variable, an f-string, ``sys.argv``, a path relative to a ``dir_fd``) is computed (None). A
remover named but not called here (``map(shutil.rmtree, ...)``, ``partial(os.unlink, ...)``),
``getattr`` of a computed name on a module holding removers, ``exec``/``eval`` of anything but
a literal (a literal is read as a program of its own) yield a computed delete. A method call
whose receiver cannot be told (``x.remove(p)``: os or a list?) counts, unless the receiver is
plainly a value (a list, a set, a string, a name only ever bound to one). A program this Python
cannot parse (newer syntax, nesting too deep for `ast`) deletes something computed when its
text holds a remover's or mover's name (fail closed). Never raises.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

from labledger.reconcile.python_runs import parse_program

__all__ = ["ProgramDelete", "python_deletes", "python_listings"]


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


@functools.lru_cache(maxsize=8)
def python_listings(program: str) -> tuple[str, ...]:
    """The folders ``program`` lists, as the shell commands that list them as it does (a
    computed delete may be fed what they list): ``os.listdir``/``os.scandir``/a ``Path``'s
    ``iterdir()``/``glob()`` as ``ls -A FOLDER`` (dot entries too), ``os.walk``/``os.fwalk``
    /a ``Path``'s ``rglob()``/``walk()`` as ``find FOLDER``. A folder it computes is not
    listed here: its words feed the delete."""
    tree = parse_program(program)
    try:
        return tuple(dict.fromkeys(_Reader(tree).listings())) if tree is not None else ()
    except RecursionError:
        return ()


class _Reader:
    """One program's names (`qualified`) and the deletes of its calls."""

    def __init__(self, tree: ast.Module) -> None:
        self.nodes = list(ast.walk(tree))  # a node before those inside it
        self.stars: set[str] = set()  # `from MODULE import *`
        self.bound: dict[str, set[str]] = {}  # a local name -> the qualified names it holds
        self.values: dict[str, list[ast.expr | None]] = {}  # a name -> what is bound to it
        self.aliasing: set[int] = set()  # the values of plain assignments (`f = shutil.rmtree`)
        self._read_bindings()
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
        # `f = shutil.rmtree; g = f`: followed until nothing new is learnt
        for _ in range(8):
            before = sum(len(v) for v in self.bound.values())
            for name, value in assigned:
                for q in self.qualified(value):
                    self._bind(name, q)
            if sum(len(v) for v in self.bound.values()) == before:
                break

    def _bind(self, local: str, qualified: str) -> None:
        self.bound.setdefault(local, set()).add(qualified)

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
        called = {id(n.func) for n in self.nodes if isinstance(n, ast.Call)}
        for node in self.nodes:
            if isinstance(node, ast.Call):
                yield from self._call(node)
            if id(node) not in called and id(node) not in self.aliasing and \
                    self._names_a_remover(node):
                yield _COMPUTED  # `map(shutil.rmtree, dirs)`, `partial(os.unlink, p)`

    def listings(self) -> Iterator[str]:
        for call in self.nodes:
            if not isinstance(call, ast.Call):
                continue
            names = self.qualified(call.func)
            lister = next((_LISTERS[q] for q in names if q in _LISTERS), None)
            folder: ast.expr | None = call.args[0] if call.args else None
            if lister is None and isinstance(call.func, ast.Attribute) and \
                    call.func.attr in _PATH_LISTERS and not self._plain_value(call.func.value):
                lister, folder = _PATH_LISTERS[call.func.attr], call.func.value
            if lister is None:
                continue
            path = "." if folder is None else self.literal_path(folder)
            if path is not None:
                yield f"{lister} {shlex.quote(path)}"

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
            # a Path's rename(target)/replace(target); str.replace takes two
            yield from self._paths(receiver, call, True, True)
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
        yield ProgramDelete(path, folders, moves, relative and self.moves_folder)

    def literal_path(self, expr: ast.expr) -> str | None:
        """The path ``expr`` names when it is made of literals only, else None."""
        text = _literal_str(expr)
        if text is not None:
            return text
        if isinstance(expr, ast.Constant) and isinstance(expr.value, bytes):
            return os.fsdecode(expr.value)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div | ast.Add):
            left, right = self.literal_path(expr.left), self.literal_path(expr.right)
            if left is None or right is None:
                return None
            return os.path.join(left, right) if isinstance(expr.op, ast.Div) else left + right
        if isinstance(expr, ast.Attribute) and expr.attr == "parent":
            inner = self.literal_path(expr.value)
            return None if inner is None else os.path.dirname(os.path.normpath(inner)) or "."
        if isinstance(expr, ast.Call):
            return self._literal_call(expr)
        return None

    def _literal_call(self, call: ast.Call) -> str | None:
        names = self.qualified(call.func)
        args = [self.literal_path(a) for a in call.args]
        if call.keywords or any(a is None for a in args):
            return None
        parts = [a for a in args if a is not None]
        if names & (_PATH_TYPES | {"os.path.join", "posixpath.join"}):
            return os.path.join(*parts) if parts else "."
        if names & {"os.getcwd", *(t + ".cwd" for t in _PATH_TYPES)} and not parts:
            return "."
        if names & {*(t + ".home" for t in _PATH_TYPES)} and not parts:
            return os.path.expanduser("~")
        if names & {"os.path.expanduser"} and len(parts) == 1:
            return os.path.expanduser(parts[0])
        if names & {"str", "os.fspath", "os.path.abspath", "os.path.normpath"} and \
                len(parts) == 1:
            return parts[0]
        if isinstance(call.func, ast.Attribute):  # a Path's own: joinpath, resolve, ...
            receiver = self.literal_path(call.func.value)
            method = call.func.attr
            if receiver is None:
                return None
            if method == "joinpath":
                return os.path.join(receiver, *parts)
            if method in ("resolve", "absolute") and not parts:
                return receiver
            if method == "expanduser" and not parts:
                return os.path.expanduser(receiver)
        return None


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
