"""The singular value decomposition for the pure backend: one-sided Jacobi (Hestenes) in float64.

Rotating pairs of columns until all are orthogonal gives A V = U S with V orthogonal; the column
norms are the singular values. It is slow (O(n^3) per sweep, a few sweeps) but exact to a few
ulps, which is what the playground's small matrices need. LAPACK (numpy, torch) computes the same
values by another route, so the last bits may differ, and the signs of singular vectors are
each library's own choice (the engine only uses products u_i v_i^T, where the signs cancel).
"""

from __future__ import annotations

import math

_EPS = 2.0 ** -52


def svd_rows(rows: list, m: int, n: int):
    """U (m x k), S (k), Vh (k x n) of the m x n matrix `rows` (lists of floats), k = min(m, n);
    S descending."""
    if m < n:  # A^T = V S U^T
        cols = [[rows[i][j] for i in range(m)] for j in range(n)]
        u, s, vh = svd_rows(cols, n, m)
        return ([list(r) for r in zip(*vh)], s, [list(r) for r in zip(*u)])
    a = [[rows[i][j] for i in range(m)] for j in range(n)]  # columns of A
    v = [[1.0 if i == j else 0.0 for i in range(n)] for j in range(n)]  # columns of V
    for _sweep in range(60):
        rotated = False
        for p in range(n - 1):
            for q in range(p + 1, n):
                ap, aq = a[p], a[q]
                alpha = math.fsum(x * x for x in ap)
                beta = math.fsum(x * x for x in aq)
                gamma = math.fsum(x * y for x, y in zip(ap, aq))
                if gamma == 0.0 or abs(gamma) <= _EPS * math.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                t = math.copysign(1.0, zeta) / (abs(zeta) + math.sqrt(1.0 + zeta * zeta))
                c = 1.0 / math.sqrt(1.0 + t * t)
                s = c * t
                a[p] = [c * x - s * y for x, y in zip(ap, aq)]
                a[q] = [s * x + c * y for x, y in zip(ap, aq)]
                vp, vq = v[p], v[q]
                v[p] = [c * x - s * y for x, y in zip(vp, vq)]
                v[q] = [s * x + c * y for x, y in zip(vp, vq)]
        if not rotated:
            break
    sig = [math.sqrt(math.fsum(x * x for x in col)) for col in a]
    order = sorted(range(n), key=lambda j: -sig[j])
    s_out = [sig[j] for j in order]
    u_cols = [[x / sig[j] for x in a[j]] if sig[j] > 0 else None for j in order]
    _complete(u_cols, m)
    u = [[u_cols[j][i] for j in range(n)] for i in range(m)]
    vh = [list(v[j]) for j in order]
    return u, s_out, vh


def _complete(cols: list, m: int) -> None:
    """Replace the missing (None) columns by unit vectors orthogonal to all the others
    (Gram-Schmidt over the standard basis): the left singular vectors of zero singular values."""
    for j, col in enumerate(cols):
        if col is not None:
            continue
        for e in range(m):
            w = [1.0 if i == e else 0.0 for i in range(m)]
            for other in cols:
                if other is not None:
                    d = math.fsum(x * y for x, y in zip(w, other))
                    w = [x - d * y for x, y in zip(w, other)]
            norm = math.sqrt(math.fsum(x * x for x in w))
            if norm > 0.5:
                cols[j] = [x / norm for x in w]
                break
