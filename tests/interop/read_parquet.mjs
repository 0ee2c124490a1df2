// Reads a Parquet file written by `coloc datasets export --format parquet`
// with hyparquet (a JavaScript Parquet reader, zstd through
// hyparquet-compressors) and prints, as one JSON object, the row count, the
// column names and the values of the first and last rows (null where
// null). The Go test datasets/interop_parquet_test.go compares this with
// the table it exported.
import { readFileSync } from "node:fs";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { compressors } from "hyparquet-compressors";

const buf = readFileSync(process.argv[2]);
const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
const meta = parquetMetadata(file);
const rows = await parquetReadObjects({ file, compressors });
const plain = (v) => (typeof v === "bigint" ? Number(v) : v instanceof Date ? v.getTime() : v);
const row = (r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
console.log(JSON.stringify({
  rows: Number(meta.num_rows),
  columns: meta.schema.slice(1).map((s) => s.name),
  first: row(rows[0]),
  last: row(rows[rows.length - 1]),
}));
