package serve

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"
)

// buckets are the upper bounds, in seconds, of the latency histogram.
var buckets = []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// metrics counts requests by path and status, their latencies by path,
// and reloads by result.
type metrics struct {
	mu       sync.Mutex
	requests map[[2]string]uint64 // {path, code}
	hist     map[string]*histogram
	reloads  map[string]uint64
}

type histogram struct {
	counts []uint64 // per bucket, not cumulative; the last is +Inf
	sum    float64
	n      uint64
}

func newMetrics() *metrics {
	return &metrics{requests: map[[2]string]uint64{}, hist: map[string]*histogram{}, reloads: map[string]uint64{"ok": 0, "error": 0}}
}

func (m *metrics) observe(path string, code int, d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests[[2]string{path, strconv.Itoa(code)}]++
	h := m.hist[path]
	if h == nil {
		h = &histogram{counts: make([]uint64, len(buckets)+1)}
		m.hist[path] = h
	}
	sec := d.Seconds()
	i := sort.SearchFloat64s(buckets, sec)
	h.counts[i]++
	h.sum += sec
	h.n++
}

func (m *metrics) reload(ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ok {
		m.reloads["ok"]++
	} else {
		m.reloads["error"]++
	}
}

// write writes the metrics in Prometheus text format 0.0.4.
func (m *metrics) write(w io.Writer, st *state) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# HELP coloc_serve_requests_total Requests answered, by endpoint and HTTP status.\n# TYPE coloc_serve_requests_total counter\n")
	keys := make([][2]string, 0, len(m.requests))
	for k := range m.requests {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range keys {
		p("coloc_serve_requests_total{path=%q,code=%q} %d\n", k[0], k[1], m.requests[k])
	}
	p("# HELP coloc_serve_request_duration_seconds Time to answer a request, by endpoint.\n# TYPE coloc_serve_request_duration_seconds histogram\n")
	paths := make([]string, 0, len(m.hist))
	for k := range m.hist {
		paths = append(paths, k)
	}
	sort.Strings(paths)
	for _, path := range paths {
		h := m.hist[path]
		var cum uint64
		for i, le := range buckets {
			cum += h.counts[i]
			p("coloc_serve_request_duration_seconds_bucket{path=%q,le=%q} %d\n", path, strconv.FormatFloat(le, 'g', -1, 64), cum)
		}
		p("coloc_serve_request_duration_seconds_bucket{path=%q,le=\"+Inf\"} %d\n", path, h.n)
		p("coloc_serve_request_duration_seconds_sum{path=%q} %g\n", path, h.sum)
		p("coloc_serve_request_duration_seconds_count{path=%q} %d\n", path, h.n)
	}
	p("# HELP coloc_serve_reloads_total Reloads of the models and data, by result.\n# TYPE coloc_serve_reloads_total counter\n")
	for _, r := range []string{"error", "ok"} {
		p("coloc_serve_reloads_total{result=%q} %d\n", r, m.reloads[r])
	}
	if st != nil {
		p("# HELP coloc_serve_models_info The models served: their directory and version (SHA-256 of index.json).\n# TYPE coloc_serve_models_info gauge\n")
		p("coloc_serve_models_info{dir=%q,version=%q} 1\n", st.models.Dir, st.version)
		p("# HELP coloc_serve_models_loaded_timestamp_seconds When the models served were loaded, in Unix seconds.\n# TYPE coloc_serve_models_loaded_timestamp_seconds gauge\n")
		p("coloc_serve_models_loaded_timestamp_seconds %d\n", st.at.Unix())
	}
	return nil
}
