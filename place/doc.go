// Package place holds what coloc's decisions read and what they write for
// schedulers: the measurements and fitted models loaded together (Data,
// Models), the questions about one pair or one job (PredictPair for
// `coloc predict`, Similar for `coloc similar`), and the policy export
// (Export: the decisions for a job list on a cluster, with the tables a
// scheduler needs, as a policy file of package policy).
//
// Where it sits: datasets -> features -> model -> place -> policy.json ->
// schedulers. The decisions themselves are the decision core's (package
// place/decide), which the simulator's coloc, `coloc policy export` (as
// ExportOptions.Decide, supplied by package sim/policies) and `coloc
// serve` all call.
//
// The Engine below is the first paper's two-stage placement (CLWP, then
// NLWP), kept as a named alternative: Export uses it when no decider is
// given, and the package's tests exercise it; no command of the binary
// chooses it. It places one task at a time on a snapshot of the cluster,
// with durations unknown, and never pauses a job.
//
// # The engine
//
// The Engine places one task at a time and keeps the occupancy. It knows
// jobs' speed only through an Estimator: solo throughput on a placement
// shape, and the normalized throughput (co-located over solo) of a job
// next to another, asked for one of two stages, CLWP or NLWP. The export's
// estimator (NewEstimator) gives measured values where the data hold them
// and the stage model's predictions elsewhere (IASP for CLWP, IAPP for
// NLWP, after Geng et al. 2020).
//
// Two jobs share only the very same GPUs (a d-GPU job joins a group of
// jobs holding exactly d GPUs of one node), at most Thresholds.MaxPerGPU
// jobs per GPU, when every job of the group keeps an estimated normalized
// throughput of at least Thresholds.MinNormalized, and when their memory
// (memory_gb, else the data's peak memory; unknown memory is not checked)
// fits the GPU. Next to several jobs, a job's normalized throughput is the
// product of its pairwise ones (our choice: the data measure pairs only).
// An estimate above 1 counts as 1 in every decision (values above 1 are
// noise, docs/datasets.md) and is reported as it is.
//
// For a task t the engine decides, in this order:
//
// GPU type and degree. On each GPU type, t's curve is its solo throughput
// at each allowed degree (on one node; spread over nodes when the degree
// exceeds the largest node), and the degree is policy.ChooseDegree's: the
// highest throughput whose scaling efficiency is at least
// Thresholds.ScalingEfficiency, among degrees up to the number of GPUs of
// that type with room (fewer than MaxPerGPU jobs). When no placement at
// that degree exists, ChooseDegree is asked again below it. Across types
// the engine takes the highest predicted throughput
//
//	V(type) = solo(t, type, d) x y(t)
//
// where y(t) is t's estimated normalized throughput on the placement the
// next two steps find on that type (1 on free GPUs). With free GPUs
// everywhere this is the measured solo throughput per GPU type; when the
// fast type is full it tells sharing a fast GPU from running alone on a
// slow one. Ties go to the lower NLWP cost (below), then to the type first
// in sorted order.
//
// CLWP, the node. Among the nodes of the type with room for t's d tasks,
// the engine ranks by
//
//	cost(t, n) = I(t, n) + C(t, n)
//
// I(t, n) is the lowest predicted interference of t with the jobs already
// on n, by the cluster-stage estimate: 0 when n has d free GPUs, else the
// minimum over the groups G of n that t may join of the throughput lost,
// (1 - y(t|G)) + sum over k in G of [y(k|G) - y(k|G+t)]. C(t, n) is the
// share of a synchronous step t's all-reduce would take on n's link:
//
//	C = c / (s + c),  c = 2(d-1)/d x 4 B x params / link bandwidth
//
// (a ring all-reduce of fp32 gradients; 0 for one GPU, or when the
// parameter count or bandwidth is unknown) and s the step time alone,
// d/rate for iterations/s (Gavel's rates count the iterations of all d
// workers), d x batch/rate for samples/s. Ties go to free GPUs before
// sharing, then to the node left with the fewest free GPUs (best fit),
// then to the node order of the spec. The measured rates already include
// the communication of the machine they were measured on; C ranks
// placements, it is not added to predicted throughputs.
//
// NLWP, the GPUs. On the first node of that ranking where a placement
// exists, the engine takes the option that adds the least predicted
// slowdown, by the node-stage estimate, plus C: d free GPUs (the
// lowest-numbered; no slowdown), or the group G minimising (1/y(t|G) - 1)
// + sum over k in G of [1/y(k|G+t) - 1/y(k|G)]. The two stages use
// different models, so NLWP may refuse a group CLWP liked; the engine
// then tries the next node. The spec gives one link per node, so C is the
// same for every GPU set of a node; it is kept in the NLWP cost so that
// both stages score the same quantity.
//
// When no single node holds t's d tasks, t is spread over free GPUs of
// the type (never shared), taken from the nodes with the most free GPUs
// (so as few nodes as possible), the faster network first on ties; the
// all-reduce crosses the slowest network among them. Spreading needs a
// measured spread rate (a spread device type, datasets.SpreadType, or a
// scaling row over several nodes).
//
// A task that fits nowhere is unplaceable, with the reason per GPU type
// (no measured throughput, too few GPUs, memory, no room); never a panic.
//
// # The export
//
// Export places a job list as a snapshot: every job is taken to run at
// once, placed in order of arrival_s (list order on ties); steps and
// duration do not free GPUs (coloc simulate replays a list over time).
// A job whose workload the data measure stands for itself. Any other is
// described by its model descriptor (or, without one, by the known
// descriptor of its model family, features.KnownModels) and stands for its
// nearest reference under the similarity model: the first of
// Thresholds.SimilarityK neighbours, whose measured curves, solo
// throughputs and pair values it then uses (one reference rather than an
// average of k, so that every number in its decision is a measured one of
// a named workload). A job with neither measurements nor a descriptor is
// unplaceable.
//
// The tables are for the GPU types of the cluster. Pairs: every ordered
// pair of workloads measured solo on a type and degree where the data hold
// measured pairs (where the models were trained), measured where measured,
// else the cluster-stage model's prediction ("predicted:iasp"); infeasible
// pairs are left out. Solo: the data's solo rows. Scaling: each workload's
// one-node curve with the degree ChooseDegree picks without a limit.
// Similarity: the similarity model's distance, descriptor names,
// normalization and references (those measured on a type of the cluster),
// each with the type where its measured one-GPU throughput is highest and
// the degree ChooseDegree picks there.
//
// Units: all throughputs of one export are in one unit, that of the first
// solo table of the data directories (else the first scaling table). A
// table in another unit (Pollux's samples/s next to Gavel's iterations/s)
// is left out with a warning; nothing is converted. The solo and pair rows
// are the rate table of package datasets/rates (rates.New), which the
// simulator reads too, in iterations/s.
//
// Determinism: the same inputs give the same bytes but for the creation
// time (ExportOptions.Now; `coloc policy export` reads SOURCE_DATE_EPOCH).
package place
