"""Helpers for the nn.init functions torch computes with kernels the engine does not mirror bit
for bit: erfinv (trunc_normal_) and the QR decomposition (orthogonal_). Both run in double, so
results agree with torch to float32 rounding (docs/semantics.md)."""

from __future__ import annotations

import math

_A = (0.886226899, -1.645349621, 0.914624893, -0.140543331)
_B = (-2.118377725, 1.442710462, -0.329097515, 0.012229801)
_C = (-1.970840454, -1.624906493, 3.429567803, 1.641345311)
_D = (3.543889200, 1.637067800)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def erfinv(y: float) -> float:
    """torch's calc_erfinv (a rational first guess, then two Newton steps), in double."""
    ay = abs(y)
    if ay > 1.0:
        return math.nan
    if ay == 1.0:
        return math.copysign(math.inf, y)
    if ay <= 0.7:
        z = y * y
        num = ((_A[3] * z + _A[2]) * z + _A[1]) * z + _A[0]
        dem = (((_B[3] * z + _B[2]) * z + _B[1]) * z + _B[0]) * z + 1.0
        x = y * num / dem
    else:
        z = math.sqrt(-math.log((1.0 - ay) / 2.0))
        num = ((_C[3] * z + _C[2]) * z + _C[1]) * z + _C[0]
        dem = (_D[1] * z + _D[0]) * z + 1.0
        x = math.copysign(num, y) / dem
    for _ in range(2):
        x = x - (math.erf(x) - y) / (_TWO_OVER_SQRT_PI * math.exp(-x * x))
    return x


def erfinv_values(values: list) -> list:
    return [erfinv(v) for v in values]


def householder_q(a: list) -> list:
    """The m x n (m >= n) Q of A = QR with R's diagonal made non-negative (what torch's
    orthogonal_ gets from linalg.qr after multiplying Q's columns by sign(diag(R)))."""
    m, n = len(a), len(a[0])
    r = [list(map(float, row)) for row in a]
    vs = []
    for k in range(n):
        x = [r[i][k] for i in range(k, m)]
        norm = math.sqrt(sum(v * v for v in x))
        if norm == 0.0:
            vs.append(None)
            continue
        alpha = -norm if x[0] >= 0 else norm
        v = x[:]
        v[0] -= alpha
        vnorm2 = sum(t * t for t in v)
        if vnorm2 == 0.0:
            vs.append(None)
            continue
        for j in range(k, n):
            dot = sum(v[i - k] * r[i][j] for i in range(k, m))
            f = 2.0 * dot / vnorm2
            for i in range(k, m):
                r[i][j] -= f * v[i - k]
        vs.append((v, vnorm2))
    q = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(m)]
    for k in range(n - 1, -1, -1):
        if vs[k] is None:
            continue
        v, vnorm2 = vs[k]
        for j in range(n):
            dot = sum(v[i - k] * q[i][j] for i in range(k, m))
            f = 2.0 * dot / vnorm2
            for i in range(k, m):
                q[i][j] -= f * v[i - k]
    signs = [1.0 if r[k][k] >= 0 else -1.0 for k in range(n)]  # torch: sign(0) = 0
    signs = [0.0 if r[k][k] == 0 else s for k, s in enumerate(signs)]
    return [[q[i][j] * signs[j] for j in range(n)] for i in range(m)]
