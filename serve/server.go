package serve

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coloc-dev/coloc/integrations/slurm"
	"github.com/coloc-dev/coloc/model"
	"github.com/coloc-dev/coloc/place"
	"github.com/coloc-dev/coloc/place/cluster"
	"github.com/coloc-dev/coloc/place/decide"
	"github.com/coloc-dev/coloc/place/jobs"
	"github.com/coloc-dev/coloc/policy"
	"github.com/coloc-dev/coloc/sim/policies"
)

// Options configure a Server.
type Options struct {
	Models string   // model directory written by `coloc fit`
	Data   []string // dataset directories the models were fit on
	// MaxBody is the largest request body in bytes (0: DefaultMaxBody).
	MaxBody int64
	// Timeout bounds a request's handling (0: DefaultTimeout).
	Timeout time.Duration
	// Drain bounds the wait for requests in flight at a stop (0:
	// DefaultDrain).
	Drain time.Duration
	// Watch is how often the model index is checked for a change (0:
	// never).
	Watch time.Duration
	// Log gets one line per reload and stop (nil: none).
	Log io.Writer
	// Slurm, with Poll > 0, reads a Slurm cluster in the background and
	// answers its submit hook at POST /v1/slurm/place.
	Slurm slurm.Options
}

// Defaults of Options.
const (
	DefaultMaxBody = 1 << 20
	DefaultTimeout = 30 * time.Second
	DefaultDrain   = 10 * time.Second
)

// state is what one load read: requests use the state they started with.
type state struct {
	mu      sync.Mutex // the models memoize: one request at a time uses them
	loaded  []*model.Loaded
	models  *place.Models
	data    *place.Data
	version string // SHA-256 of index.json, 12 hex digits
	stamp   fileStamp
	at      time.Time
}

type fileStamp struct {
	size int64
	mod  time.Time
}

// Server answers the endpoints of the package doc.
type Server struct {
	opt     Options
	slurm   *slurm.Cluster // nil unless Options.Slurm.Poll > 0
	st      atomic.Pointer[state]
	metrics *metrics
	handler http.Handler
}

// New loads the models and data and returns a server ready to answer.
func New(o Options) (*Server, error) {
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Drain <= 0 {
		o.Drain = DefaultDrain
	}
	s := &Server{opt: o, metrics: newMetrics()}
	st, err := load(o)
	if err != nil {
		return nil, err
	}
	s.st.Store(st)
	mux := http.NewServeMux()
	mux.Handle("/v1/predict", s.endpoint("/v1/predict", http.MethodPost, s.predict))
	mux.Handle("/v1/decide", s.endpoint("/v1/decide", http.MethodPost, s.decide))
	mux.Handle("/v1/score", s.endpoint("/v1/score", http.MethodPost, s.score))
	if o.Slurm.Poll > 0 {
		s.slurm = slurm.NewCluster(o.Slurm)
		mux.Handle("/v1/slurm/place", s.endpoint("/v1/slurm/place", http.MethodPost, s.slurmPlace))
	}
	mux.Handle("/healthz", s.endpoint("/healthz", http.MethodGet, func(w http.ResponseWriter, r *http.Request) error {
		_, err := io.WriteString(w, "ok\n")
		return err
	}))
	// New loads the models before the server can listen, and a failed
	// reload keeps the loaded ones: once it answers, it is ready, unless
	// it serves a Slurm cluster it has not read yet.
	mux.Handle("/readyz", s.endpoint("/readyz", http.MethodGet, func(w http.ResponseWriter, r *http.Request) error {
		if s.slurm != nil && s.slurm.Polled().IsZero() {
			return &reqError{code: http.StatusServiceUnavailable, msg: "the Slurm cluster has not been read yet (sinfo --json, squeue --json)"}
		}
		_, err := io.WriteString(w, "ready\n")
		return err
	}))
	mux.Handle("/metrics", s.endpoint("/metrics", http.MethodGet, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		return s.metrics.write(w, s.st.Load())
	}))
	mux.Handle("/", s.endpoint("other", "", func(w http.ResponseWriter, r *http.Request) error {
		return &reqError{code: http.StatusNotFound, msg: fmt.Sprintf("no endpoint %s (see coloc serve --help)", r.URL.Path)}
	}))
	s.handler = http.TimeoutHandler(mux, o.Timeout, `{"error":"the request took longer than the server's --timeout"}`)
	return s, nil
}

func load(o Options) (*state, error) {
	if o.Models == "" || len(o.Data) == 0 {
		return nil, fmt.Errorf("serve: both a model directory and a dataset are needed")
	}
	for _, d := range o.Data {
		if _, err := place.CheckFitData(o.Models, d); err != nil {
			return nil, err
		}
	}
	idx := filepath.Join(o.Models, model.IndexFile)
	b, err := os.ReadFile(idx)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(idx)
	if err != nil {
		return nil, err
	}
	loaded, err := model.LoadDir(o.Models, nil)
	if err != nil {
		return nil, err
	}
	ms, err := place.LoadModels(o.Models, place.DefaultModelNames)
	if err != nil {
		return nil, err
	}
	data, err := place.LoadData(o.Data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	return &state{loaded: loaded, models: ms, data: data, version: hex.EncodeToString(sum[:6]),
		stamp: fileStamp{fi.Size(), fi.ModTime()}, at: time.Now()}, nil
}

// Handler is the server's HTTP handler, for tests and embedding.
func (s *Server) Handler() http.Handler { return s.handler }

// Version is the loaded models' version: the start of the SHA-256 of
// their index.json.
func (s *Server) Version() string { return s.st.Load().version }

// Reload loads the models and data again and swaps them in whole; on an
// error the state serving stays.
func (s *Server) Reload() error {
	st, err := load(s.opt)
	if err != nil {
		s.metrics.reload(false)
		s.logf("reload failed, still serving models %s: %v", s.Version(), err)
		return err
	}
	s.st.Store(st)
	s.metrics.reload(true)
	s.logf("reloaded: models %s", st.version)
	return nil
}

func (s *Server) logf(format string, a ...any) {
	if s.opt.Log != nil {
		fmt.Fprintf(s.opt.Log, "coloc serve: "+format+"\n", a...)
	}
}

// changed reports whether the model index differs from the loaded one.
func (s *Server) changed() bool {
	fi, err := os.Stat(filepath.Join(s.opt.Models, model.IndexFile))
	if err != nil {
		return false
	}
	st := s.st.Load()
	return fi.Size() != st.stamp.size || !fi.ModTime().Equal(st.stamp.mod)
}

// Run serves on the listener until ctx is done, reloading at each value of
// reload and, with Options.Watch, when the model index changes; then it
// stops accepting and waits for the requests in flight (up to
// Options.Drain).
func (s *Server) Run(ctx context.Context, ln net.Listener, reload <-chan struct{}) error {
	srv := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: s.opt.Timeout, WriteTimeout: s.opt.Timeout + 5*time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if s.slurm != nil {
		pctx, stop := context.WithCancel(ctx)
		defer stop()
		go s.slurm.Run(pctx, s.logf)
	}
	var tick <-chan time.Time
	if s.opt.Watch > 0 {
		t := time.NewTicker(s.opt.Watch)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case err := <-done:
			return err
		case <-reload:
			s.Reload()
		case <-tick:
			if s.changed() {
				s.Reload()
			}
		case <-ctx.Done():
			s.logf("stopping: draining requests in flight (up to %v)", s.opt.Drain)
			dctx, cancel := context.WithTimeout(context.Background(), s.opt.Drain)
			defer cancel()
			if err := srv.Shutdown(dctx); err != nil {
				return fmt.Errorf("serve: requests still in flight after %v: %w", s.opt.Drain, err)
			}
			return nil
		}
	}
}

// reqError is an answer other than 200.
type reqError struct {
	code  int
	msg   string
	field string
}

func (e *reqError) Error() string { return e.msg }

// endpoint wraps a handler: method check, body bound, metrics and errors
// as JSON.
func (s *Server) endpoint(path, method string, h func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w, code: http.StatusOK}
		var err error
		if method != "" && r.Method != method {
			rec.Header().Set("Allow", method)
			err = &reqError{code: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s %s: want %s", r.Method, path, method)}
		} else {
			r.Body = http.MaxBytesReader(rec, r.Body, s.opt.MaxBody)
			err = h(rec, r)
		}
		if err != nil {
			var re *reqError
			if !errors.As(err, &re) {
				re = &reqError{code: http.StatusInternalServerError, msg: err.Error()}
			}
			rec.Header().Set("Content-Type", "application/json")
			rec.WriteHeader(re.code)
			json.NewEncoder(rec).Encode(map[string]string{"error": re.msg, "field": re.field})
		}
		s.metrics.observe(path, rec.code, time.Since(start))
	})
}

type recorder struct {
	http.ResponseWriter
	code    int
	written bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.written {
		r.code, r.written = code, true
		r.ResponseWriter.WriteHeader(code)
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	r.written = true
	return r.ResponseWriter.Write(b)
}

// decodeBody decodes the request's JSON body into v, refusing unknown
// members and trailing data; its errors name the field.
func decodeBody(r *http.Request, v any) error {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("trailing data after the JSON object")
	}
	if err == nil {
		return nil
	}
	var mb *http.MaxBytesError
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &mb):
		return &reqError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body over the server's %d bytes", mb.Limit)}
	case errors.As(err, &te):
		return &reqError{code: http.StatusBadRequest, msg: fmt.Sprintf("%s: %s, want %s", te.Field, te.Value, te.Type), field: te.Field}
	case errors.As(err, &se):
		return &reqError{code: http.StatusBadRequest, msg: fmt.Sprintf("malformed JSON at byte %d: %v", se.Offset, err)}
	case errors.Is(err, io.EOF):
		return &reqError{code: http.StatusBadRequest, msg: "empty body: want a JSON object"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &reqError{code: http.StatusBadRequest, msg: "malformed JSON: the body ends inside a value"}
	}
	field := ""
	if rest, ok := strings.CutPrefix(err.Error(), `json: unknown field "`); ok {
		field = strings.TrimSuffix(rest, `"`)
	}
	return &reqError{code: http.StatusBadRequest, msg: err.Error(), field: field}
}

// PredictRequest is the body of POST /v1/predict.
type PredictRequest struct {
	A      string   `json:"a"`
	B      string   `json:"b"`
	Device string   `json:"device"`           // "v100", or "v100x2" for jobs spanning 2 GPUs each
	Models []string `json:"models,omitempty"` // none: every model of the directory
}

// PredictResponse is its answer: what `coloc predict --json` prints, one
// prediction per model.
type PredictResponse struct {
	A           string                 `json:"a"`
	B           string                 `json:"b"`
	Device      string                 `json:"device"`
	Version     string                 `json:"models_version"`
	Predictions []place.PairPrediction `json:"predictions"`
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) error {
	var q PredictRequest
	if err := decodeBody(r, &q); err != nil {
		return err
	}
	for _, f := range []struct{ name, v string }{{"a", q.A}, {"b", q.B}, {"device", q.Device}} {
		if f.v == "" {
			return &reqError{code: http.StatusBadRequest, msg: f.name + ": missing", field: f.name}
		}
	}
	st := s.st.Load()
	ms := st.loaded
	if len(q.Models) > 0 {
		ms = nil
		for _, l := range st.loaded {
			if slices.Contains(q.Models, l.File.Model) {
				ms = append(ms, l)
			}
		}
		if len(ms) != len(q.Models) {
			return &reqError{code: http.StatusBadRequest, msg: fmt.Sprintf("models %v: not all are in the model directory", q.Models), field: "models"}
		}
	}
	st.mu.Lock()
	rows, err := place.PredictPair(ms, q.A, q.B, q.Device)
	st.mu.Unlock()
	if err != nil {
		var uj *place.UnknownJobError
		field := "device"
		if errors.As(err, &uj) {
			field = "a"
			if uj.Job == q.B && uj.Job != q.A {
				field = "b"
			}
		}
		return &reqError{code: http.StatusBadRequest, msg: err.Error(), field: field}
	}
	return writeJSON(w, PredictResponse{A: q.A, B: q.B, Device: q.Device, Version: st.version, Predictions: rows})
}

// DecideRequest is the body of POST /v1/decide: a cluster spec and a job
// list in the formats `coloc policy export` reads (as JSON objects).
type DecideRequest struct {
	Cluster   json.RawMessage `json:"cluster"`
	Jobs      json.RawMessage `json:"jobs"`
	Durations string          `json:"durations,omitempty"`   // attained (default) or known
	MaxPerGPU int             `json:"max_per_gpu,omitempty"` // 1 or 2 (default 2)
}

// DecideResponse is its answer: one decision per job, in list order.
type DecideResponse struct {
	Version   string            `json:"models_version"`
	Objective *policy.Objective `json:"objective"`
	Decisions []policy.Decision `json:"decisions"`
	Warnings  []string          `json:"warnings,omitempty"`
}

func (s *Server) decide(w http.ResponseWriter, r *http.Request) error {
	var q DecideRequest
	if err := decodeBody(r, &q); err != nil {
		return err
	}
	if q.Durations == "" {
		q.Durations = decide.Attained
	}
	if q.Durations != decide.Attained && q.Durations != decide.Known {
		return &reqError{code: http.StatusBadRequest, msg: fmt.Sprintf("durations %q: want %s or %s", q.Durations, decide.Attained, decide.Known), field: "durations"}
	}
	if q.MaxPerGPU == 0 {
		q.MaxPerGPU = 2
	}
	if q.MaxPerGPU != 1 && q.MaxPerGPU != 2 {
		return &reqError{code: http.StatusBadRequest, msg: fmt.Sprintf("max_per_gpu %d: want 1 or 2", q.MaxPerGPU), field: "max_per_gpu"}
	}
	if len(q.Cluster) == 0 {
		return &reqError{code: http.StatusBadRequest, msg: "cluster: missing", field: "cluster"}
	}
	if len(q.Jobs) == 0 {
		return &reqError{code: http.StatusBadRequest, msg: "jobs: missing", field: "jobs"}
	}
	spec, err := cluster.Parse(bytes.NewReader(q.Cluster), "cluster")
	if err != nil {
		return &reqError{code: http.StatusBadRequest, msg: err.Error(), field: "cluster"}
	}
	list, err := jobs.Parse(bytes.NewReader(q.Jobs), "jobs")
	if err != nil {
		return &reqError{code: http.StatusBadRequest, msg: err.Error(), field: "jobs"}
	}
	th := policy.DefaultThresholds
	th.MinNormalized, th.MaxPerGPU = 0, q.MaxPerGPU
	cx := policies.CoreExport{Durations: q.Durations, MaxPerGPU: q.MaxPerGPU, Efficiency: th.ScalingEfficiency}
	st := s.st.Load()
	st.mu.Lock()
	f, err := place.Export(place.Input{Cluster: spec, Jobs: list, Data: st.data, Models: st.models},
		place.ExportOptions{Thresholds: th, Decide: cx.Decider(), DecisionsOnly: true})
	st.mu.Unlock()
	if err != nil {
		return &reqError{code: http.StatusBadRequest, msg: err.Error()}
	}
	return writeJSON(w, DecideResponse{Version: st.version, Objective: f.Objective, Decisions: f.Decisions, Warnings: f.Warnings})
}

// ScoreRequest is the body of POST /v1/score: an arriving job and the
// nodes it may go to, with their tenants.
type ScoreRequest struct {
	Job struct {
		Workload string `json:"workload"`
		Degrees  []int  `json:"degrees"`
	} `json:"job"`
	Nodes     []decide.Node `json:"nodes"`
	MaxPerGPU int           `json:"max_per_gpu,omitempty"` // 1 or 2 (default 2)
}

// ScoreResponse ranks the nodes, best first (decide.Score).
type ScoreResponse struct {
	Version string         `json:"models_version"`
	Options []ScoredOption `json:"options"`
}

// ScoredOption is a node's option (decide.Option's fields) and, when it
// shares GPUs, the node-level model's intervals of the two predicted
// normalized throughputs ([lo, hi] at the models' coverage) and their
// flags: the job's next to the partner, and the partner's next to the job.
type ScoredOption struct {
	decide.Option
	Interval        *[2]float64 `json:"predicted_interval,omitempty"`
	PartnerInterval *[2]float64 `json:"partner_interval,omitempty"`
	Flags           []string    `json:"flags,omitempty"`
}

// servedRates are the measured solo rates of the data and the node-level
// model's predicted normalized throughputs: what the core decides with.
type servedRates struct{ st *state }

func (r servedRates) Solo(w, t string, gpus int, spread bool) (float64, bool) {
	return r.st.data.Solo(w, t, gpus, spread, 0)
}

func (r servedRates) Pair(w, q, t string, gpus int) (float64, bool) {
	return r.st.models.Predict(place.NodeLevel, w, q, t, gpus)
}

func (s *Server) score(w http.ResponseWriter, r *http.Request) error {
	var q ScoreRequest
	if err := decodeBody(r, &q); err != nil {
		return err
	}
	bad := func(field, format string, a ...any) error {
		return &reqError{code: http.StatusBadRequest, msg: field + ": " + fmt.Sprintf(format, a...), field: field}
	}
	if q.Job.Workload == "" {
		return bad("job.workload", "missing")
	}
	if len(q.Job.Degrees) == 0 {
		return bad("job.degrees", "missing: the numbers of GPUs the job may run on")
	}
	for i, d := range q.Job.Degrees {
		if d < 1 || d > policy.MaxGPUsPerNode {
			return bad(fmt.Sprintf("job.degrees[%d]", i), "%d, want 1 to %d", d, policy.MaxGPUsPerNode)
		}
	}
	slices.Sort(q.Job.Degrees)
	if len(q.Nodes) == 0 {
		return bad("nodes", "missing")
	}
	for i, n := range q.Nodes {
		if n.Name == "" || n.Type == "" {
			return bad(fmt.Sprintf("nodes[%d]", i), "want a name and a gpu_type")
		}
		if n.GPUs < 1 || n.GPUs > policy.MaxGPUsPerNode {
			return bad(fmt.Sprintf("nodes[%d].gpus", i), "%d, want 1 to %d", n.GPUs, policy.MaxGPUsPerNode)
		}
		for k, t := range n.Tenants {
			for _, g := range t.GPUs {
				if g < 0 || g >= n.GPUs {
					return bad(fmt.Sprintf("nodes[%d].tenants[%d].gpus", i, k), "GPU %d, want 0 to %d", g, n.GPUs-1)
				}
			}
		}
	}
	if q.MaxPerGPU == 0 {
		q.MaxPerGPU = 2
	}
	if q.MaxPerGPU != 1 && q.MaxPerGPU != 2 {
		return bad("max_per_gpu", "%d, want 1 or 2", q.MaxPerGPU)
	}
	st := s.st.Load()
	st.mu.Lock()
	defer st.mu.Unlock()
	opts := decide.Score(servedRates{st}, q.MaxPerGPU, decide.Job{Workload: q.Job.Workload, Degrees: q.Job.Degrees}, q.Nodes)
	out := make([]ScoredOption, len(opts))
	var types map[string]string // node name -> GPU type, built when an option shares
	for i, o := range opts {
		out[i].Option = o
		if o.Partner == "" || o.Score <= 0 {
			continue
		}
		if types == nil {
			types = make(map[string]string, len(q.Nodes))
			for _, n := range q.Nodes {
				types[n.Name] = n.Type
			}
		}
		typ := types[o.Node]
		if e, ok := st.models.Estimate(place.NodeLevel, q.Job.Workload, o.Partner, typ, o.Degree); ok {
			out[i].Interval = &[2]float64{e.Lo, e.Hi}
			out[i].Flags = append(out[i].Flags, e.Flags()...)
		}
		if e, ok := st.models.Estimate(place.NodeLevel, o.Partner, q.Job.Workload, typ, o.Degree); ok {
			out[i].PartnerInterval = &[2]float64{e.Lo, e.Hi}
		}
	}
	return writeJSON(w, ScoreResponse{Version: st.version, Options: out})
}

func writeJSON(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}
