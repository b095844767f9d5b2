"""Grad mode (no_grad, enable_grad, set_grad_enabled, inference_mode), per thread as in torch."""

from __future__ import annotations

import functools
import threading


class _State(threading.local):
    grad_enabled = True
    inference = False  # inside inference_mode(): the tensors made are inference tensors


state = _State()


def is_grad_enabled() -> bool:
    return state.grad_enabled


def is_inference_mode_enabled() -> bool:
    return state.inference


class _GradModeContext:
    """Base for the grad-mode switches: a context manager that also decorates functions."""

    _target: bool

    def __enter__(self):
        self._prev = state.grad_enabled
        state.grad_enabled = self._target
        return self

    def __exit__(self, *exc):
        state.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_GradModeContext):  # noqa: N801
    _target = False


class enable_grad(_GradModeContext):  # noqa: N801
    _target = True


class set_grad_enabled(_GradModeContext):  # noqa: N801
    """Switches grad mode when constructed (usable as a plain call), restores it on exit."""

    def __init__(self, mode: bool):
        self._prev = state.grad_enabled
        self._target = bool(mode)
        state.grad_enabled = self._target

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        state.grad_enabled = self._prev
        return False

    def __call__(self, fn):
        state.grad_enabled = self._prev
        mode = self._target

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return set_grad_enabled(self._target)


class inference_mode(_GradModeContext):  # noqa: N801
    """torch.inference_mode(mode=True): grad mode off, and every tensor made inside is an
    inference tensor (Tensor._make marks it), which autograd refuses to save for backward,
    and which may not change in place or come to require grad outside inference mode.
    inference_mode(False) leaves inference mode and does not touch grad mode."""

    def __new__(cls, mode=True):
        if callable(mode):  # @torch.inference_mode without parentheses decorates at once
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True):
        self.mode = bool(mode)

    def __enter__(self):
        self._prev = (state.grad_enabled, state.inference)
        if self.mode:
            state.grad_enabled = False
        state.inference = self.mode
        return self

    def __exit__(self, *exc):
        state.grad_enabled, state.inference = self._prev
        return False

    def __call__(self, fn):
        mode = self.mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return inference_mode(self.mode)
