#!/usr/bin/python3
"""Prints the goal table of a `coloc simulate sweep` page.

Usage: scripts/goals.py PAGE

Reads the "all clusters" summaries of PAGE (one per degree mode) and
prints, as a Markdown table, the goals coloc is held to at its defaults
(durations unknown): average JCT at most 0.85x the strongest peer's
(gavel-las, gavel-las-packed, tiresias; case by case, geometric mean) and
makespan at most 1.05x; coloc deciding on users' estimates
(coloc-estimate) at most 0.9x the strongest peer; at most 0.93x coloc with
sharing off (coloc-no-sharing: what the interference model is worth); and
the oracle at least as good as coloc (coloc's average JCT over the
oracle's at least 1, shown with its 95% interval over the cases,
scripts/sweeppage.py's paired). Where the page has coloc-known (the same
core with the true sizes) a reference row, not a goal, shows what the
first goal reads with foresight, and another the cases foresight cannot
improve (the strongest peer, srtf-known and coloc-known within 0.2% in
average JCT) with what the first goal then asks of the others; the
peers are those the page names. results-sim.sh and heldout-sim.sh splice
it into docs/simulation.md (scripts/splice.py), so the numbers there are
the page's, never typed. The page is read by scripts/sweeppage.py.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweeppage import cases, geo, paired, peer_names, peers, ratio as number, summaries  # noqa: E402

if len(sys.argv) != 2:
    sys.exit("usage: scripts/goals.py PAGE")
path = sys.argv[1]
pages = summaries(path)
peer_pages = peers(path)
by_mode = {m: pages["degree %s, all clusters" % m] for m in ("trace", "policy") if "degree %s, all clusters" % m in pages}
modes = list(by_mode)
if not modes:
    sys.exit("%s: no 'all clusters' summary" % path)


def ratio(mode, policy, column):
    try:
        if column.endswith("best peer"):
            cell = peer_pages["degree %s, all clusters" % mode][policy][column]
        else:
            cell = by_mode[mode][policy][column]
    except KeyError:
        sys.exit("%s: degree %s has no %s row (column %s)" % (path, mode, policy, column))
    return number(cell), cell


rows = []
FIRST = 0.85  # the first goal: coloc's avg JCT over the strongest peer's


def goal(name, policy, column, test, show=lambda x, cell: "%.3f" % x):
    cells, met = [], True
    for mode in modes:
        x, cell = ratio(mode, policy, column)
        cells.append(show(x, cell))
        met = met and test(x)
    rows.append((name, cells, "yes" if met else "no"))


goal("avg JCT <= %.2fx the strongest peer" % FIRST, "coloc", "avg JCT / best peer", lambda x: x <= FIRST)
goal("makespan <= 1.05x the strongest peer's", "coloc", "makespan / best peer", lambda x: x <= 1.05)
goal("with users' estimates (median 2x, log-normal): avg JCT <= 0.9x the strongest peer", "coloc-estimate", "avg JCT / best peer", lambda x: x <= 0.9)
goal("avg JCT <= 0.93x coloc with sharing off", "coloc-no-sharing", "avg JCT", lambda x: x <= 0.93)
if "coloc-known" in peer_pages["degree %s, all clusters" % modes[0]]:
    # Not a goal: the same core deciding on the true sizes, what the first
    # goal would read with foresight; how much of it is reachable at all.
    rows.append(("reference: the same core with foresight (coloc-known), avg JCT / the strongest peer",
                 ["%.3f" % ratio(mode, "coloc-known", "avg JCT / best peer")[0] for mode in modes],
                 "not a goal"))

# Not a goal either: the cases in which foresight gains nothing, where the
# strongest peer, srtf-known and coloc-known (two rules with the true
# sizes) end within TIE of each other in average JCT (little queues, so
# no order of the jobs changes their times). Every policy sits near 1
# there, so the first goal asks that much more of the other cases: the
# geometric mean of coloc's ratio they would need for the whole to reach
# FIRST, beside coloc's and coloc-known's there.
TIE = 1.002
PEERS = peer_names(path)
page = cases(path)
if all(p in c for c in page.values() for p in ("srtf-known", "coloc-known", "coloc")):
    cells = []
    for mode in modes:
        tied, rest, known = [], [], []
        for k, c in page.items():
            if k[0] != mode or not all(p in c for p in PEERS):
                continue
            best = min(c[p]["avg JCT"] for p in PEERS)
            r = c["coloc"]["avg JCT"] / best
            foresight = [best, c["srtf-known"]["avg JCT"], c["coloc-known"]["avg JCT"]]
            if max(foresight) <= TIE * min(foresight):
                tied.append(r)
            else:
                rest.append(r)
                known.append(c["coloc-known"]["avg JCT"] / best)
        n = len(tied) + len(rest)
        if not rest:
            cells.append("%d of %d" % (len(tied), n))
            continue
        need = math.exp((n * math.log(FIRST) - sum(map(math.log, tied))) / len(rest))
        cells.append("%d of %d; the rest need %.3f: coloc %.3f, coloc-known %.3f" % (len(tied), n, need, geo(rest), geo(known)))
    rows.append(("reference: cases where foresight gains nothing (the strongest peer, srtf-known and coloc-known within 0.2%), "
                 "and what the first goal needs of the others (geometric mean)",
                 cells, "not a goal"))
if "oracle" in by_mode[modes[0]]:
    goal("oracle at least as good as coloc (coloc's avg JCT over the oracle's >= 1)", "oracle", "avg JCT", lambda x: x >= 1)
    # The oracle row also shows the ratio's 95% interval over the cases: when
    # the point misses 1 but the interval holds it, the cases cannot tell the
    # two apart, and the row says so rather than a bare "no".
    name, cells, met = rows[-1]
    ties, lost = [], False
    for i, mode in enumerate(modes):
        n, r, lo, hi = paired(path, "coloc", "oracle", mode, page)
        cells[i] += " (95%%: %.3f to %.3f)" % (lo, hi)
        if r < 1 <= hi:
            ties.append(mode)
        elif r < 1:
            lost = True
    if met == "no" and ties and not lost:
        met = "no; a tie in %s mode: the interval holds 1" % " and ".join(ties)
    rows[-1] = (name, cells, met)


print("| goal | " + " | ".join("`--degree %s`" % m for m in modes) + " | met? |")
print("|---|" + "---:|" * len(modes) + "---|")
for name, cells, met in rows:
    print("| %s | %s | %s |" % (name, " | ".join(cells), met))
