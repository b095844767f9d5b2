#!/usr/bin/env python
"""Benchmark gradplay's engine against PyTorch eager, raw numpy and a micrograd-style baseline.

This is a benchmark, not a test: it prints a table of times (median of repeats) and ratios.

    python bench/bench_engine.py                 # full run (< 2 minutes on 2 cores)
    python bench/bench_engine.py --quick         # smoke run (a few seconds)
    python bench/bench_engine.py --json out.json # also save the results
    python bench/bench_engine.py --profile a     # cProfile the engine on workload a

Workloads (each written ONCE against a `torch`-like module argument `T`, so the very same code
runs on `engine` and on `torch`):
  a     200-op DAG of small tensors (shape (8,)): mul add sin tanh exp *scalar, then sum; fwd+bwd
  b     MLP training step, batch 64, 784-128-10, relu, cross-entropy, backward, SGD update
  c     2000-op chain of 0-dim tensors (*leaf, + python float, sin, +leaf, tanh); fwd+bwd
  d     20 SGD steps of a 2-16-16-1 tanh MLP on 100 points with MSE loss
  a100  100-op DAG of (8, 8) tensors, fwd+bwd (goal: < 50 ms on the pure backend)

Columns: engine (numpy backend, in this process), engine-pure (a subprocess with
GRADPLAY_BACKEND=pure, when engine/backend/pure_backend.py imports), torch (eager CPU), numpy
(hand-written forward+backward: the floor) and micrograd (a scalar `Value` autograd written
here in micrograd's style: one Python object per scalar).

(b) and (d) use engine.nn / engine.optim when they exist (then torch uses torch.nn/torch.optim
too); otherwise the MLP is written by hand (matmul + bias + activation, log_softmax loss, SGD
under no_grad) for every column. The table header says which.

Threads: by default torch and numpy run on ONE thread (--threads to change), to compare the
per-op overhead rather than BLAS parallelism, and to be gentle on a shared 2-core machine.
To benchmark an experimental copy of the engine: PYTHONPATH=/tmp/engine_exp python bench/...
(the repository root is only appended to sys.path, so PYTHONPATH wins).
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = ("a", "b", "c", "d", "a100")
IMPLS = ("engine", "engine-pure", "torch", "numpy", "micrograd")
DESCRIPTIONS = {
    "a": "200-op graph, (8,) tensors, fwd+bwd",
    "b": "MLP step 64x784-128-10",
    "c": "2000-op 0-dim chain, fwd+bwd",
    "d": "20 steps 2-16-16-1 tanh MLP",
    "a100": "100-op graph, (8,8) tensors, fwd+bwd",
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fast smoke run (fewer repeats)")
    p.add_argument("--json", metavar="OUT", help="save results as JSON to OUT")
    p.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated workloads")
    p.add_argument("--impls", default=",".join(IMPLS), help="comma-separated columns")
    p.add_argument("--threads", type=int, default=1, help="torch/BLAS threads (default 1)")
    p.add_argument("--repeats", type=int, default=None, help="repeats per cell (default 7)")
    p.add_argument("--stat", choices=("median", "min"), default="median",
                   help="statistic shown in the table (min resists CPU contention)")
    p.add_argument("--profile", metavar="WORKLOAD", help="cProfile the engine on a workload")
    p.add_argument("--profile-sort", default="tottime", help="pstats sort key (tottime)")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # engine-pure runner
    return p.parse_args(argv)


ARGS = parse_args() if __name__ == "__main__" else parse_args([])
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, str(ARGS.threads))  # before numpy/torch are imported

try:
    import numpy as np
except ImportError:  # the pure backend must work without numpy
    np = None

if ROOT not in sys.path:
    sys.path.append(ROOT)


# ==============================================================================================
# Data (plain Python lists from a seeded RNG, so every column computes on the same numbers)
# ==============================================================================================

def make_data(quick: bool):
    rng = random.Random(0)
    g = lambda *shape: _nested(rng, shape, lambda: rng.gauss(0.0, 1.0))  # noqa: E731

    def u(bound, *shape):
        return _nested(rng, shape, lambda: rng.uniform(-bound, bound))

    d = {}
    d["a_leaves"] = [g(8) for _ in range(3)]
    d["a100_leaves"] = [g(8, 8) for _ in range(3)]
    # b: 784-128-10, weights stored (in, out) so that y = x @ W + b
    d["b_x"] = g(64, 784)
    d["b_y"] = [rng.randrange(10) for _ in range(64)]
    d["b_W1"], d["b_b1"] = u(1 / math.sqrt(784), 784, 128), u(1 / math.sqrt(784), 128)
    d["b_W2"], d["b_b2"] = u(1 / math.sqrt(128), 128, 10), u(1 / math.sqrt(128), 10)
    # d: 2-16-16-1 on 100 points, target = sin(x0) * cos(x1)
    d["d_x"] = u(2.0, 100, 2)
    d["d_y"] = [[math.sin(p[0]) * math.cos(p[1])] for p in d["d_x"]]
    sizes = [2, 16, 16, 1]
    d["d_layers"] = [
        (u(1 / math.sqrt(i), i, o), u(1 / math.sqrt(i), o)) for i, o in zip(sizes, sizes[1:])
    ]
    return d


def _nested(rng, shape, draw):
    if len(shape) == 1:
        return [draw() for _ in range(shape[0])]
    return [_nested(rng, shape[1:], draw) for _ in range(shape[0])]


def _transpose(m):
    return [list(r) for r in zip(*m)]


def _one_hot(labels, n):
    return [[1.0 if j == y else 0.0 for j in range(n)] for y in labels]


# ==============================================================================================
# Workloads against a torch-like module T (engine or torch). Each setup returns run().
# ==============================================================================================

A_CYCLE = 6  # mul, add, sin, tanh, exp, *0.4 -- values and gradients stay bounded
# (mul's partner is xs[-2] and add's xs[-4], so every leaf is used and the graph is a DAG)


def graph_ops(leaves, n_ops):
    """n_ops operations: n_ops - 1 element-wise ops forming a DAG, then a sum."""
    xs = list(leaves)
    for i in range(n_ops - 1):
        k = i % A_CYCLE
        a = xs[-1]
        if k == 0:
            v = a * xs[-2]
        elif k == 1:
            v = a + xs[-4]
        elif k == 2:
            v = a.sin()
        elif k == 3:
            v = a.tanh()
        elif k == 4:
            v = a.exp()
        else:
            v = a * 0.4
        xs.append(v)
    return xs[-1].sum()


def setup_graph(T, data, key, n_ops, mode):
    leaves = [T.tensor(v, requires_grad=True) for v in data[key]]

    def run():
        for t in leaves:
            t.grad = None
        graph_ops(leaves, n_ops).backward()

    return run


def chain_ops(x, w, n_ops):
    v = x
    for i in range(n_ops):
        k = i % 5
        if k == 0:
            v = v * w
        elif k == 1:
            v = v + 0.1  # a Python number: wrapped into a 0-dim tensor by engine and torch
        elif k == 2:
            v = v.sin()
        elif k == 3:
            v = v + x  # x re-enters, so its gradient neither vanishes nor explodes
        else:
            v = v.tanh()
    return v


def setup_chain(T, data, mode):
    x = T.tensor(0.5, requires_grad=True)
    w = T.tensor(0.9, requires_grad=True)

    def run():
        x.grad = None
        w.grad = None
        chain_ops(x, w, 2000).backward()

    return run


def detect_mode(E):
    """Which API (b) and (d) use, decided from the engine and applied to every column."""
    nn = getattr(E, "nn", None)
    optim = getattr(E, "optim", None)
    has_nn = bool(
        nn is not None and optim is not None and all(
            hasattr(nn, n) for n in ("Linear", "Sequential", "ReLU", "Tanh"))
        and hasattr(optim, "SGD")
    )
    F = getattr(nn, "functional", None) if nn is not None else None
    return {
        "nn": has_nn,
        "cross_entropy": has_nn and F is not None and hasattr(F, "cross_entropy"),
        "mse_loss": has_nn and F is not None and hasattr(F, "mse_loss"),
    }


class HandMLP:
    """Hand-written MLP: params (W (in,out), b) as leaves; y = act(x @ W + b); manual SGD."""

    def __init__(self, T, layers, act, lr):
        self.T, self.act, self.lr = T, act, lr
        self.params = []
        for W, b in layers:
            self.params += [T.tensor(W, requires_grad=True), T.tensor(b, requires_grad=True)]

    def __call__(self, x):
        ps = self.params
        n = len(ps) // 2
        for i in range(n):
            x = x @ ps[2 * i] + ps[2 * i + 1]
            if i < n - 1:
                x = x.relu() if self.act == "relu" else x.tanh()
        return x

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def step(self):
        with self.T.no_grad():
            for p in self.params:
                p -= self.lr * p.grad


def nn_mlp(T, layers, act, lr):
    """The same MLP with T.nn / T.optim, initialised with the same numbers."""
    mods = []
    for i, (W, b) in enumerate(layers):
        lin = T.nn.Linear(len(W), len(W[0]))
        with T.no_grad():
            lin.weight.copy_(T.tensor(_transpose(W)))
            lin.bias.copy_(T.tensor(b))
        mods.append(lin)
        if i < len(layers) - 1:
            mods.append(T.nn.ReLU() if act == "relu" else T.nn.Tanh())
    model = T.nn.Sequential(*mods)
    return model, T.optim.SGD(model.parameters(), lr=lr)


def setup_mlp_b(T, data, mode):
    x = T.tensor(data["b_x"])
    layers = [(data["b_W1"], data["b_b1"]), (data["b_W2"], data["b_b2"])]
    if mode["nn"]:
        model, opt = nn_mlp(T, layers, "relu", 0.01)
    else:
        model = opt = HandMLP(T, layers, "relu", 0.01)
    if mode["cross_entropy"]:
        y = T.tensor(data["b_y"])
        F = T.nn.functional

        def loss_fn(logits):
            return F.cross_entropy(logits, y)
    else:
        onehot = T.tensor(_one_hot(data["b_y"], 10))
        n = len(data["b_y"])

        def loss_fn(logits):
            return -(logits.log_softmax(1) * onehot).sum() / n

    def run():
        opt.zero_grad()
        loss_fn(model(x)).backward()
        opt.step()

    return run


def setup_mlp_d(T, data, mode):
    x = T.tensor(data["d_x"])
    y = T.tensor(data["d_y"])
    if mode["nn"]:
        model, opt = nn_mlp(T, data["d_layers"], "tanh", 0.1)
    else:
        model = opt = HandMLP(T, data["d_layers"], "tanh", 0.1)
    if mode["mse_loss"]:
        F = T.nn.functional

        def loss_fn(pred):
            return F.mse_loss(pred, y)
    else:
        def loss_fn(pred):
            return ((pred - y) ** 2).mean()

    def run():
        for _ in range(20):
            opt.zero_grad()
            loss_fn(model(x)).backward()
            opt.step()

    return run


TORCHLIKE = {
    "a": lambda T, d, m: setup_graph(T, d, "a_leaves", 200, m),
    "b": setup_mlp_b,
    "c": setup_chain,
    "d": setup_mlp_d,
    "a100": lambda T, d, m: setup_graph(T, d, "a100_leaves", 100, m),
}


# ==============================================================================================
# Raw numpy: hand-written forward + backward (the floor)
# ==============================================================================================

def np_graph_setup(data, key, n_ops):
    leaves = [np.array(v, dtype=np.float32) for v in data[key]]

    def run():
        xs = list(leaves)
        tape = []  # (kind, index of a, index of b)
        for i in range(n_ops - 1):
            k = i % A_CYCLE
            ia = len(xs) - 1
            a = xs[ia]
            ib = -1
            if k == 0:
                ib = len(xs) - 2
                v = a * xs[ib]
            elif k == 1:
                ib = len(xs) - 4
                v = a + xs[ib]
            elif k == 2:
                v = np.sin(a)
            elif k == 3:
                v = np.tanh(a)
            elif k == 4:
                v = np.exp(a)
            else:
                v = a * np.float32(0.4)
            tape.append((k, ia, ib))
            xs.append(v)
        out = xs[-1].sum()  # noqa: F841
        grads = [None] * len(xs)
        grads[-1] = np.ones_like(xs[-1])
        for j in range(len(tape) - 1, -1, -1):
            k, ia, ib = tape[j]
            me = len(leaves) + j
            g = grads[me]
            if k == 0:
                ga, gb = g * xs[ib], g * xs[ia]
            elif k == 1:
                ga, gb = g, g
            elif k == 2:
                ga = g * np.cos(xs[ia])
            elif k == 3:
                ga = g * (1 - xs[me] * xs[me])
            elif k == 4:
                ga = g * xs[me]
            else:
                ga = g * np.float32(0.4)
            grads[ia] = ga if grads[ia] is None else grads[ia] + ga
            if ib >= 0:
                grads[ib] = gb if grads[ib] is None else grads[ib] + gb
        return grads[: len(leaves)]

    return run


def np_chain_setup(data):
    x, w = np.array(0.5, dtype=np.float32), np.array(0.9, dtype=np.float32)
    c = np.float32(0.1)

    def run():
        vals = [x]
        v = x
        for i in range(2000):
            k = i % 5
            if k == 0:
                v = v * w
            elif k == 1:
                v = v + c
            elif k == 2:
                v = np.sin(v)
            elif k == 3:
                v = v + x
            else:
                v = np.tanh(v)
            vals.append(v)
        g = np.float32(1.0)
        gw = np.float32(0.0)
        gx = np.float32(0.0)
        for i in range(1999, -1, -1):
            k = i % 5
            if k == 0:
                gw = gw + g * vals[i]
                g = g * w
            elif k == 2:
                g = g * np.cos(vals[i])
            elif k == 3:
                gx = gx + g
            elif k == 4:
                g = g * (1 - vals[i + 1] * vals[i + 1])
        return gx + g, gw

    return run


def np_mlp_setup(layers, x, target, act, loss, lr, steps):
    ps = []
    for W, b in layers:
        ps += [np.array(W, dtype=np.float32), np.array(b, dtype=np.float32)]
    x = np.array(x, dtype=np.float32)
    t = np.array(target, dtype=np.float32)
    n = len(ps) // 2

    def step():
        hs, zs = [x], []
        h = x
        for i in range(n):
            z = h @ ps[2 * i] + ps[2 * i + 1]
            zs.append(z)
            if i < n - 1:
                h = np.maximum(z, 0) if act == "relu" else np.tanh(z)
                hs.append(h)
        out = zs[-1]
        if loss == "ce":  # t is one-hot
            m = out.max(1, keepdims=True)
            e = np.exp(out - m)
            s = e.sum(1, keepdims=True)
            logp = out - m - np.log(s)
            _ = -(logp * t).sum() / len(t)
            g = (e / s - t) / len(t)
        else:
            d = out - t
            _ = (d * d).mean()
            g = 2 * d / d.size
        for i in range(n - 1, -1, -1):
            gW = hs[i].T @ g
            gb = g.sum(0)
            if i > 0:
                gh = g @ ps[2 * i].T
                g = gh * (zs[i - 1] > 0) if act == "relu" else gh * (1 - hs[i] * hs[i])
            ps[2 * i] -= lr * gW
            ps[2 * i + 1] -= lr * gb

    def run():
        for _ in range(steps):
            step()

    return run


NUMPY = {
    "a": lambda d: np_graph_setup(d, "a_leaves", 200),
    "b": lambda d: np_mlp_setup([(d["b_W1"], d["b_b1"]), (d["b_W2"], d["b_b2"])], d["b_x"],
                                _one_hot(d["b_y"], 10), "relu", "ce", 0.01, 1),
    "c": np_chain_setup,
    "d": lambda d: np_mlp_setup(d["d_layers"], d["d_x"], d["d_y"], "tanh", "mse", 0.1, 20),
    "a100": lambda d: np_graph_setup(d, "a100_leaves", 100),
}


# ==============================================================================================
# micrograd-style scalar autograd (comparison baseline only)
# ==============================================================================================

class Value:
    """A scalar with a gradient, as in Karpathy's micrograd (children kept in a set, the
    backward closure per node). Topological sort is iterative so deep chains do not hit
    Python's recursion limit; otherwise the design is micrograd's."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, other):
        out = Value(self.data ** other, (self,), f"**{other}")

        def _backward():
            self.grad += (other * self.data ** (other - 1)) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(0.0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad

        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        out = Value(math.log(self.data), (self,), "log")

        def _backward():
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def sin(self):
        out = Value(math.sin(self.data), (self,), "sin")

        def _backward():
            self.grad += math.cos(self.data) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                topo.append(v)
                continue
            if v in visited:
                continue
            visited.add(v)
            stack.append((v, True))
            for c in v._prev:
                if c not in visited:
                    stack.append((c, False))
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1


def _vsum(vals):
    out = vals[0]
    for v in vals[1:]:
        out = out + v
    return out


def mg_graph_setup(data, key, n_ops):
    leaves = [[Value(x) for x in _flat(v)] for v in data[key]]

    def run():
        for leaf in leaves:
            for v in leaf:
                v.grad = 0.0
        xs = list(leaves)
        for i in range(n_ops - 1):
            k = i % A_CYCLE
            a = xs[-1]
            if k == 0:
                v = [p * q for p, q in zip(a, xs[-2])]
            elif k == 1:
                v = [p + q for p, q in zip(a, xs[-4])]
            elif k == 2:
                v = [p.sin() for p in a]
            elif k == 3:
                v = [p.tanh() for p in a]
            elif k == 4:
                v = [p.exp() for p in a]
            else:
                v = [p * 0.4 for p in a]
            xs.append(v)
        _vsum(xs[-1]).backward()

    return run


def _flat(v):
    if isinstance(v, list):
        return [y for x in v for y in _flat(x)]
    return [v]


def mg_chain_setup(data):
    x, w = Value(0.5), Value(0.9)

    def run():
        x.grad = w.grad = 0.0
        chain_ops(x, w, 2000).backward()

    return run


class MgMLP:
    def __init__(self, layers, act):
        self.layers = [([[Value(v) for v in row] for row in W], [Value(v) for v in b])
                       for W, b in layers]
        self.act = act
        self.params = [p for W, b in self.layers for row in W for p in row] + [
            p for _, b in self.layers for p in b]

    def __call__(self, xs):  # one sample: list of floats
        n = len(self.layers)
        h = xs
        for i, (W, b) in enumerate(self.layers):
            h = [
                _vsum([b[j]] + [h[k] * W[k][j] for k in range(len(W))])
                for j in range(len(b))
            ]
            if i < n - 1:
                h = [v.relu() if self.act == "relu" else v.tanh() for v in h]
        return h

    def step(self, lr):
        for p in self.params:
            p.data -= lr * p.grad
            p.grad = 0.0


def mg_mlp_b_setup(data, batch):
    model = MgMLP([(data["b_W1"], data["b_b1"]), (data["b_W2"], data["b_b2"])], "relu")
    xs, ys = data["b_x"][:batch], data["b_y"][:batch]

    def run():
        losses = []
        for x, y in zip(xs, ys):
            logits = model(x)
            m = max(v.data for v in logits)
            lse = _vsum([(v - m).exp() for v in logits]).log() + m
            losses.append(lse - logits[y])  # -log_softmax[y]
        (_vsum(losses) * (1.0 / len(losses))).backward()
        model.step(0.01)

    return run


def mg_mlp_d_setup(data, steps=20):
    model = MgMLP(data["d_layers"], "tanh")

    def run():
        for _ in range(steps):
            errs = []
            for x, t in zip(data["d_x"], data["d_y"]):
                d = model(x)[0] - t[0]
                errs.append(d * d)
            (_vsum(errs) * (1.0 / len(errs))).backward()
            model.step(0.1)

    return run


# ==============================================================================================
# Timing
# ==============================================================================================

def measure(run, repeats, budget, min_sample=0.0):
    """Per-call time: the median of up to `repeats` samples after one warm-up call, each
    sample timing `number` consecutive calls (number chosen so that a sample lasts about
    `min_sample` seconds, as timeit does), stopping once `budget` seconds are spent. A warm-up
    slower than budget/2 is itself the (single) sample. The garbage collector stays ON (the
    cost of collecting reference cycles is part of what an autograd engine costs), but each
    cell starts from a collected heap."""
    gc.collect()
    t0 = time.perf_counter()
    run()
    first = time.perf_counter() - t0
    if first > budget / 2:
        return {"median": first, "n": 1, "number": 1, "samples": [first]}
    t0 = time.perf_counter()
    run()
    second = time.perf_counter() - t0
    number = max(1, min(1000, int(min_sample / max(second, 1e-9)) + 1)) if min_sample else 1
    samples = []
    spent = first + second
    while len(samples) < repeats and (spent < budget or len(samples) < 3):
        t0 = time.perf_counter()
        for _ in range(number):
            run()
        dt = time.perf_counter() - t0
        samples.append(dt / number)
        spent += dt
    return {"median": statistics.median(samples), "min": min(samples), "n": len(samples),
            "number": number, "samples": samples}


def budgets(args):
    """(repeats, time budget per cell in s, minimum duration of one sample in s)"""
    reps = args.repeats or (3 if args.quick else 7)
    return reps, (0.6 if args.quick else 3.0), (0.01 if args.quick else 0.05)


def run_torchlike(T, name, data, mode, args):
    reps, budget, min_sample = budgets(args)
    run = TORCHLIKE[name](T, data, mode)
    return measure(run, reps, budget, min_sample)


def run_micrograd(name, data, args):
    reps, budget, min_sample = budgets(args)
    reps = min(reps, 3)
    if name == "a":
        return measure(mg_graph_setup(data, "a_leaves", 200), reps, budget, min_sample)
    if name == "a100":
        return measure(mg_graph_setup(data, "a100_leaves", 100), reps, budget, min_sample)
    if name == "c":
        return measure(mg_chain_setup(data), reps, budget, min_sample)
    if name == "d":  # every step costs the same: time 2 of the 20 steps, extrapolate if slow
        r = measure(mg_mlp_d_setup(data, steps=2), 1, 0)
        estimate = r["median"] * 10
        if estimate <= 30.0 and not args.quick:
            return measure(mg_mlp_d_setup(data), 1, 0)
        why = "full size > 30 s" if estimate > 30.0 else "--quick"
        return _extrapolated(r, 10, f"2 of the 20 steps x10 ({why})")
    if name == "b":
        small = 1  # one sample of the batch is ~0.3 M Values (~3 s, ~0.4 GB)
        r = measure(mg_mlp_b_setup(data, small), 1, 0)
        t_update = _time_mg_update(data)
        per_sample = max(r["median"] - t_update, 0.0) / small
        estimate = t_update + 64 * per_sample
        if estimate <= 30.0 and not args.quick:
            return measure(mg_mlp_b_setup(data, 64), 1, 0)
        out = {"median": estimate, "n": r["n"], "samples": r["samples"],
               "note": f"extrapolated from batch {small} (full size > 30 s)"
               if estimate > 30.0 else f"extrapolated from batch {small} (--quick)",
               "extrapolated": True}
        return out
    raise KeyError(name)


def _extrapolated(r, factor, how):
    return {"median": r["median"] * factor, "n": r["n"], "samples": r["samples"],
            "note": f"extrapolated: {how}", "extrapolated": True}


def _time_mg_update(data):
    model = MgMLP([(data["b_W1"], data["b_b1"]), (data["b_W2"], data["b_b2"])], "relu")
    t0 = time.perf_counter()
    model.step(0.01)
    return time.perf_counter() - t0


def run_numpy(name, data, args):
    reps, budget, min_sample = budgets(args)
    return measure(NUMPY[name](data), reps, budget, min_sample)


def _import_torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _freeze_heap():
    """Move everything imported so far (torch and numpy are big) out of the collector's
    reach, so every column pays the same price for the collections its own garbage
    triggers, whatever was imported before it ran."""
    import_engine()
    gc.collect()
    gc.freeze()


def import_engine():
    import engine

    return engine


def run_engine_all(workloads, data, args):
    E = import_engine()
    mode = detect_mode(E)
    out = {}
    for w in workloads:
        try:
            out[w] = run_torchlike(E, w, data, mode, args)
        except Exception as e:  # report, keep benchmarking the rest
            out[w] = {"error": f"{type(e).__name__}: {e}"}
    return out, mode, E.backend_name()


def run_pure_subprocess(workloads, args):
    """engine-pure in a child process (backends must not mix in one process)."""
    env = dict(os.environ, GRADPLAY_BACKEND="pure")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--only", ",".join(workloads)]
    if args.quick:
        cmd.append("--quick")
    if args.repeats:
        cmd += ["--repeats", str(args.repeats)]
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           timeout=60 if args.quick else 90)
    except subprocess.TimeoutExpired:
        return None, "timed out"
    if p.returncode != 0:
        tail = (p.stderr.strip().splitlines() or ["?"])[-1]
        return None, tail
    res = json.loads(p.stdout.strip().splitlines()[-1])
    if res.get("backend") != "pure":
        return None, f"child ran backend {res.get('backend')!r}"
    return res["results"], None


def pure_available():
    path = os.path.join(ROOT, "engine", "backend", "pure_backend.py")
    try:
        import engine

        path = os.path.join(os.path.dirname(engine.__file__), "backend", "pure_backend.py")
    except Exception:
        pass
    return os.path.exists(path)


def child_main(args):
    """Run the engine columns only (as engine-pure), print one JSON line."""
    workloads = [w for w in args.only.split(",") if w]
    data = make_data(args.quick)
    _freeze_heap()
    res, mode, backend = run_engine_all(workloads, data, args)
    print(json.dumps({"backend": backend, "mode": mode, "results": res}))


# ==============================================================================================
# Table
# ==============================================================================================

STAT = "median"  # or "min" (--stat): which statistic of the samples the table shows


def noisy(r) -> bool:
    """Samples spread over more than 1.5x: another process took the CPU for part of the time
    (on a shared 2-core machine samples are bimodal: full core vs half a core)."""
    s = r.get("samples") or []
    return len(s) >= 3 and max(s) > 1.5 * min(s)


def fmt_time(r):
    if r is None:
        return "n/a"
    if "error" in r:
        return "error"
    t = r.get(STAT, r["median"])
    s = f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"
    return s + ("*" if r.get("extrapolated") else "") + ("~" if noisy(r) else "")


def ratio(num, den):
    if not num or not den or "median" not in num or "median" not in den:
        return None
    return num.get(STAT, num["median"]) / den.get(STAT, den["median"])


def fmt_ratio(x):
    return "n/a" if x is None else (f"{x:.2f}x" if x < 100 else f"{x:.0f}x")


def print_table(results, meta, legend=True):
    cols = ["workload"] + list(IMPLS) + ["eng/torch", "eng/numpy", "base/eng", "pure/torch"]
    rows = []
    for w, r in results.items():
        e = r.get("engine")
        rows.append([w] + [fmt_time(r.get(i)) for i in IMPLS] + [
            fmt_ratio(ratio(e, r.get("torch"))),
            fmt_ratio(ratio(e, r.get("numpy"))),
            fmt_ratio(ratio(r.get("micrograd"), e)),
            fmt_ratio(ratio(r.get("engine-pure"), r.get("torch"))),
        ])
    widths = [max(len(str(x)) for x in col) for col in zip(cols, *rows)]
    line = "  ".join(c.rjust(wd) if i else c.ljust(wd) for i, (c, wd) in enumerate(zip(cols,
                                                                                       widths)))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(c.rjust(wd) if i else c.ljust(wd)
                        for i, (c, wd) in enumerate(zip(row, widths))))
    print()
    if not legend:
        return
    for w in results:
        print(f"  {w:5s} {DESCRIPTIONS[w]}")
    print(f"  times are per call, {STAT} of up to 7 samples (see --json for all); "
          "* = extrapolated; ~ = noisy (samples spread > 1.5x: CPU contention, compare "
          "with --stat min)")
    for w, r in results.items():
        for impl, cell in r.items():
            if cell and cell.get("note"):
                print(f"  {w}/{impl}: {cell['note']}")
            if cell and cell.get("error"):
                print(f"  {w}/{impl}: ERROR {cell['error']}")
    for k, v in meta.get("notes", {}).items():
        print(f"  {k}: {v}")


def machine_info():
    info = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "cpu": platform.processor() or "",
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


# ==============================================================================================
# Profiling
# ==============================================================================================

def profile_main(args):
    import cProfile
    import pstats

    E = import_engine()
    mode = detect_mode(E)
    data = make_data(args.quick)
    run = TORCHLIKE[args.profile](E, data, mode)
    run()  # warm up
    n = {"a": 30, "a100": 30, "b": 10, "c": 5, "d": 3}.get(args.profile, 5)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        run()
    pr.disable()
    print(f"engine backend={E.backend_name()} workload={args.profile} x{n} mode={mode}")
    pstats.Stats(pr).sort_stats(args.profile_sort).print_stats(35)


# ==============================================================================================

def main(args):
    global STAT
    STAT = args.stat
    if args.child:
        return child_main(args)
    if args.profile:
        return profile_main(args)
    t_start = time.perf_counter()
    workloads = [w for w in args.only.split(",") if w]
    impls = [i for i in args.impls.split(",") if i]
    data = make_data(args.quick)
    torch = _import_torch() if "torch" in impls else None
    _freeze_heap()
    meta = {"machine": machine_info(), "quick": args.quick, "threads": args.threads,
            "stat": args.stat, "notes": {}}
    results = {w: {} for w in workloads}

    if "engine" in impls:
        res, mode, backend = run_engine_all(workloads, data, args)
        meta["engine_backend"] = backend
        meta["mode"] = mode
        for w in workloads:
            results[w]["engine"] = res[w]
        if backend != "numpy":
            meta["notes"]["engine"] = f"the engine column ran the {backend!r} backend"
    else:
        mode = detect_mode(import_engine())
        meta["mode"] = mode
    meta["notes"]["mode"] = (
        "b, d use nn.Linear/optim.SGD" + (" + F.cross_entropy" if mode["cross_entropy"] else "")
        + (" + F.mse_loss" if mode["mse_loss"] else "") if mode["nn"]
        else "b, d use a hand-written MLP (matmul + bias, log_softmax/MSE loss, SGD under "
             "no_grad): engine.nn/engine.optim not available")

    if "engine-pure" in impls:
        if pure_available():
            res, err = run_pure_subprocess(workloads, args)
            if err:
                meta["notes"]["engine-pure"] = f"failed: {err}"
            for w in workloads:
                results[w]["engine-pure"] = res.get(w) if res else None
        else:
            meta["notes"]["engine-pure"] = "n/a: engine/backend/pure_backend.py does not exist"

    if "torch" in impls:
        if torch is not None:
            torch.set_num_threads(args.threads)
            meta["torch"] = torch.__version__
            for w in workloads:
                try:
                    results[w]["torch"] = run_torchlike(torch, w, data, mode, args)
                except Exception as e:
                    results[w]["torch"] = {"error": f"{type(e).__name__}: {e}"}
        else:
            meta["notes"]["torch"] = "n/a: torch is not importable"

    if "numpy" in impls:
        if np is None:
            meta["notes"]["numpy"] = "n/a: numpy is not importable"
        else:
            meta["numpy"] = np.__version__
            for w in workloads:
                results[w]["numpy"] = run_numpy(w, data, args)

    if "micrograd" in impls:
        for w in workloads:
            results[w]["micrograd"] = run_micrograd(w, data, args)

    meta["wall_seconds"] = round(time.perf_counter() - t_start, 1)
    m = meta["machine"]
    print(f"gradplay engine benchmark  {m['date']}  {m['cpu']} ({m['cpus']} cpus)  "
          f"python {m['python']}  numpy {meta.get('numpy', 'n/a')}  "
          f"torch {meta.get('torch', 'n/a')}  threads={args.threads}"
          + ("  [--quick]" if args.quick else ""))
    print()
    print_table(results, meta)
    if args.json:  # also the other statistic, for the record
        other = "min" if STAT == "median" else "median"
        print(f"\n  same run, {other} of the samples:")
        STAT = other
        print_table({w: r for w, r in results.items()}, {"notes": {}}, legend=False)
        STAT = args.stat
    print(f"  total wall time {meta['wall_seconds']} s")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)
        print(f"  saved {args.json}")


if __name__ == "__main__":
    main(ARGS)
