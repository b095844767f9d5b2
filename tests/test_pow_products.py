"""torch's CPU pow with the exponents 2, 3, -2, -0.5 and -1 is computed as products
(x*x, x*x*x, 1/(x*x), rsqrt, 1/x), so its last bits are those of the products, not of a
pow function: the engine computes them the same way. Checked on both torch-like modules (the
rule itself is checked live on torch when it imports)."""

from __future__ import annotations

import pytest

from tests.live_torch import TORCH_LIKE, torch_like_id

RULES = {
    3: lambda x: x * x * x,
    2: lambda x: x * x,
    -2: lambda x: 1 / (x * x),
    -0.5: lambda x: x.rsqrt(),  # 1/sqrt(x) with a correctly rounded sqrt
    -1: lambda x: 1 / x,
}


@pytest.mark.parametrize("T", TORCH_LIKE, ids=torch_like_id)
@pytest.mark.parametrize("exponent", sorted(RULES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_small_integer_and_half_powers_are_products(T, exponent, dtype):
    T.manual_seed(0)
    x = T.randn(4000, dtype=getattr(T, dtype)) * 3
    if exponent == -0.5:
        x = x.abs()
    assert (x ** exponent).tolist() == RULES[exponent](x).tolist()
    assert x.pow(exponent).tolist() == RULES[exponent](x).tolist()


@pytest.mark.parametrize("T", TORCH_LIKE, ids=torch_like_id)
def test_the_gradient_of_a_cube_uses_the_square_product(T):
    x = T.tensor([0.1, -1.7, 3.3, 1e-3], requires_grad=True)
    (x ** 3).sum().backward()
    assert x.grad.tolist() == (3 * (x.detach() * x.detach())).tolist()
