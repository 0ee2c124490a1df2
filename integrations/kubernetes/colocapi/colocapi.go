// Package colocapi is a client of coloc serve's POST /v1/score, the one
// endpoint the Kubernetes integration asks.
//
// The request and answer types mirror the JSON of coloc serve (serve.ScoreRequest
// and decide.Option of the main module) instead of importing them: this
// module is built with the Kubernetes modules and the main module with the
// NVML bindings and the Arrow readers, and neither should carry the other's
// dependencies. The JSON field names are the contract; the tests of this
// module check them against a running coloc serve.
package colocapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Job is the arriving job: its workload and the numbers of GPUs it may run
// on.
type Job struct {
	Workload string `json:"workload"`
	Degrees  []int  `json:"degrees"`
}

// Tenant is a job already on a node and the node's GPU indices it holds.
// An empty Workload holds its GPUs but is never a partner.
type Tenant struct {
	Workload string `json:"workload"`
	GPUs     []int  `json:"gpus"`
}

// Node is one machine: its coloc GPU type, GPU count and tenants.
// Exclusive says its GPUs cannot be split (the device plugin advertises
// one device per GPU): coloc then offers only free GPUs there.
type Node struct {
	Name      string   `json:"name"`
	GPUType   string   `json:"gpu_type"`
	GPUs      int      `json:"gpus"`
	Tenants   []Tenant `json:"tenants,omitempty"`
	Exclusive bool     `json:"exclusive,omitempty"`
}

// ScoreRequest is the body of POST /v1/score.
type ScoreRequest struct {
	Job       Job    `json:"job"`
	Nodes     []Node `json:"nodes"`
	MaxPerGPU int    `json:"max_per_gpu,omitempty"`
}

// Option is a node's best option for the job; Score 0 means none, Reason
// says why.
type Option struct {
	Node              string  `json:"node"`
	GPUs              []int   `json:"gpus"`
	Degree            int     `json:"degree"`
	Partner           string  `json:"partner,omitempty"`
	Normalized        float64 `json:"predicted_normalized"`
	PartnerNormalized float64 `json:"partner_normalized,omitempty"`
	Score             float64 `json:"score"`
	Reason            string  `json:"reason"`
}

// ScoreResponse ranks the nodes, best first.
type ScoreResponse struct {
	ModelsVersion string   `json:"models_version"`
	Options       []Option `json:"options"`
}

// Best returns the option coloc ranks first, if it has a positive score.
func (r *ScoreResponse) Best() (Option, bool) {
	if len(r.Options) == 0 || !(r.Options[0].Score > 0) {
		return Option{}, false
	}
	return r.Options[0], true
}

// DefaultTimeout bounds one call when Client.Timeout is 0.
const DefaultTimeout = 5 * time.Second

// Client asks one coloc serve.
type Client struct {
	// URL is coloc serve's base URL, e.g. http://127.0.0.1:8080.
	URL string
	// Timeout bounds one call (0: DefaultTimeout).
	Timeout time.Duration
	// HTTP is the client used (nil: http.DefaultClient).
	HTTP *http.Client
}

// Error is an answer of coloc serve other than 200.
type Error struct {
	Status int
	Msg    string // the answer's "error" field, or its body
	Field  string // the answer's "field", where it names one
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("coloc serve answered %d: %s (field %s)", e.Status, e.Msg, e.Field)
	}
	return fmt.Sprintf("coloc serve answered %d: %s", e.Status, e.Msg)
}

// Score sends q to POST /v1/score and returns the ranked options. The
// answer is checked to name each node of q once.
func (c *Client) Score(ctx context.Context, q *ScoreRequest) (*ScoreResponse, error) {
	if c.URL == "" {
		return nil, errors.New("colocapi: no coloc serve URL")
	}
	body, err := json.Marshal(q)
	if err != nil {
		return nil, fmt.Errorf("colocapi: encoding the score request: %w", err)
	}
	to := c.Timeout
	if to <= 0 {
		to = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	url := strings.TrimRight(c.URL, "/") + "/v1/score"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("colocapi: %s: %w", url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("colocapi: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("colocapi: reading the answer of %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
			Field string `json:"field"`
		}
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return nil, &Error{Status: resp.StatusCode, Msg: e.Error, Field: e.Field}
	}
	var out ScoreResponse
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("colocapi: decoding the answer of %s: %w", url, err)
	}
	seen := make(map[string]bool, len(out.Options))
	for i, o := range out.Options {
		if seen[o.Node] {
			return nil, fmt.Errorf("colocapi: the answer of %s names node %q twice (options[%d])", url, o.Node, i)
		}
		seen[o.Node] = true
	}
	for _, n := range q.Nodes {
		if !seen[n.Name] {
			return nil, fmt.Errorf("colocapi: the answer of %s has no option for node %q", url, n.Name)
		}
	}
	return &out, nil
}
