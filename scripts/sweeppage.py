"""Reads the summaries of a `coloc simulate sweep` page.

summaries(path) returns, in page order, each summary's group ("degree
trace, all clusters", "degree policy, gavel-16", ...) mapped to its rows:
policy -> column -> cell text ("0.548 (60)"). ratio(cell) is the cell's
number. cases(path) returns every case of the page's "Every case" tables:
(degree mode, cluster, trace) -> policy -> column -> number, the columns
avg JCT to effective util (hours and fractions as the page prints them).
peer_names(path) is the published peers the page names; geo(xs) a
geometric mean. scripts/goals.py, scripts/oracle-band.py and
scripts/oracle-worth.py read pages with it. paired(path, policy, other, mode) is the geometric mean over
the mode's cases of policy's average JCT over other's, with its 95%
interval: Student's t on the cases' log ratios, the quantile from the
Cornish-Fisher expansion to its third term (within 0.001 of the table
from 10 cases up).
"""
import math
import re
import sys

COLUMNS = ["avg JCT", "p95 JCT", "makespan", "GPU util", "effective util", "worst makespan"]


def summaries(path):
    out, group = {}, None
    for n, line in enumerate(open(path), 1):
        m = re.match(r"## \S+ vs each policy: (.*) \((\d+) cases\)", line)
        if m:
            group = m.group(1)
            out[group] = {}
            continue
        if line.startswith("## "):
            group = None
        if group and line.startswith("| ") and not line.startswith("| policy") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(COLUMNS) + 1:
                sys.exit("%s:%d: %d cells, want %d" % (path, n, len(cells), len(COLUMNS) + 1))
            out[group][cells[0]] = dict(zip(COLUMNS, cells[1:]))
    return out


PEER_COLUMNS = ["avg JCT / best peer", "makespan / best peer", "worst makespan / best peer"]


def peers(path):
    """The "Over the strongest peer" tables: group -> policy -> column -> cell."""
    out, group, inside = {}, None, False
    for n, line in enumerate(open(path), 1):
        if line.startswith("## "):
            inside = line.startswith("## Over the strongest peer")
            group = None
            continue
        m = re.match(r"### (.*) \((\d+) cases\)", line)
        if inside and m:
            group = m.group(1)
            out[group] = {}
            continue
        if inside and group and line.startswith("| ") and not line.startswith("| policy") and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(PEER_COLUMNS) + 1:
                sys.exit("%s:%d: %d cells, want %d" % (path, n, len(cells), len(PEER_COLUMNS) + 1))
            out[group][cells[0]] = dict(zip(PEER_COLUMNS, cells[1:]))
    return out


def peer_names(path):
    """The published peers the page compares with, from its "The peers:"
    line (the sweep writes it), in the page's order."""
    for line in open(path):
        if line.startswith("The peers: "):
            return [x.strip() for x in line[len("The peers: "):].split(".")[0].split(",")]
    sys.exit("%s: no 'The peers:' line" % path)


def ratio(cell):
    return float(cell.split()[0])


def geo(xs):
    """The geometric mean of xs (positive numbers)."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


CASE_COLUMNS = ["avg JCT", "p95 JCT", "makespan", "GPU util", "effective util"]


def cases(path):
    out, where, trace = {}, None, None
    for n, line in enumerate(open(path), 1):
        m = re.match(r"## Every case on degree (\S+), (\S+)$", line.strip())
        if m:
            where, trace = m.groups(), None
            continue
        if line.startswith("## "):
            where = None
        if not where or not line.startswith("| ") or line.startswith("| trace") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 + len(CASE_COLUMNS) + 1:
            sys.exit("%s:%d: %d cells, want %d" % (path, n, len(cells), 4 + len(CASE_COLUMNS) + 1))
        if cells[0]:
            trace = cells[0]
        if trace is None:
            sys.exit("%s:%d: a policy row before any trace" % (path, n))
        try:
            values = [float(c) for c in cells[4:4 + len(CASE_COLUMNS)]]
        except ValueError:
            continue  # the policy completed no job: nothing to compare
        out.setdefault((where[0], where[1], trace), {})[cells[3]] = dict(zip(CASE_COLUMNS, values))
    return out


def t95(df):
    z = 1.959964
    return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))


def paired(path, policy, other, mode, page=None):
    page = cases(path) if page is None else page
    logs = [math.log(c[policy]["avg JCT"] / c[other]["avg JCT"]) for k, c in page.items()
            if k[0] == mode and policy in c and other in c]
    n = len(logs)
    if n < 2:
        sys.exit("%s: %d cases of %s and %s in degree %s, want 2 or more" % (path, n, policy, other, mode))
    m = sum(logs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in logs) / (n - 1))
    h = t95(n - 1) * sd / math.sqrt(n)
    return n, math.exp(m), math.exp(m - h), math.exp(m + h)
