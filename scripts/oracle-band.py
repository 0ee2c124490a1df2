#!/usr/bin/python3
"""Prints coloc against the true oracle and against perturbed oracles.

Usage: scripts/oracle-band.py PAGE BAND_PAGE...

PAGE is a `coloc simulate sweep` page with the true oracle; each BAND_PAGE
the same sweep with `--oracle-noise` and another seed. For every summary
of PAGE (degree mode and cluster) the table gives coloc's average JCT over
the true oracle's, the range of that ratio over the perturbed oracles, and
whether the first lies inside the range. heldout-sim.sh appends it to the
held-out page.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweeppage import ratio, summaries  # noqa: E402

if len(sys.argv) < 3:
    sys.exit("usage: scripts/oracle-band.py PAGE BAND_PAGE...")


def oracle(path):
    return {g: ratio(rows["oracle"]["avg JCT"]) for g, rows in summaries(path).items() if "oracle" in rows}


true = oracle(sys.argv[1])
bands = [oracle(p) for p in sys.argv[2:]]
print("| degree, cluster | coloc / true oracle | coloc / perturbed oracle, seeds 1-%d | inside |" % len(bands))
print("|---|---:|---:|---|")
for g, r in true.items():
    b = [x[g] for x in bands]
    inside = "yes" if min(b) <= r <= max(b) else ("coloc better" if r < min(b) else "coloc worse")
    print("| %s | %.3f | %.3f to %.3f | %s |" % (g, r, min(b), max(b), inside))
