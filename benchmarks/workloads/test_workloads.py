"""Tests of the workload scripts against the protocol (benchmarks/README, protocol.md).

Run on the cpu with the interpreter that has torch (Debian: python3-torch):

    cd benchmarks/workloads && /usr/bin/python3 -m unittest -v test_workloads

Every workload of suites/tiny.yaml runs for ~1.5 s as the suite says; every
workload of suites/default.yaml runs 3 steps at small sizes (overrides below);
one tiny workload runs under torchrun with 2 processes (gloo). The stdout of
each run is checked line by line against the protocol.
"""

import contextlib
import io
import json
import os
import subprocess
import sys
import unittest

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
SUITES = os.path.join(HERE, "..", "suites")
sys.path.insert(0, HERE)

import cnn  # noqa: E402
import common  # noqa: E402

PYTHON = sys.executable
TIMEOUT_S = 180

META_KEYS = {"type", "model", "class", "params", "flops_per_sample", "layers", "batch_size",
             "precision", "device", "world_size", "torch"}

# Small sizes for the default suite's models: appended after the suite's own
# arguments (argparse keeps the last value). Knobs a model does not use are ignored.
SMALL = {
    "cnn.py": (["--image-size", "64", "--width", "0.125"], 4),
    "rnn.py": (["--seq-len", "16", "--hidden", "16", "--layers", "2", "--vocab", "200",
                "--embed-dim", "16", "--freq-bins", "32"], 4),
    "recommender.py": (["--users", "300", "--items", "200", "--embed-dim", "8",
                        "--mlp-layers", "32,16,8", "--hidden", "32,16"], 64),
}


def load_suite(name):
    import yaml  # python3-yaml, a dependency of Debian's python3-torch

    path = os.path.join(SUITES, name + ".yaml")
    with open(path) as f:
        return yaml.safe_load(f), os.path.dirname(path)


def expand(command, suite_dir):
    return [c.replace("{python}", PYTHON).replace("{suite_dir}", suite_dir) for c in command]


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("COLOC_TORCH_THREADS", "OMP_NUM_THREADS", "RANK", "WORLD_SIZE",
                        "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT")}
    env.update(extra)
    return env


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S,
                       env=env if env is not None else clean_env())
    return p.returncode, p.stdout, p.stderr


class ProtocolCase(unittest.TestCase):
    def check_protocol(self, stdout, stderr, model, cls, batch_size, world_size=1,
                       precision="fp32", steps=None):
        """Checks one run's stdout line by line; returns (meta, step records, end)."""
        lines = stdout.splitlines()
        self.assertGreaterEqual(len(lines), 3, "stdout:\n%s\nstderr:\n%s" % (stdout, stderr))
        recs = []
        for i, line in enumerate(lines):
            try:
                recs.append(json.loads(line))
            except ValueError:
                self.fail("stdout line %d is not JSON: %r" % (i + 1, line))
        meta, body, end = recs[0], recs[1:-1], recs[-1]

        self.assertEqual(meta.get("type"), "meta", "first line must be meta")
        self.assertLessEqual(META_KEYS, set(meta), "meta lacks %s" % (META_KEYS - set(meta)))
        self.assertEqual(meta["model"], model)
        self.assertEqual(meta["class"], cls)
        self.assertEqual(meta["batch_size"], batch_size)
        self.assertEqual(meta["world_size"], world_size)
        self.assertEqual(meta["precision"], precision)
        self.assertEqual(meta["device"], "cpu")
        self.assertEqual(meta["torch"], torch.__version__)
        self.assertIsInstance(meta["params"], int)
        self.assertGreater(meta["params"], 0)
        f = meta["flops_per_sample"]
        self.assertTrue(f is None or (isinstance(f, float) and f > 0), "flops_per_sample %r" % f)
        self.assertEqual(set(meta["layers"]), set(common.LAYER_KINDS))
        self.assertTrue(all(isinstance(v, int) and v >= 0 for v in meta["layers"].values()))

        self.assertEqual(end.get("type"), "end", "last line must be end")
        self.assertGreaterEqual(len(body), 1)
        last_time = None
        for i, r in enumerate(body, start=1):
            self.assertEqual(r["type"], "step", "line %d" % (i + 1))
            self.assertEqual(r["step"], i)
            self.assertEqual(r["samples"], i * batch_size * world_size)
            self.assertIsInstance(r["time"], float)
            if last_time is not None:
                self.assertGreater(r["time"], last_time, "time must increase (step %d)" % i)
            last_time = r["time"]
        self.assertEqual(end["steps"], len(body))
        self.assertEqual(end["samples"], body[-1]["samples"])
        self.assertGreaterEqual(end["time"], last_time)
        self.assertIsNone(end["peak_memory_bytes"])
        if steps is not None:
            self.assertEqual(end["steps"], steps)
        self.assertNotIn("diverged", stderr)
        return meta, body, end


def script_of(command):
    return os.path.basename(command[1])


def model_of(command):
    return command[command.index("--model") + 1]


class TinySuite(ProtocolCase):
    """Every tiny workload, as the suite says, for 1.5 s (stops on --duration)."""

    def test_tiny_workloads(self):
        suite, suite_dir = load_suite("tiny")
        self.assertEqual(suite["version"], 1)
        self.assertEqual({w["class"] for w in suite["workloads"]}, {"cnn", "rnn", "recommender"})
        for w in suite["workloads"]:
            with self.subTest(workload=w["name"]):
                cmd = expand(w["command"], suite_dir) + [
                    "--device", "cpu", "--batch-size", str(w["batch_size"]),
                    "--precision", w.get("precision", suite["defaults"]["precision"]),
                    "--duration", "1.5", "--seed", "1"]
                rc, out, err = run(cmd)
                self.assertEqual(rc, 0, err)
                meta, body, _ = self.check_protocol(out, err, model_of(w["command"]), w["class"],
                                                    w["batch_size"])
                self.assertGreaterEqual(len(body), 2)
                self.assertEqual(meta["threads"], 1)

    def test_torchrun_two_processes(self):
        """Degree 2 on the cpu: gloo DDP, rank 0 reports samples over both ranks."""
        suite, suite_dir = load_suite("tiny")
        w = suite["workloads"][0]
        cmd = expand(w["command"], suite_dir)
        launcher = os.path.join(HERE, "torchrun_compat.py")
        cmd = [cmd[0], launcher, "--standalone", "--nproc_per_node", "2"] + cmd[1:] + [
            "--device", "cpu", "--batch-size", str(w["batch_size"]), "--duration", "60",
            "--max-steps", "5"]
        rc, out, err = run(cmd)
        self.assertEqual(rc, 0, err)
        self.check_protocol(out, err, model_of(w["command"]), w["class"], w["batch_size"],
                            world_size=2, steps=5)

    def test_cpu_amp_uses_bfloat16_autocast(self):
        suite, suite_dir = load_suite("tiny")
        w = suite["workloads"][0]  # resnet18: every op has a bf16 cpu kernel in torch >= 1.13
        cmd = expand(w["command"], suite_dir) + [
            "--device", "cpu", "--batch-size", "4", "--precision", "amp", "--max-steps", "2"]
        rc, out, err = run(cmd)
        self.assertEqual(rc, 0, err)
        self.check_protocol(out, err, model_of(w["command"]), w["class"], 4, precision="amp",
                            steps=2)

    def test_cpu_amp_falls_back_to_fp32_when_bf16_backward_is_missing(self):
        # MobileNetV2's ReLU6 (hardtanh) has no bf16 cpu backward in torch 1.13.
        cmd = [PYTHON, os.path.join(HERE, "cnn.py"), "--model", "mobilenetv2", "--image-size", "32",
               "--width", "0.25", "--device", "cpu", "--batch-size", "2", "--precision", "amp",
               "--max-steps", "1"]
        rc, out, err = run(cmd)
        self.assertEqual(rc, 0, err)
        meta = json.loads(out.splitlines()[0])
        if meta["precision"] == "fp32":
            self.assertIn("running fp32", err)
        else:
            self.assertEqual(meta["precision"], "amp")

    def test_threads_from_env(self):
        cmd = [PYTHON, os.path.join(HERE, "cnn.py"), "--model", "lenet", "--device", "cpu",
               "--batch-size", "2", "--max-steps", "1"]
        for env, want in ((clean_env(), 1), (clean_env(COLOC_TORCH_THREADS="2"), 2)):
            rc, out, err = run(cmd, env=env)
            self.assertEqual(rc, 0, err)
            self.assertEqual(json.loads(out.splitlines()[0])["threads"], want)


class DefaultSuite(ProtocolCase):
    """Every default workload at small sizes, 3 steps (stops on --max-steps)."""

    def test_default_workloads_small(self):
        suite, suite_dir = load_suite("default")
        self.assertEqual(suite["version"], 1)
        names = [w["name"] for w in suite["workloads"]]
        self.assertEqual(len(names), len(set(names)), "workload names must be unique")
        classes = [w["class"] for w in suite["workloads"]]
        self.assertGreaterEqual(classes.count("cnn"), 4)
        self.assertGreaterEqual(classes.count("rnn"), 2)
        self.assertGreaterEqual(classes.count("recommender"), 2)
        for w in suite["workloads"]:
            with self.subTest(workload=w["name"]):
                self.assertGreater(w["memory_gb"], 0)
                self.assertGreater(w["est_step_s"], 0)
                extra, batch = SMALL[script_of(w["command"])]
                cmd = expand(w["command"], suite_dir) + extra + [
                    "--device", "cpu", "--batch-size", str(batch), "--duration", "60",
                    "--max-steps", "3"]
                rc, out, err = run(cmd)
                self.assertEqual(rc, 0, err)
                meta, _, _ = self.check_protocol(out, err, model_of(w["command"]), w["class"],
                                                 batch, steps=3)
                self.assertIsNotNone(meta["flops_per_sample"])


class ModelsMatchReferences(unittest.TestCase):
    """Full-size CNNs have torchvision's parameter counts and published GMACs."""

    # torchvision model docs: parameters and "GFLOPS" (multiply-adds) at 224 px.
    # lenet: hand count; resnet18 cifar: kuangliu/pytorch-cifar's ResNet18.
    CASES = [
        (["--model", "lenet"], 61706, None),
        (["--model", "alexnet"], 61100840, 0.71),
        (["--model", "vgg16"], 138357544, 15.47),
        (["--model", "resnet18"], 11689512, 1.81),
        (["--model", "resnet50"], 25557032, 4.09),
        (["--model", "mobilenetv2"], 3504872, 0.30),
        (["--model", "resnet18", "--stem", "cifar", "--image-size", "32", "--num-classes", "10"],
         11173962, 0.56),
    ]

    def test_params_and_flops(self):
        torch.set_num_threads(1)
        for argv, params, gmacs in self.CASES:
            with self.subTest(argv=argv):
                args = cnn.make_parser().parse_args(argv + ["--device", "cpu"])
                wl = cnn.build(args)
                self.assertEqual(common.trainable_params(wl.model), params)
                if gmacs is None:
                    continue
                inputs, _ = wl.batch(1, torch.device("cpu"), torch.Generator().manual_seed(0))
                fwd = common.forward_flops(wl.model, inputs, 1)
                self.assertAlmostEqual(fwd / 2e9, gmacs, delta=0.01 * gmacs + 0.005)


class Counting(unittest.TestCase):
    def test_forward_flops_by_hand(self):
        # (name, module, inputs, samples in inputs, forward FLOPs per sample)
        cases = [
            # Conv2d(3->8, 3x3) on 10x10: 8 x 8 x 8 outputs x 27 MACs x 2
            ("conv", nn.Conv2d(3, 8, 3), (torch.zeros(2, 3, 10, 10),), 2, 2 * 8 * 8 * 8 * 27),
            ("grouped conv", nn.Conv2d(4, 4, 3, padding=1, groups=4), (torch.zeros(1, 4, 5, 5),),
             1, 2 * 4 * 25 * 9),
            ("linear", nn.Linear(5, 7), (torch.zeros(3, 5),), 3, 2 * 5 * 7),
            ("linear over a sequence", nn.Linear(5, 7), (torch.zeros(3, 4, 5),), 3, 4 * 2 * 5 * 7),
            # LSTM(4->6), 5 steps: 4 gates x 2 x 6 x (4 + 6) per step; input (steps, batch, 4)
            ("lstm", nn.LSTM(4, 6), (torch.zeros(5, 2, 4),), 2, 5 * 4 * 2 * 6 * 10),
            # bidirectional 2-layer GRU: layer 2 reads 2 x 6
            ("bi-gru", nn.GRU(4, 6, 2, bidirectional=True), (torch.zeros(5, 1, 4),), 1,
             5 * 2 * (3 * 2 * 6 * 10 + 3 * 2 * 6 * 18)),
            ("batch-first rnn", nn.RNN(4, 6, batch_first=True), (torch.zeros(2, 5, 4),), 2,
             5 * 2 * 6 * 10),
            ("embedding", nn.Embedding(10, 4), (torch.zeros(3, dtype=torch.long),), 3, 0),
        ]
        for name, model, inputs, n, want in cases:
            with self.subTest(name):
                self.assertEqual(common.forward_flops(model, inputs, n), want)

    def test_extra_flops_are_added(self):
        self.assertEqual(common.forward_flops(nn.Linear(2, 3), (torch.zeros(1, 2),), 1, 5), 12 + 5)

    def test_unknown_matrix_parameter_makes_flops_null(self):
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.zeros(4, 4))

            def forward(self, x):
                return x @ self.w

        with contextlib.redirect_stderr(io.StringIO()) as err:
            self.assertIsNone(common.forward_flops(Custom(), (torch.zeros(2, 4),), 2))
        self.assertIn("Custom", err.getvalue())

    def test_layer_counts(self):
        model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.LSTM(2, 3, num_layers=3),
                              nn.GRUCell(2, 3), nn.Embedding(4, 2), nn.Linear(2, 2),
                              nn.LayerNorm(2), nn.MultiheadAttention(2, 1))
        self.assertEqual(common.count_layers(model), {
            "conv": 1, "linear": 2, "norm": 2, "recurrent": 4, "embedding": 1, "attention": 1})
        # linear: nn.Linear plus MultiheadAttention's out_proj (a Linear module)


class ExitStatus(unittest.TestCase):
    def main_status(self, build, argv):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            with self.assertRaises(SystemExit) as cm:
                common.main(cnn.make_parser(), build, argv)
        return cm.exception.code, err.getvalue()

    def test_cuda_oom_exits_3(self):
        def build(args):
            raise torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")

        code, err = self.main_status(build, ["--device", "cpu"])
        self.assertEqual(code, common.EXIT_OOM)
        self.assertIn("CUDA out of memory", err)

    def test_error_exits_1_with_reason(self):
        def build(args):
            raise ValueError("broken model")

        code, err = self.main_status(build, ["--device", "cpu"])
        self.assertEqual(code, common.EXIT_ERROR)
        self.assertIn("broken model", err)

    def test_bad_arguments_exit_2(self):
        cases = [
            ["--model", "lenet", "--device", "cpu", "--batch-size", "0"],
            ["--model", "lenet", "--device", "cpu", "--precision", "fp16"],
            ["--model", "alexnet", "--device", "cpu", "--image-size", "32"],
        ]
        for argv in cases:
            with self.subTest(argv=argv):
                rc, out, err = run([PYTHON, os.path.join(HERE, "cnn.py")] + argv)
                self.assertEqual(rc, common.EXIT_USAGE, err)
                self.assertEqual(out, "", "nothing on stdout before a usage error")
                self.assertTrue(err.strip())

    @unittest.skipIf(torch.cuda.is_available(), "cuda is present")
    def test_cuda_requested_without_cuda_exits_2(self):
        rc, _, err = run([PYTHON, os.path.join(HERE, "cnn.py"), "--model", "lenet",
                          "--batch-size", "2", "--max-steps", "1"])
        self.assertEqual(rc, common.EXIT_USAGE)
        self.assertIn("cuda", err)


if __name__ == "__main__":
    unittest.main()
