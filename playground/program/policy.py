"""What a running program may reach: the namespaces it can import with the names each one
offers, the engine classes it can construct or call, and the attributes it may read or assign
on each kind of engine object. Built once from the engine as it is, so an op or a layer added
to the engine is reachable without touching this module."""

from __future__ import annotations

import collections
import functools
import math
import types
import typing

from .._engine import engine

nn, optim = engine.nn, engine.optim
lr_scheduler = optim.lr_scheduler
data = engine.utils.data
HookHandle, Node = engine.autograd.graph.HookHandle, engine.autograd.graph.Node
custom_function = engine.autograd.custom_function
UserFunctionBase = engine.autograd.Function  # torch.autograd.Function, for programs to subclass
Ctx = custom_function.BackwardCFunction  # the ctx of a program's Function (also its grad_fn)
DType = engine.dtypes.dtype
Size = engine.printing.Size

# import paths a program may name, and the engine module each one means
NAMESPACES = {
    "torch": engine,
    "torch.nn": nn,
    "torch.nn.functional": nn.functional,
    "torch.nn.init": nn.init,
    "torch.nn.utils": nn.utils,
    "torch.optim": optim,
    "torch.optim.lr_scheduler": lr_scheduler,
    "torch.autograd": engine.autograd,
    "torch.autograd.functional": engine.autograd.functional,
    "torch.func": engine.func,
    "torch.autograd.graph": engine.autograd.graph,
    "torch.linalg": engine.linalg,
    "torch.autograd.function": custom_function,
    "torch.cuda": engine.cuda,
    "torch.utils": engine.utils,
    "torch.utils.data": data,
}

_TORCH_NAMES = (
    "tensor", "as_tensor", "zeros", "ones", "full", "empty", "zeros_like", "ones_like",
    "full_like", "empty_like", "arange", "linspace", "logspace", "eye", "rand", "randn", "rand_like",
    "randn_like", "randint", "randint_like", "randperm", "normal", "bernoulli", "multinomial",
    "manual_seed", "initial_seed", "seed", "Generator", "get_rng_state", "set_rng_state",
    "float32", "float64", "int64", "bool", "float", "double", "long", "Size",
    "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
    "is_tensor", "numel", "result_type", "get_default_dtype",
    "nn", "optim", "autograd", "linalg", "Tensor", "is_floating_point", "inference_mode",
    "device", "cuda", "FloatTensor", "DoubleTensor", "LongTensor", "is_inference_mode_enabled",
    "set_printoptions", "func",
)
_AUTOGRAD_NAMES = ("grad", "backward", "no_grad", "enable_grad", "set_grad_enabled", "Function",
                   "function", "functional", "gradcheck", "gradgradcheck", "graph")
_AUTOGRAD_FUNCTION_NAMES = ("Function", "FunctionCtx", "once_differentiable")

TENSOR_ATTRS = frozenset((
    "T", "mT", "backward", "bool", "clone", "contiguous", "copy_", "cpu", "data", "detach",
    "detach_", "device", "dim", "double", "dtype", "element_size", "expand", "expand_as", "fill_",
    "float", "grad", "grad_fn", "int", "is_contiguous", "is_cuda", "is_floating_point",
    "is_leaf", "item", "long", "ndim", "nelement", "new_full", "new_ones", "new_tensor",
    "new_zeros", "normal_", "bernoulli_", "exponential_", "random_", "bernoulli",
    "multinomial", "numel", "output_nr", "register_hook", "repeat", "requires_grad",
    "requires_grad_", "retain_grad", "retains_grad", "shape", "size", "to", "tolist", "type_as",
    "uniform_", "view", "view_as", "zero_", "is_inference", "register_post_accumulate_grad_hook",
))
NODE_ATTRS = frozenset(("name", "next_functions", "variable", "register_hook",
                        "register_prehook"))
# what forward and backward use on ctx, besides the attributes the program stores on it
CTX_ATTRS = NODE_ATTRS | frozenset(("save_for_backward", "saved_tensors", "needs_input_grad",
                                    "mark_non_differentiable", "set_materialize_grads",
                                    "mark_dirty"))
MODULE_METHODS = frozenset((
    "parameters", "named_parameters", "children", "named_children", "modules",
    "named_modules", "zero_grad", "train", "eval", "forward", "requires_grad_", "training",
    "float", "double", "to", "apply", "cpu", "cuda", "append", "extend", "insert",
    "state_dict", "load_state_dict", "buffers", "named_buffers", "register_buffer",
    "register_parameter", "add_module", "register_module", "get_submodule", "extra_repr",
    "register_forward_hook", "register_forward_pre_hook",
    "keys", "items", "values", "pop", "clear", "update",  # an nn.ModuleDict's
))
OPTIMIZER_ATTRS = frozenset(("step", "zero_grad", "param_groups", "defaults", "state",
                             "state_dict", "load_state_dict", "add_param_group"))
# what a program reads on torch.utils.data's objects (a loader's settings, a dataset's parts)
DATA_ATTRS = frozenset(("dataset", "batch_size", "drop_last", "shuffle", "num_workers",
                        "generator", "tensors", "indices"))
# what a learner reads on a learning-rate schedule: its methods, its position, the optimizer it
# drives and each schedule's own settings (read only: torch's way to change a schedule is a new
# one or load_state_dict). Not lr_lambdas: they are the program's own functions, given back.
SCHEDULER_ATTRS = frozenset((
    "step", "get_last_lr", "get_lr", "state_dict", "load_state_dict", "optimizer",
    "last_epoch", "base_lrs",
    "step_size", "gamma", "T_max", "eta_min",  # StepLR, ExponentialLR, CosineAnnealingLR
    "milestones", "start_factor", "end_factor", "total_iters",  # MultiStepLR, LinearLR, ...
    "mode", "factor", "patience", "threshold", "threshold_mode", "cooldown", "min_lrs", "eps",
    "best", "num_bad_epochs", "cooldown_counter", "in_cooldown", "is_better",  # ReduceLROnPlateau
))
SETTABLE_ATTRS = frozenset(("grad", "requires_grad", "data"))
# the one underscore name a program may read (never assign), and only on a tensor: the in-place
# lessons show the version counter that backward checks
TENSOR_PRIVATE_READABLE = "_version"
# on a grad_fn, what it saved for backward is read as torch exposes it: `_saved_self`, ...
NODE_SAVED_PREFIX = "_saved_"


def _public_subclasses(module, base) -> set:
    return {n for n, v in vars(module).items()
            if isinstance(v, type) and issubclass(v, base) and not n.startswith("_")
            and v is not base}


def _own_functions(module) -> set:
    """The public functions a module defines itself (not the ones it imports to use)."""
    return {n for n, v in vars(module).items()
            if not n.startswith("_") and isinstance(v, types.FunctionType)
            and v.__module__ == module.__name__}


def _engine_functions(module) -> set:
    return {n for n, v in vars(module).items()
            if not n.startswith("_") and isinstance(v, types.FunctionType)
            and (v.__module__ or "").startswith(engine.__name__)}


# methods of Python's own values a program may call, by type. Methods that grow a value by an
# amount the program chooses (ljust, center, zfill, replace, join, ...) are checked before they
# run by the interpreter (see Run.guard_method); everything else is bounded by its receiver.
PYTHON_METHODS = {
    str: frozenset((
        "capitalize", "center", "count", "endswith", "find", "format", "index", "isalnum",
        "isalpha", "isdigit", "islower", "isnumeric", "isspace", "isupper", "join", "ljust",
        "lower", "lstrip", "partition", "removeprefix", "removesuffix", "replace", "rfind",
        "rjust", "rpartition", "rsplit", "rstrip", "split", "splitlines", "startswith", "strip",
        "swapcase", "title", "upper", "zfill",
    )),
    list: frozenset(("append", "clear", "copy", "count", "extend", "index", "insert", "pop",
                     "remove", "reverse", "sort")),
    tuple: frozenset(("count", "index")),
    dict: frozenset(("clear", "copy", "get", "items", "keys", "pop", "popitem", "setdefault",
                     "update", "values")),
    set: frozenset(("add", "clear", "copy", "difference", "discard", "intersection",
                    "isdisjoint", "issubset", "issuperset", "pop", "remove", "symmetric_difference",
                    "union", "update")),
    collections.deque: frozenset(("append", "appendleft", "clear", "copy", "count", "extend",
                                  "extendleft", "index", "insert", "maxlen", "pop", "popleft",
                                  "remove", "reverse", "rotate")),
    int: frozenset(("bit_length", "real", "imag")),
    float: frozenset(("is_integer", "real", "imag", "hex")),
}
PYTHON_METHODS[collections.Counter] = PYTHON_METHODS[dict] | frozenset((
    "elements", "most_common", "subtract", "total"))
# the methods above that change their receiver (its size is checked after the call)
GROWING_METHODS = frozenset(("append", "extend", "insert", "update", "add", "setdefault",
                             "appendleft", "extendleft"))
# Python's containers a program may make: counted item by item when they nest
CONTAINER_TYPES = (list, tuple, dict, set, frozenset, collections.deque)

# Python modules a program may import: the module object (None: made per run, see
# RandomModule in expressions.py) and the names it offers
PYTHON_MODULES = {"math": math, "random": None, "collections": collections, "typing": typing}

# the exception types a program may name, raise and catch (Python's names, as torch raises them)
EXCEPTIONS = {e.__name__: e for e in (
    Exception, ArithmeticError, AssertionError, AttributeError, IndexError, KeyError,
    LookupError, NameError, NotImplementedError, OverflowError, RuntimeError, StopIteration,
    TypeError, ValueError, ZeroDivisionError, UnboundLocalError,
)}
EXCEPTION_ATTRS = frozenset(("args",))

# `import math`: functions of Python numbers and constants; the ones whose cost grows with an
# argument (factorial, comb, perm) are wrapped by the interpreter's guards
MATH_NAMES = frozenset((
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "comb", "copysign",
    "cos", "cosh", "degrees", "e", "erf", "erfc", "exp", "expm1", "fabs", "factorial", "floor",
    "fmod", "fsum", "gamma", "gcd", "hypot", "inf", "isclose", "isfinite", "isinf", "isnan",
    "lgamma", "log", "log10", "log1p", "log2", "nan", "perm", "pi", "pow", "prod", "radians",
    "sin", "sinh", "sqrt", "tan", "tanh", "tau", "trunc",
))
# `import random`: the methods of the run's own random.Random (seeded per run)
RANDOM_NAMES = frozenset(("seed", "random", "uniform", "randint", "randrange", "choice",
                          "choices", "shuffle", "sample", "gauss", "normalvariate"))
COLLECTIONS_NAMES = frozenset(("OrderedDict", "defaultdict", "Counter", "deque"))
# `from typing import ...` for type hints: annotations are checked, never evaluated, so these
# names only need to exist (as values they are typing's own objects, with no attribute readable)
TYPING_NAMES = frozenset((
    "Any", "Callable", "Dict", "FrozenSet", "Generator", "Iterable", "Iterator", "List",
    "Literal", "Mapping", "Optional", "Sequence", "Set", "Tuple", "Type", "Union",
))


class Policy:
    """Namespaces with their allowed names, the classes and functions they expose, and the
    attribute allowlists of the engine's objects."""

    def __init__(self):
        self.modules: dict = {}  # import path -> module object
        self.allowed: dict = {}  # id(module) -> frozenset of names
        self._add("torch", engine, set(_TORCH_NAMES) | set(engine.ops.FUNCTIONS))
        self._add("torch.autograd", engine.autograd, _AUTOGRAD_NAMES)
        self._add("torch.autograd.functional", engine.autograd.functional,
                  _own_functions(engine.autograd.functional))
        self._add("torch.linalg", engine.linalg, engine.linalg.__all__)
        self._add("torch.func", engine.func, engine.func.__all__)
        self._add("torch.autograd.graph", engine.autograd.graph,
                  ("saved_tensors_hooks", "save_on_cpu"))
        self._add("torch.autograd.function", custom_function, _AUTOGRAD_FUNCTION_NAMES)
        self._add("torch.cuda", engine.cuda, _own_functions(engine.cuda))
        self._add("torch.nn", nn, {"functional", "init", "utils", "Parameter", "Module"}
                  | _public_subclasses(nn, nn.Module))
        self._add("torch.nn.functional", nn.functional, _engine_functions(nn.functional))
        self._add("torch.nn.init", nn.init, _engine_functions(nn.init))
        self._add("torch.nn.utils", nn.utils, _own_functions(nn.utils))
        self._add("torch.optim", optim, {"lr_scheduler", "Optimizer"}
                  | _public_subclasses(optim, optim.Optimizer))
        self._add("torch.optim.lr_scheduler", lr_scheduler,
                  _public_subclasses(lr_scheduler, lr_scheduler.LRScheduler))
        self._add("torch.utils", engine.utils, {"data"})
        self._add("torch.utils.data", data, {"Dataset", "TensorDataset", "Subset", "DataLoader",
                                             "random_split", "default_collate"})
        self._add_python("math", math, MATH_NAMES)
        self._add_python("collections", collections, COLLECTIONS_NAMES)
        self._add_python("typing", typing, TYPING_NAMES)
        # every callable a program can reach through a namespace
        self.callables: set = set()
        self.classes: set = set()
        for mod in self.modules.values():
            for name in self.allowed[id(mod)]:
                value = getattr(mod, name, None)
                if isinstance(value, type):
                    self.classes.add(value)
                elif callable(value) and not isinstance(value, types.ModuleType):
                    self.callables.add(id(value))
        self.layer_classes = {c for c in self.classes if issubclass(c, nn.Module)}
        # A Function is for subclassing: its own forward/backward raise, and a ctx is made by
        # apply. (torch.Tensor(...) is the legacy constructor, engine/legacy.py.)
        self.classes.discard(UserFunctionBase)
        self.classes.discard(custom_function.FunctionCtx)

    def _add(self, path: str, module, names) -> None:  # a torch namespace
        self.modules[path] = module
        self.allowed[id(module)] = frozenset(n for n in names if hasattr(module, n))

    def _add_python(self, path: str, module, names) -> None:
        self.modules[path] = module
        self.allowed[id(module)] = frozenset(n for n in names if hasattr(module, n))

    def namespace_path(self, module) -> str:
        for path, mod in self.modules.items():
            if mod is module:
                return path
        return "module"

    # -- attribute allowlists by kind of object --------------------------------------------------
    def attr_allowed(self, obj, name: str) -> bool:
        if isinstance(obj, types.ModuleType):
            return name in self.allowed.get(id(obj), ())
        if isinstance(obj, engine.Tensor):
            return (name in TENSOR_ATTRS or name in engine.ops.METHODS
                    or name == TENSOR_PRIVATE_READABLE)
        if isinstance(obj, Ctx):
            return name in CTX_ATTRS or (name in obj.__dict__ and not name.startswith("_"))
        if isinstance(obj, Node):
            return name in NODE_ATTRS or name.startswith(NODE_SAVED_PREFIX)
        if isinstance(obj, tuple) and type(obj).__module__ == "torch.return_types":
            return name in obj._fields  # (values, indices) of max(dim), sort, topk, ...
        if isinstance(obj, HookHandle):
            return name == "remove"
        if isinstance(obj, Size):
            return name == "numel"
        if isinstance(obj, engine.device):
            return name in ("type", "index")
        if isinstance(obj, DType):
            return name in ("is_floating_point", "is_complex", "is_signed", "itemsize")
        if isinstance(obj, engine.Generator):
            return name in ("manual_seed", "initial_seed", "seed", "get_state", "set_state",
                            "device")
        if isinstance(obj, nn.Module):
            return name in MODULE_METHODS or name in self.module_members(obj)
        if isinstance(obj, optim.Optimizer):
            return name in OPTIMIZER_ATTRS
        if isinstance(obj, lr_scheduler.LRScheduler):
            return name in SCHEDULER_ATTRS
        if isinstance(obj, (data.Dataset, data.DataLoader)):
            return name in DATA_ATTRS and hasattr(obj, name)
        return False

    @staticmethod
    def module_members(obj) -> set:
        """A layer's own public names: its submodules, parameters, buffers and settings."""
        d = getattr(obj, "__dict__", {})
        names = {n for n in d if not n.startswith("_")}
        for key in ("_modules", "_parameters", "_buffers"):
            sub = d.get(key)
            if isinstance(sub, dict):
                names |= {n for n in sub if isinstance(n, str) and not n.startswith("_")}
        return names

    def member_value_ok(self, value) -> bool:
        """A layer's member may be read if it is data (not, say, a function it stores)."""
        if value is None or type(value) in (bool, int, float, str):
            return True
        if isinstance(value, (engine.Tensor, DType, Size, nn.Module)):
            return True
        if type(value) in (tuple, list) and len(value) <= 64:
            return all(self.member_value_ok(v) for v in value)
        return False

    def subclassable(self, cls) -> bool:
        """An engine or Python class a program's class may derive from: object, the exception
        types, nn.Module and the layers, torch.autograd.Function, the optimizers (and their
        base) and Dataset. Their engine code runs on the program's object; what the program
        writes in the class body and assigns on it stays its own (statements.do_classdef)."""
        if cls is object or cls in EXCEPTIONS.values():
            return True
        if cls in (nn.Module, UserFunctionBase, optim.Optimizer, data.Dataset):
            return True
        return isinstance(cls, type) and cls in self.classes and (
            issubclass(cls, (nn.Module, optim.Optimizer)))

    def is_engine_object(self, obj) -> bool:
        return isinstance(obj, (engine.Tensor, Node, HookHandle, engine.Generator, Size, DType,
                                nn.Module, optim.Optimizer, lr_scheduler.LRScheduler,
                                data.Dataset, data.DataLoader, data.LoaderIterator))


@functools.cache
def shared_policy() -> Policy:
    """The process's one Policy. It only reads the engine's modules, which no program can change
    (a program may assign attributes of its own objects and of tensors, never of a module), so
    every run can share it; making one per run cost more than a small program's whole run."""
    return Policy()
