package serve

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coloc-dev/coloc/integrations/slurm"
)

// slurmPlace answers the Slurm submit hook (integrations/slurm/
// job_submit.lua): a form body (workload or comment, partition,
// tres_per_node, tres_per_job), one "key=value" line per answer field, so
// that the hook needs no JSON library:
//
//	decision=place | none
//	node=NODE            (place)
//	partition=PART       (place, when the job named none)
//	tres_per_node=GRES   (place)
//	admin_comment=RECORD (place)
//	reason=TEXT
func (s *Server) slurmPlace(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return &reqError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body over the server's %d bytes", mb.Limit)}
		}
		return &reqError{code: http.StatusBadRequest, msg: "malformed form body: " + err.Error()}
	}
	q := slurm.Request{
		Workload:    r.PostForm.Get("workload"),
		Partition:   r.PostForm.Get("partition"),
		TresPerNode: r.PostForm.Get("tres_per_node"),
		TresPerJob:  r.PostForm.Get("tres_per_job"),
	}
	if q.Workload == "" {
		q.Workload = slurm.WorkloadOf(r.PostForm.Get("comment"))
	}
	if q.Workload == "" {
		return &reqError{code: http.StatusBadRequest, msg: `workload: missing (send workload=NAME, or the job's comment "coloc: workload=NAME")`, field: "workload"}
	}
	st := s.st.Load()
	st.mu.Lock()
	d, err := s.slurm.Place(servedRates{st}, 2, q)
	st.mu.Unlock()
	if err != nil {
		return &reqError{code: http.StatusBadRequest, msg: err.Error()}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var b strings.Builder
	line := func(k, v string) {
		if v != "" {
			// One line per field: no newline may end a value early.
			fmt.Fprintf(&b, "%s=%s\n", k, strings.NewReplacer("\n", " ", "\r", " ").Replace(v))
		}
	}
	if d.Place {
		line("decision", "place")
		line("node", d.Node)
		line("partition", d.Partition)
		line("tres_per_node", d.TresPerNode)
		line("admin_comment", d.AdminComment)
	} else {
		line("decision", "none")
	}
	line("reason", d.Reason)
	line("models_version", st.version)
	_, err = w.Write([]byte(b.String()))
	return err
}
