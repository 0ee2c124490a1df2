// Command coloc-extender serves kube-scheduler's extender protocol (filter,
// prioritize, bind) by asking coloc serve (package extender). It watches
// pods and nodes through the API server to know each node's tenants; it
// runs in the cluster with its service account, or outside with
// --kubeconfig.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/coloc-dev/coloc/integrations/kubernetes/colocapi"
	"github.com/coloc-dev/coloc/integrations/kubernetes/convention"
	"github.com/coloc-dev/coloc/integrations/kubernetes/extender"
)

type typeFlag map[string]string

func (t typeFlag) String() string { return fmt.Sprint(map[string]string(t)) }
func (t typeFlag) Set(s string) error {
	p, ty, ok := strings.Cut(s, "=")
	if !ok || p == "" || ty == "" {
		return fmt.Errorf("%q: want PRODUCT=TYPE, e.g. Tesla-V100-SXM2-16GB=v100", s)
	}
	t[p] = ty
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "coloc-extender:", err)
		os.Exit(1)
	}
}

const byNode = "byNode"

func run() error {
	addr := flag.String("addr", "127.0.0.1:8888", "address to serve the extender verbs on")
	url := flag.String("coloc-url", "http://127.0.0.1:8080", "coloc serve's URL")
	timeout := flag.Duration("timeout", colocapi.DefaultTimeout, "longest wait for coloc serve; past it the extender fails open")
	maxPerGPU := flag.Int("max-per-gpu", 2, "2 lets coloc pair jobs on a GPU, 1 never shares")
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (default: the in-cluster service account)")
	gpuTypes := typeFlag{}
	flag.Var(gpuTypes, "gpu-type", "map a GPU Feature Discovery product to a coloc GPU type, PRODUCT=TYPE (repeatable)")
	flag.Parse()
	if *maxPerGPU != 1 && *maxPerGPU != 2 {
		return fmt.Errorf("--max-per-gpu %d: want 1 or 2", *maxPerGPU)
	}
	var cfg *rest.Config
	var err error
	if *kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", *kubeconfig)
	} else {
		cfg, err = rest.InClusterConfig()
	}
	if err != nil {
		return fmt.Errorf("API server config: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	f := informers.NewSharedInformerFactory(cs, 0)
	pods := f.Core().V1().Pods().Informer()
	if err := pods.AddIndexers(cache.Indexers{byNode: func(o any) ([]string, error) {
		if p, ok := o.(*v1.Pod); ok && p.Spec.NodeName != "" {
			return []string{p.Spec.NodeName}, nil
		}
		return nil, nil
	}}); err != nil {
		return err
	}
	podLister := f.Core().V1().Pods().Lister()
	nodeLister := f.Core().V1().Nodes().Lister()
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("the %v informer did not sync", typ)
		}
	}

	s := &extender.Server{
		Client:    &colocapi.Client{URL: *url, Timeout: *timeout},
		Types:     convention.TypeMap(gpuTypes),
		MaxPerGPU: *maxPerGPU,
		Pods: func(node string) ([]*v1.Pod, error) {
			objs, err := pods.GetIndexer().ByIndex(byNode, node)
			out := make([]*v1.Pod, 0, len(objs))
			for _, o := range objs {
				out = append(out, o.(*v1.Pod))
			}
			return out, err
		},
		Node:   nodeLister.Get,
		GetPod: func(ns, name string) (*v1.Pod, error) { return podLister.Pods(ns).Get(name) },
		Bind: func(ctx context.Context, pod *v1.Pod, node string, ann map[string]string) error {
			if len(ann) > 0 {
				patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": ann}})
				if err != nil {
					return err
				}
				if _, err := cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
					return fmt.Errorf("annotating: %w", err)
				}
			}
			return cs.CoreV1().Pods(pod.Namespace).Bind(ctx, &v1.Binding{
				ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID},
				Target:     v1.ObjectReference{Kind: "Node", Name: node},
			}, metav1.CreateOptions{})
		},
		Log: slog.Default(),
	}
	srv := &http.Server{Addr: *addr, Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	slog.Info("serving the extender verbs", "addr", *addr, "coloc", *url)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
