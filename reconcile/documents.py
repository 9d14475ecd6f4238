"""Document reconcile: find each claimed number in documents and compare it with its evidence.

Two ways a number is tied to a claim, exact first:

1. **Markers** are exact. Markdown (and reST, text, notebook markdown): ``<!-- claim:C1 -->31.42``
   or ``<span data-claim="C1">31.42</span>``; a delta ``<!-- delta:C2,C1 -->+1.47`` is compared
   with C2 − C1. LaTeX (``labledger.sty``): ``\\claim{C1}{31.42}``,
   ``\\claimdelta{C2}{C1}{+1.47}``; a ``\\newcommand``/``\\def`` macro whose name is bound by
   ``\\claimbind{C1}{\\psnrours}``, by a ``% claim:C1`` comment on its line, or by an alias
   ``\\psnrours`` of the claim. Tables: a header cell or row-label cell holding
   ``<!-- claim:C1 -->`` (Markdown), ``\\claimref{C1}`` (LaTeX) or ``claim:C1`` (CSV/TSV) binds
   that column or row. A marked number that disagrees is drift, whatever its size; a marker naming
   no current claim is an error finding.
2. **Anchors** catch hand-typed numbers: a claim's aliases or metric name in the same sentence
   (either side of the number) or, in a table, in the number's row or column header. Only the
   claims anchored most specifically take part (a sentence naming "Ours" and "PSNR" anchors the
   claim with both words, not every PSNR claim). Then, per unit: a number that matches an anchored
   claim at the precision shown is that claim's; an anchored claim that no number matches owns
   the one remaining plausible number (drift), or is *ambiguous* when several remain; a number
   that two unmatched claims would own is *ambiguous* with both ids, never drift.

What is not a claimed value, whatever is near it: deltas (``+1.47``, ``-0.3`` unless the claim's
value is negative, ``by 1.2``, ``1.2 dB higher``, a column headed Δ/gain/delta), uncertainties
(``± 0.05``), bounds (``over 30``, ``up to 5``, ``> 3``), references (``Table 3``, ``Fig. 2``,
``[12]``, ``Section 4.2``), digits inside an anchor (``mAP@50``), numbers glued to words
(``ResNet-50``), and, for anchored numbers only, numbers outside a factor of two of the claim's
value unless they carry its unit (``300 epochs`` next to "PSNR" is another quantity). A unit
``<!-- noclaim -->`` (LaTeX ``\\noclaim`` or a ``% noclaim`` comment) is not checked by anchors.

Numbers near no anchor and no marker are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from labledger.reconcile.anchors import AnchorIndex, Hit, normalize
from labledger.reconcile.claim_model import Claim
from labledger.reconcile.doc_readers import Cell, Segment, Sentence, Table, mask, unit_at
from labledger.reconcile.findings import Finding, Match, Report, Tie
from labledger.reconcile.numbers import Check, Shown, check, number_at, scan_numbers

__all__ = ["reconcile_segments"]

# --- markers -------------------------------------------------------------------------------------

_MD_MARKERS = re.compile(
    r"<!--\s*(?:(?P<kind>claim|delta)\s*:\s*(?P<ids>[^\s>]+)|(?P<noclaim>noclaim))\s*-->"
    r"|<span\s+data-claim\s*=\s*\"(?P<span>[^\"]+)\"\s*>(?P<content>[^<]*)</span>")
_TEX_MARKERS = re.compile(
    r"\\(?:ledger)?claim\{(?P<claim>[^{}]+)\}\{"
    r"|\\(?:ledger)?claimdelta\{(?P<a>[^{}]+)\}\{(?P<b>[^{}]+)\}\{"
    r"|\\claimref\{(?P<ref>[^{}]+)\}"
    r"|(?P<noclaim>\\noclaim\b|(?<!\\)%[ \t]*noclaim\b)"
    r"|\\(?:re|provide)?newcommand\*?\s*\{?\\(?P<name>[A-Za-z@]+)\}?\s*(?:\[\d\])?\s*\{"
    r"|\\def\s*\\(?P<defname>[A-Za-z@]+)\s*\{")
_TEX_BIND = re.compile(r"\\claimbind\{([^{}]+)\}\{\\([A-Za-z@]+)\}")
_CELL_BIND = re.compile(r"\bclaim:([^\s,;|<>\"]+)")
_LEAD = re.compile(r"[ \t*_`~$({]*")
_WORDS = re.compile(r"(?!pm\b)[^\W\d_]{2,}")  # a word after a cell's number: a label cell


@dataclass(frozen=True, slots=True)
class Marker:
    kind: str                   # value | delta | bind | noclaim | empty
    ids: tuple[str, ...]
    start: int
    end: int
    number: Shown | None = None
    via: str = "marker"         # marker | macro


def _braced(text: str, pos: int) -> int:
    """Offset of the ``}`` closing a group whose ``{`` is just before ``pos`` (or -1)."""
    depth = 1
    for i in range(pos, min(len(text), pos + 4000)):
        ch = text[i]
        if ch == "{" and text[i - 1] != "\\":
            depth += 1
        elif ch == "}" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _number_in(text: str, start: int, end: int) -> Shown | None:
    """The first number of ``text[start:end]`` when only formatting comes before it."""
    lead = _LEAD.match(text, start, end)
    pos = lead.end() if lead else start
    while text.startswith("\\textbf{", pos) or text.startswith("\\mathbf{", pos) \
            or text.startswith("\\underline{", pos) or text.startswith("\\num{", pos) \
            or text.startswith("\\emph{", pos) or text.startswith("\\textit{", pos):
        pos = text.index("{", pos) + 1
        lead = _LEAD.match(text, pos, end)
        pos = lead.end() if lead else pos
    shown = number_at(text[:end], pos)
    return shown


def _md_markers(seg: Segment) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if "<!--" not in text and "data-claim" not in text:
        return out
    for m in _MD_MARKERS.finditer(text):
        if m.group("noclaim"):
            out.append(Marker("noclaim", (), m.start(), m.end()))
        elif m.group("span"):
            shown = _number_in(text, m.start("content"), m.end("content"))
            out.append(Marker("value" if shown else "empty", (m.group("span").strip(),),
                              m.start(), m.end(), shown))
        else:
            kind = m.group("kind")
            ids = tuple(i for i in m.group("ids").split(",") if i)
            nl = text.find("\n", m.end())
            shown = _number_in(text, m.end(), len(text) if nl < 0 else nl)
            if kind == "delta":
                out.append(Marker("delta" if shown and len(ids) == 2 else "empty", ids,
                                  m.start(), m.end(), shown))
            else:
                out.append(Marker("value" if shown else "bind", ids, m.start(), m.end(), shown))
    return out


def _tex_markers(seg: Segment, binds: dict[str, str]) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if "\\" not in text and "noclaim" not in text:
        return out
    for m in _TEX_MARKERS.finditer(text):
        if m.group("noclaim"):
            out.append(Marker("noclaim", (), m.start(), m.end()))
        elif m.group("ref"):
            out.append(Marker("bind", (m.group("ref").strip(),), m.start(), m.end()))
        elif m.group("claim") or m.group("a"):
            close = _braced(text, m.end())
            shown = _number_in(text, m.end(), close) if close >= 0 else None
            if m.group("claim"):
                ids: tuple[str, ...] = (m.group("claim").strip(),)
                kind = "value"
            else:
                ids, kind = (m.group("a").strip(), m.group("b").strip()), "delta"
            out.append(Marker(kind if shown else "empty", ids, m.start(),
                              close + 1 if close >= 0 else m.end(), shown))
        else:
            name = m.group("name") or m.group("defname")
            close = _braced(text, m.end())
            if close < 0:
                continue
            line_end = text.find("\n", close)
            tail = text[close:len(text) if line_end < 0 else line_end]
            cm = re.search(r"(?<!\\)%[ \t]*claim:(\S+)", tail)
            cid = cm.group(1) if cm else binds.get(name)
            body = text[m.end():close]
            if cid is None or "\\claim" in body:
                continue  # not bound, or bound by the \claim marker inside it
            shown = _number_in(text, m.end(), close)
            out.append(Marker("value" if shown else "empty", (cid,), m.start(), close + 1,
                              shown, via="macro"))
    return out


def _cell_markers(seg: Segment) -> list[Marker]:
    text = seg.text
    out: list[Marker] = []
    if "claim" not in text:
        return out
    for m in _CELL_BIND.finditer(text):
        out.append(Marker("bind", (m.group(1),), m.start(), m.end()))
    for m in re.finditer(r"\bnoclaim\b", text):
        out.append(Marker("noclaim", (), m.start(), m.end()))
    return out


def tex_bindings(segments: Iterable[Segment], claims: Iterable[Claim]) -> dict[str, str]:
    """Macro name → claim id, from ``\\claimbind`` anywhere and from ``\\name`` aliases."""
    binds: dict[str, str] = {}
    for claim in claims:
        for alias in claim.aliases:
            if alias.startswith("\\") and alias[1:].isalpha():
                binds[alias[1:]] = claim.id
    for seg in segments:
        if seg.syntax == "tex" and "\\claimbind" in seg.text:
            for m in _TEX_BIND.finditer(seg.text):
                binds[m.group(2)] = m.group(1).strip()
    return binds


# --- what a number near an anchor is not ---------------------------------------------------------

def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_REFERENCE_WORDS = _words("""
table tables tab figure figures fig figs section sections sec secs eq eqs equation equations
appendix app algorithm alg line lines chapter ch theorem thm lemma corollary definition def
proposition prop page pages p pp step steps item items no nr ref version v row rows column col
epoch epochs iteration iter seed seeds layer layers block stage stages id issue pr cell
""")
_DELTA_BEFORE = _words("by gain gains improvement improvements margin delta Δ increase "
                       "increases decrease decreases drop drops boost reduction")
_DELTA_AFTER = _words("higher lower better worse more less gain gains improvement increase "
                      "decrease drop faster slower smaller larger ahead behind")
_BOUND_BEFORE = _words("above below over under than least most exceeds exceeding within "
                       "upto beyond")
_BOUND_CHARS = frozenset("<>\u2264\u2265")
_DELTA_HEADER = re.compile(r"(?i)(?:\u0394|\\delta\b|\\Delta\b|\bdelta\b|\bgain\b|\bimprov|"
                           r"\bdiff|\bchange\b)")
_WORD_BEFORE = re.compile(r"([^\W\d_]+|[Δ#§])[\s.~(:]*$")
_WORD_AFTER = re.compile(r"[\s%]*([^\W\d_]+)")


def _kind_of(shown: Shown, masked: str, base: int) -> str:
    """value | delta | bound | reference | uncertainty, from the words around the number."""
    if shown.uncertainty:
        return "uncertainty"
    s = shown.start - base
    head = masked[max(0, s - 24):s]
    stripped = head.rstrip(" \t$")
    if stripped and stripped[-1] in _BOUND_CHARS:
        return "bound"
    m = _WORD_BEFORE.search(head)
    before = m.group(1).lower() if m else ""
    if before in _REFERENCE_WORDS or before in ("#", "§"):
        return "reference"
    if before in _DELTA_BEFORE:
        return "delta"
    if before in _BOUND_BEFORE or head.lower().rstrip().endswith("up to"):
        return "bound"
    after = _WORD_AFTER.match(masked, shown.suffix_end - base)
    if after and after.group(1).lower() in _DELTA_AFTER:
        return "delta"
    if shown.sign == "+":
        return "delta"
    return "value"


# --- assignment ----------------------------------------------------------------------------------

@dataclass(eq=False)
class _Item:
    shown: Shown
    cands: frozenset[str]
    kind: str = "value"         # see _kind_of; "-" numbers are deltas unless a claim is negative
    percent: bool = False
    exact: bool = False         # bound by a table marker: no plausibility window
    via: str = "anchor"
    owners: set[str] = field(default_factory=set)
    checks: dict[str, Check] = field(default_factory=dict)

    def check(self, claim: Claim) -> Check:
        got = self.checks.get(claim.id)
        if got is None:
            got = check(self.shown, claim.value, claim.unit, percent_context=self.percent)
            self.checks[claim.id] = got
        return got

    def is_value_for(self, claim: Claim) -> bool:
        if self.kind != "value":
            return False
        return self.shown.sign != "-" or claim.value < 0


class _Run:
    """One reconcile: claims, the anchor index, and the report being filled."""

    def __init__(self, claims: Sequence[Claim]) -> None:
        self.claims = {c.id: c for c in claims}
        self.metric_of = {c.id: normalize(c.metric) for c in claims}
        self.index = AnchorIndex(claims)
        self.report = Report()

    # -- recording --
    def tie(self, claim: Claim) -> Tie:
        return Tie(claim=claim.id, value=claim.value, unit=claim.unit, run=claim.run,
                   object=claim.source_digest, event=claim.event_id)

    def add(self, seg: Segment, offset: int, kind: str, claims: Sequence[Claim], message: str,
            shown: Shown | None, via: str, **extra: object) -> None:
        line, col = seg.position(offset)
        self.report.findings.append(Finding(
            type=kind, path=seg.path, line=line, col=col, where=seg.where,
            claims=tuple(c.id for c in claims), shown=shown.display() if shown else None,
            evidence=tuple(self.tie(c) for c in claims), via=via, message=message,
            **extra))  # type: ignore[arg-type]

    def matched(self, seg: Segment, shown: Shown, claims: Sequence[Claim], via: str) -> None:
        line, col = seg.position(shown.start)
        self.report.matches.append(Match(path=seg.path, line=line, col=col, where=seg.where,
                                         claims=tuple(c.id for c in claims),
                                         shown=shown.display(), via=via))

    # -- explicit markers --
    def unknown(self, seg: Segment, marker: Marker) -> bool:
        missing = [i for i in marker.ids if i not in self.claims]
        if missing:
            known = ", ".join(sorted(self.claims)[:20]) or "none"
            self.add(seg, marker.start, "unknown_claim", [],
                     f"marker names {', '.join(missing)}, which is not a current claim in the "
                     f"ledger (current claims: {known})", marker.number, marker.via,
                     unknown=tuple(missing))
            return True
        return False

    def marker(self, seg: Segment, marker: Marker, percent: bool = False) -> None:
        if self.unknown(seg, marker):
            return
        if marker.kind == "empty" or marker.number is None:
            what = "a delta marker needs two claim ids and a number" if len(marker.ids) != 1 \
                else f"marker for {marker.ids[0]} is not followed by a number"
            self.add(seg, marker.start, "marker", [self.claims[i] for i in marker.ids], what,
                     None, marker.via)
            return
        shown = marker.number
        if marker.kind == "delta":
            self.delta(seg, marker, shown, percent)
            return
        claim = self.claims[marker.ids[0]]
        got = check(shown, claim.value, claim.unit, percent_context=percent)
        self.judge_exact(seg, shown, claim, got, marker.via)

    def judge_exact(self, seg: Segment, shown: Shown, claim: Claim, got: Check,
                    via: str) -> None:
        if got.matches:
            self.matched(seg, shown, [claim], via)
        elif not got.unit_ok:
            self.add(seg, shown.start, "unit", [claim],
                     f"{claim.id} says {shown.display_unit()}, but its evidence is "
                     f"{_value(claim)} (run {claim.run}, object {_short(claim.source_digest)})",
                     shown, via)
        else:
            self.add(seg, shown.start, "drift", [claim], _drift_message(claim, shown, got),
                     shown, via)

    def delta(self, seg: Segment, marker: Marker, shown: Shown, percent: bool) -> None:
        a, b = self.claims[marker.ids[0]], self.claims[marker.ids[1]]
        diff = Decimal(a.value) - Decimal(b.value)
        if shown.sign is None:
            diff = abs(diff)
        got = check(shown, diff, a.unit, percent_context=percent)
        if got.matches:
            self.matched(seg, shown, [a, b], "delta")
            return
        evidence = round(a.value - b.value, 12)
        scaled = "" if got.expected == diff else f" (= {_dec(got.expected)}%)"
        self.add(seg, shown.start, "drift", [a, b],
                 f"{a.id}\u2212{b.id} says {shown.display()}, evidence says "
                 f"{evidence:+}{scaled} ({a.id} {a.value!r} run {a.run}, object "
                 f"{_short(a.source_digest)}; {b.id} {b.value!r} run {b.run}, object "
                 f"{_short(b.source_digest)})", shown, "delta")

    # -- anchored numbers --
    def assign(self, seg: Segment, items: list[_Item]) -> None:
        claims = self.claims
        satisfied: set[str] = set()
        for it in items:
            for cid in it.cands:
                claim = claims[cid]
                if it.is_value_for(claim) and it.check(claim).matches:
                    it.owners.add(cid)
                    satisfied.add(cid)
            if it.owners:
                self.matched(seg, it.shown, [claims[c] for c in sorted(it.owners)], it.via)
        pending: dict[int, list[str]] = {}
        every = sorted({c for it in items for c in it.cands} - satisfied)
        for cid in every:
            claim = claims[cid]
            rest = [i for i, it in enumerate(items)
                    if cid in it.cands and not it.owners and it.is_value_for(claim)
                    and (it.exact or it.check(claim).plausible)]
            if len(rest) == 1:
                pending.setdefault(rest[0], []).append(cid)
            elif rest:
                first = items[rest[0]]
                where = ", ".join(f"{items[i].shown.display()} at "
                                  f"{':'.join(map(str, seg.position(items[i].shown.start)))}"
                                  for i in rest)
                self.add(seg, first.shown.start, "ambiguous", [claim],
                         f"{cid} ({_value(claim)}, run {claim.run}) is named here but none of "
                         f"{where} matches it; mark the one that is {cid}'s with a claim marker",
                         first.shown, first.via,
                         candidates=tuple(items[i].shown.display() for i in rest))
        for i, cids in sorted(pending.items()):
            it = items[i]
            if len(cids) == 1:
                claim = claims[cids[0]]
                got = it.check(claim)
                if not got.unit_ok:
                    self.add(seg, it.shown.start, "unit", [claim],
                             f"{claim.id} says {it.shown.display_unit()}, but its evidence is "
                             f"{_value(claim)} (run {claim.run}, object "
                             f"{_short(claim.source_digest)})", it.shown, it.via)
                else:
                    self.add(seg, it.shown.start, "drift", [claim],
                             _drift_message(claim, it.shown, got), it.shown, it.via)
            else:
                owners = [claims[c] for c in cids]
                could = " or ".join(f"{c.id} ({_value(c)}, run {c.run})" for c in owners)
                self.add(seg, it.shown.start, "ambiguous", owners,
                         f"{it.shown.display()} is ambiguous: it could be {could} and matches "
                         "none; mark it with a claim marker", it.shown, it.via)

    def anchored(self, hits: Iterable[Hit], masked: str, base: int) -> dict[str, set[str]]:
        """claim id → anchor terms of it among ``hits`` that the mask left visible."""
        out: dict[str, set[str]] = {}
        for h in hits:
            if masked[h.start - base] == " ":
                continue  # inside a URL, a citation, a LaTeX command or comment
            for cid in self.index.claims_of.get(h.term, ()):
                out.setdefault(cid, set()).add(h.term)
        return out

    def most_specific(self, strength: dict[str, int]) -> frozenset[str]:
        """Of the claims anchored here, per metric, those named by the most anchor terms."""
        best: dict[str, int] = {}
        for cid, n in strength.items():
            metric = self.metric_of[cid]
            best[metric] = max(best.get(metric, 0), n)
        return frozenset(c for c, n in strength.items() if n == best[self.metric_of[c]])

    def sentence(self, seg: Segment, unit: Sentence, markers: list[Marker],
                 hits: list[Hit]) -> None:
        for marker in markers:
            if marker.kind == "bind":
                if not self.unknown(seg, marker):
                    self.add(seg, marker.start, "marker",
                             [self.claims[i] for i in marker.ids],
                             f"marker for {marker.ids[0]} is not followed by a number (a bare "
                             "marker binds only a table's header or row-label cell)",
                             None, marker.via)
            elif marker.kind != "noclaim":
                self.marker(seg, marker)
        if not hits or any(m.kind == "noclaim" for m in markers):
            return
        masked = mask(seg, unit.start, unit.end)
        terms = self.anchored(hits, masked, unit.start)
        if not terms:
            return
        cands = self.most_specific({c: len(t) for c, t in terms.items()})
        taken = [(h.start, h.end) for h in hits]
        marked = {m.number.start for m in markers if m.number is not None}
        items = []
        for shown in scan_numbers(masked):
            shown = _shift(shown, unit.start)
            if shown.start in marked or any(s <= shown.start < e for s, e in taken):
                continue  # a marker's number is checked exactly; an anchor's digits are no value
            items.append(_Item(shown, cands, _kind_of(shown, masked, unit.start)))
        self.assign(seg, items)

    def table(self, seg: Segment, table: Table, markers: list[Marker], hits: list[Hit]) -> None:
        cols = table.header
        col_terms: list[dict[str, set[str]]] = []
        col_bind: list[set[str]] = []
        col_pct: list[bool] = []
        col_delta: list[bool] = []
        table_off = any(m.kind == "noclaim" and not _in_rows(table, m.start) for m in markers)
        for cell in cols:
            masked = mask(seg, cell.start, cell.end)
            col_terms.append(self.anchored(_within(hits, cell), masked, cell.start))
            col_bind.append(self._binds(seg, markers, cell))
            col_pct.append("%" in cell.text)
            col_delta.append(bool(_DELTA_HEADER.search(cell.text)))
        value_markers = [m for m in markers if m.kind in ("value", "delta", "empty")]
        marked = {m.number.start for m in value_markers if m.number is not None}
        items: list[_Item] = []
        for row in table.rows:
            row_off = table_off or any(m.kind == "noclaim" and row[0].start <= m.start < row[-1].end
                                       for m in markers)
            numeric: list[tuple[int, Cell, Shown]] = []
            row_terms: dict[str, set[str]] = {}
            row_bind: set[str] = set()
            for ci, cell in enumerate(row):
                masked = mask(seg, cell.start, cell.end)
                shown = _number_in(masked, 0, len(masked))
                if shown is not None and not _WORDS.search(masked, shown.suffix_end):
                    numeric.append((ci, cell, _shift(shown, cell.start)))
                    continue
                for cid, t in self.anchored(_within(hits, cell), masked, cell.start).items():
                    row_terms.setdefault(cid, set()).update(t)
                row_bind |= self._binds(seg, markers, cell)
            for ci, cell, shown in numeric:
                pct = ci < len(col_pct) and col_pct[ci]
                for m in value_markers:
                    if cell.start <= m.start < cell.end or (
                            m.number is not None and m.number.start == shown.start):
                        break
                else:
                    if shown.start in marked:
                        continue
                    bound = (col_bind[ci] if ci < len(col_bind) else set()) | row_bind
                    if bound:
                        items.append(_Item(shown, frozenset(bound), "value", pct, exact=True,
                                           via="table"))
                        continue
                    if row_off or (ci < len(col_delta) and col_delta[ci]):
                        continue
                    cterms = col_terms[ci] if ci < len(col_terms) else {}
                    strength: dict[str, int] = {}
                    for cid in set(cterms) | set(row_terms):
                        both = cterms.get(cid, set()) | row_terms.get(cid, set())
                        strength[cid] = len(both) + (cid in cterms and cid in row_terms)
                    if not strength:
                        continue
                    cands = self.most_specific(strength)
                    kind = "delta" if shown.sign == "+" else "value"
                    items.append(_Item(shown, cands, "uncertainty" if shown.uncertainty
                                       else kind, pct, via="table"))
        for m in value_markers:
            col = _column_of(table, m.start)
            self.marker(seg, m, percent=col is not None and col < len(col_pct) and col_pct[col])
        self.assign(seg, items)

    def _binds(self, seg: Segment, markers: list[Marker], cell: Cell) -> set[str]:
        out: set[str] = set()
        for m in markers:
            if m.kind == "bind" and cell.start <= m.start < cell.end and not self.unknown(seg, m):
                out.update(m.ids)
        return out


def _within(hits: list[Hit], cell: Cell) -> list[Hit]:
    return [h for h in hits if cell.start <= h.start and h.end <= cell.end]


def _in_rows(table: Table, pos: int) -> bool:
    return any(row and row[0].start <= pos < row[-1].end for row in table.rows)


def _column_of(table: Table, pos: int) -> int | None:
    for row in (*table.header_rows, *table.rows):
        for ci, cell in enumerate(row):
            if cell.start <= pos < cell.end:
                return ci
    return None


def _shift(shown: Shown, base: int) -> Shown:
    if base == 0:
        return shown
    return Shown(text=shown.text, start=shown.start + base, end=shown.end + base,
                 digits=shown.digits, sign=shown.sign, percent=shown.percent,
                 suffix=shown.suffix, suffix_end=shown.suffix_end + base,
                 uncertainty=shown.uncertainty)


def _short(digest: str) -> str:
    algo, _, hexpart = digest.partition(":")
    return f"{algo}:{hexpart[:12]}\u2026" if hexpart else digest


def _dec(value: Decimal) -> str:
    return repr(round(float(value), 12))


def _value(claim: Claim) -> str:
    return f"{claim.value!r}" + (f" {claim.unit}" if claim.unit else "")


def _drift_message(claim: Claim, shown: Shown, got: Check) -> str:
    scaled = ""
    if got.unit_shown == "%" and got.expected != Decimal(claim.value):
        scaled = f" (= {_dec(got.expected)}%)"
    return (f"{claim.id} says {shown.display()}, evidence says {claim.value!r}{scaled} "
            f"(run {claim.run}, object {_short(claim.source_digest)})")


def reconcile_segments(segments: Sequence[Segment], claims: Sequence[Claim],
                       documents: int | None = None) -> Report:
    """Find every claimed number in ``segments`` and judge it against ``claims``.

    Returns a `Report`: its findings (drift, ambiguous, unit, unknown_claim, marker) in document
    order, and the numbers that matched. ``documents`` is the count reported (default: distinct
    paths).
    """
    run = _Run(claims)
    binds = tex_bindings(segments, claims)
    for seg in segments:
        _segment(run, seg, binds)
    report = run.report
    report.documents = documents if documents is not None else len({s.path for s in segments})
    report.claims = len(claims)
    report.findings.sort(key=lambda f: (f.path, f.where or "", f.line, f.col))
    return report


def _segment(run: _Run, seg: Segment, binds: dict[str, str]) -> None:
    if seg.syntax == "tex":
        markers = _tex_markers(seg, binds)
    elif seg.syntax in ("csv", "tsv"):
        markers = _cell_markers(seg)
    else:
        markers = _md_markers(seg)
    hits = run.index.scan(seg.text)
    if not markers and not hits:
        return
    units: dict[tuple[bool, int], tuple[Sentence | Table, list[Marker], list[Hit]]] = {}
    for marker in markers:
        places = [marker.start]
        if marker.kind == "noclaim":
            # "... 29.8 dB. <!-- noclaim -->": it also silences the sentence it follows
            before = len(seg.text[:marker.start].rstrip())
            if before > 0:
                places.append(before - 1)
        for place in places:
            unit = unit_at(seg, place)
            key = (isinstance(unit, Table), unit.start)
            entry = units.setdefault(key, (unit, [], []))
            if marker not in entry[1]:
                entry[1].append(marker)
    for hit in hits:
        unit = unit_at(seg, hit.start)
        key = (isinstance(unit, Table), unit.start)
        units.setdefault(key, (unit, [], []))[2].append(hit)
    for unit, unit_markers, unit_hits in units.values():
        if isinstance(unit, Table):
            run.table(seg, unit, unit_markers, unit_hits)
        else:
            run.sentence(seg, unit, unit_markers, unit_hits)


def unit_terms(text: str) -> str:
    """Exposed for tests: the normalized form anchors are compared in."""
    return normalize(text)
