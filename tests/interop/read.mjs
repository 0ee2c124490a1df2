// Reads a coloc Arrow IPC file with apache-arrow (JavaScript) and prints,
// as one JSON object, what an independent implementation sees: the table
// name and version from the schema metadata, the row count, each column's
// unit, and the values of the first and last rows (null where null). The Go test
// datasets/interop_test.go compares this with what the Go reader reads.
import { readFileSync } from "node:fs";
import { tableFromIPC } from "apache-arrow";

const path = process.argv[2];
const table = tableFromIPC(readFileSync(path));
const meta = table.schema.metadata;
const units = {};
const first = {};
const last = {};
const plain = (v) => (typeof v === "bigint" ? Number(v) : v);
for (const field of table.schema.fields) {
  units[field.name] = field.metadata.get("unit") ?? null;
  const col = table.getChild(field.name);
  first[field.name] = plain(col.get(0));
  last[field.name] = plain(col.get(table.numRows - 1));
}
console.log(JSON.stringify({
  table: meta.get("coloc.table"),
  version: meta.get("coloc.version"),
  rows: table.numRows,
  units,
  first,
  last,
}));
