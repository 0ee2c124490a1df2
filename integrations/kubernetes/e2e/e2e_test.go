// Package e2e runs coloc-scheduler against a real API server: etcd, a
// kube-apiserver built from k8s.io/kubernetes, the scheduler binary with
// coloc's plugin, and a real coloc serve on models fit from the reference
// data. GPU-labelled Nodes and workload-annotated Pods are created through
// the API one pod at a time; before each pod the test asks coloc serve
// itself (POST /v1/score) about the state it reads from the API, and the
// binding the scheduler makes must be coloc's first option: the same node,
// and the same GPU indices in coloc.dev/gpus. There is no kubelet: bound
// pods stay Pending, and the test reads the binding.
//
// It skips, saying what is missing, when etcd or Go is not found or the
// builds fail, unless COLOC_REQUIRE_KUBE=1 (CI), where that fails it.
package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
)

// missing skips the test, or fails it under COLOC_REQUIRE_KUBE=1. A skip
// is appended to the file COLOC_SKIP_LOG names, as a line "kubernetes:
// test: why", so that make test lists it with the other optional parts
// that were skipped (the main module's internal/optional writes the same
// lines; this module cannot import it).
func missing(t *testing.T, format string, a ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, a...)
	if os.Getenv("COLOC_REQUIRE_KUBE") == "1" {
		t.Fatalf("COLOC_REQUIRE_KUBE=1 but %s", msg)
	}
	if path := os.Getenv("COLOC_SKIP_LOG"); path != "" {
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "kubernetes: %s: %s\n", t.Name(), strings.Join(strings.Fields(msg), " "))
			f.Close()
		}
	}
	t.Skipf("skipping the Kubernetes end-to-end test: %s (COLOC_REQUIRE_KUBE=1 makes this a failure)", msg)
}

func goTool(t *testing.T) string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		missing(t, "no go command on PATH or in GOROOT (export PATH=/usr/local/go/bin:$PATH)")
	}
	return p
}

// run runs a command and fails the test with its output on error.
func run(t *testing.T, dir string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// proc is a started process whose output goes to a log file; stop ends it
// with SIGTERM, then SIGKILL past a grace period.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

func start(t *testing.T, dir, name, bin string, args ...string) *proc {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { p.err = cmd.Wait(); f.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			if len(b) > 6000 {
				b = b[len(b)-6000:]
			}
			t.Logf("--- the end of %s's log:\n%s", name, b)
		}
	})
	return p
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (p *proc) stop() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// waitFor polls f every interval until it returns true or the timeout;
// the timeouts are generous (CI runs at load above 10 on two cores).
func waitFor(t *testing.T, what string, timeout time.Duration, f func() (bool, error)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		ok, err := f()
		if ok {
			return
		}
		last = err
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s: not within %s (last error: %v)", what, timeout, last)
}

const (
	workDirEnv          = "COLOC_KUBE_E2E_DIR" // keep the binaries and models here between runs
	schedulerNm         = "coloc-scheduler"
	extenderSchedulerNm = "coloc-extender-scheduler"
)

// build returns kube-apiserver, coloc-scheduler and coloc (coloc-extender
// is built beside them), built with go build (the Go build cache makes a
// second build take seconds).
func build(t *testing.T, dir string) (apiserver, scheduler, coloc string) {
	gobin := goTool(t)
	module, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	repo := filepath.Join(module, "..", "..")
	start := time.Now()
	cmd := exec.Command(gobin, "build", "-o", dir+string(filepath.Separator), "k8s.io/kubernetes/cmd/kube-apiserver", "./cmd/coloc-scheduler", "./cmd/coloc-extender")
	cmd.Dir = module
	if out, err := cmd.CombinedOutput(); err != nil {
		missing(t, "building kube-apiserver, coloc-scheduler and coloc-extender failed (go build in %s; the first build downloads about 140 MB of modules and takes about 12 minutes on two cores): %v\n%s", module, err, out)
	}
	cmd = exec.Command(gobin, "build", "-o", filepath.Join(dir, "coloc"), "./cmd/coloc")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		missing(t, "building coloc failed (go build ./cmd/coloc in %s): %v\n%s", repo, err, out)
	}
	t.Logf("built kube-apiserver, coloc-scheduler, coloc-extender and coloc in %s", time.Since(start).Round(time.Second))
	return filepath.Join(dir, "kube-apiserver"), filepath.Join(dir, "coloc-scheduler"), filepath.Join(dir, "coloc")
}

// The cluster of the test: two GPU types and more; every GPU node shares
// its GPUs two ways (time-slicing replicas 2), so every option coloc gives
// is one the node can honour and each binding must be coloc's first.
type testNode struct {
	name, product, colocType string
	gpus                     int
	countLabel               bool // GPU count from nvidia.com/gpu.count, else from allocatable
}

var nodes = []testNode{
	{"k80-a", "Tesla-K80", "k80", 4, true},
	{"p100-a", "Tesla-P100-PCIE-16GB", "p100", 2, false},
	{"v100-a", "Tesla-V100-SXM2-16GB", "v100", 4, true},
	{"v100-b", "Tesla-V100-SXM2-16GB", "v100", 4, false},
}

var workloads = []string{
	"ResNet-50 (batch size 64)", "A3C", "LM (batch size 20)", "ResNet-18 (batch size 16)", "Transformer (batch size 64)", "CycleGAN",
}

type testPod struct {
	name, workload string
	gpus           int
}

// testPods is a fixed sequence of n coloc pods named prefix00...:
// workloads in turn from the first-th, every fifth on 2 GPUs.
func testPods(prefix string, n, first int) []testPod {
	var out []testPod
	for i := range n {
		g := 1
		if i%5 == 4 {
			g = 2
		}
		out = append(out, testPod{fmt.Sprintf("%s%02d", prefix, i), workloads[(first+i)%len(workloads)], g})
	}
	return out
}

// sequence creates the pods one at a time for schedulerName and checks
// each binding against coloc's first option for the state before it.
func sequence(t *testing.T, cs kubernetes.Interface, client *colocapi.Client, sched *proc, schedulerName string, pods []testPod) (shared, alone int, types map[string]bool) {
	t.Helper()
	types = map[string]bool{}
	for _, tp := range pods {
		want := expect(t, cs, client, tp.workload, tp.gpus)
		pod := gpuPod(tp.name, tp.workload, int64(tp.gpus))
		pod.Spec.SchedulerName = schedulerName
		if _, err := cs.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if !(want.Score > 0) {
			waitUnschedulable(t, cs, tp.name, "")
			t.Logf("%s (%s, %d GPU): unschedulable, as coloc says (%s)", tp.name, tp.workload, tp.gpus, want.Reason)
			deletePod(t, cs, tp.name)
			continue
		}
		got := waitBound(t, cs, sched, tp.name)
		if got.Spec.NodeName != want.Node || got.Annotations[convention.AnnotationGPUs] != convention.FormatGPUs(want.GPUs) {
			t.Fatalf("pod %s (%s, %d GPU): bound to %s GPUs %q; coloc's first option is %s GPUs %v (%s)",
				tp.name, tp.workload, tp.gpus, got.Spec.NodeName, got.Annotations[convention.AnnotationGPUs], want.Node, want.GPUs, want.Reason)
		}
		if want.Partner != "" {
			shared++
		} else {
			alone++
		}
		types[typeOf(want.Node)] = true
		t.Logf("%s (%s, %d GPU) -> %s GPUs %v: %s", tp.name, tp.workload, tp.gpus, want.Node, want.GPUs, want.Reason)
	}
	t.Logf("%s: %d pods bound as coloc chose: %d sharing a GPU, %d alone, on GPU types %v", schedulerName, shared+alone, shared, alone, slices.Sorted(mapKeys(types)))
	return shared, alone, types
}

func TestSchedulerFollowsColoc(t *testing.T) {
	if testing.Short() {
		t.Skip("the Kubernetes end-to-end test builds kube-apiserver: not in -short")
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		missing(t, "etcd not found on PATH (apt-get install etcd-server)")
	}
	t0 := time.Now()
	tmp := t.TempDir()
	binDir := os.Getenv(workDirEnv)
	if binDir == "" {
		binDir = filepath.Join(tmp, "bin")
	}
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		t.Fatal(err)
	}
	apiserverBin, schedulerBin, colocBin := build(t, binDir)
	tBuilt := time.Now()

	// coloc serve on models fit from the reference data.
	repo, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	data := filepath.Join(repo, "datasets", "reference", "gavel")
	models := filepath.Join(binDir, "models")
	if _, err := os.Stat(filepath.Join(models, "index.json")); err != nil {
		run(t, repo, colocBin, "fit", "--data", data, "-o", models)
	}
	serve := start(t, tmp, "coloc-serve", colocBin, "serve", "--models", models, "--data", data, "--addr", "127.0.0.1:0")
	var colocURL string
	waitFor(t, "coloc serve listening", 2*time.Minute, func() (bool, error) {
		b, _ := os.ReadFile(serve.log)
		if m := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`).FindSubmatch(b); m != nil {
			colocURL = string(m[1])
			return true, nil
		}
		if serve.exited() {
			t.Fatalf("coloc serve exited: %v\n%s", serve.err, b)
		}
		return false, nil
	})

	// etcd.
	etcdPort, peerPort := freePort(t), freePort(t)
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	etcdProc := start(t, tmp, "etcd", etcd, "--name", "e2e", "--data-dir", filepath.Join(tmp, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "e2e="+peerURL, "--log-level", "warn")
	waitFor(t, "etcd healthy", 2*time.Minute, func() (bool, error) {
		if etcdProc.exited() {
			t.Fatalf("etcd exited: %v", etcdProc.err)
		}
		resp, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == 200, nil
	})

	// kube-apiserver: a self-signed serving cert in its --cert-dir, a
	// static token for the test and the scheduler (system:masters), a
	// service-account key made here.
	token := "coloc-e2e-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	tokens := filepath.Join(tmp, "tokens.csv")
	if err := os.WriteFile(tokens, []byte(token+",coloc-e2e,coloc-e2e,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	saKey := filepath.Join(tmp, "sa.key")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(saKey, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	apiPort := freePort(t)
	api := start(t, tmp, "kube-apiserver", apiserverBin,
		"--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(apiPort), "--cert-dir", filepath.Join(tmp, "apiserver-certs"),
		"--token-auth-file", tokens, "--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", saKey,
		"--service-account-signing-key-file", saKey, "--service-cluster-ip-range", "10.96.0.0/24",
		// No controller manager runs: no endpoint reconciling, no taints
		// from conditions, no service-account tokens.
		"--endpoint-reconciler-type", "none", "--disable-admission-plugins", "TaintNodesByCondition,ServiceAccount")
	cfg := &rest.Config{Host: fmt.Sprintf("https://127.0.0.1:%d", apiPort), BearerToken: token,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}, QPS: 50, Burst: 100}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	waitFor(t, "kube-apiserver ready", 4*time.Minute, func() (bool, error) {
		if api.exited() {
			t.Fatalf("kube-apiserver exited: %v", api.err)
		}
		b, err := cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		return err == nil && string(b) == "ok", err
	})
	waitFor(t, "namespace default", time.Minute, func() (bool, error) {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{})
		return err == nil, err
	})
	for _, m := range []string{"coloc-scheduler.yaml", "coloc-extender.yaml"} {
		dryRunManifest(t, cfg, cs, m)
	}

	// The scheduler, with coloc's profile only.
	kubeconfig := filepath.Join(tmp, "scheduler.kubeconfig")
	if err := os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters: [{name: e2e, cluster: {server: %q, insecure-skip-tls-verify: true}}]
users: [{name: scheduler, user: {token: %q}}]
contexts: [{name: e2e, context: {cluster: e2e, user: scheduler}}]
current-context: e2e
`, cfg.Host, token)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The shipped configuration (deploy/scheduler-config.yaml), with this
	// cluster's kubeconfig, this coloc serve and a timeout for a loaded
	// machine; leader election on, as shipped.
	schedCfg := shippedConfig(t, tmp, "scheduler-config.yaml", kubeconfig, map[string]string{
		"url: http://127.0.0.1:8080": "url: " + colocURL,
		"timeout: 5s":                "timeout: 30s",
	})
	sched := start(t, tmp, "coloc-scheduler", schedulerBin, "--config", schedCfg, "--secure-port", "0", "-v", "2")

	// Nodes: GPU Feature Discovery's labels, allocatable nvidia.com/gpu
	// (replicas 2), Ready; and one node without GPUs.
	for _, n := range nodes {
		node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name, Labels: map[string]string{
			convention.LabelProduct: n.product, convention.LabelReplicas: "2"}}}
		if n.countLabel {
			node.Labels[convention.LabelCount] = strconv.Itoa(n.gpus)
		}
		createNode(t, cs, node, int64(2*n.gpus))
	}
	createNode(t, cs, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "cpu-a"}}, 0)

	// A pod another scheduler placed: 1 GPU of v100-b, no coloc
	// annotations; coloc counts it on the lowest free GPU (0).
	foreign := gpuPod("a-foreign", "", 1)
	foreign.Spec.NodeName = "v100-b"
	if _, err := cs.CoreV1().Pods("default").Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	client := &colocapi.Client{URL: colocURL, Timeout: 30 * time.Second}
	shared, alone, types := sequence(t, cs, client, sched, schedulerNm, testPods("p", 22, 0))
	if shared+alone < 20 || shared < 2 || alone < 2 || len(types) < 2 {
		t.Errorf("the sequence should bind 20 pods at least, sharing and not, on two GPU types at least: %d shared, %d alone, types %v", shared, alone, types)
	}

	// A workload coloc has no rate for: unschedulable, with coloc's reason.
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("x-unknown", "No Such Workload", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUnschedulable(t, cs, "x-unknown", "no measured solo rate")
	deletePod(t, cs, "x-unknown")

	// A pod naming no workload schedules as usual.
	plain := gpuPod("y-plain", "", 0)
	if _, err := cs.CoreV1().Pods("default").Create(ctx, plain, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitBound(t, cs, sched, "y-plain"); got.Annotations[convention.AnnotationGPUs] != "" {
		t.Errorf("a pod naming no workload got %s=%q", convention.AnnotationGPUs, got.Annotations[convention.AnnotationGPUs])
	}

	// The stock scheduler's way: a profile without the plugin that calls
	// coloc-extender, which binds. coloc-scheduler with no Coloc in its
	// profile is kube-scheduler. On an emptied cluster, 12 pods one at a
	// time, each bound as coloc chooses.
	deleteAll(t, cs)
	extPort := freePort(t)
	extURL := fmt.Sprintf("http://127.0.0.1:%d", extPort)
	ext := start(t, tmp, "coloc-extender", filepath.Join(binDir, "coloc-extender"), "--addr", fmt.Sprintf("127.0.0.1:%d", extPort),
		"--coloc-url", colocURL, "--kubeconfig", kubeconfig, "--timeout", "20s")
	waitFor(t, "coloc-extender listening", 2*time.Minute, func() (bool, error) {
		if ext.exited() {
			t.Fatalf("coloc-extender exited: %v", ext.err)
		}
		resp, err := http.Post(extURL+"/filter", "application/json", strings.NewReader("{}"))
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == 200, nil
	})
	extCfg := shippedConfig(t, tmp, "extender-config.yaml", kubeconfig, map[string]string{
		"urlPrefix: http://coloc-extender.kube-system.svc:8888": "urlPrefix: " + extURL,
		"httpTimeout: 10s": "httpTimeout: 30s",
		// Failing its cycle shows an extender error; ignoring it would hide it.
		"ignorable: true": "ignorable: false",
	})
	extSched := start(t, tmp, "extender-scheduler", schedulerBin, "--config", extCfg, "--secure-port", "0", "-v", "2")
	eShared, eAlone, eTypes := sequence(t, cs, client, extSched, extenderSchedulerNm, testPods("e", 12, 3))
	if eShared+eAlone < 10 || eShared < 1 || eAlone < 1 || len(eTypes) < 2 {
		t.Errorf("the extender's sequence should bind 10 pods at least, sharing and not, on two GPU types at least: %d shared, %d alone, types %v", eShared, eAlone, eTypes)
	}
	extSched.stop()
	ext.stop()

	// coloc serve down: a workload pod schedules anyway (fail open), with
	// a ColocUnavailable event.
	serve.stop()
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("z-failopen", "A3C", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitBound(t, cs, sched, "z-failopen"); got.Annotations[convention.AnnotationGPUs] != "" {
		t.Errorf("a pod placed without coloc got %s=%q", convention.AnnotationGPUs, got.Annotations[convention.AnnotationGPUs])
	}
	waitFor(t, "a ColocUnavailable event on z-failopen", 2*time.Minute, func() (bool, error) {
		evs, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == "z-failopen" && e.Reason == "ColocUnavailable" {
				return true, nil
			}
		}
		return false, nil
	})
	t.Logf("builds %s; the rest (coloc fit and serve, etcd, kube-apiserver, the schedulers, the extender, the pods) %s",
		tBuilt.Sub(t0).Round(time.Second), time.Since(tBuilt).Round(time.Second))
}

// dryRunManifest sends every object of deploy/NAME to the API server as
// a server-side dry-run create with strict field validation: the server
// validates them as it would on kubectl apply, and keeps none.
func dryRunManifest(t *testing.T, cfg *rest.Config, cs kubernetes.Interface, name string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := restmapper.GetAPIGroupResources(cs.Discovery())
	if err != nil {
		t.Fatal(err)
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	for i, doc := range strings.Split(string(b), "\n---\n") {
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &obj.Object); err != nil {
			t.Fatalf("deploy/%s, document %d: %v", name, i+1, err)
		}
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatalf("deploy/%s, document %d (%s): %v", name, i+1, gvk, err)
		}
		var ri dynamic.ResourceInterface = dc.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = dc.Resource(m.Resource).Namespace(obj.GetNamespace())
		}
		if _, err := ri.Create(t.Context(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"}); err != nil {
			t.Errorf("deploy/%s: %s %s: the API server refuses it: %v", name, gvk.Kind, obj.GetName(), err)
		}
	}
}

// shippedConfig writes deploy/NAME with each key of subst replaced by its
// value (each must be there) and the kubeconfig set, and returns its path.
func shippedConfig(t *testing.T, dir, name, kubeconfig string, subst map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for from, to := range subst {
		if strings.Count(s, from) != 1 {
			t.Fatalf("deploy/%s: %q is not there once, the test cannot adapt it", name, from)
		}
		s = strings.Replace(s, from, to, 1)
	}
	const kind = "kind: KubeSchedulerConfiguration\n"
	if !strings.Contains(s, kind) || strings.Contains(s, "clientConnection:") {
		t.Fatalf("deploy/%s: want a KubeSchedulerConfiguration without clientConnection", name)
	}
	s = strings.Replace(s, kind, kind+fmt.Sprintf("clientConnection: {kubeconfig: %q}\n", kubeconfig), 1)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func typeOf(node string) string {
	for _, n := range nodes {
		if n.name == node {
			return n.colocType
		}
	}
	return ""
}

func createNode(t *testing.T, cs kubernetes.Interface, node *v1.Node, gpuDevices int64) {
	t.Helper()
	ctx := t.Context()
	created, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("node %s: %v", node.Name, err)
	}
	res := v1.ResourceList{v1.ResourceCPU: resource.MustParse("64"), v1.ResourceMemory: resource.MustParse("256Gi"), v1.ResourcePods: resource.MustParse("110")}
	if gpuDevices > 0 {
		res[convention.ResourceGPU] = *resource.NewQuantity(gpuDevices, resource.DecimalSI)
	}
	created.Status.Capacity, created.Status.Allocatable = res, res
	created.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, Reason: "E2E",
		LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("node %s status: %v", node.Name, err)
	}
	got, err := cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
	if err != nil || len(got.Spec.Taints) != 0 {
		t.Fatalf("node %s: taints %v, err %v (the test runs without the controller manager: nothing would remove them)", node.Name, got.Spec.Taints, err)
	}
}

func gpuPod(name, workload string, gpus int64) *v1.Pod {
	no := false
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: schedulerNm, AutomountServiceAccountToken: &no,
			Containers: []v1.Container{{Name: "train", Image: "registry.invalid/train:none"}}}}
	if workload != "" {
		p.Annotations[convention.AnnotationWorkload] = workload
	}
	if gpus > 0 {
		p.Spec.Containers[0].Resources.Limits = v1.ResourceList{convention.ResourceGPU: *resource.NewQuantity(gpus, resource.DecimalSI)}
	}
	return p
}

// expect asks coloc serve about a job on the cluster as the API shows it,
// built here from the test's own node table and the pods' annotations
// (independently of the plugin's code), and returns coloc's first option.
func expect(t *testing.T, cs kubernetes.Interface, c *colocapi.Client, workload string, gpus int) colocapi.Option {
	t.Helper()
	pods, err := cs.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	items := pods.Items
	slices.SortFunc(items, func(a, b v1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	q := &colocapi.ScoreRequest{Job: colocapi.Job{Workload: workload, Degrees: []int{gpus}}, MaxPerGPU: 2}
	for _, n := range nodes {
		node := colocapi.Node{Name: n.name, GPUType: n.colocType, GPUs: n.gpus}
		held := make([]int, n.gpus)
		for _, p := range items {
			if p.Spec.NodeName != n.name {
				continue
			}
			var ids []int
			if s := p.Annotations[convention.AnnotationGPUs]; s != "" {
				for _, f := range strings.Split(s, ",") {
					g, err := strconv.Atoi(f)
					if err != nil {
						t.Fatalf("pod %s: %s=%q", p.Name, convention.AnnotationGPUs, s)
					}
					ids = append(ids, g)
				}
			} else {
				// Unannotated: the least-held GPUs, lowest first.
				need := int(p.Spec.Containers[0].Resources.Limits.Name(convention.ResourceGPU, resource.DecimalSI).Value())
				for level := 0; len(ids) < need; level++ {
					for g := 0; g < n.gpus && len(ids) < need; g++ {
						if held[g] == level {
							ids = append(ids, g)
						}
					}
				}
				slices.Sort(ids)
			}
			for _, g := range ids {
				held[g]++
			}
			node.Tenants = append(node.Tenants, colocapi.Tenant{Workload: p.Annotations[convention.AnnotationWorkload], GPUs: ids})
		}
		q.Nodes = append(q.Nodes, node)
	}
	ans, err := c.Score(t.Context(), q)
	if err != nil {
		t.Fatalf("asking coloc serve: %v", err)
	}
	return ans.Options[0]
}

func waitBound(t *testing.T, cs kubernetes.Interface, sched *proc, name string) *v1.Pod {
	t.Helper()
	var got *v1.Pod
	waitFor(t, "pod "+name+" bound", 3*time.Minute, func() (bool, error) {
		if sched.exited() {
			t.Fatalf("coloc-scheduler exited: %v", sched.err)
		}
		p, err := cs.CoreV1().Pods("default").Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = p
		return p.Spec.NodeName != "", nil
	})
	return got
}

func waitUnschedulable(t *testing.T, cs kubernetes.Interface, name, msg string) {
	t.Helper()
	waitFor(t, "pod "+name+" unschedulable", 3*time.Minute, func() (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.Spec.NodeName != "" {
			t.Fatalf("pod %s bound to %s; coloc has no option for it", name, p.Spec.NodeName)
		}
		for _, c := range p.Status.Conditions {
			if c.Type == v1.PodScheduled && c.Status == v1.ConditionFalse && c.Reason == v1.PodReasonUnschedulable {
				if !strings.Contains(c.Message, msg) {
					return false, fmt.Errorf("message %q lacks %q", c.Message, msg)
				}
				return true, nil
			}
		}
		return false, nil
	})
}

// deleteAll deletes every pod of the default namespace and waits until
// they are gone.
func deleteAll(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	zero := int64(0)
	if err := cs.CoreV1().Pods("default").DeleteCollection(t.Context(), metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every pod gone", 2*time.Minute, func() (bool, error) {
		l, err := cs.CoreV1().Pods("default").List(t.Context(), metav1.ListOptions{})
		return err == nil && len(l.Items) == 0, err
	})
}

func deletePod(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	zero := int64(0)
	if err := cs.CoreV1().Pods("default").Delete(t.Context(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pod "+name+" gone", time.Minute, func() (bool, error) {
		_, err := cs.CoreV1().Pods("default").Get(t.Context(), name, metav1.GetOptions{})
		return err != nil, nil
	})
}
