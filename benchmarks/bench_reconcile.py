"""Document reconcile over a synthetic paper project vs `grep -rn` for the claims' anchors.

Goal (issue 7): `labledger reconcile` over 500 documents (10 MB) with 1,000 claims takes at most
5x the time of `grep -rniF -f ANCHORS` over the same tree: grep only finds the lines that name a
claim; reconcile finds them too, then reads every number near them, compares it at the
precision shown and checks every marker, so a tool that does the judging in the time of a
few greps is one a pre-commit hook can afford.

The project (seeded, deterministic): 100 methods x 10 metrics = 1,000 claims, each with aliases
(the method, the metric's display name, and "<method> <metric>"), so about 1,100 anchors.
500 documents of about 20 KB: 300 Markdown, 100 LaTeX, 40 reST/text, 40 CSV, 20 notebooks,
mostly filler prose full of unrelated numbers (epochs, batch sizes, learning rates, years),
with about one claimed number per KB: anchored sentences (the number before or after the
anchor, at a random precision), markers (HTML comments, \\claim, bound \\newcommand macros),
Markdown/LaTeX/CSV tables, notebook outputs, and 1% of them deliberately drifted.

Contenders, interleaved (order rotated every round), medians over the rounds:

* ``reconcile (library)``: `reconcile_paths` on the 500 paths with the 1,000 claims already
  loaded: reading and judging (in one process per core, as the command does by default), the
  work comparable to grep's (judged against the goal);
* ``reconcile (library, -j 1)``: the same in one process, for reference;
* ``reconcile (cached)``: the same through the judging cache (`judge_cache`) filled by the
  warm-up, nothing changed: every run after the first (judged against the goal too);
* ``reconcile (cached, 1 edited)``: the same with one of the 500 documents edited before each
  round: the pre-commit hook's usual case (judged against the goal too);
* ``labledger reconcile (CLI)``: the whole command as a user runs it, ``--no-cache``
  (interpreter start, imports, reading the 1,000 claims from the ledger, JSON out), for
  reference; ``(CLI, cached)``: the same with its cache;
* ``grep -rniF``: case-insensitive fixed strings, one per anchor (the baseline);
* ``grep -rniwF``: the same as whole words, which is what reconcile matches (reference);
* ``grep -rn``: the issue's literal form (case-sensitive patterns; reference).

    .venv/bin/python benchmarks/bench_reconcile.py            # 7 rounds
    .venv/bin/python benchmarks/bench_reconcile.py --quick    # 3 rounds, 100 documents (2 MB)

Exit status is 0 whether or not the goal is met (PASS/MISS is printed); non-zero only on a crash.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _bench import add_tmp_base, make_tmp, timed

GOAL = 5.0  # reconcile time / grep time, at most
LABLEDGER = Path(sys.executable).with_name("labledger")

# metric, display name, unit, value range, decimals shown, shown as percent
METRICS = [
    ("psnr", "PSNR", "dB", (24.0, 36.0), 2, False),
    ("ssim", "SSIM", None, (0.7, 0.98), 3, False),
    ("lpips", "LPIPS", None, (0.05, 0.3), 3, False),
    ("top1", "top-1 accuracy", None, (0.6, 0.95), 1, True),
    ("map50", "mAP@50", None, (30.0, 60.0), 1, False),
    ("f1", "F1 score", None, (0.5, 0.95), 3, False),
    ("bleu", "BLEU", None, (20.0, 45.0), 1, False),
    ("fid", "FID", None, (2.0, 30.0), 2, False),
    ("latency", "latency", "ms", (5.0, 80.0), 1, False),
    ("params", "parameters", "M", (5.0, 300.0), 1, False),
]
FILLER = ("the of and to in we model training results method our with for is on that by this "
          "are as be from an at which show using data network performance compared large small "
          "dataset test validation baseline improves ablation figure robust stable learning rate "
          "schedule optimizer warmup encoder decoder attention layers features")
WORDS = FILLER.split(" ")


class Claim:
    def __init__(self, i: int, rng: random.Random) -> None:
        self.method = f"Model-{i // 10:03d}"
        metric, name, unit, (lo, hi), decimals, percent = METRICS[i % 10]
        self.id, self.run, self.metric, self.name, self.unit = f"C{i:04d}", f"r{i // 10:03d}", \
            metric, name, unit
        self.value = round(rng.uniform(lo, hi), 5)
        self.decimals, self.percent = decimals, percent
        self.aliases = [self.method, name, f"{self.method} {name}"]

    def shown(self, rng: random.Random, drift: bool = False) -> str:
        value = self.value * (100 if self.percent else 1)
        decimals = rng.randint(max(0, self.decimals - 1), self.decimals + 1)
        if drift:
            value += 7 * 10 ** -decimals
        text = f"{value:.{decimals}f}"
        return text + ("%" if self.percent else "")

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"claim": self.id, "metric": self.metric, "value": self.value,
                               "direction": "higher", "source_digest": "blake3:" + "0" * 64,
                               "aliases": self.aliases}
        if self.unit:
            out["unit"] = self.unit
        return out


def filler(rng: random.Random) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 24)))
    extra = rng.choice([f" for {rng.randint(10, 500)} epochs", f" with batch size "
                        f"{rng.choice([16, 32, 64, 128])}", f" and lr {rng.random():.4f}",
                        f" in {rng.randint(2015, 2024)}", "", ""])
    return words.capitalize() + extra + "."


def mention(c: Claim, rng: random.Random, syntax: str) -> str:
    drift = rng.random() < 0.01
    shown = c.shown(rng, drift)
    kind = rng.random()
    if kind < 0.35:
        if syntax == "md":
            return f"{c.method} scores <!-- claim:{c.id} -->{shown} on the held-out split."
        if syntax == "tex":
            shown_tex = shown.replace("%", "\\%")
            return f"{c.method} scores \\claim{{{c.id}}}{{{shown_tex}}} on the held-out split."
    if syntax == "tex":
        shown = shown.replace("%", "\\%")
    if kind < 0.7:
        return f"{c.method} reaches a {c.name} of {shown} on the test set."
    return f"We measure {shown} {c.name} for {c.method} after tuning."


def table(claims: list[Claim], rng: random.Random, syntax: str) -> str:
    metric = rng.randrange(10)
    methods = rng.sample(range(100), 4)
    rows = [[claims[m * 10 + metric]] for m in methods]
    name = METRICS[metric][1] + (" (%)" if METRICS[metric][5] else "")
    if syntax == "tex":
        body = "".join(f"{r[0].method} & {r[0].shown(rng).rstrip('%')} \\\\\n" for r in rows)
        name = name.replace("%", "\\%")
        return ("\\begin{tabular}{lc}\n\\toprule\nMethod & " + name + " \\\\\n\\midrule\n" +
                body + "\\bottomrule\n\\end{tabular}\n")
    body = "".join(f"| {r[0].method} | {r[0].shown(rng).rstrip('%')} |\n" for r in rows)
    return f"| Method | {name} |\n|---|---:|\n{body}"


def prose(claims: list[Claim], rng: random.Random, syntax: str, size: int,
          density: float) -> str:
    parts: list[str] = []
    total = 0
    while total < size:
        r = rng.random() / density
        if r < 0.004 and syntax in ("md", "tex"):
            piece = "\n" + table(claims, rng, syntax) + "\n"
        elif r < 0.045:
            piece = mention(rng.choice(claims), rng, syntax) + "\n"
        elif r < 0.05 and syntax == "tex":
            c = rng.choice(claims)
            shown = c.shown(rng).replace("%", "\\%")
            piece = f"\\newcommand{{\\val{c.id[1:]}x}}{{{shown}}} % claim:{c.id}\n"
        elif r < 0.06:  # a metric named with no claimed number near it
            piece = (f"We report {rng.choice(METRICS)[1]} as in prior work from "
                     f"{rng.randint(2015, 2024)}. ")
        else:
            piece = filler(rng) + ("\n\n" if rng.random() < 0.2 else " ")
        parts.append(piece)
        total += len(piece)
    return "".join(parts)


def csv_doc(claims: list[Claim], rng: random.Random, size: int, results: bool) -> str:
    """A results table (methods x one metric, anchored) or a training log (no anchors)."""
    if not results:
        lines = ["epoch,step,loss,lr,grad_norm"]
        step = 0
        while sum(len(x) + 1 for x in lines) < size:
            step += 100
            lines.append(f"{step // 1000},{step},{rng.uniform(0.1, 2):.4f},"
                         f"{rng.uniform(1e-5, 1e-3):.2e},{rng.uniform(0.1, 5):.3f}")
        return "\n".join(lines) + "\n"
    metric = rng.randrange(10)
    percent = " (%)" if METRICS[metric][5] else ""
    lines = [f"method,run,{METRICS[metric][0]}{percent},epochs,seed"]
    while sum(len(x) + 1 for x in lines) < size:
        c = claims[rng.randrange(100) * 10 + metric]
        lines.append(f"{c.method},{c.run},{c.shown(rng).rstrip('%')},"
                     f"{rng.randint(10, 500)},{rng.randint(0, 9)}")
    return "\n".join(lines) + "\n"


def build_tree(root: Path, claims: list[Claim], docs: int, size: int, seed: int,
               density: float = 1.0, dense_csv: bool = False) -> None:
    rng = random.Random(seed)
    kinds = ["md"] * 60 + ["tex"] * 20 + ["rst"] * 4 + ["txt"] * 4 + ["csv"] * 8 + ["ipynb"] * 4
    for d in range(docs):
        kind = kinds[d % len(kinds)]
        folder = root / ("paper" if kind in ("tex", "md") else "notes") / f"part{d % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        if kind == "csv":
            results = dense_csv or d % 2 == 0
            text = csv_doc(claims, rng, size if dense_csv or not results else size // 10,
                           results)
        elif kind == "ipynb":
            cells: list[dict[str, Any]] = []
            while sum(len(json.dumps(c)) for c in cells) < size:
                c = rng.choice(claims)
                line = (f"{c.method} test {c.name}: {c.shown(rng)}\n"
                        if rng.random() < 0.3 * density
                        else f"step {rng.randint(1, 9999)} loss {rng.random():.4f}\n")
                cells.append({"cell_type": "markdown", "metadata": {},
                              "source": [prose(claims, rng, "md", 600, density)]})
                cells.append({"cell_type": "code", "metadata": {}, "execution_count": 1,
                              "source": ["evaluate(model)\n"], "outputs": [
                                  {"output_type": "stream", "name": "stdout", "text": [line]}]})
            text = json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                               "cells": cells}, indent=1)
        else:
            text = prose(claims, rng, "md" if kind in ("rst", "txt") else kind, size, density)
        (folder / f"doc{d:03d}.{kind}").write_text(text, encoding="utf-8")


def tree_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def timed_cmd(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=env)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 1, 3):
        raise SystemExit(f"{cmd[:3]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (default 7)")
    parser.add_argument("--docs", type=int, default=500, help="documents (default 500)")
    parser.add_argument("--doc-kb", type=int, default=20, help="KB per document (default 20)")
    parser.add_argument("--quick", action="store_true", help="3 rounds, 100 documents")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-command contender")
    parser.add_argument("--density", type=float, default=1.0,
                        help="claimed numbers per KB of prose, relative to the default (about "
                             "0.5 per KB); 4 with --dense-csv is the stress case")
    parser.add_argument("--dense-csv", action="store_true",
                        help="every CSV a 20 KB results log whose every row is anchored")
    parser.add_argument("--seed", type=int, default=7)
    add_tmp_base(parser)
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.docs = 3, 100

    import compileall

    import labledger.ledger
    from labledger.ledger.ledger import Ledger
    from labledger.reconcile.claim_model import current_claims
    from labledger.reconcile.drift import reconcile_paths
    from labledger.reconcile.fanout import cpu_count
    from labledger.reconcile.pull_verified import load_events

    # As installed: pip byte-compiles a package, but an editable install under
    # PYTHONDONTWRITEBYTECODE=1 (common in containers; set on the dev machines) would recompile
    # every module on every CLI run (about 120 ms of the whole command's time here).
    compileall.compile_dir(os.path.dirname(os.path.dirname(labledger.ledger.__file__)), quiet=1)
    tmp = make_tmp(args.tmp_base)
    try:
        rng = random.Random(args.seed)
        claims = [Claim(i, rng) for i in range(1000)]
        project = tmp / "project"
        project.mkdir()
        ledger = Ledger.init(project)
        ledger.append_batch([{"kind": "claim.declared", "run": c.run, "body": c.body()}
                             for c in claims])
        ledger.close()
        tree = project / "docs"
        build_tree(tree, claims, args.docs, args.doc_kb * 1024, args.seed, args.density,
                   args.dense_csv)
        files = tree_files(tree)
        size = sum(p.stat().st_size for p in files)
        anchors = sorted({a for c in claims for a in (c.metric, *c.aliases)})
        (tmp / "anchors.txt").write_text("\n".join(anchors) + "\n")
        print(f"tree: {len(files)} documents, {size / 1e6:.1f} MB; {len(claims)} claims, "
              f"{len(anchors)} anchors")

        loaded = current_claims(load_events(Ledger.open(project)))
        report = reconcile_paths(files, loaded, cwd=tree)
        print(f"reconcile: {len(report.matches)} numbers checked, findings {report.counts()}")
        grep_lines = subprocess.run(["grep", "-rniF", "-f", str(tmp / "anchors.txt"), "."],
                                    cwd=tree, capture_output=True, check=False).stdout.count(b"\n")
        print(f"grep -rniF: {grep_lines} matching lines")

        env = {**os.environ, "LABLEDGER_ROOT": str(project)}
        cache = tmp / "cache"
        edited = files[len(files) // 2]
        original = edited.read_text(encoding="utf-8")
        edits = iter(range(1, 1 << 30))

        def one_edited() -> float:
            # the pre-commit case: one document changed since the last run, the rest cached
            edited.write_text(original + f"\nModel-001 reaches a PSNR of {next(edits)} dB.\n",
                              encoding="utf-8")
            return timed(lambda: reconcile_paths(files, loaded, tree, cache=cache))

        contenders: dict[str, Any] = {
            "reconcile (library)": lambda: timed(lambda: reconcile_paths(files, loaded, tree)),
            "reconcile (library, -j 1)": lambda: timed(
                lambda: reconcile_paths(files, loaded, tree, jobs=1)),
            "reconcile (cached)": lambda: timed(
                lambda: reconcile_paths(files, loaded, tree, cache=cache)),
            "reconcile (cached, 1 edited)": one_edited,
            "grep -rn": lambda: timed_cmd(["grep", "-rn", "-f", str(tmp / "anchors.txt"), "."],
                                          tree),
            "grep -rniF": lambda: timed_cmd(["grep", "-rniF", "-f", str(tmp / "anchors.txt"),
                                             "."], tree),
            "grep -rniwF": lambda: timed_cmd(["grep", "-rniwF", "-f",
                                              str(tmp / "anchors.txt"), "."], tree),
        }
        if not args.no_cli:
            contenders["labledger reconcile (CLI)"] = lambda: timed_cmd(
                [str(LABLEDGER), "reconcile", "--no-cache", "--json", "."], tree, env)
            contenders["labledger reconcile (CLI, cached)"] = lambda: timed_cmd(
                [str(LABLEDGER), "reconcile", "--json", "."], tree, env)
        names = list(contenders)
        for name in names:  # warm-up: page cache, byte-compiled modules
            contenders[name]()
        times: dict[str, list[float]] = {n: [] for n in names}
        paired: list[float] = []
        paired_cached: dict[str, list[float]] = {"reconcile (cached)": [],
                                                 "reconcile (cached, 1 edited)": []}
        for r in range(args.rounds):
            order = names[r % len(names):] + names[:r % len(names)]
            this: dict[str, float] = {}
            for name in order:
                this[name] = contenders[name]()
                times[name].append(this[name])
            paired.append(this["reconcile (library)"] / this["grep -rniF"])
            for name in ("reconcile (cached)", "reconcile (cached, 1 edited)"):
                paired_cached[name].append(this[name] / this["grep -rniF"])
            print(f"  round {r + 1}: " + ", ".join(f"{n} {this[n] * 1000:.0f} ms" for n in names),
                  flush=True)
        grep_med = statistics.median(times["grep -rniF"])
        print()
        print(f"{'contender':28s} {'median ms':>10s} {'vs grep -rniF':>14s}")
        for name in names:
            med = statistics.median(times[name])
            print(f"{name:28s} {med * 1000:10.1f} {med / grep_med:13.2f}x")
        ratio = statistics.median(paired)
        verdict = "PASS" if ratio <= GOAL else "MISS"
        print()
        print(f"reconcile (library) / grep -rniF: median of paired per-round ratios {ratio:.2f}x "
              f"(ratio of medians {statistics.median(times['reconcile (library)']) / grep_med:.2f}"
              f"x); goal <= {GOAL}x: {verdict}")
        for name, ratios in paired_cached.items():
            ratio = statistics.median(ratios)
            print(f"{name} / grep -rniF: median of paired ratios {ratio:.2f}x; goal <= {GOAL}x:"
                  f" {'PASS' if ratio <= GOAL else 'MISS'}")
        lib, word = statistics.median(times["reconcile (library)"]), \
            statistics.median(times["grep -rniwF"])
        print(f"reconcile (library) / grep -rniwF (the same whole-word matching): "
              f"{lib / word:.2f}x")
        serial = statistics.median(times["reconcile (library, -j 1)"])
        print(f"judging in {cpu_count()} processes: {serial / lib:.2f}x faster than in one "
              f"({serial * 1000:.0f} ms); one process / grep -rniF: {serial / grep_med:.2f}x")
        if "labledger reconcile (CLI)" in times:
            cli = statistics.median(times["labledger reconcile (CLI)"])
            print(f"whole CLI / grep -rniF: {cli / grep_med:.2f}x; whole CLI / grep -rniwF: "
                  f"{cli / word:.2f}x")
            warm = statistics.median(times["labledger reconcile (CLI, cached)"])
            print(f"whole CLI, cached / grep -rniF: {warm / grep_med:.2f}x")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
