// Package cluster is the cluster spec of coloc: the GPU nodes a placement
// policy (package policy) places jobs on and the simulator (package
// sim) replays traces on. It sits between the fitted models and the
// schedulers in the pipeline (docs/architecture.md) and depends on nothing else of
// coloc, so a scheduler can read the same file.
//
// A spec is a YAML (or JSON) file, version 1:
//
//	version: 1
//	name: small
//	nodes:
//	  - name: v100          # expanded to v100-0, v100-1 when count > 1
//	    count: 2            # identical nodes; default 1
//	    gpu_type: v100      # a device type of the measured data
//	    gpus: 8             # GPUs per node
//	    gpu_memory_gb: 16   # per GPU, 10^9 bytes
//	    link: nvlink        # intra-node link: nvlink, nvswitch or pcie
//	    link_gbytes_s: 300  # intra-node bandwidth per GPU, GB/s (10^9 bytes/s)
//	    network_gbytes_s: 3.125  # inter-node bandwidth per node, GB/s (25 Gbit/s)
//
// Bandwidths share one unit, GB/s, so a communication cost is bytes over
// bytes per second whichever link it crosses. Reading a spec validates it;
// errors name the file, the line and the node.
//
// A spec is bounded (MaxGPUsPerNode, MaxGPUs, MaxMemoryGB, MaxBandwidth,
// MaxNameLen): far above any real cluster, the limits keep the placement
// engine's per-GPU state small and every count far from overflow, and they
// are checked before the groups are expanded into nodes, so a hostile file
// costs nothing to refuse. NaN and infinities are refused, and so is a key
// given twice in one entry (the YAML library's rule).
package cluster
