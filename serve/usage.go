package serve

// Usage documents the endpoints with an example request each: the long
// help of `coloc serve`.
const Usage = `Serves what a scheduler asks online over HTTP/JSON, from the models of
--models (written by 'coloc fit') and the datasets of --data they were fit on
(checked against the SHA-256 the model index records).

  POST /v1/predict   normalized throughput of job a next to job b (a|b) and of b
                     next to a on a device, per model, with intervals and flags,
                     as 'coloc predict --json' prints:
      curl -s localhost:8080/v1/predict -d '{"a": "ResNet-50 (batch size 64)",
        "b": "LM (batch size 20)", "device": "v100", "models": ["iapp"]}'

  POST /v1/decide    the decision core's decisions for a cluster spec and a job
                     list (the formats 'coloc policy export' reads, as JSON), every
                     job waiting at time 0; durations attained (default) or known,
                     max_per_gpu 1 or 2 (default 2):
      curl -s localhost:8080/v1/decide -d '{"cluster": {"version": 1, "name": "c",
        "nodes": [{"name": "v", "gpu_type": "v100", "gpus": 4, "gpu_memory_gb": 16}]},
        "jobs": {"version": 1, "jobs": [{"id": "j1", "workload": "LM (batch size 20)",
        "degrees": [1], "steps": 1000}]}}'

  POST /v1/score     ranks the nodes for an arriving job: per node its best option
                     (free GPUs alone, or the GPUs of a tenant worth sharing with,
                     then with both predicted values' intervals), scored by value
                     per GPU, best first:
      curl -s localhost:8080/v1/score -d '{"job": {"workload": "LM (batch size 20)",
        "degrees": [1, 2]}, "nodes": [{"name": "n1", "gpu_type": "v100", "gpus": 8,
        "tenants": [{"workload": "A3C", "gpus": [0]}]}], "max_per_gpu": 2}'

  POST /v1/slurm/place  (with --slurm-poll) where the Slurm submit hook
                     (integrations/slurm/job_submit.lua) should send a job: a form
                     body, an answer of key=value lines (decision=place|none, node,
                     partition, tres_per_node, admin_comment, reason):
      curl -s localhost:8080/v1/slurm/place -d 'workload=A3C&tres_per_node=gres:gpu:1'

  GET /healthz       200 while the process answers
  GET /readyz        200 once the models are loaded (they load before it listens)
  GET /metrics       Prometheus text: coloc_serve_requests_total{path,code},
                     coloc_serve_request_duration_seconds (histogram by path),
                     coloc_serve_reloads_total{result}, coloc_serve_models_info
                     {dir,version}

Answers are JSON; an error is {"error": "...", "field": "..."} with a 4xx: 400
for a malformed or invalid request (the field named where there is one), 404,
405, 413 for a body over --max-body; 503 past --timeout. The models and data
load once and are replaced whole on SIGHUP or, with --watch, when the model
directory's index.json changes; a failed reload keeps serving the models it had.
SIGTERM or Ctrl-C stops accepting, lets the requests in flight finish (up to
--drain) and exits.`
