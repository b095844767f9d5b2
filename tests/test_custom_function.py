"""torch.autograd.Function subclasses on the engine (engine/autograd/custom_function.py): ctx,
apply, the node torch names `<Function>Backward`, and torch's errors. Expected values and
messages were taken from torch 2.13; the same code runs against torch when it is installed."""

from __future__ import annotations

import pytest

import engine
from engine.autograd.custom_function import once_differentiable

try:
    import torch
except ImportError:  # CI has no torch: the recorded values below still hold
    torch = None

LIBS = [engine] + ([torch] if torch is not None else [])
lib_ids = ["engine"] + (["torch"] if torch is not None else [])


def functions(lib):
    """The Functions of the tests, written once for the engine and for torch."""
    once = once_differentiable if lib is engine else torch.autograd.function.once_differentiable

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, alpha):
            ctx.alpha = alpha
            ctx.seen_needs = ctx.needs_input_grad
            ctx.seen_grad_mode = lib.is_grad_enabled()
            return x * alpha

        @staticmethod
        def backward(ctx, grad):
            ctx.backward_grad_mode = lib.is_grad_enabled()
            return grad * ctx.alpha, None

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            ctx.got = (g1, g2)
            return g1 * 2 + g2 * 3

    class ArgMax(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = x.argmax()
            ctx.mark_non_differentiable(i)
            return x * 2, i

        @staticmethod
        def backward(ctx, g, gi):
            ctx.gi = gi
            return g * 2

    return Scale, Exp, Square, TwoOut, ArgMax


@pytest.fixture(params=LIBS, ids=lib_ids)
def lib(request):
    return request.param


def leaf(lib, values=(1.0, 2.0)):
    return lib.tensor(list(values), requires_grad=True)


def test_apply_runs_forward_without_grad_and_the_node_is_ctx(lib):
    Scale = functions(lib)[0]
    x = leaf(lib)
    y = Scale.apply(x, 3.0)
    assert y.grad_fn.seen_needs == (True, False)
    assert y.grad_fn.seen_grad_mode is False
    assert type(y.grad_fn).__name__ == "ScaleBackward" == y.grad_fn.name()
    assert type(y.grad_fn).__module__ == "torch.autograd.function"
    assert repr(type(y.grad_fn)) == "<class 'torch.autograd.function.ScaleBackward'>"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.ScaleBackward object at 0x")
    assert repr(y) == "tensor([3., 6.], grad_fn=<ScaleBackward>)"
    # one edge per tensor argument: the number has none
    assert len(y.grad_fn.next_functions) == 1
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert y.grad_fn.backward_grad_mode is False


def test_saved_output_gives_second_derivatives(lib):
    Exp = functions(lib)[1]
    x = leaf(lib)
    y = Exp.apply(x)
    (gx,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    assert gx.grad_fn.name() == "MulBackward0"
    gx.sum().backward()
    assert x.grad.tolist() == pytest.approx([2.7182817, 7.3890562])


def test_saved_tensors_are_checked_as_torch_checks_them(lib):
    Exp = functions(lib)[1]
    x = leaf(lib)
    y = Exp.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="^Trying to backward through the graph a second"):
        y.grad_fn.saved_tensors  # noqa: B018
    y = Exp.apply(x)
    with lib.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match=r"\[torch.FloatTensor \[2\]\], which is output 0 of "
                       r"Exp, is at version 1; expected version 0 instead"):
        y.sum().backward()


def test_once_differentiable_refuses_a_second_derivative(lib):
    Square = functions(lib)[2]
    x = leaf(lib)
    y = Square.apply(x)
    (gx,) = lib.autograd.grad(y.sum(), x)
    assert gx.tolist() == [2.0, 4.0] and gx.grad_fn is None
    y = Square.apply(x)
    (gy,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    assert gy.tolist() == [4.0, 32.0] and gy.grad_fn.name() == "torch::autograd::Error"
    assert repr(gy) == "tensor([ 4., 32.], grad_fn=<Error>)"
    with pytest.raises(RuntimeError, match="^trying to differentiate twice a function that was "
                       "marked with @once_differentiable$"):
        gy.sum().backward()


def test_outputs_share_one_node_and_missing_grads_are_zeros(lib):
    TwoOut, ArgMax = functions(lib)[3:5]
    x = leaf(lib)
    a, b = TwoOut.apply(x)
    assert a.grad_fn is b.grad_fn
    a.sum().backward()
    assert a.grad_fn.got[1].tolist() == [0.0, 0.0]
    assert x.grad.tolist() == [2.0, 2.0]
    x.grad = None
    v, i = ArgMax.apply(x)
    assert i.requires_grad is False and i.grad_fn is None and int(i) == 1
    v.sum().backward()
    assert v.grad_fn.gi.tolist() == 0 and v.grad_fn.gi.dtype == lib.int64
    assert x.grad.tolist() == [2.0, 2.0]


def test_no_grad_and_inputs_without_grad_record_nothing(lib):
    Scale = functions(lib)[0]
    with lib.no_grad():
        y = Scale.apply(leaf(lib), 2.0)
    assert y.requires_grad is False and y.grad_fn is None
    y = Scale.apply(lib.tensor([1.0, 2.0]), 2.0)
    assert y.requires_grad is False and y.grad_fn is None


@pytest.mark.parametrize("returned, message", [
    ("one", "function BadBackward returned an incorrect number of gradients (expected 2, got 1)"),
    ("two", "function BadBackward returned a gradient different than None at position 2, but "
            "the corresponding forward input was not a Variable"),
    ("shape", "Function BadBackward returned an invalid gradient at index 0 - got [1] but "
              "expected shape compatible with [2]"),
])
def test_wrong_gradients_raise_torchs_errors(lib, returned, message):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            return x * k

        @staticmethod
        def backward(ctx, g):
            if returned == "one":
                return g
            if returned == "two":
                return g, g
            return g[:1], None

    with pytest.raises(RuntimeError) as info:
        Bad.apply(leaf(lib), 2).sum().backward()
    assert str(info.value) == message


def test_missing_forward_or_backward_and_legacy_calls(lib):
    class NoForward(lib.autograd.Function):
        pass

    with pytest.raises(NotImplementedError, match="^You must implement the forward function"):
        NoForward.apply(leaf(lib))

    class NoBackward(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    with pytest.raises(NotImplementedError, match="^You must implement either the backward or "
                       "vjp method"):
        NoBackward.apply(leaf(lib)).sum().backward()
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        instance = NoBackward()
    with pytest.raises(RuntimeError, match="^Legacy autograd function with non-static forward "
                       "method is deprecated"):
        instance(leaf(lib))


def test_an_input_returned_as_it_is_becomes_a_new_output(lib):
    class Same(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 5

    x = leaf(lib)
    y = Same.apply(x)
    assert y is not x and y.grad_fn.name() == "SameBackward"
    y.sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]


def test_extra_nones_after_the_gradients_are_dropped_as_torch_drops_them(lib):
    class Extra(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2, None, None

    x = leaf(lib)
    Extra.apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def _add_one_inplace(lib):
    class AddOne_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    return AddOne_


def test_mark_dirty_returns_the_input_itself_with_the_node_as_its_grad_fn(lib):
    add_one = _add_one_inplace(lib)
    x = leaf(lib)
    y = x * 2
    before = y._version
    out = add_one.apply(y)
    # the same tensor, changed in place; torch counts the add_ and the mark_dirty
    assert out is y and y.tolist() == [3.0, 5.0] and y._version == before + 2
    assert y.grad_fn.name() == "AddOne_Backward" and not y.is_leaf
    assert y.grad_fn.next_functions[0][0].name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0]


def test_mark_dirty_without_grad_changes_only_values_and_version(lib):
    add_one = _add_one_inplace(lib)
    plain = lib.ones(2)
    out = add_one.apply(plain)
    assert out is plain and plain.tolist() == [2.0, 2.0] and plain._version == 2
    assert out.grad_fn is None and not out.requires_grad


def test_mark_dirty_errors_are_torchs(lib):
    add_one = _add_one_inplace(lib)
    x = leaf(lib)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad has been used "
                                           r"in an in-place operation\.$"):
        add_one.apply(x)
    assert x.tolist() == [2.0, 3.0]  # forward wrote before the check, as in torch

    class Unreturned(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            t.mul_(2)
            ctx.mark_dirty(t)
            return t.clone()

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="^Some elements marked as dirty during the forward "
                                           "method were not returned as output"):
        Unreturned.apply(x * 1)

    class NotATensor(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.mark_dirty(3)
            return t

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="^mark_dirty can only accept variables"):
        NotATensor.apply(x)


def test_mark_dirty_then_a_saved_tensor_is_stale_as_in_torch(lib):
    add_one = _add_one_inplace(lib)
    x = leaf(lib)
    s = x * 3
    product = s * s  # saves s at version 0
    add_one.apply(s)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        product.sum().backward()


def test_mark_dirty_on_a_view_rebases_its_base_through_copy_slices(lib):
    add_one = _add_one_inplace(lib)
    a = leaf(lib, (1.0, 2.0, 3.0))
    base = a * 1
    view = base[:2]
    out = add_one.apply(view)
    assert out is view and view.tolist() == [2.0, 3.0] and base.tolist() == [2.0, 3.0, 3.0]
    assert view._version == base._version == 2  # the add_ and the mark_dirty
    assert view.grad_fn.name() == "AsStridedBackward0"
    assert base.grad_fn.name() == "torch::autograd::CopySlices"
    assert base.grad_fn.next_functions[0][0].name() == "MulBackward0"
    assert view.grad_fn.next_functions[0][0] is base.grad_fn
    assert repr(view) == "tensor([2., 3.], grad_fn=<AsStridedBackward0>)"
    view.retain_grad()
    (out * 2).sum().backward()
    assert view.grad.tolist() == [2.0, 2.0]  # the gradient of the view's new values
    assert a.grad.tolist() == [6.0, 6.0, 0.0]  # the Function's backward (* 3) on the region


def test_mark_dirty_on_a_view_follows_torch_where_the_dirty_input_is_not_the_first(lib):
    class ScaleInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, w, x):
            x.mul_(w)
            ctx.save_for_backward(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            (w,) = ctx.saved_tensors
            return g * 10, g * w

    a = leaf(lib, (1.0, 2.0, 3.0))
    base = a * 1
    w = lib.tensor(2.0, requires_grad=True)
    out = ScaleInto.apply(w, base[1:])
    assert out.tolist() == [4.0, 6.0] and base.tolist() == [1.0, 4.0, 6.0]
    # torch's CopySlices takes the first input's place for the base: w's edge is dropped and
    # what the Function gives its first input fills the base's region
    names = [fn.name() for fn, _ in base.grad_fn.next_functions]
    assert names == ["MulBackward0", "SliceBackward0"]
    base.sum().backward()
    assert w.grad is None and a.grad.tolist() == [1.0, 12.0, 12.0]


def test_mark_dirty_on_a_view_with_no_gradient_for_it_gives_the_base_none(lib):
    class Dropped(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return None

    a = leaf(lib, (1.0, 2.0, 3.0))
    base = a * 1
    Dropped.apply(base[:2])
    base.sum().backward()
    assert a.grad is None


def test_mark_dirty_on_a_view_copies_the_gradient_as_copy_(lib):
    def fn(grad_of):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.add_(1)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return grad_of(g)
        return F

    for grad_of, want in ((lambda g: lib.tensor([5.0]), [5.0, 5.0, 1.0, 1.0]),
                          (lambda g: g.double() * 3, [3.0, 3.0, 1.0, 1.0])):
        a = lib.ones(4, requires_grad=True)
        base = a * 1
        fn(grad_of).apply(base[:2])
        base.sum().backward()
        assert a.grad.tolist() == want and a.grad.dtype == lib.float32
    a = lib.ones(4, requires_grad=True)
    base = a * 1
    fn(lambda g: lib.ones(3)).apply(base[:2])
    with pytest.raises(RuntimeError, match=r"^The size of tensor a \(2\) must match the size "
                                           r"of tensor b \(3\) at non-singleton dimension 0$"):
        base.sum().backward()


def test_mark_dirty_on_a_view_errors_are_torchs(lib):
    add_one = _add_one_inplace(lib)

    class TwoOut(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.add_(1)
            ctx.mark_dirty(x)
            return x, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 + g2

    class ScaleInto(lib.autograd.Function):
        @staticmethod
        def forward(ctx, w, x):
            x.mul_(w)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g, g

    def raises(pattern, f):
        with pytest.raises(RuntimeError, match=pattern):
            f()

    x = leaf(lib)
    raises(r"^a view of a leaf Variable that requires grad is being used in an in-place "
           r"operation\.$", lambda: add_one.apply(x[:1]))
    assert x.tolist() == [2.0, 2.0] and x._version == 2  # written and counted first
    raises(r"^If your Function modifies inplace an input that is a view of another Tensor, "
           r"your Function cannot return more than one Tensor\. This is not supported",
           lambda: TwoOut.apply((x * 1)[:1]))
    first, _ = (x * 1).unbind()
    raises(r"^Output 0 of Unbind is a view and is being modified inplace\. This view is the "
           r"output of a function that returns multiple views\.", lambda: add_one.apply(first))
    requiring = x * 1
    with lib.no_grad():
        quiet = requiring[:1]
    raises(r"^a leaf Variable that requires grad has been used in an in-place operation\.$",
           lambda: add_one.apply(quiet))
    plain = lib.zeros(3)
    with lib.no_grad():
        plain_view = plain[1:]
    raises(r"^A view was created in no_grad mode and is being modified inplace with grad mode "
           r"enabled\. Given that", lambda: ScaleInto.apply(lib.tensor(2.0, requires_grad=True),
                                                          plain_view))


def test_a_function_returns_an_input_as_a_view_and_its_views_may_not_change_in_place(lib):
    class Ident(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    class Head(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:1]

        @staticmethod
        def backward(ctx, g):
            return lib.cat([g, lib.zeros(1)])

    class Halves(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x[:1], x[1:]

        @staticmethod
        def backward(ctx, g1, g2):
            return lib.cat([g1, g2])

    custom = (r"This view was created inside a custom Function \(or because an input was "
              r"returned as-is\) and the autograd logic")
    x = leaf(lib) * 1
    y = Ident.apply(x)
    assert y is not x and y._base is x and y.grad_fn.name() == "IdentBackward"
    with pytest.raises(RuntimeError, match=r"^Output 0 of Ident is a view and is being modified "
                                           r"inplace\. " + custom):
        y.add_(1)
    with lib.no_grad():
        z = Ident.apply(x)
    assert z is not x and z._base is None and not z.requires_grad
    x.add_(0)
    assert z._version == x._version  # a detached alias shares the version counter
    h = Head.apply(x)
    x.mul_(1)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Head is a view and its base or another "
                                           r"view of its base has been modified inplace\. "
                                           + custom):
        _ = h.grad_fn  # reading it raises
    first, _ = Halves.apply(leaf(lib) * 1)
    with pytest.raises(RuntimeError, match=r"^Output 0 of Halves is a view and is being modified "
                                           r"inplace\. This view is the output of a function "
                                           r"that returns multiple views\."):
        first.mul_(2)
