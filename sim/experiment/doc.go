// Package experiment replays traces under the simulator's policies and
// writes what came out: All lists every policy `coloc simulate` knows (the
// baselines of package sim, the peers and the foresight reference of
// sim/peers, the model-driven policies of sim/policies); an Experiment is
// one trace on one cluster under several policies, read from its files by
// Load (a Gavel trace or a job list, a cluster spec, the measured rates)
// and printed by WriteTable; a Sweep is many traces on many clusters in
// both degree modes, and its Markdown page is docs/results' pages.
// ApplySettings switches the simulator to Gavel's model (SettingsGavel),
// under which coloc's fifo and gavel-las agree with Gavel's simulator on
// the committed reference numbers of testdata/gavel
// (TestAgreesWithGavelsSimulator). WriteAssumption compares the multi-GPU
// pair assumption with the pairs a dataset measured on several GPUs.
//
// A Replay is one Experiment's outcome as a file, which `coloc simulate
// -o` writes (WriteReplay, from NewReplay) and `coloc report --sim` reads
// (ReadReplay): JSON with "format": "coloc.replay" and "version": 1, the
// trace and the cluster as given with the SHA-256 of their files, the
// dataset and model directories, the seed, and per policy every field of
// sim.Result but its timeline, with every job. Units are in the names:
// every duration is in seconds and its name ends in _s (avg_jct_s,
// makespan_s, a job's arrival_s, start_s, finish_s, jct_s, shared_s); a
// time that did not happen is null (an unrunnable job's start, finish and
// JCT; NaN in sim.Result) and reads back as NaN. ReadReplay refuses
// unknown fields, another format or version, and a file whose results do
// not hold every trace job; its errors name the file, the policy and the
// job. JSON, not a table file: a replay holds few per-job rows (jobs
// times policies), a person can read it and other tools parse it, and
// encoding/json writes each float64 in the shortest form that parses
// back to the same value, so a round trip is exact.
//
// `coloc simulate`, `coloc simulate sweep` and the report call it, so the
// three give the same numbers for the same inputs.
package experiment
