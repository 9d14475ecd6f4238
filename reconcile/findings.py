"""What document reconcile reports: findings (problems), matches (checked numbers), a report.

A finding's ``type`` is one of

* ``drift``: a number tied to a claim (by a marker, or as the one remaining anchored number)
  that differs from its evidence at the precision shown;
* ``ambiguous``: a number two unmatched claims could own, or a claim named next to several
  numbers none of which matches; never reported as drift (but for a training's records of one
  quantity, epoch after epoch: drift on the last of them, `progress`);
* ``unit``: a number whose unit is shown and is not the claim's;
* ``unknown_claim``: a marker naming no current claim;
* ``marker``: a marker that marks no number.

Every finding is a problem: ``labledger reconcile`` exits 3 when there is one (0 with
``--disclose``). Fields are only ever added.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Finding", "Match", "Report", "Tie"]

_COMPARED = frozenset({"drift", "unit"})  # findings about a number compared with its evidence


@dataclass(frozen=True, slots=True)
class Tie:
    """The evidence a number was judged against: one claim as the ledger records it."""

    claim: str
    value: float
    unit: str | None
    run: str | None
    object: str       # the content digest the value was read from
    event: str        # the claim.declared event id


@dataclass(frozen=True, slots=True)
class Finding:
    type: str
    path: str
    line: int
    col: int
    where: str | None             # "cell 3, output 1" inside a notebook, else None
    claims: tuple[str, ...]
    shown: str | None             # the number as the document shows it
    evidence: tuple[Tie, ...]
    via: str                      # marker | macro | table | anchor | delta
    message: str
    candidates: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()

    def location(self) -> str:
        return f"{self.path}:{self.line}:{self.col}"

    def render(self) -> str:
        """``file:line:col: message`` (a notebook's cell/output in brackets before the message)."""
        where = f"[{self.where}] " if self.where else ""
        return f"{self.location()}: {where}{self.message}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["evidence"] = [asdict(t) for t in self.evidence]
        out["claims"] = list(self.claims)
        out["candidates"] = list(self.candidates)
        out["unknown"] = list(self.unknown)
        return out


class Match:
    """A number that matched its claim(s); its line and column are worked out when asked."""

    __slots__ = ("_place", "claims", "path", "shown", "via", "where")

    def __init__(self, path: str, where: str | None, place: Any, offset: int,
                 claims: tuple[str, ...], shown: str, via: str) -> None:
        self.path, self.where, self.claims, self.shown, self.via = path, where, claims, shown, via
        self._place = (place, offset)  # (an object with .position(offset), offset)

    @property
    def offset(self) -> int:
        return int(self._place[1])

    @property
    def line(self) -> int:
        return int(self._place[0].position(self._place[1])[0])

    @property
    def col(self) -> int:
        return int(self._place[0].position(self._place[1])[1])

    @classmethod
    def from_row(cls, path: str, where: str | None,
                 row: tuple[int, int, int, tuple[str, ...], str, str]) -> Match:
        """The match `row` gave, in ``path`` (``where`` inside it)."""
        offset, line, col, claims, shown, via = row
        return cls(path, where, _Position(line, col), offset, claims, shown, via)

    def row(self) -> tuple[int, int, int, tuple[str, ...], str, str]:
        """``(offset, line, col, claims, shown, via)``: this match as plain data, its place
        worked out (what a forked judge sends back and the judging cache keeps: tuples of
        strings and ints pickle ten times faster than objects); `from_row` reads it back."""
        offset = self._place[1]
        line, col = self._place[0].position(offset)
        return offset, line, col, self.claims, self.shown, self.via

    def to_json(self) -> dict[str, Any]:
        line, col = self._place[0].position(self._place[1])
        return {"path": self.path, "line": line, "col": col, "where": self.where,
                "claims": list(self.claims), "shown": self.shown, "via": self.via}


class _Position:
    """A place already worked out: the same (line, column) for its one offset."""

    __slots__ = ("col", "line")

    def __init__(self, line: int, col: int) -> None:
        self.line, self.col = line, col

    def position(self, offset: int) -> tuple[int, int]:
        return self.line, self.col


@dataclass
class Report:
    documents: int = 0
    claims: int = 0
    findings: list[Finding] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)
    # --staged: {"path": ..., "differences": [...]} when an EVIDENCE.json was compared
    evidence: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    # of ``documents``, the files read because a document given includes them (`included`)
    included: int = 0

    @property
    def ok(self) -> bool:
        return not self.findings and not (self.evidence and self.evidence["differences"])

    @property
    def checked(self) -> int:
        """How many numbers were compared with their claim's evidence: those that matched and
        those that did not (drift, a unit that is not the claim's). An ambiguous number, a bad
        marker and an unknown claim compared nothing."""
        return len(self.matches) + sum(f.type in _COMPARED for f in self.findings)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for f in self.findings:
            out[f.type] = out.get(f.type, 0) + 1
        return out

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "documents": self.documents, "claims": self.claims,
                # "checked" keeps its meaning (the numbers that matched: fields are only ever
                # added); "compared" counts as the summary line does, drifted numbers too
                "checked": len(self.matches), "compared": self.checked, "counts": self.counts(),
                "findings": [f.to_json() for f in self.findings],
                "matches": [m.to_json() for m in self.matches],
                "evidence": self.evidence, "notes": self.notes, "included": self.included}
