package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coloc-dev/coloc/integrations/slurm"
)

// recordedSlurm answers sinfo and squeue with what Slurm 22.05 printed on
// the test cluster (four GPU nodes, two v100 and two k80).
func recordedSlurm(t *testing.T) slurm.Options {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range []string{"sinfo", "squeue"} {
		b, err := os.ReadFile("../integrations/slurm/testdata/" + name + "-22.05.json")
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	return slurm.Options{Poll: time.Hour, Run: func(ctx context.Context, name string, args ...string) ([]byte, error) {
		return out[name], nil
	}}
}

// /v1/slurm/place: not ready before the first poll; then key=value lines
// the hook reads, the first job alone on a v100, a job the core cannot
// place answered "none" with the reason, a request without a workload 400.
func TestSlurmPlace(t *testing.T) {
	s := newServer(t, Options{Slurm: recordedSlurm(t)})
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/readyz", nil))
	if w.Code != http.StatusServiceUnavailable {
		t.Errorf("readyz before a poll: %d", w.Code)
	}
	if err := s.slurm.Poll(context.Background()); err != nil {
		t.Fatal(err)
	}
	form := func(body string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/v1/slurm/place", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		s.Handler().ServeHTTP(w, r)
		return w
	}
	w = form("comment=coloc%3A+workload%3DResNet-50+%28batch+size+64%29&tres_per_node=gres%3Agpu%3A1&partition=&tres_per_job=")
	body := w.Body.String()
	for _, want := range []string{"decision=place\n", "node=coloc-v100-1\n", "partition=coloc-gpu\n", "tres_per_node=gres:gpu:v100:1\n", "admin_comment=coloc:v1 id=", "reason=alone on 1 free v100"} {
		if w.Code != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("%d %q, want %q", w.Code, body, want)
		}
	}
	if w = form("workload=A3C&tres_per_node=gres%3Agpu%3A3"); w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "decision=none\nreason=") {
		t.Errorf("A3C on 3 GPUs: %d %q, want none with a reason", w.Code, w.Body.String())
	}
	if w = form("comment=just+a+job&tres_per_node=gres%3Agpu%3A1"); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"field":"workload"`) {
		t.Errorf("no workload: %d %q", w.Code, w.Body.String())
	}
	// Without --slurm-poll there is no such endpoint.
	w = httptest.NewRecorder()
	newServer(t, Options{}).Handler().ServeHTTP(w, httptest.NewRequest("POST", "/v1/slurm/place", strings.NewReader("workload=A3C")))
	if w.Code != http.StatusNotFound {
		t.Errorf("without Slurm: %d", w.Code)
	}
}
