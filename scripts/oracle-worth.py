#!/usr/bin/python3
"""Prints what the oracle's rates are worth, and how far coloc's average
JCT against the oracle's is luck.

Usage: scripts/oracle-worth.py models PAGE... [noise A PAGE...]...

Every PAGE is a `coloc simulate sweep` page of coloc and the oracle over the
same cases. The pages after "models" differ only in the seed the models
were fit with (`coloc fit --seed S`); the first of them holds the true
oracle, the reference of every ratio. The pages after "noise A" differ only
in the seed of `--oracle-noise A`. For each degree mode the first table
gives the geometric mean over cases of each policy's average JCT over the
true oracle's, one column a page, and the geometric mean of those columns.
The second gives, for the first models page, coloc's average JCT over the
true oracle's with a 95% interval over cases (sweeppage.paired), and coloc's mean
over the seeds against the mean of the oracles perturbed by the smallest A.
results-sim.sh splices both into docs/simulation.md (scripts/oracle-worth.sh).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sweeppage import cases, geo, paired  # noqa: E402


def usage():
    sys.exit("usage: scripts/oracle-worth.py models PAGE... [noise A PAGE...]...")


args = sys.argv[1:]
if len(args) < 2 or args[0] != "models":
    usage()
groups, cur = [], None  # (label, noise or None, [pages])
i = 0
while i < len(args):
    a = args[i]
    if a == "models":
        cur = ("coloc (IASP and IAPP fit with the seed)", None, [])
        groups.append(cur)
    elif a == "noise":
        if i + 1 >= len(args):
            usage()
        try:
            level = float(args[i + 1])
        except ValueError:
            sys.exit("noise %r: want a number" % args[i + 1])
        cur = ("oracle, rates within ±%g%%" % (100 * level), level, [])
        groups.append(cur)
        i += 1
    else:
        cur[2].append(a)
    i += 1
for label, _, pages in groups:
    if not pages:
        sys.exit("%s: no page" % label)

base_path = groups[0][2][0]
base = cases(base_path)
if not base:
    sys.exit("%s: no case" % base_path)
modes = []
for mode, _, _ in base:
    if mode not in modes:
        modes.append(mode)


read = {base_path: base}


def over_true(path, policy, mode):
    """Geometric mean over the cases of mode of policy's avg JCT over the
    true oracle's (base page)."""
    if path not in read:
        read[path] = cases(path)
    page = read[path]
    logs = []
    for key, ref in base.items():
        if key[0] != mode or "oracle" not in ref:
            continue
        got = page.get(key, {}).get(policy)
        if got is None:
            sys.exit("%s: no %s row for %s" % (path, policy, "/".join(key)))
        logs.append(math.log(got["avg JCT"] / ref["oracle"]["avg JCT"]))
    return math.exp(sum(logs) / len(logs))


seeds = max(len(p) for _, _, p in groups)
print("| degree | decides on | " + " | ".join("seed %d" % (s + 1) for s in range(seeds)) + " | geometric mean |")
print("|---|---|" + "---:|" * seeds + "---:|")
means = {}
for mode in modes:
    for label, level, pages in groups:
        policy = "coloc" if level is None else "oracle"
        xs = [over_true(p, policy, mode) for p in pages]
        means[(mode, label)] = geo(xs)
        cells = ["%.3f" % x for x in xs] + [""] * (seeds - len(xs))
        print("| %s | %s | %s | %.3f |" % (mode, label, " | ".join(cells), geo(xs)))

print()
print("| degree | cases | coloc / true oracle | 95% interval over cases | coloc over the perturbed oracle, means over seeds |")
print("|---|---:|---:|---:|---:|")
noisy = [g for g in groups if g[1] is not None]
small = min(noisy, key=lambda g: g[1]) if noisy else None
for mode in modes:
    n, r, lo, hi = paired(base_path, "coloc", "oracle", mode, base)
    vs = "%.3f (oracle within ±%g%%)" % (means[(mode, groups[0][0])] / means[(mode, small[0])], 100 * small[1]) if small else "-"
    print("| %s | %d | %.3f | %.3f to %.3f | %s |" % (mode, n, r, lo, hi, vs))
