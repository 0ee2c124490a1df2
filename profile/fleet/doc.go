// Package fleet runs one profiling campaign as shards on a cluster: it
// splits the plan of package profile into shards, writes what a cluster
// manager needs to run them (a Slurm job array, a Kubernetes Indexed Job),
// and merges the shards' campaign directories back into one campaign.
// `coloc profile slurm`, `profile k8s` and `profile merge` are its
// commands, which only parse flags and print: Device settles a fleet's
// device and GPUs a shard, New splits the plan and Prepare writes the
// fleet, SlurmScript and K8sManifest write the job, Fleet.Describe says
// what it is; Merge and MergeResult.WriteText join the shards and report
// them, Dirs and UnionCampaigns join the fleets of several GPU types.
//
// Package profile runs each shard (`coloc profile run --shard i/n`) and
// owns the campaign directory; this package imports it, never the
// reverse. Package profile knows one thing of fleets: a campaign refuses
// to run in a fleet directory, where a merge would drop the runs made
// beside the shards.
//
// # The cluster manager schedules (our choice)
//
// A fleet runs the shards of one plan as the tasks of a cluster manager:
// the manager chooses the nodes, coloc grows no scheduler of its own.
// DIR/fleet.json (format coloc.fleet, version 1) holds the suite (absolute
// path and hash), the settings, the whole plan, the runs each shard owns
// and the flags every shard passes to `coloc profile run`. SlurmScript
// writes the job array whose task i runs shard i/n into DIR/shards/i;
// the task execs coloc, so the SIGTERM of scancel or of the time limit
// reaches coloc, which stops the running workloads and keeps every
// finished run. K8sManifest writes the Indexed Job whose pod of
// completion index k runs shard k+1, asking for the fleet's GPUs as
// nvidia.com/gpu. A shard is an ordinary campaign directory, so a task
// that is cancelled, killed at its time limit or preempted resumes when
// it runs again. Shards balance estimated time (profile.Plan.Shard), and
// a pair run is one run: both workloads run in one task on one GPU.
//
// Prepare keeps a directory's fleet.json when it holds the same fleet
// (suite, plan, shards and settings), with its creation time and the
// other cluster manager's section, so writing a Slurm script and a
// Kubernetes manifest of one campaign, or either twice, is safe; another
// fleet is refused. Job ids are not recorded: Merge reads the shards only
// and never asks the cluster manager what is still queued.
//
// # Merging
//
// Merge checks that the suite file still has the hash the fleet recorded,
// then joins the shards into one campaign in DIR with profile.MergeShards:
// the journal in plan order, the sample files, the tables as one node
// writes them, and a manifest that says where each shard ran. A shard of
// another suite, plan, shard split or settings, or whose journal holds a
// run another shard owns, is refused, naming the shard, and nothing is
// written. Merge only reads the shards, so it may run while they do, and
// rewrites everything each time, so running it again gives the same
// campaign. Runs that no shard has finished are listed with their shards,
// not fatal: the campaign so far is written, and MergeResult.WriteText
// says how to run the missing shards again with the fleet's cluster
// manager (they resume).
//
// # Heterogeneous fleets (our choice)
//
// A fleet is one plan, and the plan depends on the GPUs of a shard (the
// degrees), so a fleet asks for the same number of GPUs everywhere; the
// GPU type is whatever the node has, and each shard records it. The
// merged tables keep device types apart and normalize a pair only by solo
// runs of its own type (package profile says why), so a fleet whose tasks
// land on mixed nodes holds several device types but misses the pairs
// whose solo runs ran elsewhere (a warning says which). To measure the
// whole plan on each GPU type, write one fleet per type into
// sub-directories of one directory, each restricted to its nodes (Slurm
// --constraint, a Kubernetes node selector); Dirs finds them and
// UnionCampaigns joins their tables, keyed by device type, into the parent
// directory. The samples stay in each fleet (run IDs repeat across
// fleets).
//
// # Hostile strings
//
// Strings that reach a generated script or manifest are checked twice
// over. First against a conservative character set for where they land: a
// name in a comment line (the fleet's and the suite's, held to
// profile.CheckName), a value of an #SBATCH line, a Kubernetes name, label
// or quantity. Then, where they reach a shell command, they are quoted for
// it, and the manifest is written by a YAML encoder, which quotes every
// scalar that needs it. A string the set refuses is an error naming the
// flag or field; it is never silently rewritten. What no quoting makes
// safe (text that is not UTF-8, control characters) is refused in paths
// and arguments too.
package fleet
