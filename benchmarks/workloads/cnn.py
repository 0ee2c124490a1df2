#!/usr/bin/env python3
"""CNN image-classification training on synthetic images (coloc workload).

Models, defined here (no torchvision), layer for layer as torchvision's at
--width 1 (the tests check the parameter counts):

  lenet         LeNet-5 (ReLU, max-pool), 1 channel, 32 px, 10 classes by default
  alexnet       AlexNet (torchvision's one-tower variant); needs --image-size >= 63
  vgg11..vgg19  VGG without batch norm (configurations A, B, D, E)
  resnet18..152 ResNet v1.5 (stride in the 3x3 of bottlenecks); --stem cifar gives
                the 3x3-conv, no-max-pool stem used for 32 px CIFAR images
  mobilenetv2   MobileNetV2; --width is its width multiplier (channels rounded to 8)

Knobs: --image-size, --channels, --num-classes, --width (channel multiplier;
also scales the hidden widths of AlexNet/VGG classifiers and LeNet).
Data: random normal images and uniform random labels. Loss: cross entropy.
Optimizer: SGD, lr 0.01, momentum 0.9, weight decay 5e-4.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

import common

# ---------------------------------------------------------------- LeNet / AlexNet


class LeNet(nn.Module):
    def __init__(self, channels, image_size, num_classes, width):
        super().__init__()
        c1, c2 = common.scaled(6, width), common.scaled(16, width)
        self.features = nn.Sequential(
            nn.Conv2d(channels, c1, 5), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(c1, c2, 5), nn.ReLU(inplace=True), nn.MaxPool2d(2),
        )
        side = ((image_size - 4) // 2 - 4) // 2
        if side < 1:
            raise common.UsageError("lenet needs --image-size >= 16, got %d" % image_size)
        h1, h2 = common.scaled(120, width), common.scaled(84, width)
        self.classifier = nn.Sequential(
            nn.Linear(c2 * side * side, h1), nn.ReLU(inplace=True),
            nn.Linear(h1, h2), nn.ReLU(inplace=True),
            nn.Linear(h2, num_classes),
        )

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class AlexNet(nn.Module):
    def __init__(self, channels, image_size, num_classes, width):
        super().__init__()
        if image_size < 63:
            raise common.UsageError("alexnet needs --image-size >= 63, got %d" % image_size)
        c = [common.scaled(v, width) for v in (64, 192, 384, 256, 256)]
        self.features = nn.Sequential(
            nn.Conv2d(channels, c[0], 11, stride=4, padding=2), nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2),
            nn.Conv2d(c[0], c[1], 5, padding=2), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
            nn.Conv2d(c[1], c[2], 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(c[2], c[3], 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(c[3], c[4], 3, padding=1), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2),
        )
        self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
        h = common.scaled(4096, width)
        self.classifier = nn.Sequential(
            nn.Dropout(), nn.Linear(c[4] * 36, h), nn.ReLU(inplace=True),
            nn.Dropout(), nn.Linear(h, h), nn.ReLU(inplace=True),
            nn.Linear(h, num_classes),
        )

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---------------------------------------------------------------- VGG

VGG_CONFIGS = {
    "vgg11": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg13": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "vgg16": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
              512, 512, 512, "M"],
    "vgg19": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
              512, 512, 512, 512, "M"],
}


class VGG(nn.Module):
    def __init__(self, config, channels, image_size, num_classes, width):
        super().__init__()
        if image_size < 32:
            raise common.UsageError("vgg needs --image-size >= 32, got %d" % image_size)
        layers, c_in = [], channels
        for v in config:
            if v == "M":
                layers.append(nn.MaxPool2d(2, 2))
            else:
                c_out = common.scaled(v, width)
                layers += [nn.Conv2d(c_in, c_out, 3, padding=1), nn.ReLU(inplace=True)]
                c_in = c_out
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
        h = common.scaled(4096, width)
        self.classifier = nn.Sequential(
            nn.Linear(c_in * 49, h), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(h, h), nn.ReLU(inplace=True), nn.Dropout(),
            nn.Linear(h, num_classes),
        )
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---------------------------------------------------------------- ResNet


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, c_in, planes, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = _shortcut(c_in, planes, stride)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = self.bn2(self.conv2(out))
        return F.relu(out + (x if self.downsample is None else self.downsample(x)), inplace=True)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, c_in, planes, stride):
        super().__init__()
        c_out = planes * self.expansion
        self.conv1 = nn.Conv2d(c_in, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, c_out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(c_out)
        self.downsample = _shortcut(c_in, c_out, stride)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)), inplace=True)
        out = F.relu(self.bn2(self.conv2(out)), inplace=True)
        out = self.bn3(self.conv3(out))
        return F.relu(out + (x if self.downsample is None else self.downsample(x)), inplace=True)


def _shortcut(c_in, c_out, stride):
    if stride == 1 and c_in == c_out:
        return None
    return nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))


RESNET_CONFIGS = {
    "resnet18": (BasicBlock, [2, 2, 2, 2]),
    "resnet34": (BasicBlock, [3, 4, 6, 3]),
    "resnet50": (Bottleneck, [3, 4, 6, 3]),
    "resnet101": (Bottleneck, [3, 4, 23, 3]),
    "resnet152": (Bottleneck, [3, 8, 36, 3]),
}


class ResNet(nn.Module):
    def __init__(self, block, depths, channels, num_classes, width, stem):
        super().__init__()
        c = common.scaled(64, width)
        if stem == "cifar":
            self.stem = nn.Sequential(
                nn.Conv2d(channels, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True))
        else:
            self.stem = nn.Sequential(
                nn.Conv2d(channels, c, 7, 2, 3, bias=False), nn.BatchNorm2d(c), nn.ReLU(inplace=True),
                nn.MaxPool2d(3, 2, 1))
        stages, c_in = [], c
        for i, n in enumerate(depths):
            planes = common.scaled(64 * 2 ** i, width)
            blocks = []
            for j in range(n):
                blocks.append(block(c_in, planes, 2 if (i > 0 and j == 0) else 1))
                c_in = planes * block.expansion
            stages.append(nn.Sequential(*blocks))
        self.stages = nn.Sequential(*stages)
        self.fc = nn.Linear(c_in, num_classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.stages(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# ---------------------------------------------------------------- MobileNetV2


def make_divisible(v, divisor=8):
    new_v = max(divisor, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def conv_bn_relu6(c_in, c_out, kernel=3, stride=1, groups=1):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(c_out), nn.ReLU6(inplace=True))


class InvertedResidual(nn.Module):
    def __init__(self, c_in, c_out, stride, expand):
        super().__init__()
        hidden = int(round(c_in * expand))
        self.residual = stride == 1 and c_in == c_out
        layers = [conv_bn_relu6(c_in, hidden, kernel=1)] if expand != 1 else []
        layers += [conv_bn_relu6(hidden, hidden, stride=stride, groups=hidden),
                   nn.Conv2d(hidden, c_out, 1, bias=False), nn.BatchNorm2d(c_out)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.residual else self.conv(x)


class MobileNetV2(nn.Module):
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]

    def __init__(self, channels, num_classes, width):
        super().__init__()
        c_in = make_divisible(32 * width)
        last = make_divisible(1280 * max(1.0, width))
        layers = [conv_bn_relu6(channels, c_in, stride=2)]
        for t, c, n, s in self.SETTINGS:
            c_out = make_divisible(c * width)
            for i in range(n):
                layers.append(InvertedResidual(c_in, c_out, s if i == 0 else 1, t))
                c_in = c_out
        layers.append(conv_bn_relu6(c_in, last, kernel=1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, num_classes))
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, 0.01)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), 1)
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------- workload

MODELS = ["lenet", "alexnet"] + sorted(VGG_CONFIGS) + list(RESNET_CONFIGS) + ["mobilenetv2"]


def build_model(args):
    """The nn.Module for args (defaults already filled in by resolve)."""
    name, ch, size, k, w = args.model, args.channels, args.image_size, args.num_classes, args.width
    if name == "lenet":
        return LeNet(ch, size, k, w)
    if name == "alexnet":
        return AlexNet(ch, size, k, w)
    if name in VGG_CONFIGS:
        return VGG(VGG_CONFIGS[name], ch, size, k, w)
    if name in RESNET_CONFIGS:
        block, depths = RESNET_CONFIGS[name]
        return ResNet(block, depths, ch, k, w, args.stem)
    return MobileNetV2(ch, k, w)


def resolve(args):
    """Fills per-model defaults and checks the knobs."""
    small = args.model == "lenet"
    if args.image_size is None:
        args.image_size = 32 if small else 224
    if args.channels is None:
        args.channels = 1 if small else 3
    if args.num_classes is None:
        args.num_classes = 10 if small else 1000
    if args.image_size < 1 or args.channels < 1 or args.num_classes < 2:
        raise common.UsageError("--image-size and --channels must be positive, --num-classes >= 2")
    if not args.width > 0:
        raise common.UsageError("--width must be positive, got %r" % args.width)
    return args


def build(args):
    resolve(args)
    model = build_model(args)
    size, ch, k = args.image_size, args.channels, args.num_classes

    def batch(n, device, gen):
        x = torch.randn(n, ch, size, size, device=device, generator=gen)
        y = torch.randint(0, k, (n,), device=device, generator=gen)
        return (x,), y

    def loss(net, inputs, target):
        return F.cross_entropy(net(*inputs), target)

    def optimizer(params):
        return torch.optim.SGD(params, lr=0.01, momentum=0.9, weight_decay=5e-4)

    config = {"image_size": size, "channels": ch, "num_classes": k, "width": args.width}
    if args.model in RESNET_CONFIGS:
        config["stem"] = args.stem
    return common.Workload(args.model, "cnn", model, batch, loss, optimizer, config)


def make_parser():
    p = common.parser(__doc__.splitlines()[0])
    g = p.add_argument_group("model")
    g.add_argument("--model", choices=MODELS, default="resnet18")
    g.add_argument("--image-size", type=int, default=None,
                   help="square image side in pixels (default 32 for lenet, else 224)")
    g.add_argument("--channels", type=int, default=None,
                   help="input channels (default 1 for lenet, else 3)")
    g.add_argument("--num-classes", type=int, default=None,
                   help="output classes (default 10 for lenet, else 1000)")
    g.add_argument("--width", type=float, default=1.0, help="channel-width multiplier")
    g.add_argument("--stem", choices=("imagenet", "cifar"), default="imagenet",
                   help="resnet stem: 7x7/2 conv + max-pool, or 3x3/1 conv for small images")
    return p


if __name__ == "__main__":
    common.main(make_parser(), build)
