"""Reads the summaries of a `coloc simulate sweep` page.

summaries(path) returns, in page order, each summary's group ("degree
trace, all clusters", "degree policy, gavel-16", ...) mapped to its rows:
policy -> column -> cell text ("0.548 (60)"). ratio(cell) is the cell's
number. scripts/goals.py and scripts/oracle-band.py read pages with it.
"""
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


def ratio(cell):
    return float(cell.split()[0])
