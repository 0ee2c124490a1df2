// Times apache-arrow (JavaScript) on the work the Go benchmark
// BenchmarkSamplesFile (datasets/bench_test.go) times in Go, on the same
// file, for a side-by-side ratio:
//
//   node bench.mjs write FILE N   read FILE once, then N times: encode the
//                                 table as an Arrow IPC file and write it
//                                 (temporary name, fsync, rename, as Go's
//                                 Write does)
//   node bench.mjs read FILE N    N times: read FILE, decode it and scan
//                                 every column (sum the numbers, 64-bit
//                                 integers by their 32-bit halves, the string
//                                 lengths from the offsets; count nulls)
//
// Prints one JSON line: the mode, the rows and each iteration's seconds
// (for read also the seconds to read and decode, before the scan).
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { tableFromIPC, tableToIPC } from "apache-arrow";

const [mode, path, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 1);
if (!["write", "read"].includes(mode) || !path || !(n >= 1)) {
  console.error("usage: node bench.mjs write|read FILE N");
  process.exit(2);
}

function scan(table) {
  let sum = 0, nulls = 0;
  for (const field of table.schema.fields) {
    for (const data of table.getChild(field.name).data) {
      nulls += data.nullCount;
      if (data.valueOffsets) {
        const off = data.valueOffsets;
        for (let i = 0; i < data.length; i++) sum += off[i + 1] - off[i];
      } else {
        // 64-bit integers (times) are summed by their 32-bit halves: a
        // BigInt per value would time BigInt, not Arrow.
        const v = data.values instanceof BigInt64Array
          ? new Int32Array(data.values.buffer, data.values.byteOffset, data.values.length * 2)
          : data.values;
        for (let i = 0; i < v.length; i++) sum += v[i];
      }
    }
  }
  return [sum, nulls];
}

const times = [];
const decode = []; // read: the seconds before the scan
let rows = 0;
if (mode === "write") {
  const table = tableFromIPC(readFileSync(path));
  rows = table.numRows;
  const out = path + ".js-out";
  for (let k = 0; k < n; k++) {
    const t0 = process.hrtime.bigint();
    const bytes = tableToIPC(table, "file");
    const tmp = out + ".tmp";
    const fd = openSync(tmp, "w");
    writeSync(fd, bytes);
    fsyncSync(fd);
    closeSync(fd);
    renameSync(tmp, out);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
} else {
  for (let k = 0; k < n; k++) {
    const t0 = process.hrtime.bigint();
    const table = tableFromIPC(readFileSync(path));
    rows = table.numRows;
    decode.push(Number(process.hrtime.bigint() - t0) / 1e9);
    scan(table);
    times.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
}
console.log(JSON.stringify(mode === "read" ? { mode, rows, seconds: times, decode_seconds: decode } : { mode, rows, seconds: times }));
