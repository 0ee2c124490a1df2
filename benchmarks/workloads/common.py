"""Shared machinery of coloc's workload scripts (cnn.py, rnn.py, recommender.py).

Each script builds a Workload (a model plus how to feed it synthetic data) and
hands it to main(); this module does the rest, the same way for every model:

- the standard arguments of benchmarks/protocol (--device, --batch-size,
  --precision, --duration, --max-steps, --seed) plus --threads and --data-on;
- device, thread, precision and DDP setup (torchrun env; nccl on cuda, gloo on cpu);
- the timed training loop, which prints the JSON-lines protocol on stdout
  (rank 0 only, one flushed line per record);
- layer counting by kind and an analytic FLOP count (see count_flops);
- exit codes: 0 done, 1 error, 2 bad arguments, 3 CUDA out of memory.

Choices the protocol leaves open (documented in docs/workloads.md as well):

- Threads: on cpu a workload uses 1 intra-op thread unless told otherwise
  (--threads N, else env COLOC_TORCH_THREADS, else OMP_NUM_THREADS as torch
  reads it), so that co-located cpu workloads do not each grab every core.
  On cuda torch's own default is kept unless --threads / COLOC_TORCH_THREADS is set.
- amp: on cuda, float16 autocast with a GradScaler; on cpu, bfloat16 autocast
  (torch.autocast(device_type="cpu")) without a scaler. If cpu autocast is
  missing or fails on a probe forward pass, the run falls back to fp32 with a
  warning on stderr, and meta reports the precision actually used.
- Data: a pool of POOL_BATCHES synthetic batches is generated once, on the
  device by default (--data-on host keeps it in pinned host memory and copies
  each batch to the device every step, as a data loader would).
- The duration clock starts at the first training step (after model build,
  FLOP probe and the meta line), and includes warm-up.
- Under DDP every rank stops at the same step: the stop decision is
  all-reduced (max) each step.
"""

import argparse
import contextlib
import json
import math
import os
import sys
import time

import torch
import torch.nn as nn

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_OOM = 3

# Number of distinct synthetic batches cycled through during training.
POOL_BATCHES = 2

LAYER_KINDS = ("conv", "linear", "norm", "recurrent", "embedding", "attention")


class UsageError(Exception):
    """A bad combination of arguments; exits with status 2."""


class Workload:
    """What a script hands to main().

    name, cls     model name and class (cnn | rnn | recommender) for meta.
    model         the nn.Module, built on cpu with the run's seed.
    batch         batch(n, device, generator) -> (inputs tuple, target): n
                  synthetic samples, created on `device` with `generator`.
    loss          loss(model, inputs, target) -> scalar tensor; runs under autocast.
    optimizer     optimizer(params) -> torch.optim.Optimizer.
    config        the size knobs, reported in meta["config"].
    clip_grad     max gradient norm, or None for no clipping.
    extra_flops   forward FLOPs per sample that the module hooks of
                  forward_flops cannot see (e.g. a product of two embeddings).
    """

    def __init__(self, name, cls, model, batch, loss, optimizer, config, clip_grad=None,
                 extra_flops=0):
        self.name = name
        self.cls = cls
        self.model = model
        self.batch = batch
        self.loss = loss
        self.optimizer = optimizer
        self.config = config
        self.clip_grad = clip_grad
        self.extra_flops = extra_flops


# ---------------------------------------------------------------- arguments


def parser(description):
    """An ArgumentParser with the standard arguments; scripts add their knobs."""
    p = argparse.ArgumentParser(
        description=description,
        epilog="Speaks coloc's JSON-lines workload protocol on stdout "
        "(see docs/workloads.md). Exit status: 0 done, "
        "1 error, 2 bad arguments, 3 CUDA out of memory.",
    )
    g = p.add_argument_group("standard arguments (coloc protocol)")
    g.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    g.add_argument("--batch-size", type=int, default=32, help="per-process batch size")
    g.add_argument("--precision", choices=("fp32", "amp"), default="fp32")
    g.add_argument("--duration", type=float, default=10.0,
                   help="seconds to train, warm-up included (default 10)")
    g.add_argument("--max-steps", type=int, default=0, help="stop after N steps (0 = no cap)")
    g.add_argument("--seed", type=int, default=0)
    g = p.add_argument_group("runtime")
    g.add_argument("--threads", type=int, default=None,
                   help="torch intra-op threads (default: env COLOC_TORCH_THREADS, else "
                   "OMP_NUM_THREADS, else 1 on cpu and torch's default on cuda)")
    g.add_argument("--data-on", choices=("device", "host"), default="device",
                   help="where the synthetic batches live (host: copied every step)")
    return p


def check_standard(args):
    if args.batch_size < 1:
        raise UsageError("--batch-size must be at least 1, got %d" % args.batch_size)
    if not args.duration > 0:
        raise UsageError("--duration must be positive, got %r" % args.duration)
    if args.max_steps < 0:
        raise UsageError("--max-steps must be 0 or more, got %d" % args.max_steps)
    if args.threads is not None and args.threads < 1:
        raise UsageError("--threads must be at least 1, got %d" % args.threads)


def int_list(text):
    """argparse type for '256,128,64'."""
    try:
        vals = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("want comma-separated integers, got %r" % text)
    if not vals or min(vals) < 1:
        raise argparse.ArgumentTypeError("want positive integers, got %r" % text)
    return vals


def scaled(channels, width):
    """A channel count times a width multiplier, at least 1."""
    return max(1, int(round(channels * width)))


# ---------------------------------------------------------------- protocol output


class Emitter:
    """Writes protocol records as one flushed JSON line each (rank 0 only)."""

    def __init__(self, enabled, stream=None):
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stdout

    def emit(self, record):
        if not self.enabled:
            return
        self.stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        self.stream.flush()


def warn(msg):
    sys.stderr.write("coloc-workload: warning: %s\n" % msg)
    sys.stderr.flush()


# ---------------------------------------------------------------- model description


def count_layers(model):
    """Layer counts by kind from the module tree.

    conv: Conv/ConvTranspose 1-3d; linear: Linear, Bilinear; norm: batch, layer,
    group, instance and local-response norms; recurrent: one per layer of an
    RNN/LSTM/GRU (num_layers; a bidirectional layer counts once) and one per
    cell; embedding: Embedding, EmbeddingBag; attention: MultiheadAttention.
    """
    counts = dict.fromkeys(LAYER_KINDS, 0)
    for m in model.modules():
        if isinstance(m, (nn.modules.conv._ConvNd,)):
            counts["conv"] += 1
        elif isinstance(m, (nn.Linear, nn.Bilinear)):
            counts["linear"] += 1
        elif isinstance(m, (nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm,
                            nn.LocalResponseNorm)):
            counts["norm"] += 1
        elif isinstance(m, nn.RNNBase):
            counts["recurrent"] += m.num_layers
        elif isinstance(m, nn.RNNCellBase):
            counts["recurrent"] += 1
        elif isinstance(m, (nn.Embedding, nn.EmbeddingBag)):
            counts["embedding"] += 1
        elif isinstance(m, nn.MultiheadAttention):
            counts["attention"] += 1
    return counts


def trainable_params(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}

# Leaf modules with parameters whose FLOPs are negligible next to conv/linear/
# recurrent work (elementwise per activation) and are left out of the count.
_NEGLIGIBLE = (nn.modules.batchnorm._NormBase, nn.LayerNorm, nn.GroupNorm, nn.PReLU)


def _conv_flops(m, inp, out):
    k = 1
    for s in m.kernel_size:
        k *= s
    if m.transposed:
        return 2 * inp[0].numel() * (m.out_channels // m.groups) * k
    return 2 * out.numel() * (m.in_channels // m.groups) * k


def _linear_flops(m, inp, out):
    return 2 * out.numel() * m.in_features


def _bilinear_flops(m, inp, out):
    return 2 * out.numel() * m.in1_features * m.in2_features


def _rnn_flops(m, inp, out):
    x = inp[0]
    if not torch.is_tensor(x):
        return None  # PackedSequence: lengths unknown here
    if x.dim() == 2:
        steps, batch = x.shape[0], 1
    elif m.batch_first:
        batch, steps = x.shape[0], x.shape[1]
    else:
        steps, batch = x.shape[0], x.shape[1]
    gates = _GATES[m.mode]
    dirs = 2 if m.bidirectional else 1
    hidden = m.hidden_size
    per_step = 0
    for layer in range(m.num_layers):
        width = m.input_size if layer == 0 else hidden * dirs
        per_step += 2 * gates * hidden * (width + hidden)
    return per_step * dirs * steps * batch


def _cell_flops(m, inp, out):
    x = inp[0]
    batch = x.shape[0] if x.dim() == 2 else 1
    gates = {nn.LSTMCell: 4, nn.GRUCell: 3}.get(type(m), 1)
    return 2 * gates * m.hidden_size * (m.input_size + m.hidden_size) * batch


def forward_flops(model, inputs, n, extra=0):
    """Forward FLOPs per sample (2 per multiply-add), or None if unknown.

    Runs one forward pass (eval mode, no grad) on `inputs` (a batch of n
    samples) with hooks on every leaf module and counts, from the actual
    tensor shapes: convolutions, linear and bilinear layers, and recurrent
    layers (gates x 2 x hidden x (input + hidden) per step, layer and
    direction). Embedding lookups count 0 (a gather, no arithmetic).
    Elementwise work (activations, norms, pooling, gate nonlinearities,
    residual adds, softmax, the loss) is left out: it is a few percent of
    these models. A leaf with parameters of any other type makes the result
    None (unknown), rather than a silent undercount; 0-d and 1-d parameters
    (scales, biases) are taken for elementwise work. extra is added per sample
    for work a script knows the hooks cannot see (products of embeddings).
    """
    total = [0]
    unknown = []
    handles = []

    def add(fn):
        def hook(m, inp, out):
            f = fn(m, inp, out)
            if f is None:
                unknown.append(type(m).__name__)
            else:
                total[0] += f
        return hook

    for m in model.modules():
        if isinstance(m, nn.modules.conv._ConvNd):
            handles.append(m.register_forward_hook(add(_conv_flops)))
        elif isinstance(m, nn.Linear):
            handles.append(m.register_forward_hook(add(_linear_flops)))
        elif isinstance(m, nn.Bilinear):
            handles.append(m.register_forward_hook(add(_bilinear_flops)))
        elif isinstance(m, nn.RNNBase):
            handles.append(m.register_forward_hook(add(_rnn_flops)))
        elif isinstance(m, nn.RNNCellBase):
            handles.append(m.register_forward_hook(add(_cell_flops)))
        elif isinstance(m, (nn.Embedding, nn.EmbeddingBag) + _NEGLIGIBLE):
            pass
        elif any(p.dim() > 1 for p in m.parameters(recurse=False)):
            # A matrix parameter outside the known kinds: some product we cannot see.
            unknown.append(type(m).__name__)
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            model(*inputs)
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    if unknown:
        warn("FLOPs unknown for %s; flops_per_sample is null" % ", ".join(sorted(set(unknown))))
        return None
    return total[0] / n + extra


# ---------------------------------------------------------------- setup


class Dist:
    """Process-group facts from torchrun's env (world_size 1 without it)."""

    def __init__(self):
        self.world_size = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))

    @property
    def enabled(self):
        return self.world_size > 1


def setup_threads(args):
    n = args.threads
    if n is None and os.environ.get("COLOC_TORCH_THREADS"):
        try:
            n = int(os.environ["COLOC_TORCH_THREADS"])
        except ValueError:
            raise UsageError("COLOC_TORCH_THREADS must be an integer, got %r"
                             % os.environ["COLOC_TORCH_THREADS"])
        if n < 1:
            raise UsageError("COLOC_TORCH_THREADS must be at least 1, got %d" % n)
    if n is None and args.device == "cpu" and not os.environ.get("OMP_NUM_THREADS"):
        n = 1
    if n is not None:
        torch.set_num_threads(n)
    return torch.get_num_threads()


def setup_device(args, dist):
    if args.device == "cuda":
        if not torch.cuda.is_available():
            raise UsageError("--device cuda but torch.cuda.is_available() is False "
                             "(torch %s)" % torch.__version__)
        device = torch.device("cuda", dist.local_rank if dist.enabled else 0)
        torch.cuda.set_device(device)
        torch.backends.cudnn.benchmark = True
    else:
        device = torch.device("cpu")
    if dist.enabled:
        import torch.distributed as tdist
        backend = "nccl" if device.type == "cuda" else "gloo"
        tdist.init_process_group(backend=backend)
    return device


def setup_precision(args, device, probe):
    """Returns (precision used, autocast factory, GradScaler or None).

    probe(ctx) runs one training pass under the autocast context; on cpu a
    failure there means bf16 autocast does not support this model's ops.
    """
    if args.precision == "fp32":
        return "fp32", contextlib.nullcontext, None
    if device.type == "cuda":
        ctx = lambda: torch.autocast(device_type="cuda", dtype=torch.float16)
        if hasattr(torch, "amp") and hasattr(torch.amp, "GradScaler"):
            scaler = torch.amp.GradScaler("cuda")
        else:
            scaler = torch.cuda.amp.GradScaler()
        return "amp", ctx, scaler
    if not hasattr(torch, "autocast"):
        warn("torch %s has no torch.autocast; running fp32" % torch.__version__)
        return "fp32", contextlib.nullcontext, None
    ctx = lambda: torch.autocast(device_type="cpu", dtype=torch.bfloat16)
    try:
        probe(ctx)
    except Exception as e:  # an op without a bf16 cpu kernel
        warn("cpu bfloat16 autocast failed (%s); running fp32" % str(e).splitlines()[0])
        return "fp32", contextlib.nullcontext, None
    return "amp", ctx, None


# ---------------------------------------------------------------- training


def _to_device(obj, device):
    if torch.is_tensor(obj):
        return obj.to(device, non_blocking=True)
    if isinstance(obj, (tuple, list)):
        return type(obj)(_to_device(o, device) for o in obj)
    return obj


def _pin(obj):
    if torch.is_tensor(obj):
        return obj.pin_memory() if torch.cuda.is_available() else obj
    if isinstance(obj, (tuple, list)):
        return type(obj)(_pin(o) for o in obj)
    return obj


def train(args, wl, dist, out):
    """Builds, describes and trains wl; returns the exit status."""
    threads = setup_threads(args)
    device = setup_device(args, dist)
    model = wl.model.to(device)
    # The model was initialised with --seed on every rank; from here on (dropout,
    # sampled negatives) each rank draws its own numbers.
    torch.manual_seed(args.seed * 1000 + dist.rank)

    gen_device = device if args.data_on == "device" else torch.device("cpu")
    gen = torch.Generator(device=gen_device)
    gen.manual_seed(args.seed * 1000 + dist.rank + 1)

    probe_inputs, _ = wl.batch(1, device, torch.Generator(device=device).manual_seed(args.seed))
    flops = forward_flops(model, probe_inputs, 1, wl.extra_flops)

    def probe(ctx):
        # One forward and backward pass at batch 2: some cpu ops have a bf16
        # forward kernel but no backward one (hardtanh in torch 1.13).
        inputs, target = wl.batch(2, device, torch.Generator(device=device).manual_seed(args.seed))
        with ctx():
            loss = wl.loss(model, inputs, target)
        loss.backward()
        model.zero_grad(set_to_none=True)

    precision, autocast, scaler = setup_precision(args, device, probe)
    del probe_inputs

    out.emit({
        "type": "meta",
        "model": wl.name,
        "class": wl.cls,
        "params": trainable_params(model),
        "flops_per_sample": None if flops is None else 3.0 * flops,
        "layers": count_layers(model),
        "batch_size": args.batch_size,
        "precision": precision,
        "device": device.type,
        "world_size": dist.world_size,
        "torch": torch.__version__,
        "threads": threads,
        "config": wl.config,
    })

    net = model
    if dist.enabled:
        from torch.nn.parallel import DistributedDataParallel as DDP
        net = DDP(model, device_ids=[device.index] if device.type == "cuda" else None)
    opt = wl.optimizer(net.parameters())

    pool = [wl.batch(args.batch_size, gen_device, gen) for _ in range(POOL_BATCHES)]
    if args.data_on == "host":
        pool = [_pin(b) for b in pool]
    if device.type == "cuda":
        torch.cuda.reset_peak_memory_stats(device)
        torch.cuda.synchronize(device)

    if dist.enabled:
        import torch.distributed as tdist
        flag = torch.zeros(1, device=device)

    samples_per_step = args.batch_size * dist.world_size
    step = 0
    last_loss = None
    start = time.monotonic()
    while True:
        inputs, target = pool[step % len(pool)]
        if args.data_on == "host":
            inputs, target = _to_device((inputs, target), device)
        opt.zero_grad(set_to_none=True)
        with autocast():
            loss = wl.loss(net, inputs, target)
        if scaler is not None:
            scaler.scale(loss).backward()
            if wl.clip_grad is not None:
                scaler.unscale_(opt)
                nn.utils.clip_grad_norm_(net.parameters(), wl.clip_grad)
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            if wl.clip_grad is not None:
                nn.utils.clip_grad_norm_(net.parameters(), wl.clip_grad)
            opt.step()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        step += 1
        now = time.monotonic()
        out.emit({"type": "step", "step": step, "samples": step * samples_per_step, "time": now})
        last_loss = loss.detach()
        stop = (args.max_steps and step >= args.max_steps) or now - start >= args.duration
        if dist.enabled:
            flag.fill_(1.0 if stop else 0.0)
            tdist.all_reduce(flag, op=tdist.ReduceOp.MAX)
            stop = flag.item() > 0
        if stop:
            break

    if last_loss is not None and not math.isfinite(float(last_loss)):
        warn("loss is %s at step %d: the model diverged; step times may not be "
             "those of real training" % (float(last_loss), step))
    peak = torch.cuda.max_memory_allocated(device) if device.type == "cuda" else None
    out.emit({"type": "end", "steps": step, "samples": step * samples_per_step,
              "time": time.monotonic(), "peak_memory_bytes": peak})
    if dist.enabled:
        tdist.destroy_process_group()
    return EXIT_OK


def is_cuda_oom(exc):
    if isinstance(exc, getattr(torch.cuda, "OutOfMemoryError", ())):
        return True
    text = str(exc)
    return isinstance(exc, RuntimeError) and (
        "CUDA out of memory" in text
        or "CUBLAS_STATUS_ALLOC_FAILED" in text
        or "CUDNN_STATUS_ALLOC_FAILED" in text
        or ("out of memory" in text and "CUDA" in text))


def main(p, build, argv=None):
    """Parses argv, builds the workload with build(args), trains it, and exits.

    build(args) returns a Workload or raises UsageError. Never returns.
    """
    args = p.parse_args(argv)
    dist = Dist()
    out = Emitter(enabled=dist.rank == 0)
    status = EXIT_ERROR
    try:
        check_standard(args)
        torch.manual_seed(args.seed)
        wl = build(args)
        status = train(args, wl, dist, out)
    except UsageError as e:
        sys.stderr.write("coloc-workload: %s\n" % e)
        status = EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("coloc-workload: interrupted\n")
        status = 130
    except BaseException as e:  # noqa: B902 - one place turns every failure into a status
        if is_cuda_oom(e):
            sys.stderr.write("coloc-workload: CUDA out of memory (rank %d, batch size %d): %s\n"
                             % (dist.rank, args.batch_size, str(e).splitlines()[0] if str(e) else ""))
            status = EXIT_OOM
        elif isinstance(e, SystemExit):
            raise
        else:
            import traceback
            traceback.print_exc(file=sys.stderr)
            sys.stderr.write("coloc-workload: error: %s: %s\n" % (type(e).__name__, e))
            status = EXIT_ERROR
    sys.stderr.flush()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    sys.exit(status)
