// Package serve is coloc's HTTP/JSON service (`coloc serve`): what a
// scheduler asks online, over one model directory and its datasets.
//
// Endpoints (Usage is the text `coloc serve --help` shows):
//
//   - POST /v1/predict: the normalized throughput of two jobs sharing a
//     device, per model, with intervals and flags: what `coloc predict
//     --json` prints.
//   - POST /v1/decide: the decision core's decisions (package
//     place/decide) for a cluster and its jobs, as `coloc policy export`
//     takes them, without the tables.
//   - POST /v1/score: the nodes ranked for an arriving job, given their
//     GPU types and tenants (decide.Score).
//   - POST /v1/slurm/place (with Options.Slurm.Poll): where the Slurm
//     submit hook should send a job, over a view of the cluster read in
//     the background (package integrations/slurm); a form body and
//     key=value lines, so the hook needs no JSON library.
//   - GET /healthz (the process answers), /readyz (models loaded, and the
//     Slurm cluster read once when it serves one) and
//     /metrics (Prometheus text format 0.0.4: requests and latencies by
//     path and status, reloads, the models' version).
//
// The models and data are loaded once and replaced whole on Reload (a
// SIGHUP, or a change of the model directory's index.json seen by the
// watcher): a request uses the state it started with; a reload that fails
// keeps the state that was serving and is counted. Requests are bounded
// in size (Options.MaxBody: 413 beyond) and time (Options.Timeout: 503);
// a malformed request gets 400 with the field it is about. Stopping the
// server (Run's context done) stops accepting, lets the requests in
// flight finish (up to Options.Drain) and returns.
//
// # Choices
//
//   - Model use is serialized per state (one mutex): the models memoize
//     predictions in maps that are not safe for concurrent writes, and a
//     prediction is microseconds. Throughput is not yet measured.
//   - /v1/decide answers for the jobs of the request, all waiting at time
//     0 on an empty cluster, as the export does: a scheduler that has
//     jobs running sends them too. Jobs already placed are not kept in
//     place; that and scoring one job against given nodes are not built
//     yet.
//   - Errors are JSON {"error": ..., "field": ...}, the field in JSON
//     path form where one is known.
package serve
