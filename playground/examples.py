"""The example gallery: short programs, each a lesson about `.grad`, in the order of the menu."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

__all__ = ["DEFAULT_ID", "EXAMPLES", "OLD_IDS", "Example", "get"]


@dataclass(frozen=True)
class Example:
    """One gallery entry. `program` runs in the playground and, unchanged, in real PyTorch;
    The examples tagged "tutorial" run what PyTorch tutorials commonly teach; when a tutorial's
    claim is not what PyTorch does, `claim` states it in a line, `torch_differs` is true, and the
    explanation says what really happens;
    `expect_error` is the exception type the program deliberately ends in."""

    id: str
    title: str
    summary: str
    explanation: str
    program: str
    claim: str | None = None
    torch_differs: bool = False
    expect_error: str | None = None
    tags: tuple[str, ...] = ()


def _text(s: str) -> str:
    # the entries below are indented for reading; what is stored starts at column 1
    return textwrap.dedent(s).strip("\n") + "\n"


def _example(id, title, summary, explanation, program, **kw) -> Example:  # noqa: A002
    return Example(id=id, title=title, summary=summary,
                   explanation=_text(explanation).rstrip("\n"), program=_text(program), **kw)


def _lines(*parts: str) -> str:
    """A program made of several pieces, each dedented on its own."""
    return "".join(_text(p) for p in parts)


# the tutorial's linear model with fixed weights (shared by the nn.Linear examples below)
_TUTORIAL_LINEAR = """
    linear = nn.Linear(1, 1)
    with torch.no_grad():
        linear.weight.fill_(0.5)
        linear.bias.fill_(0.0)
    criterion = nn.MSELoss()
    input_data = torch.tensor([[2.0]], requires_grad=True)
    target_data = torch.tensor([[5.0]])
"""

EXAMPLES: tuple[Example, ...] = (
    # -- what tutorials teach, in their order ----------------------------------------------------
    _example(
        "tutorial-square", "x.grad after z = 2 * x**2",
        "The chain rule by hand and by backward(): x.grad is 8.",
        """
        `y = x**2` and `z = 2*y` build a two-node graph: `PowBackward0` feeds `MulBackward0`.
        `z.backward()` walks it from `z` back to `x` and multiplies the local derivatives on
        the way: dz/dy = 2, dy/dx = 2x = 4, so dz/dx = 8.

        Only the leaf `x` keeps its gradient: `x.grad` is `tensor([8.])`. The intermediate
        tensors `y` and `z` take part in the backward pass but store nothing.
        """,
        """
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2*y
        z.backward()
        print(x.grad)
        """,
        tags=("tutorial", "basics"),
    ),
    _example(
        "tutorial-two-variables", "Two leaves, two gradients",
        "Each leaf gets its own partial derivative: 4 for x, 27 for y.",
        """
        `z = x**2 + y**3` depends on two leaves. One backward pass fills both `.grad`s with
        the partial derivatives: dz/dx = 2x = 4 and dz/dy = 3y^2 = 27.

        The gradients live on the tensors themselves (`x.grad`, `y.grad`). The `AddBackward0`
        node hands the incoming gradient unchanged to both of its inputs.
        """,
        """
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = torch.tensor([3.0], requires_grad=True)
        z = x**2 + y**3
        z.backward()
        print(x.grad)
        print(y.grad)
        """,
        tags=("tutorial", "basics"),
    ),
    _example(
        "tutorial-torch-gradient-exists", "torch.gradient does exist",
        "Tutorials expect an AttributeError; torch.gradient is a real function.",
        """
        A common tutorial claims that `torch.gradient` raises `AttributeError` because the `torch`
        module has no such attribute. In real PyTorch it exists: it estimates derivatives of
        sampled values with finite differences (central differences inside, one-sided at the
        ends) and returns a tuple with one tensor per dimension. The tutorial wrapped the access in
        `try`/`except`; the playground has no `try`, so this is straight-line code that simply
        calls it.

        It is not how autograd works, though: backpropagation never uses `torch.gradient`.
        The last lines show the autograd way, where the derivative lands in `x.grad`.
        """,
        """
        import torch
        samples = torch.tensor([1.0, 4.0, 9.0, 16.0])
        print(torch.gradient(samples))
        print(torch.gradient(samples, spacing=2.0))
        x = torch.tensor([3.0], requires_grad=True)
        y = x**2
        y.backward()
        print(x.grad)
        """,
        claim="torch.gradient raises AttributeError",
        torch_differs=True, tags=("tutorial", "rewritten"),
    ),
    _example(
        "tutorial-grad-none-until-backward", ".grad is None until backward",
        "A fresh leaf has no gradient; backward() fills it; zero_() clears it in place.",
        """
        A tensor created with `requires_grad=True` starts with `x.grad` equal to `None`, not
        zeros. Only a backward pass that reaches it creates the gradient tensor.

        For `y = x.pow(2).sum()` the gradient is 2x = [4, 6]. `x.grad.zero_()` then writes
        zeros into that same gradient tensor, which is how the next backward pass would start
        from a clean slate.
        """,
        """
        import torch
        x = torch.tensor([2.0, 3.0], requires_grad=True)
        print(x.grad)
        y = x.pow(2).sum()
        y.backward()
        print(x.grad)
        x.grad.zero_()
        print(x.grad)
        """,
        tags=("tutorial", "basics", "zeroing"),
    ),
    _example(
        "tutorial-backward-with-gradient", "backward() on a vector needs a gradient",
        "A non-scalar output takes the vector of weights to start from.",
        """
        `y = x * 2` has two elements, so there is no single number to differentiate.
        `y.backward(v)` computes the vector-Jacobian product: each output's gradient is
        weighted by the matching entry of `v`.

        With `v = [1, 1]` that is the gradient of `y.sum()`, here [2, 2]. With weights
        [1, 0.1] the second entry shrinks to 0.2. Without any argument the call would fail,
        see the example on non-scalar backward.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.backward(torch.tensor([1.0, 1.0]))
        print(x.grad)
        x.grad = None
        y = x * 2
        y.backward(torch.tensor([1.0, 0.1]))
        print(x.grad)
        """,
        tags=("tutorial", "basics"),
    ),
    _example(
        "tutorial-retain-grad", "retain_grad() on an intermediate tensor",
        "Non-leaf tensors keep a gradient only when asked to.",
        """
        `y = x * x` is not a leaf: it was made by an operation. Its gradient is computed during
        backward but normally thrown away once it has been passed on. `y.retain_grad()` asks
        autograd to keep it.

        After `z.backward()`, `y.grad` is dz/dy = 3 and `x.grad` is 3 * 2x = 12. Without
        `retain_grad()`, reading `y.grad` gives `None` and a warning.
        """,
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * x
        z = y * 3
        y.retain_grad()
        z.backward()
        print(y.grad)
        print(x.grad)
        print(y.is_leaf, y.retains_grad)
        """,
        tags=("tutorial", "retain_grad"),
    ),
    _example(
        "tutorial-leaf-inplace-error", "x += 1 on a leaf always fails",
        "An in-place change to a leaf that requires grad is a RuntimeError, every time.",
        """
        A common tutorial claims that `x += 1` on a tensor that requires grad "can cause" errors or
        wrong gradients. In real PyTorch it is not a matter of chance: an in-place operation on
        a leaf that requires grad always raises `RuntimeError: a leaf Variable that requires
        grad is being used in an in-place operation.`

        The program first does the out-of-place version, `x2 = x + 1`, which records an
        `AddBackward0` node and gives x.grad = 2(x + 1) = 6. The last line is the tutorial's
        `x += 1`, and the run stops there. To really change a leaf's value, do it inside
        `with torch.no_grad():`.
        """,
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        x2 = x + 1
        y = x2 * x2
        y.backward()
        print(x.grad)
        x += 1
        """,
        claim="x += 1 on a leaf that requires grad can cause errors",
        torch_differs=True, expect_error="RuntimeError",
        tags=("tutorial", "inplace", "error"),
    ),
    _example(
        "tutorial-grad-prints-a-tensor", "dy/dx of y = w * x + b",
        "The gradients are 3, 2 and 1, and print as tensors, not bare numbers.",
        """
        A common tutorial claims that printing the gradients of `y = w * x + b` shows bare
        numbers such as `3.0`. In real PyTorch each `.grad` is a 0-dimensional tensor, so printing it shows
        `tensor(3.)`; `.item()` turns it into the Python number `3.0`. The tutorial's f-strings are
        rewritten as separate `print` arguments (the playground has no f-strings).

        The values themselves are right: dy/dx = w = 3, dy/dw = x = 2, dy/db = 1. `z` was made
        without `requires_grad`, takes no part in the graph and its `.grad` stays `None`.
        """,
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        w = torch.tensor(3.0, requires_grad=True)
        b = torch.tensor(1.0, requires_grad=True)
        y = w * x + b
        y.backward()
        print("Gradient of y with respect to x (dy/dx):", x.grad)
        print("Gradient of y with respect to w (dy/dw):", w.grad)
        print("Gradient of y with respect to b (dy/db):", b.grad)
        z = torch.tensor(4.0, requires_grad=False)
        print("Gradient for tensor z (requires_grad=False):", z.grad)
        print("As a Python number:", x.grad.item())
        """,
        claim="printing a gradient shows a bare number such as 3.0",
        torch_differs=True, tags=("tutorial", "basics", "rewritten"),
    ),
    _example(
        "tutorial-linear-sgd-step", "One SGD step on nn.Linear",
        "Loss, backward, optimizer.step(), optimizer.zero_grad() on a 1-to-1 linear layer.",
        """
        The tutorial defines a `SimpleLinear` module class around one `nn.Linear(1, 1)`; classes
        are not part of the playground language, so this is the same model written as
        straight-line code, with the layer itself. Its weight and bias are set to 0.5 and 0
        so that the numbers are the same everywhere (random initial values differ between
        PyTorch and the playground).

        The output is 0.5 * 2 = 1 and the loss (1 - 5)^2 = 16. Backward gives
        dloss/dweight = 2(1 - 5) * 2 = -16. `optimizer.step()` moves the weight against the
        gradient: 0.5 - 0.01 * (-16) = 0.66. `optimizer.zero_grad()` then sets the gradients
        to `None`, ready for the next step. The input also required grad, so it gets one:
        2(1 - 5) * 0.5 = -4.
        """,
        _lines("""
        import torch
        import torch.nn as nn
        import torch.optim as optim
        """, _TUTORIAL_LINEAR, """
        optimizer = optim.SGD(linear.parameters(), lr=0.01)
        output = linear(input_data)
        loss = criterion(output, target_data)
        loss.backward()
        print("Gradient of linear weight:", linear.weight.grad)
        print("Gradient of the input:", input_data.grad)
        optimizer.step()
        print(linear.weight)
        optimizer.zero_grad()
        print(linear.weight.grad)
        """),
        tags=("tutorial", "nn", "optim", "rewritten"),
    ),
    _example(
        "tutorial-times-two-keeps-graph", "output * 2.0 stays in the graph",
        "Multiplying by a number records MulBackward0; the weight still gets its gradient.",
        """
        A common tutorial claims that `output = intermediate_tensor * 2.0` "detaches" the
        result from the graph, so that the linear layer's weight gets no gradient and reading it fails. In
        real PyTorch the multiplication is recorded like any other operation: the result's
        `grad_fn` is `MulBackward0` and the weight's gradient arrives as usual.

        The tutorial's module class and its `try`/`except` are rewritten as straight-line code.
        With weight 0.5 and bias 0 the output is 2 * 1 = 2, the loss (2 - 5)^2 = 9, and
        dloss/dweight = 2(2 - 5) * 2 * 2 = -24.
        """,
        _lines("""
        import torch
        import torch.nn as nn
        """, _TUTORIAL_LINEAR, """
        intermediate_tensor = linear(input_data)
        output = intermediate_tensor * 2.0
        print(output.grad_fn.name())
        loss = criterion(output, target_data)
        loss.backward()
        print("Gradient of linear weight:", linear.weight.grad)
        """),
        claim="output = t * 2.0 detaches the result from the graph",
        torch_differs=True, tags=("tutorial", "nn", "rewritten"),
    ),
    _example(
        "tutorial-inplace-times-two-keeps-graph", "*= 2.0 on a layer's output still works",
        "The in-place multiply bumps the version and becomes the grad_fn; gradients flow.",
        """
        A common tutorial claims that `intermediate_tensor *= 2.0` on the output of a linear layer
        stops every gradient. In real PyTorch it does not here: the in-place multiply records a
        `MulBackward0` node that becomes the tensor's new `grad_fn`, and the version counter
        `_version` goes from 0 to 1.

        An in-place change only breaks backward when a node saved the old value to compute its
        gradient. `AddmmBackward0` (the linear layer) saved its inputs, not its output, and
        multiplying by a number needs no saved value, so nothing is lost: the weight gets
        -24, exactly as with the out-of-place `* 2.0`. The tutorial's class and `try`/`except`
        are rewritten as straight-line code.
        """,
        _lines("""
        import torch
        import torch.nn as nn
        """, _TUTORIAL_LINEAR, """
        intermediate_tensor = linear(input_data)
        print(intermediate_tensor._version, intermediate_tensor.grad_fn.name())
        intermediate_tensor *= 2.0
        print(intermediate_tensor._version, intermediate_tensor.grad_fn.name())
        loss = criterion(intermediate_tensor, target_data)
        loss.backward()
        print("Gradient of linear weight:", linear.weight.grad)
        """),
        claim="t *= 2.0 on a layer's output stops every gradient",
        torch_differs=True, tags=("tutorial", "nn", "inplace", "rewritten"),
    ),
    _example(
        "tutorial-requires-grad-false", "backward() with nothing to differentiate",
        "Without requires_grad there is no graph, and backward() raises.",
        """
        A common tutorial claims that with `requires_grad=False` the code runs and `x.grad` prints
        `None`. In real PyTorch it never gets that far: `z` has no `grad_fn` because no input
        required grad, so `z.backward()` raises `RuntimeError: element 0 of tensors does not
        require grad and does not have a grad_fn`.

        The program prints `z.requires_grad` and `z.grad_fn` first to show the missing graph.
        Creating `x` with `requires_grad=True` is the fix (and `z` must then be reduced to a
        scalar, see the next examples).
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=False)
        y = x + 2
        z = y * y
        print(z.requires_grad, z.grad_fn)
        z.backward()
        """,
        claim="with requires_grad=False, backward() runs and x.grad prints None",
        torch_differs=True, expect_error="RuntimeError", tags=("tutorial", "error"),
    ),
    _example(
        "tutorial-no-grad-block", "A result made under no_grad has no graph",
        "Inside torch.no_grad() nothing is recorded, so backward() from there raises.",
        """
        A common tutorial claims that after computing `z` inside `with torch.no_grad():`, calling
        `z.backward()` leaves `x.grad` as `None`. In real PyTorch the call itself fails:
        `z` was made while recording was off, has no `grad_fn` and does not require grad, so
        backward raises `RuntimeError: element 0 of tensors does not require grad and does not
        have a grad_fn`.

        `y` was made outside the block and still requires grad; `z` does not. That is the
        point of `no_grad`: work done there (evaluation, weight updates) leaves no graph.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x + 2
        with torch.no_grad():
            z = y * y
        print(y.requires_grad, z.requires_grad)
        z.backward()
        """,
        claim="backward() from a result made under no_grad leaves x.grad None",
        torch_differs=True, expect_error="RuntimeError",
        tags=("tutorial", "no_grad", "error"),
    ),
    _example(
        "tutorial-non-scalar-backward", "backward() on a vector without a gradient",
        "Only a single-element output can start backward on its own.",
        """
        A common tutorial claims that its "corrected" code, which calls `z.backward()` on the
        three-element `z = y * y`, prints `tensor([4., 8., 12.])`. In real PyTorch it
        raises `RuntimeError: grad can be implicitly created only for scalar outputs`: for a
        vector, backward needs to be told how to weight its elements.

        The usual fix is to reduce first, `z.sum().backward()`, or to pass the weights,
        `z.backward(torch.ones(3))`. Either gives x.grad = 2(x + 2) = [6., 8., 10.], not the
        tutorial's numbers.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x + 2
        z = y * y
        print(z)
        z.backward()
        """,
        claim="backward() on a three-element z prints tensor([4., 8., 12.])",
        torch_differs=True, expect_error="RuntimeError", tags=("tutorial", "error"),
    ),
    _example(
        "tutorial-clone-add-inplace", "clone() then add_() keeps the gradient",
        "An in-place add on a clone is recorded; x.grad comes out [6, 8, 10].",
        """
        A common tutorial claims that `y = x.clone(); y.add_(2)` probably disturbs the gradient and
        `x.grad` comes out `None` or wrong. In real PyTorch it works: `clone()` records
        `CloneBackward0`, the in-place add is recorded as `AddBackward0` on top of it (the
        version counter of `y` goes to 1), and nothing needed the old value of `y`.

        The tutorial's `z = y * y` is a vector, so its `z.backward()` would fail; with
        `z = (y * y).sum()` the gradient is 2(x + 2) = [6., 8., 10.], exactly what the
        out-of-place `y = x + 2` gives.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.clone()
        y.add_(2)
        print(y.grad_fn.name(), y._version)
        z = (y * y).sum()
        z.backward()
        print(x.grad)
        """,
        claim="y = x.clone(); y.add_(2) breaks the gradient of x",
        torch_differs=True, tags=("tutorial", "inplace"),
    ),
    # -- the rules of .grad -----------------------------------------------------------------------
    _example(
        "fan-out", "a + a: one tensor used twice",
        "Every use sends its own gradient, and the leaf adds them up.",
        """
        In `b = a + a` the tensor `a` feeds `AddBackward0` twice, so the graph has two edges
        from that node to the same `AccumulateGrad`. Each edge delivers a gradient of 1 and the
        two are added: `a.grad` is 2.

        The same happens in `d = c * c + c`: three uses of `c`, contributions c + c + 1, so
        `c.grad` is 2c + 1 = 7. Gradients from different paths are always summed, never
        overwritten.
        """,
        """
        import torch
        a = torch.tensor(3.0, requires_grad=True)
        b = a + a
        b.backward()
        print(a.grad)
        c = torch.tensor(3.0, requires_grad=True)
        d = c * c + c
        d.backward()
        print(c.grad)
        """,
        tags=("accumulation",),
    ),
    _example(
        "accumulate-and-zero", "Gradients add up until you zero them",
        "Two backward passes give 8 then 16; zero_(), = None and zero_grad() reset.",
        """
        Calling backward again adds to `.grad` instead of replacing it: the same graph run
        twice (kept alive with `retain_graph=True`) gives 8, then 16. Training loops rely on
        this to sum gradients over mini-batches, and forget to reset it at their peril.

        There are three ways to start over. `x.grad.zero_()` writes zeros into the existing
        gradient tensor. `x.grad = None` drops it, so the next backward creates a new one.
        `optimizer.zero_grad()` does the latter for every parameter it manages (it sets
        `None` by default). The last backward has no `retain_graph`, so the graph is freed
        after it.
        """,
        """
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        z = 2 * x**2
        z.backward(retain_graph=True)
        print(x.grad)
        z.backward(retain_graph=True)
        print(x.grad)
        x.grad.zero_()
        print(x.grad)
        z.backward(retain_graph=True)
        print(x.grad)
        x.grad = None
        print(x.grad)
        optimizer = torch.optim.SGD([x], lr=0.1)
        z.backward()
        print(x.grad)
        optimizer.zero_grad()
        print(x.grad)
        """,
        tags=("accumulation", "zeroing", "optim"),
    ),
    _example(
        "broadcast-sum-to-shape", "Broadcasting: gradients are summed back",
        "A bias broadcast over rows gets the sum of the rows' gradients.",
        """
        `w * 2 + b + s` broadcasts the vector `b` over the two rows of `w` and the scalar `s`
        over all six elements. In backward each of them receives the gradient summed over the
        places it was copied to, so every `.grad` has the shape of its own tensor.

        `w.grad` is 2 everywhere, `b.grad` is [2, 2, 2] (two rows, 1 each) and `s.grad` is 6
        (six elements).
        """,
        """
        import torch
        w = torch.ones(2, 3, requires_grad=True)
        b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = torch.tensor(0.5, requires_grad=True)
        y = w * 2 + b + s
        print(y.shape)
        y.sum().backward()
        print(w.grad)
        print(b.grad)
        print(s.grad)
        """,
        tags=("broadcasting",),
    ),
    _example(
        "matmul", "Gradients of a matrix-vector product",
        "For y = A @ v: A.grad holds v in every row, v.grad the column sums of A.",
        """
        `y = A @ v` multiplies a 2x3 matrix by a 3-vector (`MvBackward0`). With
        `loss = y.sum()` the incoming gradient is 1 for both outputs.

        Each row of `A` met `v`, so `A.grad` is `v` in every row. Each entry of `v` met one
        column of `A`, so `v.grad` is the column sums [5, 7, 9]. In general the gradients are
        outer and transposed products: grad * v^T for `A` and A^T @ grad for `v`.
        """,
        """
        import torch
        A = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        v = torch.tensor([1.0, 0.0, -1.0], requires_grad=True)
        y = A @ v
        print(y)
        loss = y.sum()
        loss.backward()
        print(A.grad)
        print(v.grad)
        """,
        tags=("linear-algebra",),
    ),
    _example(
        "softmax-cross-entropy", "Softmax and cross-entropy",
        "The gradient of cross-entropy is the softmax minus the one-hot target.",
        """
        `F.cross_entropy` takes raw scores (logits) and a class index. Inside it computes
        `log_softmax` and then the negative log-probability of the target class, here
        -log(0.659) = 0.417.

        Its gradient with respect to the logits is remarkably simple: the softmax
        probabilities minus 1 at the target class. Compare `probs` with `logits.grad`: only
        the first entry differs, by exactly 1.
        """,
        """
        import torch
        import torch.nn.functional as F
        logits = torch.tensor([[2.0, 1.0, 0.1]], requires_grad=True)
        target = torch.tensor([0])
        probs = F.softmax(logits, dim=1)
        loss = F.cross_entropy(logits, target)
        loss.backward()
        print(probs)
        print(loss)
        print(logits.grad)
        """,
        tags=("nn", "loss"),
    ),
    _example(
        "mlp-sgd", "Training a 2-layer MLP with SGD",
        "zero_grad, forward, loss, backward, step: fifteen times, the loss going down.",
        """
        The classic loop: clear the old gradients, compute the loss, backpropagate, let the
        optimizer update every parameter. Without `optimizer.zero_grad()` each step would add
        to the previous gradients (see "Gradients add up").

        `torch.manual_seed(0)` fixes the layers' random initial weights, so every run, in the
        playground and in PyTorch, draws the same ones and prints the same numbers. The model
        learns to add its two inputs; watch the loss fall and each parameter's `.grad` fill,
        get used and be cleared on every pass through the loop.
        """,
        """
        import torch
        import torch.nn as nn
        import torch.optim as optim
        X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
        Y = torch.tensor([[0.0], [1.0], [1.0], [2.0]])
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
        loss_fn = nn.MSELoss()
        optimizer = optim.SGD(model.parameters(), lr=0.1)
        for step in range(15):
            optimizer.zero_grad()
            loss = loss_fn(model(X), Y)
            loss.backward()
            optimizer.step()
            print(step, loss)
        print(model(X))
        """,
        tags=("nn", "optim", "training"),
    ),
    _example(
        "adam", "Adam's first steps",
        "Adam moves each weight by about lr per step, whatever the gradient's size.",
        """
        Adam divides a running average of the gradient by a running average of its square.
        On the first step that ratio is 1 in size, so both weights move by the learning rate,
        0.1, although their gradients are 2 and -4.

        The optimizer reads `w.grad` in `step()`; the loop clears it each time with
        `zero_grad()`. Watch the steps shrink slowly as the gradients get smaller.
        """,
        """
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        optimizer = torch.optim.Adam([w], lr=0.1)
        for step in range(5):
            optimizer.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            optimizer.step()
            print(step, w.grad, w)
        """,
        tags=("optim",),
    ),
    _example(
        "second-derivative", "A second derivative with create_graph=True",
        "The first derivative gets a graph of its own, which backward can walk again.",
        """
        `torch.autograd.grad(y, x, create_graph=True)` returns dy/dx = 3x^2 = 27 instead of
        storing it, and records how it was computed: the result has a `grad_fn`.

        Calling `backward()` on that derivative differentiates once more: d(3x^2)/dx = 6x =
        18 lands in `x.grad`. Without `create_graph=True` the first derivative would be a
        plain number with no graph to go back through.
        """,
        """
        import torch
        x = torch.tensor(3.0, requires_grad=True)
        y = x ** 3
        (dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
        print(dy_dx)
        dy_dx.backward()
        print(x.grad)
        """,
        tags=("higher-order",),
    ),
    _example(
        "hook-clip", "A hook that clips a gradient",
        "register_hook(F.hardtanh) clips every gradient into [-1, 1] before it is stored.",
        """
        A tensor hook is a function that receives the gradient on its way to the tensor and
        may return a replacement. `F.hardtanh` clips values into [-1, 1], so registering it
        clips the gradient of `x`: 2x = [1, 4, -6] arrives as [1, 1, -1].

        `handle.remove()` takes the hook off again; the next backward stores the raw gradient.
        (The playground has no `lambda`, but any function that takes and returns a tensor can
        be a hook, `print` included.)
        """,
        """
        import torch
        import torch.nn.functional as F
        x = torch.tensor([0.5, 2.0, -3.0], requires_grad=True)
        handle = x.register_hook(F.hardtanh)
        y = (x ** 2).sum()
        y.backward()
        print(x.grad)
        handle.remove()
        x.grad = None
        y = (x ** 2).sum()
        y.backward()
        print(x.grad)
        """,
        tags=("hooks",),
    ),
    _example(
        "detach-vs-clone", "detach() versus clone()",
        "detach shares memory and leaves the graph; clone copies and stays in it.",
        """
        `x.detach()` is the same data without history: it does not require grad, and writing
        into it changes `x` too (they share memory and the version counter, so `x._version`
        goes up).

        `x.clone()` is a copy with history: `CloneBackward0` links it back to `x`, so a loss
        computed from the clone sends gradients to `x` (2 * clone = [2, 4]), and the later
        write through `d` did not touch it.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        d = x.detach()
        c = x.clone()
        print(d.requires_grad, d.grad_fn)
        print(c.requires_grad, c.grad_fn.name())
        d[0] = 10.0
        print(x)
        print(c)
        print(x._version)
        (c * c).sum().backward()
        print(x.grad)
        """,
        tags=("detach", "inplace"),
    ),
    _example(
        "inplace-modified-error", "Changing a saved tensor in place",
        "backward() notices that a value it needs was overwritten, and refuses.",
        """
        `z = y * y` saves `y`, because the gradient of a product needs the other factor.
        `y.add_(1)` then overwrites `y` in place and bumps its version from 0 to 1.

        When backward reaches `MulBackward0` it checks the saved tensor's version, finds 1
        where it recorded 0, and raises `RuntimeError: one of the variables needed for
        gradient computation has been modified by an inplace operation`. The fix is to not
        modify it: `y = y + 1` makes a new tensor and leaves the saved one alone.
        """,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        z = y * y
        print(y._version)
        y.add_(1)
        print(y._version)
        z.sum().backward()
        """,
        expect_error="RuntimeError", tags=("inplace", "error"),
    ),
    _example(
        "nan-where-log", "A NaN from the branch torch.where did not take",
        "where() picks a value, but both branches are differentiated.",
        """
        `torch.where(x > 0, torch.log(x), torch.zeros_like(x))` looks safe: at x = 0 the
        forward result is 0. But `log(x)` was still computed for every element, and in
        backward its local gradient 1/x is evaluated everywhere too. At x = 0 the incoming
        gradient is 0 and 0 / 0 is NaN, so `x.grad` holds `nan`.

        The fix is to make the unused branch harmless as well: feed `log` a safe input
        (1 where x <= 0). Then the masked gradient is 0 / 1 = 0.
        """,
        """
        import torch
        x = torch.tensor([0.0, 2.0], requires_grad=True)
        y = torch.where(x > 0, torch.log(x), torch.zeros_like(x))
        print(y)
        y.sum().backward()
        print(x.grad)
        x.grad = None
        safe_x = torch.where(x > 0, x, torch.ones_like(x))
        y = torch.where(x > 0, torch.log(safe_x), torch.zeros_like(x))
        y.sum().backward()
        print(x.grad)
        """,
        tags=("nan",),
    ),
)

DEFAULT_ID = "tutorial-square"

_BY_ID = {e.id: e for e in EXAMPLES}
# Earlier ids, so that links and bookmarks made with them still open their example: the
# tutorial examples were first named "seed-..." (after the tutorial documents they came from).
OLD_IDS = {"seed-" + e.id.removeprefix("tutorial-"): e.id for e in EXAMPLES
           if e.id.startswith("tutorial-")}


def get(id: str) -> Example:  # noqa: A002
    """The example with this id (or an earlier id of it, OLD_IDS); KeyError (naming the known
    ids) if there is none."""
    try:
        return _BY_ID[OLD_IDS.get(id, id)]
    except KeyError:
        raise KeyError(f"no gallery example {id!r}; known ids: {', '.join(_BY_ID)}") from None
