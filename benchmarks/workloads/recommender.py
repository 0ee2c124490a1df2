#!/usr/bin/env python3
"""Recommender training on synthetic interactions (coloc workload).

Sizes default to MovieLens-20M (138,493 users, 26,744 items, 0.54% dense).

  ncf          NeuMF (He et al. 2017, as in MLPerf): a GMF branch (user and item
               embeddings of --embed-dim, elementwise product) and an MLP branch
               (user and item embeddings of mlp[0]/2 each, layers --mlp-layers),
               concatenated into one logit; binary cross entropy with
               --negatives random negative items sampled per positive, every
               step, on the device; Adam lr 1e-3. One sample = one
               (user, item, label) example, negatives included.
  autoencoder  rating autoencoder (Kuchaiev & Ginsburg's DeepRecommender, the
               "Recommendation, ML-20M" job of Gavel): a user's rating vector
               over all items -> --hidden layers (SELU) -> dropout on the code
               -> mirrored decoder -> ratings; masked MSE on the rated items;
               SGD lr 1e-3, momentum 0.9. One sample = one user.
  mf           matrix factorization: user and item embeddings of --embed-dim
               plus biases, dot product; MSE on ratings; SGD lr 0.01, momentum
               0.9. One sample = one (user, item, rating).

Synthetic interactions draw items from a Zipf-like popularity law (exponent 1),
so that embedding rows are hit unevenly, as in real rating data.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import common


class NeuMF(nn.Module):
    def __init__(self, users, items, factors, mlp_layers):
        super().__init__()
        if mlp_layers[0] % 2:
            raise common.UsageError("--mlp-layers: the first size must be even (user + item halves)")
        self.gmf_user = nn.Embedding(users, factors)
        self.gmf_item = nn.Embedding(items, factors)
        self.mlp_user = nn.Embedding(users, mlp_layers[0] // 2)
        self.mlp_item = nn.Embedding(items, mlp_layers[0] // 2)
        layers = []
        for a, b in zip(mlp_layers, mlp_layers[1:]):
            layers += [nn.Linear(a, b), nn.ReLU(inplace=True)]
        self.mlp = nn.Sequential(*layers)
        self.out = nn.Linear(factors + mlp_layers[-1], 1)
        for e in (self.gmf_user, self.gmf_item, self.mlp_user, self.mlp_item):
            nn.init.normal_(e.weight, 0, 0.01)

    def forward(self, users, items):
        gmf = self.gmf_user(users) * self.gmf_item(items)
        mlp = self.mlp(torch.cat([self.mlp_user(users), self.mlp_item(items)], dim=-1))
        return self.out(torch.cat([gmf, mlp], dim=-1)).squeeze(-1)


class AutoEncoder(nn.Module):
    def __init__(self, items, hidden, dropout):
        super().__init__()
        sizes = [items] + hidden
        enc, dec = [], []
        for a, b in zip(sizes, sizes[1:]):
            enc += [nn.Linear(a, b), nn.SELU()]
        rev = sizes[::-1]
        for i, (a, b) in enumerate(zip(rev, rev[1:])):
            dec.append(nn.Linear(a, b))
            if i < len(rev) - 2:
                dec.append(nn.SELU())
        self.encoder = nn.Sequential(*enc)
        self.drop = nn.Dropout(dropout)
        self.decoder = nn.Sequential(*dec)

    def forward(self, ratings):
        return self.decoder(self.drop(self.encoder(ratings)))


class MatrixFactorization(nn.Module):
    def __init__(self, users, items, factors):
        super().__init__()
        self.user = nn.Embedding(users, factors)
        self.item = nn.Embedding(items, factors)
        self.user_bias = nn.Embedding(users, 1)
        self.item_bias = nn.Embedding(items, 1)
        self.mean = nn.Parameter(torch.tensor(3.5))
        for e in (self.user, self.item):
            nn.init.normal_(e.weight, 0, 0.01)
        for e in (self.user_bias, self.item_bias):
            nn.init.zeros_(e.weight)

    def forward(self, users, items):
        dot = (self.user(users) * self.item(items)).sum(-1)
        return dot + self.user_bias(users).squeeze(-1) + self.item_bias(items).squeeze(-1) + self.mean


def popular_items(n, items, device, gen):
    """n item ids drawn with probability proportional to 1/(rank+1) (Zipf, s=1)."""
    # Inverse-CDF of the continuous 1/x law on [1, items+1): x = (items+1)^u.
    u = torch.rand(n, device=device, generator=gen)
    ids = torch.exp(u * torch.log(torch.tensor(float(items + 1), device=device))) - 1
    return ids.long().clamp_(0, items - 1)


def build_ncf(args):
    model = NeuMF(args.users, args.items, args.embed_dim, args.mlp_layers)
    users, items, neg = args.users, args.items, args.negatives

    def batch(n, device, gen):
        pos = max(1, n // (neg + 1))
        u = torch.randint(0, users, (pos,), device=device, generator=gen)
        i = popular_items(pos, items, device, gen)
        return (u, i), n

    def loss(net, inputs, n):
        u, i = inputs
        k = n - u.shape[0]  # negatives this step, sampled afresh
        rep = torch.arange(k, device=u.device) % u.shape[0]
        users_all = torch.cat([u, u[rep]])
        items_all = torch.cat([i, torch.randint(0, items, (k,), device=u.device)])
        labels = torch.cat([torch.ones(u.shape[0], device=u.device),
                            torch.zeros(k, device=u.device)])
        logits = net(users_all, items_all)
        return F.binary_cross_entropy_with_logits(logits.float(), labels)

    def optimizer(params):
        return torch.optim.Adam(params, lr=1e-3)

    config = {"users": users, "items": items, "embed_dim": args.embed_dim,
              "mlp_layers": args.mlp_layers, "negatives": neg}
    # The GMF product (embed_dim multiplies) happens outside any module.
    return common.Workload("ncf", "recommender", model, batch, loss, optimizer, config,
                           extra_flops=args.embed_dim)


def build_autoencoder(args):
    model = AutoEncoder(args.items, args.hidden, args.dropout)
    items, density = args.items, args.density

    def batch(n, device, gen):
        rated = torch.rand(n, items, device=device, generator=gen) < density
        stars = torch.randint(1, 6, (n, items), device=device, generator=gen).float()
        return (stars * rated,), rated

    def loss(net, inputs, rated):
        (ratings,) = inputs
        pred = net(ratings).float()
        mask = rated.float()
        return ((pred - ratings) ** 2 * mask).sum() / mask.sum().clamp(min=1.0)

    def optimizer(params):
        return torch.optim.SGD(params, lr=1e-3, momentum=0.9)

    config = {"items": items, "hidden": args.hidden, "dropout": args.dropout,
              "density": density}
    return common.Workload("autoencoder", "recommender", model, batch, loss, optimizer, config)


def build_mf(args):
    model = MatrixFactorization(args.users, args.items, args.embed_dim)
    users, items = args.users, args.items

    def batch(n, device, gen):
        u = torch.randint(0, users, (n,), device=device, generator=gen)
        i = popular_items(n, items, device, gen)
        r = torch.randint(1, 6, (n,), device=device, generator=gen).float()
        return (u, i), r

    def loss(net, inputs, ratings):
        return F.mse_loss(net(*inputs).float(), ratings)

    def optimizer(params):
        return torch.optim.SGD(params, lr=0.01, momentum=0.9)

    config = {"users": users, "items": items, "embed_dim": args.embed_dim}
    # Dot product (2 x embed_dim) and three bias adds, all outside modules.
    return common.Workload("mf", "recommender", model, batch, loss, optimizer, config,
                           extra_flops=2 * args.embed_dim + 3)


def resolve(args):
    """Fills per-model defaults and checks the knobs."""
    if args.embed_dim is None:
        args.embed_dim = 64
    if args.users < 1 or args.items < 2 or args.embed_dim < 1:
        raise common.UsageError("--users and --embed-dim must be positive, --items >= 2")
    if args.model == "ncf" and args.negatives < 0:
        raise common.UsageError("--negatives must be 0 or more")
    if args.model == "autoencoder":
        if not 0 < args.density <= 1:
            raise common.UsageError("--density must be in (0, 1]")
        if not 0 <= args.dropout < 1:
            raise common.UsageError("--dropout must be in [0, 1)")
    return args


def build(args):
    resolve(args)
    return {"ncf": build_ncf, "autoencoder": build_autoencoder, "mf": build_mf}[args.model](args)


def make_parser():
    p = common.parser(__doc__.splitlines()[0])
    g = p.add_argument_group("model")
    g.add_argument("--model", choices=("ncf", "autoencoder", "mf"), default="ncf")
    g.add_argument("--users", type=int, default=138493, help="users (ML-20M: 138493)")
    g.add_argument("--items", type=int, default=26744, help="items (ML-20M: 26744)")
    g.add_argument("--embed-dim", type=int, help="ncf: GMF factors; mf: factors (64)")
    g.add_argument("--mlp-layers", type=common.int_list, default=[256, 256, 128, 64],
                   help="ncf: MLP sizes, the first split between user and item (256,256,128,64)")
    g.add_argument("--negatives", type=int, default=4, help="ncf: negatives per positive (4)")
    g.add_argument("--hidden", type=common.int_list, default=[512, 512, 1024],
                   help="autoencoder: encoder sizes, decoder mirrored (512,512,1024)")
    g.add_argument("--dropout", type=float, default=0.8, help="autoencoder: dropout on the code (0.8)")
    g.add_argument("--density", type=float, default=0.0054,
                   help="autoencoder: fraction of items a user rated (ML-20M: 0.0054)")
    return p


if __name__ == "__main__":
    common.main(make_parser(), build)
