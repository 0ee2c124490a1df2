// Package slurm lets a Slurm cluster ask coloc where a GPU job should run:
// it reads the cluster as Slurm reports it (`sinfo --json`, `squeue
// --json`), keeps the jobs coloc placed, and answers the submit hook
// (job_submit.lua in this directory, served by `coloc serve --slurm-poll`)
// with a node and the GRES to ask for there.
//
// # Conventions
//
//   - A job names its workload in its comment: `sbatch --comment
//     "coloc: workload=ResNet-50 (batch size 64)" --gres=gpu:2 ...`. A job
//     without it is not touched.
//   - A node's GPU type is the type of its `gpu` GRES (`Gres=gpu:v100:4`),
//     which must be a GPU type of coloc's data (k80, p100, v100 for the
//     reference data); its GPUs are that count. A node also configured
//     with `shard` GRES can host two jobs per GPU; a node without shards
//     offers only whole free GPUs.
//   - The hook asks for the node (`ReqNodeList`), `gres:gpu:TYPE:N` to
//     run alone or `gres:shard:K` to share (K = N times the node's shards
//     per GPU over 2, so a pair of jobs splits a GPU's shards), and writes
//     what it decided into the job's admin comment (Record: `coloc:v1
//     id=... node=... gpus=0,1 workload=...`), where the next decision
//     reads it back.
//
// # Choices
//
//   - The cluster is polled in the background, never from the submit
//     path: the hook runs inside slurmctld while it holds its locks, so a
//     request that called back into Slurm could wait on itself. Between
//     polls, the decisions made since are kept (as kube-scheduler keeps
//     assumed pods) until a poll lists their job or they are older than
//     three poll intervals (a job the controller refused after the hook).
//   - Jobs coloc placed count as tenants of their planned GPUs while they
//     are pending or running: a held or queued job has a place reserved.
//     Running jobs that coloc did not place hold the GPUs Slurm gave them
//     (gres_detail's IDX) or, when Slurm does not say, the lowest free
//     ones; their GPUs are neither free nor shared.
//   - Which GPUs a job gets is Slurm's choice (a node-level request names
//     counts, not devices): the planned indices are coloc's bookkeeping;
//     once a job runs, Slurm's indices replace them where Slurm reports
//     them. A shard request may land on any GPU of the node; sharing is
//     exact for one-GPU jobs on a node whose GPUs hold one pair each.
//   - Nodes are candidates in the states Options.States names (by default
//     idle, mixed, allocated and completing: a down, drained or failed
//     node is skipped).
//   - The decision is decide.Score's best option over the candidate nodes
//     of the job's partition (every GPU node when the job names none).
package slurm
