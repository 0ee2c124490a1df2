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
// `coloc simulate`, `coloc simulate sweep` and the report call it, so the
// three give the same numbers for the same inputs.
package experiment
