"""Ops that move elements without changing them: flip (fliplr, flipud), roll, repeat (tile) and
movedim (moveaxis). flip, roll and repeat make copies; movedim is a permute (a view)."""

from __future__ import annotations

from .. import backend as B
from .. import sizes as _sizes
from ..autograd.function import Function, apply
from ..tensor import Tensor
from .helpers import wrap_dim
from .registry import export
from .shape import Alias, permute


def _int_list(value) -> list:
    return [int(value)] if isinstance(value, int) else [int(v) for v in value]


def _varargs(args, fn: str, what: str, kwargs=None) -> list:
    """A method's dims or sizes given as f(0, 1), f((0, 1)), f([0, 1]) or by keyword."""
    if kwargs:
        for key in kwargs:
            if key != what:
                raise TypeError(f"{fn}() got an unexpected keyword argument '{key}'")
        if args:
            raise TypeError(f"{fn}() got multiple values for argument '{what}'")
        return list(_sizes.size_from_value(fn, kwargs[what], what, position=None))
    # ints only, refused as torch's parser refuses them (engine/sizes.py)
    return list(_sizes.size_from_varargs(fn, tuple(args), what))


# -- flip ----------------------------------------------------------------------------------------

class Flip(Function):
    name_ = "FlipBackward0"
    chain_rule = "flip reversed the order along dims: to self {grad} reversed back"

    def forward(self, a, dims):
        self.dims = dims
        x = a._data
        if not dims:
            return B.copy(x)
        index = tuple(slice(None, None, -1) if d in dims else slice(None)
                      for d in range(B.ndim(x)))
        return B.copy(B.getitem(x, index))

    def backward(self, grad):
        return (apply(Flip, (grad,), self.dims),)


def _flip(input, dims: list):
    nd = input.ndim
    wrapped = [wrap_dim(d, nd) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    # a 0-dim tensor has no dim to reverse (dim 0 and -1 are accepted and change nothing)
    return apply(Flip, (input,), tuple(wrapped) if nd else ())


@export(method=False)
def flip(input, dims):
    if isinstance(dims, int):
        raise TypeError("flip(): argument 'dims' (position 2) must be tuple of ints, not int")
    return _flip(input, _int_list(dims))


@export("flip", function=False, palette={"code": "{0}.flip(0)", "arity": 1, "group": "shape",
                                         "label": "flip(a)"})
def _flip_method(self, *dims, **kwargs):
    return _flip(self, _varargs(dims, "flip", "dims", kwargs))


@export()
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, [1])


@export()
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, [0])


# -- roll ----------------------------------------------------------------------------------------

def _roll_array(x, shift: int, dim: int):
    n = B.shape(x)[dim]
    if n == 0:
        return x
    s = shift % n
    if s == 0:
        return x
    lead = (slice(None),) * dim
    return B.concat([B.getitem(x, lead + (slice(n - s, n),)),
                     B.getitem(x, lead + (slice(0, n - s),))], dim)


class Roll(Function):
    """Elements shifted along dims, wrapping around; with no dims, along the flattened tensor."""

    name_ = "RollBackward0"
    chain_rule = "roll shifted the elements: to self {grad} shifted back by the same amount"

    def forward(self, a, shifts, dims):
        self.shifts, self.dims = shifts, dims
        x = a._data
        if not dims:  # torch rolls the flattened tensor and gives it its shape back
            shape = B.shape(x)
            flat = B.reshape(B.contiguous(x), (B.numel(x),))
            return B.reshape(B.copy(_roll_array(flat, shifts[0], 0)), shape)
        out = x
        for s, d in zip(shifts, dims):
            out = _roll_array(out, s, d)
        return B.copy(out)

    def backward(self, grad):
        return (apply(Roll, (grad,), tuple(-s for s in self.shifts), self.dims),)


@export(palette={"code": "{0}.roll(1)", "arity": 1, "group": "shape", "label": "roll(a)"})
def roll(input, shifts=None, dims=None):
    if shifts is None:
        raise TypeError('roll() missing 1 required positional arguments: "shifts"')
    shifts = _int_list(shifts)
    dims = [] if dims is None else _int_list(dims)
    if not dims and len(shifts) == 1:
        return apply(Roll, (input,), tuple(shifts), ())
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if input.numel() == 0:  # torch returns the empty tensor as it is, dims unchecked
        return apply(Roll, (input,), (0,), ())
    nd = input.ndim
    if nd == 0:
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    return apply(Roll, (input,), tuple(shifts), tuple(wrap_dim(d, nd) for d in dims))


# -- repeat, tile --------------------------------------------------------------------------------

class Repeat(Function):
    """The tensor tiled `repeats` times along each dim (leading repeats add new dims)."""

    name_ = "RepeatBackward0"
    chain_rule = "repeat made copies of self: to self {grad} summed over the copies"

    def forward(self, a, repeats):
        x = a._data
        self.in_shape, self.repeats = B.shape(x), repeats
        lead = len(repeats) - len(self.in_shape)
        padded = (1,) * lead + self.in_shape
        # interleave: (1, s0, 1, s1, ...) expanded to (r0, s0, r1, s1, ...), then merged
        pairs = tuple(v for s in padded for v in (1, s))
        wide = tuple(v for r, s in zip(repeats, padded) for v in (r, s))
        out = B.expand(B.reshape(B.contiguous(x), pairs), wide)
        return B.reshape(B.copy(out), tuple(r * s for r, s in zip(repeats, padded)))

    def backward(self, grad):
        # torch's repeat_backward: sum the new leading dims away one by one, then view each
        # repeated dim as (copies, size) and sum over the copies
        shape, repeats = self.in_shape, self.repeats
        if 0 in repeats:
            return (Tensor._make(B.zeros(shape, grad._dtype.name), grad._dtype),)
        for _ in range(len(repeats) - len(shape)):
            grad = grad.sum(0)
        repeats = repeats[len(repeats) - len(shape):]
        sizes, dims = [], []
        for r, s in zip(repeats, shape):
            if r != 1:
                dims.append(len(sizes))
                sizes.append(r)
            sizes.append(s)
        if not dims:
            return (grad,)
        return (grad.reshape(sizes).sum(dims),)


def _repeat(input, repeats: list):
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    padded = [1] * (len(repeats) - input.ndim) + list(input.shape)
    sizes = [r * s for r, s in zip(repeats, padded)]
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"[{', '.join(map(str, sizes))}]")
    _sizes.check_alloc(sizes, "this repeat")
    return apply(Repeat, (input,), tuple(repeats))


@export("repeat", function=False, palette={"code": "{0}.repeat(2, 1)", "arity": 1,
                                           "group": "shape", "label": "repeat(a)"})
def repeat(self, *repeats, **kwargs):
    return _repeat(self, _varargs(repeats, "repeat", "repeats", kwargs))


def _tile(input, dims: list):
    # fewer reps than dims count as ones in front (numpy's rule), which torch then repeats
    return _repeat(input, [1] * (input.ndim - len(dims)) + dims)


@export(method=False)
def tile(input, dims):
    if isinstance(dims, int):
        raise TypeError("tile(): argument 'dims' (position 2) must be tuple of ints, not int")
    return _tile(input, _int_list(dims))


@export("tile", function=False)
def _tile_method(self, *dims, **kwargs):
    return _tile(self, _varargs(dims, "tile", "dims", kwargs))


# -- movedim -------------------------------------------------------------------------------------

@export()
def movedim(input, source, destination):
    if isinstance(source, int) != isinstance(destination, int):
        got = ", ".join("int" if isinstance(v, int) else type(v).__name__
                        for v in (source, destination))
        raise TypeError(f"movedim() received an invalid combination of arguments - got ({got}), "
                        "but expected one of:")
    src, dst = _int_list(source), _int_list(destination)
    nd = input.ndim
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain "
            f"the same number of dims as destination ({dst} dims)")
    given = {"source": src, "destination": dst}
    src = [wrap_dim(d, nd) for d in src]
    dst = [wrap_dim(d, nd) for d in dst]
    for what, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):  # torch names the dims as they were given
            raise RuntimeError(f"movedim: repeated dim in `{what}` ({given[what]})")
    order = [-1] * max(nd, 1)
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [next(rest) if o == -1 else o for o in order][:nd]
    if not nd:  # torch returns self.alias() for a 0-dim tensor
        return apply(Alias, (input,))
    return permute(input, *order)


moveaxis = export("moveaxis")(movedim)
