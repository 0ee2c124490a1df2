// Package deploy holds the example configurations and manifests; its test
// loads each as kube-scheduler and the API server would decode it.
package deploy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"github.com/coloc-dev/coloc/integrations/kubernetes/plugin"
)

// load reads a KubeSchedulerConfiguration as kube-scheduler does (defaults
// applied) and validates it.
func load(t *testing.T, path string) *config.KubeSchedulerConfiguration {
	t.Helper()
	cfg, err := options.LoadConfigFromFile(klog.Background(), path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if errs := validation.ValidateKubeSchedulerConfiguration(cfg); errs != nil {
		t.Fatalf("%s: %v", path, errs)
	}
	return cfg
}

// checkColocProfile checks that the profile enables Coloc at every point
// the plugin implements, scores with it alone, and that its args decode.
func checkColocProfile(t *testing.T, where string, cfg *config.KubeSchedulerConfiguration) {
	t.Helper()
	i := slices.IndexFunc(cfg.Profiles, func(p config.KubeSchedulerProfile) bool { return p.SchedulerName == "coloc-scheduler" })
	if i < 0 {
		t.Fatalf("%s: no profile coloc-scheduler", where)
	}
	p := cfg.Profiles[i]
	has := func(set config.PluginSet) bool {
		return slices.ContainsFunc(set.Enabled, func(x config.Plugin) bool { return x.Name == plugin.Name })
	}
	for name, set := range map[string]config.PluginSet{"preFilter": p.Plugins.PreFilter, "filter": p.Plugins.Filter,
		"preScore": p.Plugins.PreScore, "score": p.Plugins.Score, "reserve": p.Plugins.Reserve, "preBind": p.Plugins.PreBind} {
		if !has(set) {
			t.Errorf("%s: %s does not enable %s", where, name, plugin.Name)
		}
	}
	if !slices.ContainsFunc(p.Plugins.Score.Disabled, func(x config.Plugin) bool { return x.Name == "*" }) {
		t.Errorf("%s: the default score plugins are not disabled", where)
	}
	if cfg.PercentageOfNodesToScore == nil || *cfg.PercentageOfNodesToScore != 100 {
		t.Errorf("%s: percentageOfNodesToScore is not 100", where)
	}
	j := slices.IndexFunc(p.PluginConfig, func(c config.PluginConfig) bool { return c.Name == plugin.Name })
	if j < 0 {
		t.Fatalf("%s: no pluginConfig for %s", where, plugin.Name)
	}
	a, err := plugin.DecodeArgs(p.PluginConfig[j].Args)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	if a.URL != "http://127.0.0.1:8080" {
		t.Errorf("%s: url %q, want the sidecar's http://127.0.0.1:8080", where, a.URL)
	}
}

func TestSchedulerConfig(t *testing.T) {
	checkColocProfile(t, "scheduler-config.yaml", load(t, "scheduler-config.yaml"))
}

func TestExtenderConfig(t *testing.T) {
	cfg := load(t, "extender-config.yaml")
	if len(cfg.Extenders) != 1 {
		t.Fatalf("%d extenders, want 1", len(cfg.Extenders))
	}
	e := cfg.Extenders[0]
	if e.FilterVerb != "filter" || e.PrioritizeVerb != "prioritize" || e.BindVerb != "bind" || !e.Ignorable {
		t.Errorf("extender %+v: want the verbs filter, prioritize, bind (the paths coloc-extender serves) and ignorable", e)
	}
}

// Every object of coloc-scheduler.yaml decodes strictly, and the
// scheduler configuration its ConfigMap carries is valid.
func TestManifest(t *testing.T) {
	kinds, objs := decodeAll(t, "coloc-scheduler.yaml")
	var deployment *appsv1.Deployment
	var leaseName string
	var leaseNames []string
	for _, obj := range objs {
		switch o := obj.(type) {
		case *v1.ConfigMap:
			data, ok := o.Data["scheduler-config.yaml"]
			if !ok {
				t.Fatalf("ConfigMap %s has no scheduler-config.yaml", o.Name)
			}
			path := filepath.Join(t.TempDir(), "scheduler-config.yaml")
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := load(t, path)
			checkColocProfile(t, "the ConfigMap's scheduler-config.yaml", cfg)
			leaseName = cfg.LeaderElection.ResourceName
		case *appsv1.Deployment:
			deployment = o
		case *rbacv1.ClusterRole:
			for _, r := range o.Rules {
				if slices.Contains(r.Resources, "leases") && slices.Contains(r.Verbs, "update") {
					leaseNames = append(leaseNames, r.ResourceNames...)
				}
			}
		}
	}
	// system:kube-scheduler lets a scheduler update only the lease named
	// kube-scheduler; the manifest must grant its own.
	if !slices.Contains(leaseNames, leaseName) {
		t.Errorf("the scheduler elects its leader on lease %q, the ClusterRoles grant updating %v", leaseName, leaseNames)
	}
	for _, k := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in coloc-scheduler.yaml", k)
		}
	}
	checkSidecar(t, "coloc-scheduler.yaml", deployment)
}

// checkSidecar checks that a Deployment runs coloc serve beside its
// program, on the port the program asks.
func checkSidecar(t *testing.T, where string, d *appsv1.Deployment) {
	t.Helper()
	if d == nil || len(d.Spec.Template.Spec.Containers) != 2 {
		t.Fatalf("%s: want a Deployment with its program and coloc serve", where)
	}
	serve := d.Spec.Template.Spec.Containers[1]
	if !slices.Contains(serve.Command, "serve") || !slices.Contains(serve.Command, "--addr=:8080") {
		t.Errorf("%s: coloc serve sidecar %v does not listen on the port its program asks", where, serve.Command)
	}
}

// decodeAll decodes every object of a manifest strictly.
func decodeAll(t *testing.T, path string) (kinds map[string]int, objs []any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	kinds = map[string]int{}
	for i, doc := range strings.Split(string(b), "\n---\n") {
		obj, gvk, err := dec.Decode([]byte(doc), nil, nil)
		if err != nil {
			t.Fatalf("%s, document %d: %v", path, i+1, err)
		}
		kinds[gvk.Kind]++
		objs = append(objs, obj)
	}
	return kinds, objs
}

func TestExtenderManifest(t *testing.T) {
	kinds, objs := decodeAll(t, "coloc-extender.yaml")
	for _, k := range []string{"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Service", "Deployment"} {
		if kinds[k] == 0 {
			t.Errorf("no %s in coloc-extender.yaml", k)
		}
	}
	var d *appsv1.Deployment
	var svc *v1.Service
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			d = o
		case *v1.Service:
			svc = o
		}
	}
	checkSidecar(t, "coloc-extender.yaml", d)
	// The extender config's urlPrefix names this Service and port.
	cfg := load(t, "extender-config.yaml")
	want := "http://" + svc.Name + "." + svc.Namespace + ".svc:8888"
	if cfg.Extenders[0].URLPrefix != want || svc.Spec.Ports[0].Port != 8888 {
		t.Errorf("extender-config.yaml urlPrefix %s, the Service is %s", cfg.Extenders[0].URLPrefix, want)
	}
}
