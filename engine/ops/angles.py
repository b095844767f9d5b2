"""rad2deg and deg2rad: the input times 180/pi or pi/180 (a number in the input's float dtype,
as torch multiplies by it), with that constant as their gradient."""

from __future__ import annotations

from .. import backend as B
from ..autograd.function import Function, apply
from .helpers import float_data
from .registry import export


class _Scale(Function):
    factor = 1.0
    array_backward = True

    def forward(self, a):
        x = float_data(a)
        return B.mul(x, B.scalar(self.factor, B.dtype_name(x)))

    def backward(self, grad):
        return (grad * self.factor,)


class Rad2Deg(_Scale):
    name_ = "Rad2DegBackward0"
    chain_rule = "rad2deg = self·180/π: to self {grad}·180/π"
    factor = 57.295779513082320876798154814105170332405472466564  # torch's M_180_PI


class Deg2Rad(_Scale):
    name_ = "Deg2RadBackward0"
    chain_rule = "deg2rad = self·π/180: to self {grad}·π/180"
    factor = 0.017453292519943295769236907684886127134428718885417  # torch's M_PI_180


@export()
def rad2deg(input):
    return apply(Rad2Deg, (input,))


@export()
def deg2rad(input):
    return apply(Deg2Rad, (input,))
