#!/usr/bin/env python3
"""Estimates memory_gb and est_step_s for the workloads of a suite, on the cpu.

    python3 benchmarks/workloads/estimate.py benchmarks/suites/default.yaml

For each workload of the suite (shipped scripts only: cnn.py, rnn.py,
recommender.py) it builds the model with the suite's arguments and prints:

- memory_gb: an estimate of torch.cuda.max_memory_allocated for one fp32
  training step at the suite's batch size =
      1.25 x (weights + gradients + optimizer state + activations + input pool)
  where activations are the bytes autograd saves for backward, measured with
  saved_tensors_hooks during forward passes at batch 1 and 2 and extrapolated
  linearly to the batch size (parameters excluded, shared storages counted
  once), optimizer state is 1 copy of the weights for SGD with momentum and 2
  for Adam, and 1.25 covers what is not counted (transient forward
  temporaries, activation gradients during backward, cuDNN workspaces,
  allocator rounding). The CUDA context (~0.5 GB) is not in this number, as
  it is not in max_memory_allocated. cuDNN's RNN kernels save a different
  set of tensors than the cpu ones measured here.
- est_step_s: fwd+bwd FLOPs per step / ASSUMED_FLOPS, at least MIN_STEP_S.
  A rough planning number, not a measurement: ASSUMED_FLOPS stands for the
  fraction of an H100/H200's TF32/FP32 peak that these models reach, and
  MIN_STEP_S for kernel-launch-bound small models.
"""

import argparse
import os
import sys

import torch

import common

ASSUMED_FLOPS = 25e12
MIN_STEP_S = 0.005
OVERHEAD = 1.25

HERE = os.path.dirname(os.path.abspath(__file__))


def _storage_key(t):
    s = t.untyped_storage() if hasattr(t, "untyped_storage") else t.storage()
    nbytes = s.nbytes() if hasattr(s, "nbytes") else s.size() * t.element_size()
    return s.data_ptr(), nbytes


def saved_bytes(wl, n):
    """Bytes autograd saves for backward in one forward pass at batch n."""
    params = {p.data_ptr() for p in wl.model.parameters()}
    seen = {}

    def pack(t):
        ptr, nbytes = _storage_key(t)
        if ptr not in params and ptr:
            seen[ptr] = nbytes
        return t

    gen = torch.Generator().manual_seed(0)
    inputs, target = wl.batch(n, torch.device("cpu"), gen)
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = wl.loss(wl.model, inputs, target)
    del loss
    input_bytes = 0
    for obj in list(inputs) + [target]:
        if torch.is_tensor(obj):
            input_bytes += obj.numel() * obj.element_size()
    return sum(seen.values()), input_bytes


def optimizer_copies(wl):
    opt = wl.optimizer([torch.nn.Parameter(torch.zeros(1))])
    if isinstance(opt, torch.optim.Adam):
        return 2
    if isinstance(opt, torch.optim.SGD) and opt.defaults.get("momentum", 0):
        return 1
    return 0


def estimate(script, argv, batch_size):
    """(params, flops_per_sample, memory_gb, est_step_s) for one workload."""
    mod = __import__(script)
    args = mod.make_parser().parse_args(argv + ["--device", "cpu"])
    wl = mod.build(args)
    p = common.trainable_params(wl.model)
    probe, _ = wl.batch(1, torch.device("cpu"), torch.Generator().manual_seed(0))
    fwd = common.forward_flops(wl.model, probe, 1, wl.extra_flops)
    wl.model.train()
    a1, in1 = saved_bytes(wl, 1)
    a2, in2 = saved_bytes(wl, 2)
    per_sample, fixed = a2 - a1, 2 * a1 - a2
    acts = max(0, fixed + per_sample * batch_size)
    inputs = (in2 - in1) * batch_size * common.POOL_BATCHES
    state = 4 * p * (2 + optimizer_copies(wl))
    mem = OVERHEAD * (state + acts + inputs) / 2 ** 30
    step = None if fwd is None else max(MIN_STEP_S, 3 * fwd * batch_size / ASSUMED_FLOPS)
    return p, None if fwd is None else 3 * fwd, mem, step


def load_suite(path):
    import yaml

    with open(path) as f:
        suite = yaml.safe_load(f)
    if suite.get("version") != 1:
        raise SystemExit("%s: suite version %r, want 1" % (path, suite.get("version")))
    return suite


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("suite")
    ap.add_argument("--only", default="", help="comma-separated workload names")
    opts = ap.parse_args()
    torch.set_num_threads(int(os.environ.get("COLOC_TORCH_THREADS", "1")))
    suite = load_suite(opts.suite)
    only = set(filter(None, opts.only.split(",")))
    print("%-22s %12s %12s %10s %10s" % ("workload", "params", "flops/sample", "memory_gb", "est_step_s"))
    for w in suite["workloads"]:
        if only and w["name"] not in only:
            continue
        cmd = w["command"]
        script = os.path.splitext(os.path.basename(cmd[1]))[0]
        if script not in ("cnn", "rnn", "recommender"):
            print("%-22s (not a shipped script, skipped)" % w["name"])
            continue
        p, f, mem, step = estimate(script, list(cmd[2:]), w["batch_size"])
        print("%-22s %12d %12.3g %10.2f %10s" % (
            w["name"], p, f if f is not None else float("nan"), mem,
            "%.3f" % step if step is not None else "-"))
        sys.stdout.flush()


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
