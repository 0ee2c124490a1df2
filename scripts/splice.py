#!/usr/bin/python3
"""Replaces what lies between a document's generated-table markers.

Usage: scripts/splice.py DOC NAME FILE

The text of FILE goes between the lines "<!-- NAME: begin -->" and
"<!-- NAME: end -->" of DOC; everything else of DOC is kept. A document
without both markers, in that order, is refused and left unchanged. The
scripts that generate tables for docs/ (risk-sim.sh, assume-sim.sh) use it.
"""
import sys

if len(sys.argv) != 4:
    sys.exit("usage: scripts/splice.py DOC NAME FILE")
doc, name, table = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
begin, end = "<!-- %s: begin -->\n" % name, "<!-- %s: end -->\n" % name
text = open(doc).read()
a, b = text.find(begin), text.find(end)
if a < 0 or b < a:
    sys.exit("%s: no %s markers (%r ... %r)" % (doc, name, begin.strip(), end.strip()))
open(doc, "w").write(text[:a + len(begin)] + table + text[b:])
