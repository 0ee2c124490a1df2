package policy

import "fmt"

// The policy file, format Format at version Version: JSON, the contract
// between coloc and the schedulers that read it. Every field below has the
// same name in policy.schema.json. Throughputs are in the unit the file's
// ThroughputUnit names; normalized throughputs are dimensionless
// (co-located over solo).

// Format and Version name the policy file format. A reader refuses any
// other format, and any version outside MinVersion to Version.
//
// Version 2 adds the objective the decisions were taken with
// (File.Objective), the predictions behind each decision (Decision.Rule)
// and the status waiting (the rule chose to wait for GPUs rather than run
// now). A version 1 file has none of them and is read as it is.
//
// Version 3 adds Decision.Assumed: a job shares multi-GPU placements on
// rates assumed from the pair on one GPU, not measured at the degree. A
// version 1 or 2 file has none and is read as it is.
//
// Version 4 adds the decision core's objective (RuleDecisionCore, with
// order OrderGittins): decisions taken by value per GPU under a Gittins-
// index priority, which carry no rule record. Earlier versions have only
// the completion-time rule and are read as they are.
const (
	Format     = "coloc.policy"
	Version    = 4
	MinVersion = 1
)

// Decision statuses.
const (
	StatusPlaced      = "placed"
	StatusUnplaceable = "unplaceable"
	// StatusWaiting: the job waits for GPUs (version 2): the rule
	// predicted it completes sooner by waiting for GPUs of GPUType than by
	// any placement now. It holds no GPUs.
	StatusWaiting = "waiting"
)

// Options of a rule record (Rule.Option).
const (
	OptionRun   = "run"   // run now on free GPUs
	OptionShare = "share" // share the GPUs of a job running alone
	OptionWait  = "wait"  // wait for GPUs of a type to free up
)

// Objective rules and the decision core's order (version 4).
const (
	RuleCompletionTime = "completion-time"
	RuleDecisionCore   = "decision-core"
	OrderGittins       = "gittins"
)

// Objective says what the decisions of a file minimise and how (version
// 2): the completion-time rule of the simulator's coloc policy.
type Objective struct {
	// Rule names the decision rule: RuleDecisionCore (version 4) or
	// RuleCompletionTime.
	Rule string `json:"rule"`
	// Minimize is what each decision minimises, in words.
	Minimize string `json:"minimize"`
	// Durations is how remaining work was estimated: known (the job's
	// steps) or attained (from the service a job had).
	Durations string `json:"durations"`
	// Order is the order in which waiting jobs chose: shortest or
	// arrival (the completion-time rule), or gittins (the decision core:
	// by value per GPU under a Gittins-index priority).
	Order string `json:"order"`
	// MinNormalized is the optional floor on a sharing job's predicted
	// normalized throughput (0: off).
	MinNormalized float64 `json:"min_normalized"`
}

// RuleRecord is the prediction behind one decision of the completion-time
// rule (version 2). Times are seconds from the decision.
type RuleRecord struct {
	// Option is the option taken: OptionRun, OptionShare or OptionWait.
	Option string `json:"option"`
	// CostS is the option's cost: the job's predicted completion time
	// plus, when it shares, the delay it causes its partner.
	CostS float64 `json:"cost_s"`
	// CompletionS is the job's predicted completion time.
	CompletionS float64 `json:"predicted_completion_s"`
	// StartS is when a waiting job is predicted to start.
	StartS float64 `json:"predicted_start_s,omitempty"`
	// SoloThroughput is the job's solo throughput on the placement (or
	// the GPUs it waits for), in the file's unit.
	SoloThroughput float64 `json:"solo_throughput"`
	// Normalized is its predicted normalized throughput there (1 alone).
	Normalized float64 `json:"predicted_normalized"`
	// Partner, PartnerNormalized and PartnerDelayS describe the job it
	// shares with: its id, its predicted normalized throughput next to
	// this job and the delay this job causes it.
	Partner           string  `json:"partner,omitempty"`
	PartnerNormalized float64 `json:"partner_normalized,omitempty"`
	PartnerDelayS     float64 `json:"partner_delay_s,omitempty"`
	// Critical: the job is on the makespan's critical path and chose
	// first (the rule's makespan guard).
	Critical bool `json:"critical,omitempty"`
}

// File is the content of a policy file.
type File struct {
	Format     string     `json:"format"`  // Format
	Version    int        `json:"version"` // Version
	Provenance Provenance `json:"provenance"`
	Thresholds Thresholds `json:"thresholds"`
	// ThroughputUnit is the unit of every throughput in the file, e.g.
	// "iterations/s" (Gavel) or "samples/s" (coloc's own campaigns).
	ThroughputUnit string     `json:"throughput_unit"`
	Cluster        Cluster    `json:"cluster"`
	Decisions      []Decision `json:"decisions"`
	// Pairs is the pairwise normalized throughput of the known workloads,
	// per GPU type and degree: what a scheduler needs to co-locate jobs
	// that are not in the job list.
	Pairs []Pair `json:"pairs"`
	// Solo is the solo throughput of each known workload per GPU type and
	// degree (measured): the basis of the GPU-type choice.
	Solo []Solo `json:"solo"`
	// Scaling is the throughput of each workload against its degree on a
	// GPU type, with the degree the threshold selects.
	Scaling []Scaling `json:"scaling"`
	// Similarity is the reference set of the model-similarity method: a
	// job not profiled is matched to its nearest reference.
	Similarity Similarity `json:"similarity"`
	// Objective is what the decisions minimise (version 2); nil in a file
	// written without it.
	Objective *Objective `json:"objective,omitempty"`
	Warnings  []string   `json:"warnings,omitempty"`
}

// Provenance says what a policy was computed from.
type Provenance struct {
	Tool    string    `json:"tool_version"`
	Created string    `json:"created"` // RFC 3339, UTC; required
	Models  []FileSum `json:"models"`  // the model files used (index.json and each model)
	Data    []FileSum `json:"data"`    // the data files the models were fit on
	Inputs  []FileSum `json:"inputs"`  // the cluster spec and the job list

	// Predictions says how the predicted values of the file were bounded,
	// flagged and decided on; the zero value (absent) in a file written
	// without it.
	Predictions PredictionSummary `json:"predictions,omitempty,omitzero"`
}

// Prediction trust: intervals, flags and the decision rule. A predicted
// pair carries its interval and flags; the summary in the provenance
// counts them and records what the placement decided on.

// Decision rules of the placement: the predicted value (expected) or the
// lower bound of its interval (risk-averse).
const (
	DecideExpected = "expected"
	DecideLower    = "lower"
)

// Pair flags.
const (
	FlagOutOfRange   = "out-of-range" // the model's value was outside the plausible range; Normalized is the nearest bound
	FlagUnseen       = "unseen"       // a job of the pair had no training pair on the GPU type (out of distribution)
	FlagUncalibrated = "uncalibrated" // too few pairs to calibrate: the interval is the plausible range
)

// PredictionSummary counts what the export did to the predicted pairs.
type PredictionSummary struct {
	// Coverage is the nominal coverage of the pairs' intervals.
	Coverage float64 `json:"coverage"`
	// Decide is the rule the decisions were taken with: DecideExpected or
	// DecideLower.
	Decide string `json:"decide"`
	// RangeLow and RangeHigh bound the plausible range of the models.
	RangeLow  float64 `json:"range_low"`
	RangeHigh float64 `json:"range_high"`
	Predicted int     `json:"predicted"`    // predicted pairs written
	Clamped   int     `json:"clamped"`      // of them, out of range, set to the nearest bound (flag out-of-range)
	Unseen    int     `json:"unseen"`       // of them, flagged unseen
	Uncalib   int     `json:"uncalibrated"` // of them, flagged uncalibrated
	Dropped   int     `json:"dropped"`      // pairs the models could not predict (a job unknown to them); not written
	Skipped   int     `json:"infeasible"`   // measured infeasible pairs; not written
}

// Notes say what the user can do about the predicted pairs the summary
// counts: a workload with no training pair on a GPU type is predicted from
// its features alone, and much of that error is the workload's own
// offsets, which a few measured pairs pin down (docs/models.md).
func (s PredictionSummary) Notes() []string {
	if s.Unseen == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d unseen pairs rest on their workload's features alone; a few measured pairs of each such workload remove much of that error: 'coloc profile next' picks them early (docs/predictions.md)", s.Unseen)}
}

// FileSum is the SHA-256 of one input file.
type FileSum struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
}

// Thresholds are the parameters the decisions were taken with; a scheduler
// deciding online should use the same.
type Thresholds struct {
	// MaxPerGPU is the most jobs placed on one GPU.
	MaxPerGPU int `json:"max_per_gpu"`
	// MinNormalized is the lowest predicted normalized throughput, for
	// each job of a pair, at which two jobs are co-located.
	MinNormalized float64 `json:"min_normalized"`
	// ScalingEfficiency is the lowest scaling efficiency, throughput(d) /
	// (d x throughput(1)), a degree may have to be chosen (see
	// ScalingPoints when degree 1 was not measured). In [0, 1], as is
	// MinNormalized.
	ScalingEfficiency float64 `json:"scaling_efficiency"`
	// SimilarityK is the number of nearest references consulted for a
	// job that was never profiled.
	SimilarityK int `json:"similarity_k"`
}

// Cluster is the cluster the decisions place jobs on, expanded to nodes.
type Cluster struct {
	Name  string `json:"name"`
	Nodes []Node `json:"nodes"`
}

// Node is one node of the cluster. GPU indices of decisions are indices
// into the node's GPUs, 0 to GPUs-1.
type Node struct {
	Name      string  `json:"name"`
	GPUType   string  `json:"gpu_type"`
	GPUs      int     `json:"gpus"`
	MemoryGB  float64 `json:"gpu_memory_gb"`    // per GPU, 10^9 bytes
	Link      string  `json:"link"`             // nvlink, nvswitch or pcie
	LinkGBs   float64 `json:"link_gbytes_s"`    // intra-node bandwidth per GPU, GB/s
	NetworkGB float64 `json:"network_gbytes_s"` // inter-node bandwidth per node, GB/s
}

// Decision is what the policy decided for one job of the job list.
type Decision struct {
	Job      string `json:"job"`      // the job's id in the job list
	Workload string `json:"workload"` // the known workload it is, or resembles most
	// Reference is the nearest profiled workload when the job was never
	// profiled (matched by model similarity); empty otherwise.
	Reference string `json:"reference,omitempty"`
	Status    string `json:"status"` // StatusPlaced or StatusUnplaceable
	GPUType   string `json:"gpu_type,omitempty"`
	Degree    int    `json:"degree,omitempty"`
	// Placement is where the job's tasks run: one entry per node used,
	// each with the node's GPU indices (one task per GPU).
	Placement []NodeGPUs `json:"placement,omitempty"`
	// ColocatedWith are the ids of the jobs sharing a GPU with this one.
	ColocatedWith []string `json:"colocated_with,omitempty"`
	// PredictedNormalized is the predicted normalized throughput of the job
	// on its placement: 1 alone, the model's prediction next to a partner.
	// Required (> 0) for a placed job.
	PredictedNormalized float64 `json:"predicted_normalized,omitempty"`
	// PredictedThroughput is its predicted throughput there, in the file's
	// ThroughputUnit; 0 when unknown.
	PredictedThroughput float64 `json:"predicted_throughput,omitempty"`
	// Reason says in a sentence why, or why not.
	Reason string `json:"reason"`
	// Rule is the prediction behind the decision (version 2), when the
	// completion-time rule took it.
	Rule *RuleRecord `json:"rule,omitempty"`
	// Assumed (version 3): the job shares its GPUs, more than one, with a
	// partner whose pair the data did not measure at this degree; the
	// pair's rates are assumed: each job's normalized throughput next to
	// the other on one GPU of the type, times its solo rate here.
	Assumed bool `json:"assumed,omitempty"`
}

// NodeGPUs is the part of a placement on one node.
type NodeGPUs struct {
	Node string `json:"node"`
	GPUs []int  `json:"gpus"`
}

// Pair is the normalized throughput of Workload while it shares its GPUs
// with Partner, on GPUType at Degree GPUs each.
type Pair struct {
	GPUType    string  `json:"gpu_type"`
	Degree     int     `json:"degree"`
	Workload   string  `json:"workload"`
	Partner    string  `json:"partner"`
	Normalized float64 `json:"normalized"`
	// Source is "measured" or "predicted:<model>".
	Source string `json:"source"`
	// Low and High bound a predicted value's interval at the coverage of
	// Provenance.Predictions; 0 when absent (measured pairs).
	Low  float64 `json:"low,omitempty"`
	High float64 `json:"high,omitempty"`
	// Raw is the model's value when it was out of the plausible range
	// (flag out-of-range); 0 otherwise.
	Raw float64 `json:"raw,omitempty"`
	// Flags qualify a predicted value: out-of-range, unseen,
	// uncalibrated.
	Flags []string `json:"flags,omitempty"`
}

// Solo is a measured solo throughput.
type Solo struct {
	Workload   string  `json:"workload"`
	GPUType    string  `json:"gpu_type"`
	Degree     int     `json:"degree"`
	Throughput float64 `json:"throughput"`
	// MemoryGB is the peak memory per GPU, 10^9 bytes; 0 when unknown.
	MemoryGB float64 `json:"memory_gb,omitempty"`
}

// Scaling is one workload's throughput against degree on a GPU type.
type Scaling struct {
	Workload string         `json:"workload"`
	GPUType  string         `json:"gpu_type"`
	Points   []ScalingPoint `json:"points"` // by degree, ascending
	// Chosen is the largest-throughput degree whose efficiency is at least
	// Thresholds.ScalingEfficiency: ChooseDegree(Points,
	// Thresholds.ScalingEfficiency, 0), with no limit on the GPUs.
	Chosen int    `json:"chosen_degree"`
	Source string `json:"source"` // e.g. "gavel", "pollux"
}

// ScalingPoint is the throughput at one degree.
type ScalingPoint struct {
	Degree     int     `json:"degree"`
	Throughput float64 `json:"throughput"`
	// Efficiency is Throughput / (Degree x throughput at degree 1), or
	// relative to the smallest degree measured when that is not 1: as
	// ScalingPoints computes it (a reader checks it does).
	Efficiency float64 `json:"efficiency"`
}

// Similarity is the model-similarity reference set: descriptors of the
// profiled workloads, how to normalize a new job's descriptors, and the
// distance that compares them.
type Similarity struct {
	// Distance is euclidean, manhattan, cosine, minkowski or gower.
	Distance string  `json:"distance"`
	P        float64 `json:"p,omitempty"` // order of the Minkowski distance
	// Numeric names the numeric descriptors, in order. A name starting
	// with "log10_" is the base-10 logarithm of the descriptor after the
	// prefix (params, flops_per_sample, batch_size); "layers_<kind>" is a
	// count of layers of that kind.
	Numeric []string `json:"numeric"`
	// Lo and Hi are the range of each numeric descriptor over the
	// references: a value v is normalized to (v - Lo) / (Hi - Lo), to 0
	// when Hi = Lo (a descriptor no reference has: write 0 and 0). Every
	// reference value lies in [Lo, Hi].
	Lo []float64 `json:"lo"`
	Hi []float64 `json:"hi"`
	// Categorical names the categorical descriptors (class, precision).
	Categorical []string    `json:"categorical"`
	References  []Reference `json:"references"`
}

// Reference is one profiled workload of the similarity reference set, with
// the GPU type and degree that suit it.
type Reference struct {
	Workload string `json:"workload"`
	// Num are the numeric descriptors (aligned with Similarity.Numeric),
	// null where unknown; Cat the categorical ones, "" where unknown.
	Num     []*float64 `json:"num"`
	Cat     []string   `json:"cat"`
	GPUType string     `json:"gpu_type"`
	Degree  int        `json:"degree"`
}

// DefaultThresholds are the thresholds `coloc policy export` uses unless
// told otherwise: two jobs per GPU at most, co-location only when both
// jobs keep at least 0.8 of their solo throughput (the decision threshold
// `coloc eval` scores), a degree only while it keeps 70% scaling
// efficiency, and the 3 nearest references (the similarity model's
// defaults).
var DefaultThresholds = Thresholds{MaxPerGPU: 2, MinNormalized: 0.8, ScalingEfficiency: 0.7, SimilarityK: 3}
