package features

import "github.com/coloc-dev/coloc/datasets"

// DescriptorsVersion is the version of the built-in table of known model
// descriptors (KnownModels). It is recorded in every feature file so that a
// change of a number below is visible in the provenance of what was built
// from it.
const DescriptorsVersion = 1

// Descriptor characterises a model independently of any hardware: what the
// workload protocol's `meta` line reports (docs/workloads.md) and what the
// similarity policy compares.
type Descriptor struct {
	Model     string         `json:"model"`
	Class     string         `json:"class"` // cnn, rnn, transformer, recommender, rl, gan, ...
	Params    float64        `json:"params"`
	FLOPs     float64        `json:"flops_per_sample"` // forward pass, 2 x multiply-accumulates
	Layers    map[string]int `json:"layers"`           // count of layers by kind
	BatchSize int            `json:"batch_size"`       // per GPU; 0 if unknown
	Precision string         `json:"precision"`        // fp32, fp16, bf16, amp
	// Estimate is true when a number above is an estimate rather than
	// computed from the exact architecture and input size.
	Estimate bool   `json:"estimate,omitempty"`
	Source   string `json:"source,omitempty"`
}

// KnownModels holds descriptors of the job families of Gavel's measured
// throughputs (stanford-futuredata/gavel, workloads/pytorch/*), for data
// that carries no `meta` of its own. BatchSize is the default batch size of
// a family whose job names state none; names that state one override it.
//
// FLOPs are forward FLOPs per training sample (2 x multiply-accumulates of
// one forward pass over one sample, convolutions and matrix products only;
// element-wise work is ignored). Training costs about 3x that.
var KnownModels = map[string]Descriptor{
	// CIFAR-10 variant of ResNet-18 (3x3 stem, no max-pool, 32x32 input) as in
	// gavel workloads/pytorch/image_classification/cifar10. Parameters:
	// 11,173,962, summed from the architecture (He et al. 2016, BasicBlock
	// [2,2,2,2], 3 projection shortcuts, 10-way linear). MACs: 0.556e9 per
	// image summed layer by layer at 32x32.
	"ResNet-18": {Model: "ResNet-18", Class: "cnn", Params: 11173962, FLOPs: 1.112e9,
		Layers: map[string]int{"conv": 20, "norm": 20, "linear": 1}, Precision: "fp32",
		Source: "computed from the CIFAR-10 ResNet-18 architecture at 32x32"},
	// torchvision ResNet-50 at 224x224 (gavel image_classification/imagenet):
	// 25,557,032 parameters and 4.09e9 MACs (torchvision model card; He et
	// al. 2016 Table 1 gives 3.8e9 FLOPs counted as MACs without shortcuts).
	"ResNet-50": {Model: "ResNet-50", Class: "cnn", Params: 25557032, FLOPs: 8.18e9,
		Layers: map[string]int{"conv": 53, "norm": 53, "linear": 1}, Precision: "fp32",
		Source: "torchvision resnet50 at 224x224"},
	// Transformer (Vaswani et al. 2017) as configured by gavel
	// workloads/pytorch/translation/train.py: d_model 512, d_inner 2048, 6+6
	// layers, 8 heads, no weight sharing, on Multi30k. Encoder layer 3.15e6
	// and decoder layer 4.20e6 parameters (attention 4x512x512, FFN
	// 2x512x2048); embeddings and output projection assume vocabularies of
	// about 5,000 tokens per side (the Multi30k preprocessing's vocabulary is
	// not in the repository): an estimate. FLOPs assume ~30 tokens per
	// sentence on each side.
	"Transformer": {Model: "Transformer", Class: "transformer", Params: 5.1e7, FLOPs: 2.7e9,
		Layers: map[string]int{"attention": 18, "linear": 25, "norm": 32, "embedding": 2}, Precision: "fp32",
		Estimate: true, Source: "estimated from gavel translation/train.py defaults (vocabulary size assumed)"},
	// 2-layer LSTM language model on WikiText-2 (gavel
	// language_modeling/main.py defaults: emsize 200, nhid 200, 2 layers,
	// untied, bptt 35; WikiText-2 vocabulary 33,278 tokens). Parameters:
	// embedding 6,655,600 + LSTM 2x321,600 + decoder 6,688,878 = 13,987,678.
	// A sample is one sequence of 35 tokens: 35 x (2 x 320,000 + 6,655,600)
	// MACs = 2.553e8 MACs.
	"LM": {Model: "LM", Class: "rnn", Params: 13987678, FLOPs: 5.107e8,
		Layers: map[string]int{"embedding": 1, "lstm": 2, "linear": 1}, Precision: "fp32",
		Source: "computed from gavel language_modeling/main.py defaults"},
	// Autoencoder recommender on ML-20M (gavel recommendation/train.py:
	// recoder DynamicAutoencoder, one hidden layer of 200, tanh). Input width
	// taken as the 20,108 items left by the usual ML-20M preprocessing
	// (Liang et al. 2018): 2 x 20,108 x 200 weights + biases. The recoder
	// "dynamic" layers compute only the items of a batch, so FLOPs are an
	// upper bound: an estimate.
	"Recommendation": {Model: "Recommendation", Class: "recommender", Params: 8063508, FLOPs: 1.609e7,
		Layers: map[string]int{"linear": 2}, Precision: "fp32",
		Estimate: true, Source: "estimated from gavel recommendation/train.py (item count assumed)"},
	// A3C actor-critic of pytorch-a3c (Mnih et al. 2016), used by gavel
	// workloads/pytorch/rl: 4 conv 3x3/2 with 32 filters on a 42x42 frame,
	// LSTMCell(288, 256), critic and 6-way actor heads: 588,967 parameters,
	// 2.216e6 MACs per step. One update covers 20 steps (num-steps), taken
	// as the batch size: an estimate.
	"A3C": {Model: "A3C", Class: "rl", Params: 588967, FLOPs: 4.43e6, BatchSize: 20,
		Layers: map[string]int{"conv": 4, "lstm": 1, "linear": 2}, Precision: "fp32",
		Estimate: true, Source: "computed from the pytorch-a3c ActorCritic; batch size = num-steps, assumed"},
	// CycleGAN (Zhu et al. 2017; gavel workloads/pytorch/cyclegan): two
	// ResNet-9-block generators of 11.378e6 parameters and two 70x70
	// PatchGAN discriminators of 2.765e6: 28.286e6. A generator costs
	// 56.8e9 MACs at 256x256 (Li et al., GAN Compression, CVPR 2020,
	// Table 1); the discriminators are taken as 3e9 MACs each (estimate).
	// Batch size 1 (CycleGAN's default).
	"CycleGAN": {Model: "CycleGAN", Class: "gan", Params: 28286000, FLOPs: 2.392e11, BatchSize: 1,
		Layers: map[string]int{"conv": 58, "norm": 52}, Precision: "fp32",
		Estimate: true, Source: "parameters from the architecture; FLOPs from GAN Compression Table 1 plus an estimate"},
}

// FamilyOf returns the model family of a Gavel-style job name:
// "ResNet-50 (batch size 64)" -> "ResNet-50"; a name without a batch size
// is its own family.
func FamilyOf(job string) string {
	family, _ := datasets.SplitJobName(job)
	return family
}

// KnownDescriptor describes a job the data hold no descriptor for: the
// known model of its family (KnownModels) with the batch size its name
// states, if any. False when coloc knows no model of that family.
func KnownDescriptor(job string) (Descriptor, bool) {
	family, batch := datasets.SplitJobName(job)
	d, ok := KnownModels[family]
	if ok && batch > 0 {
		d.BatchSize = batch
	}
	return d, ok
}
