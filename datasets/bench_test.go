package datasets

import (
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/internal/atomicfile"
)

// benchSamples builds a samples table of n rows shaped like a campaign's:
// 10 runs, one device, 12 NVML-like counters, some nulls.
func benchSamples(n int) *Table {
	counters := []Counter{
		{"gpu_util", "%"}, {"mem_util", "%"}, {"mem_used", "bytes"}, {"sm_clock", "MHz"},
		{"mem_clock", "MHz"}, {"power", "W"}, {"temperature", "C"}, {"pcie_tx", "bytes/s"},
		{"pcie_rx", "bytes/s"}, {"gpm_sm_util", "%"}, {"gpm_tensor_util", "%"}, {"gpm_dram_bw_util", "%"},
	}
	s := NewSamples(counters)
	rng := rand.New(rand.NewSource(1))
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	vals := make([]float64, len(counters))
	runs := []string{"solo-a-r0", "solo-b-r0", "pair-a-b-r0", "pair-a-c-r0", "solo-c-r0", "scale-a-2-r0", "pair-b-c-r0", "solo-a-r1", "solo-b-r1", "solo-c-r1"}
	per := n / len(runs)
	for i := 0; i < n; i++ {
		for j := range vals {
			vals[j] = rng.Float64() * 100
		}
		if i%50 == 0 {
			vals[10] = nan
		}
		r := min(i/per, len(runs)-1)
		s.Append(runs[r], 0, "", t0.Add(time.Duration(i)*100*time.Millisecond), vals)
	}
	return s.Table()
}

// BenchmarkSamples1M writes and reads a 1M-row samples table as Arrow IPC
// and as CSV (encoding/csv through WriteCSV / ImportCSV). Both paths
// validate on read. Reported: rows/s and file bytes.
func BenchmarkSamples1M(b *testing.B) {
	const n = 1_000_000
	tab := benchSamples(n)
	dir := b.TempDir()
	arrowPath, csvPath := filepath.Join(dir, "samples.arrow"), filepath.Join(dir, "samples.csv")
	size := func(p string) float64 {
		st, err := os.Stat(p)
		if err != nil {
			b.Fatal(err)
		}
		return float64(st.Size())
	}
	b.Run("arrow-write", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := Write(arrowPath, tab); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(size(arrowPath), "bytes")
	})
	b.Run("arrow-read", func(b *testing.B) {
		if err := Write(arrowPath, tab); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := Read(arrowPath); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("csv-write", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := atomicfile.Write(csvPath, func(w io.Writer) error { return WriteCSV(w, tab) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
		b.ReportMetric(size(csvPath), "bytes")
	})
	b.Run("csv-read", func(b *testing.B) {
		if err := atomicfile.Write(csvPath, func(w io.Writer) error { return WriteCSV(w, tab) }); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			f, err := os.Open(csvPath)
			if err != nil {
				b.Fatal(err)
			}
			_, err = ImportCSV(f, csvPath, KindSamples)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}

// BenchmarkSamplesFile times Write and Read on the samples table file
// named by COLOC_BENCH_SAMPLES (written there first, 1M rows of
// benchSamples, when missing), for a side-by-side ratio with
// tests/interop/bench.mjs, which times apache-arrow for JavaScript on the
// same file and the same work (docs/performance.md):
//
//	write: the table is read once, untimed; each iteration writes it
//	       (validation, encoding, fsync, rename) to FILE.go-out
//	read:  each iteration reads and validates FILE into a Table
//
// Skipped when the variable is unset.
func BenchmarkSamplesFile(b *testing.B) {
	path := os.Getenv("COLOC_BENCH_SAMPLES")
	if path == "" {
		b.Skip("COLOC_BENCH_SAMPLES names no file")
	}
	if _, err := os.Stat(path); os.IsNotExist(err) {
		if err := Write(path, benchSamples(1_000_000)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("write", func(b *testing.B) {
		tab, err := Read(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := Write(path+".go-out", tab); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(tab.Len()*b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("read", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := Read(path); err != nil {
				b.Fatal(err)
			}
		}
	})
}
