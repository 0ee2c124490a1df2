#!/usr/bin/env python3
"""RNN training on synthetic sequences (coloc workload).

Models, defined here:

  lstm        word-level LSTM language model (as PyTorch's word_language_model
              example): embedding -> dropout -> LSTM -> dropout -> linear decoder
              over the vocabulary; cross entropy on next-token targets; SGD lr 1
              with gradient clipping at 0.25. One sample = one sequence of
              --seq-len tokens; the hidden state starts at zero every step
              (no state carried across batches).
  deepspeech  DeepSpeech2-style speech model: two 2-D convolutions (41x11/2x2,
              21x11/2x1, 32 channels, batch norm, hardtanh) over a spectrogram of
              --freq-bins x --seq-len frames, then --layers bidirectional GRU
              layers of --hidden units, then a linear layer over --num-chars
              characters; CTC loss against random transcripts of --target-len
              characters; SGD lr 3e-4, momentum 0.9, clipping at 400.
              One sample = one utterance of --seq-len frames (10 ms each).

Knobs default per model (shown in --help as "lstm/deepspeech").
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import common


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab, embed_dim, hidden, layers, dropout):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(vocab, embed_dim)
        self.rnn = nn.LSTM(embed_dim, hidden, layers, dropout=dropout if layers > 1 else 0.0)
        self.decoder = nn.Linear(hidden, vocab)
        nn.init.uniform_(self.encoder.weight, -0.1, 0.1)
        nn.init.uniform_(self.decoder.weight, -0.1, 0.1)
        nn.init.zeros_(self.decoder.bias)

    def forward(self, tokens):  # tokens: (seq_len, batch)
        out, _ = self.rnn(self.drop(self.encoder(tokens)))
        return self.decoder(self.drop(out))  # (seq_len, batch, vocab)


class DeepSpeech(nn.Module):
    def __init__(self, freq_bins, hidden, layers, num_chars):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, (41, 11), (2, 2), (20, 5), bias=False), nn.BatchNorm2d(32),
            nn.Hardtanh(0, 20, inplace=True),
            nn.Conv2d(32, 32, (21, 11), (2, 1), (10, 5), bias=False), nn.BatchNorm2d(32),
            nn.Hardtanh(0, 20, inplace=True),
        )
        f = (freq_bins - 1) // 2 + 1
        f = (f - 1) // 2 + 1
        self.rnn = nn.GRU(32 * f, hidden, layers, bidirectional=True)
        self.norm = nn.BatchNorm1d(2 * hidden)
        self.fc = nn.Linear(2 * hidden, num_chars, bias=False)

    @staticmethod
    def out_frames(frames):
        return (frames - 1) // 2 + 1

    def forward(self, spec):  # spec: (batch, 1, freq_bins, frames)
        x = self.conv(spec)
        b, c, f, t = x.shape
        x = x.reshape(b, c * f, t).permute(2, 0, 1).contiguous()  # (t, b, features)
        x, _ = self.rnn(x)
        t, b, h = x.shape
        x = self.norm(x.reshape(t * b, h)).reshape(t, b, h)
        return self.fc(x)  # (t, b, num_chars)


DEFAULTS = {
    #               lstm    deepspeech
    "seq_len": (35, 500),
    "hidden": (650, 1024),
    "layers": (2, 5),
    "vocab": (33278, None),
    "embed_dim": (650, None),
    "dropout": (0.5, None),
    "freq_bins": (None, 161),
    "num_chars": (None, 29),
}


def resolve(args):
    """Fills per-model defaults and checks the knobs."""
    col = 0 if args.model == "lstm" else 1
    for key, vals in DEFAULTS.items():
        if getattr(args, key) is None:
            setattr(args, key, vals[col])
    for key in ("seq_len", "hidden", "layers"):
        if getattr(args, key) < 1:
            raise common.UsageError("--%s must be at least 1" % key.replace("_", "-"))
    if args.model == "lstm":
        if args.vocab < 2 or args.embed_dim < 1:
            raise common.UsageError("--vocab must be >= 2 and --embed-dim >= 1")
        if not 0 <= args.dropout < 1:
            raise common.UsageError("--dropout must be in [0, 1)")
    else:
        if args.freq_bins < 1 or args.num_chars < 2:
            raise common.UsageError("--freq-bins must be >= 1 and --num-chars >= 2")
        frames = DeepSpeech.out_frames(args.seq_len)
        if args.target_len is None:
            args.target_len = max(1, frames // 4)
        if not 1 <= args.target_len <= frames // 2:
            raise common.UsageError(
                "--target-len must be in [1, %d] for --seq-len %d (CTC needs room for repeats)"
                % (frames // 2, args.seq_len))
    return args


def build_lstm(args):
    model = LSTMLanguageModel(args.vocab, args.embed_dim, args.hidden, args.layers, args.dropout)
    t, v = args.seq_len, args.vocab

    def batch(n, device, gen):
        tokens = torch.randint(0, v, (t + 1, n), device=device, generator=gen)
        return (tokens[:-1],), tokens[1:]

    def loss(net, inputs, target):
        logits = net(*inputs)
        return F.cross_entropy(logits.reshape(-1, v), target.reshape(-1))

    def optimizer(params):
        return torch.optim.SGD(params, lr=1.0)

    config = {"vocab": v, "embed_dim": args.embed_dim, "hidden": args.hidden,
              "layers": args.layers, "seq_len": t, "dropout": args.dropout}
    return common.Workload("lstm", "rnn", model, batch, loss, optimizer, config, clip_grad=0.25)


def build_deepspeech(args):
    model = DeepSpeech(args.freq_bins, args.hidden, args.layers, args.num_chars)
    fb, t, c, tl = args.freq_bins, args.seq_len, args.num_chars, args.target_len
    t_out = DeepSpeech.out_frames(t)

    def batch(n, device, gen):
        spec = torch.randn(n, 1, fb, t, device=device, generator=gen)
        text = torch.randint(1, c, (n, tl), device=device, generator=gen)  # 0 is the blank
        return (spec,), text

    def loss(net, inputs, target):
        logits = net(*inputs)
        log_probs = logits.float().log_softmax(-1)
        n = target.shape[0]
        in_lens = torch.full((n,), t_out, dtype=torch.long, device=target.device)
        tgt_lens = torch.full((n,), tl, dtype=torch.long, device=target.device)
        return F.ctc_loss(log_probs, target, in_lens, tgt_lens, zero_infinity=True)

    def optimizer(params):
        return torch.optim.SGD(params, lr=3e-4, momentum=0.9, nesterov=True)

    config = {"freq_bins": fb, "seq_len": t, "hidden": args.hidden, "layers": args.layers,
              "num_chars": c, "target_len": tl}
    return common.Workload("deepspeech", "rnn", model, batch, loss, optimizer, config,
                           clip_grad=400.0)


def build(args):
    resolve(args)
    return build_lstm(args) if args.model == "lstm" else build_deepspeech(args)


def make_parser():
    p = common.parser(__doc__.splitlines()[0])
    g = p.add_argument_group("model (defaults: lstm/deepspeech)")
    g.add_argument("--model", choices=("lstm", "deepspeech"), default="lstm")
    g.add_argument("--seq-len", type=int, help="tokens per sequence / spectrogram frames (35/500)")
    g.add_argument("--hidden", type=int, help="recurrent hidden units (650/1024)")
    g.add_argument("--layers", type=int, help="recurrent layers (2/5)")
    g.add_argument("--vocab", type=int, help="lstm: vocabulary size (33278, WikiText-2)")
    g.add_argument("--embed-dim", type=int, help="lstm: embedding size (650)")
    g.add_argument("--dropout", type=float, help="lstm: dropout (0.5)")
    g.add_argument("--freq-bins", type=int, help="deepspeech: spectrogram bins (161)")
    g.add_argument("--num-chars", type=int, help="deepspeech: output characters incl. blank (29)")
    g.add_argument("--target-len", type=int,
                   help="deepspeech: transcript characters (default: output frames / 4)")
    return p


if __name__ == "__main__":
    common.main(make_parser(), build)
