"""torch.autograd.functional, gradcheck and post-accumulate hooks beyond the oracle scenarios
(tests/oracle/scenarios_autograd_api.py): the paths torch only reaches with its own internal
warnings (vectorize, forward-mode), and the same API called from a playground program, whose
functions and lambdas the engine calls like Python callables."""

from __future__ import annotations

import engine
from playground.program import run


def _y():
    return engine.tensor([1.5, -0.5, 0.25], dtype=engine.float64)


def test_jacobian_vectorize_and_forward_mode_give_the_loop_values():
    AF = engine.autograd.functional
    loop = AF.jacobian(lambda a: a.exp() * a, _y())
    for kw in ({"vectorize": True}, {"vectorize": True, "strategy": "forward-mode"}):
        assert AF.jacobian(lambda a: a.exp() * a, _y(), **kw).tolist() == loop.tolist()


def test_jacobian_of_a_linear_map_is_its_matrix():
    m = engine.tensor([[1.0, 2.0, 0.0], [0.5, -1.0, 3.0]], dtype=engine.float64)
    jac = engine.autograd.functional.jacobian(lambda a: m @ a, _y())
    assert jac.tolist() == m.tolist()


def test_gradcheck_error_is_a_runtime_error_named_as_torch():
    err = engine.autograd.gradcheck.__globals__["GradcheckError"]
    assert issubclass(err, RuntimeError)
    assert (err.__module__, err.__name__) == ("torch.autograd.gradcheck", "GradcheckError")


PROGRAM = """
import torch
from torch.autograd.functional import jacobian, hvp
x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
def cube_sum(a):
    return (a ** 3).sum()
print(jacobian(lambda a: a * a, x))
print(hvp(cube_sum, x, torch.ones(2, dtype=torch.float64))[1])
print(torch.autograd.gradcheck(lambda a: a.sin(), x))
print(torch.autograd.gradgradcheck(cube_sum, x))
try:
    torch.autograd.gradcheck(lambda a: a.detach() * a, x)
except RuntimeError as e:
    print(str(e).splitlines()[0])
seen = []
x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
y = x * x
print(y.grad_fn._saved_self is x)
y.sum().backward()
print(seen)
"""


def test_the_api_from_a_program():
    result = run(PROGRAM)
    assert result.error is None
    text = result.output if isinstance(result.output, str) else "".join(result.output)
    assert text.splitlines() == [
        "tensor([[2., 0.],",
        "        [0., 4.]], dtype=torch.float64)",
        "tensor([ 6., 12.], dtype=torch.float64)",
        "True",
        "True",
        "Jacobian mismatch for output 0 with respect to input 0,",
        "True",
        "[[2.0, 4.0]]",
    ]
