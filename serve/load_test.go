package serve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	loadRate = flag.Int("serve.load", 0, "TestLoad: requests per second to send (0: skip the load test)")
	loadFor  = flag.Duration("serve.load-for", 20*time.Second, "TestLoad: how long to send")
)

// TestLoad is a load test to run by hand, not a check: it serves the
// reference data's models on a real socket and sends POST /v1/score
// requests (one job against 100 nodes of 8 GPUs with three tenants each,
// about 20 KB) at a fixed rate, open loop: each request's latency counts
// from when it was due, so a server that falls behind shows it. It prints
// the rate reached and the latency percentiles, and fails only on errors.
//
//	go test ./serve -run TestLoad -serve.load 1000 -v
//
// The sender runs in the same process, on the same cores as the server.
func TestLoad(t *testing.T) {
	if *loadRate <= 0 {
		t.Skip("a load test: go test ./serve -run TestLoad -serve.load 1000 -v")
	}
	s := newServer(t, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln, nil) }()
	defer func() { cancel(); <-done }()

	var sb strings.Builder
	sb.WriteString(`{"job": {"workload": "ResNet-50 (batch size 64)", "degrees": [1, 2]}, "nodes": [`)
	types := []string{"v100", "p100", "k80"}
	for i := range 100 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name": "n%d", "gpu_type": %q, "gpus": 8, "tenants": [{"workload": "LM (batch size 20)", "gpus": [0, 1]}, {"workload": "ResNet-18 (batch size 16)", "gpus": [2]}, {"workload": "A3C", "gpus": [3]}]}`, i, types[i%3])
	}
	sb.WriteString("]}")
	body := sb.String()
	url := "http://" + ln.Addr().String() + "/v1/score"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 512}, Timeout: 10 * time.Second}

	n := int(float64(*loadRate) * loadFor.Seconds())
	lat := make([]time.Duration, n)
	var errs []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	interval := time.Second / time.Duration(*loadRate)
	for i := range n {
		due := start.Add(time.Duration(i) * interval)
		time.Sleep(time.Until(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(url, "application/json", strings.NewReader(body))
			if err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			lat[i] = time.Since(due)
			if err != nil {
				mu.Lock()
				errs = append(errs, err.Error())
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	took := time.Since(start)
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[min(n-1, int(p*float64(n)))] }
	t.Logf("%d requests in %.1f s: %.0f/s; latency p50 %v, p90 %v, p99 %v, max %v; %d errors",
		n, took.Seconds(), float64(n)/took.Seconds(), q(0.5), q(0.9), q(0.99), lat[n-1], len(errs))
	if len(errs) > 0 {
		t.Errorf("%d of %d requests failed, the first: %s", len(errs), n, errs[0])
	}
}
