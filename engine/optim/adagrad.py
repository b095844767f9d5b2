"""Adagrad (with lr decay, weight decay, maximize): torch's single-tensor update. Its state
exists from construction on, as in torch."""

from __future__ import annotations

from ..creation import full_like, tensor
from ..dtypes import float32
from .optimizer import Optimizer


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = tensor(0.0, dtype=float32)
                state["sum"] = full_like(p, group["initial_accumulator_value"])

    def _update_group(self, group: dict) -> None:
        lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
        weight_decay = group["weight_decay"]
        for param in group["params"]:
            if param.grad is None:
                continue
            state = self.state[param]
            grad = param.grad if not group["maximize"] else -param.grad
            state["step"] += 1
            step = state["step"].item()
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.addcmul_(grad, grad, value=1)
            std = state_sum.sqrt().add_(eps)
            param.addcdiv_(grad, std, value=-clr)
