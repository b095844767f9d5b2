"""Hostile programs: sandbox escapes known against Python sandboxes, resource exhaustion, and
fuzzing. Every input must end in a clean ProgramError (or run) within its time cap, no other
exception may escape, and the process's memory must stay bounded."""

from __future__ import annotations

import ast
import json
import math
import re
import resource
import string
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground import Limits, ProgramError, ShareError, decode, encode, run
from playground.limits import default_limits

LIMITS = default_limits()  # what run() uses on this backend
# seconds on top of the run's own time cap: freeing what a stopped run built (a 9,000-node
# chain) took over 2 s at a load average of 10 on a 2-core machine
GRACE = 4.0

T = "import torch\n"
FN = (T + "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
      "        return x * 2\n")



def _D(name: str, body: str, params: str = "self") -> str:
    """A method of a class body (indented once) with body (lines without indentation)."""
    lines = "".join(f"        {line}\n" for line in body.split("\n"))
    return f"    def {name}({params}):\n{lines}"


_FOREVER = _D("__iter__", "return self") + _D("__next__", "return 1")

HOSTILE = [
    # (name, program, expected kind)
    ("subclasses_walk", "().__class__.__bases__[0].__subclasses__()", "not_allowed"),
    ("grad_fn_class", T + "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "c = y.grad_fn.__class__\nb = c.__bases__\n", "not_allowed"),
    ("grad_fn_class_call", T + "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "n = type(y.grad_fn)()\n", "not_allowed"),
    ("type_of_builtin_call", "f = type(print)('print', None)\n", "not_allowed"),
    ("dataset_huge_len_shuffle", T + "from torch.utils.data import DataLoader, Dataset, random_split\nclass D(Dataset):\n    def __len__(self):\n"
     "        return 10**9\n    def __getitem__(self, i):\n        return i\n"
     "for b in DataLoader(D(), shuffle=True):\n    pass\n", "limit"),
    ("dataset_getitem_recursion", T + "from torch.utils.data import DataLoader, Dataset, random_split\nclass D(Dataset):\n    def __len__(self):\n"
     "        return 4\n    def __getitem__(self, i):\n        return self[i]\n"
     "for b in DataLoader(D()):\n    pass\n", "limit"),
    ("dataset_negative_len", T + "from torch.utils.data import DataLoader, Dataset, random_split\nclass D(Dataset):\n    def __len__(self):\n"
     "        return -1\nn = len(DataLoader(D()))\n", "runtime"),
    ("loader_many_batches", T + "from torch.utils.data import DataLoader, Dataset, random_split\nfor b in DataLoader(range(10**7)):\n    pass\n", "limit"),
    ("loader_list_of_huge", T + "from torch.utils.data import DataLoader, Dataset, random_split\nx = list(DataLoader(range(10**8), shuffle=True))\n", "limit"),
    ("random_split_huge", T + "from torch.utils.data import DataLoader, Dataset, random_split\na, b = random_split(range(10**9), [10**9 - 1, 1])\n",
     "limit"),
    ("dataset_dunder_read", T + "from torch.utils.data import DataLoader, Dataset, random_split\nclass D(Dataset):\n    def __getitem__(self, i):\n"
     "        return i\nf = D.__getitem__\n", "not_allowed"),
    ("dataset_iter_def", T + "from torch.utils.data import DataLoader, Dataset, random_split\nclass D(Dataset):\n    def __iter__(self):\n"
     "        return 1\nfor x in D():\n    pass\n", "runtime"),
    ("loader_collate_escape", T + "from torch.utils.data import DataLoader, Dataset, random_split\nx = DataLoader([1, 2], collate_fn=print.fn)\n",
     "not_allowed"),
    ("version_of_tensor", T + "v = torch.ones(1).__version__\n", "not_allowed"),
    ("version_walk", T + "v = torch.__version__.__class__.__bases__\n", "not_allowed"),
    ("state_dict_private", T + "m = torch.nn.Linear(1, 1)\nd = m.state_dict()._metadata\n",
     "not_allowed"),
    ("forward_hook_recursion", T + "m = torch.nn.Linear(1, 1)\n"
     "h = m.register_forward_hook(lambda mod, a, out: mod(a[0]))\ny = m(torch.ones(1))\n",
     "limit"),
    ("forward_hook_many", T + "m = torch.nn.Linear(2, 2)\nx = torch.ones(2)\n"
     "for i in range(20000):\n    m.register_forward_hook(lambda mod, a, out: out * 2)\n"
     "y = m(x)\n", "limit"),
    ("getattr_private", T + "d = getattr(torch.ones(1), '_data')\n", "not_allowed"),
    ("getattr_dunder_dict", T + "d = getattr(torch, '__dict__')\n", "not_allowed"),
    ("getattr_module_internals", T + "b = getattr(torch, 'backend')\n", "not_allowed"),
    ("getattr_chain_class", T + "c = getattr(getattr(torch.ones(1), '__class__'), '__mro__')\n",
     "not_allowed"),
    ("hasattr_private", T + "h = hasattr(torch.ones(1), '_data')\n", "not_allowed"),
    ("setattr_torch", T + "setattr(torch, 'ones', print)\n", "not_allowed"),
    ("setattr_dunder", "class A:\n    pass\na = A()\nsetattr(a, '__class__', int)\n",
     "not_allowed"),
    ("setattr_module_private", T + "m = torch.nn.Linear(1, 1)\nsetattr(m, '_parameters', {})\n",
     "not_allowed"),
    ("delattr_engine", T + "delattr(torch.nn, 'Linear')\n", "not_allowed"),
    ("getattr_name_type", T + "v = getattr(torch, 5)\n", "runtime"),
    ("type_three_args", "C = type('C', (), {})\n", "runtime"),
    ("type_attribute", "m = type(1).mro\n", None),
    ("type_of_function_attr", "def f():\n    pass\nc = type(f).code\n", None),
    ("class_of_class_dict", T + "d = torch.ones(1).__class__.__dict__\n", "not_allowed"),
    ("name_assign", "def f():\n    pass\nf.__name__ = 'g'\n", "not_allowed"),
    ("name_of_name", "def f():\n    pass\nn = f.__name__.__class__.__mro__\n", "not_allowed"),
    ("format_field_name", "def f():\n    pass\ns = '{0.__name__.__class__.__base__}'.format(f)\n",
     "not_allowed"),
    ("dunder_import", "__import__('os').system('true')", "not_allowed"),
    ("getattr_builtin", "getattr(print, '__self__')", "not_allowed"),
    ("module_dict", T + "d = torch.__dict__\n", "not_allowed"),
    ("print_self", "p = print.__self__\n", "not_allowed"),
    ("format_string_walk", "s = '{0.__class__.__mro__}'.format(1)\n", "not_allowed"),
    ("percent_format_width", "s = '%1000000000d' % 1\n", "limit"),
    ("percent_format_star", "s = '%*d' % (1000000000, 1)\n", "limit"),
    ("format_width_bomb", "s = format(1, '1000000000d')\n", "limit"),
    ("backend_numpy", T + "np = torch.backend.numpy_backend.np\n", "not_allowed"),
    ("engine_internals", T + "e = torch.autograd.engine\n", "not_allowed"),
    ("observer_module", T + "o = torch.observer\n", "not_allowed"),
    ("function_globals", T + "g = torch.autograd.grad.__globals__\n", "not_allowed"),
    ("function_code", T + "c = torch.ones.__code__\n", "not_allowed"),
    ("private_attr", T + "x = torch.ones(1)\nd = x._data\n", "not_allowed"),
    ("numpy_escape", T + "x = torch.ones(1)\na = x.numpy()\n", "not_allowed"),
    ("tensor_class_call_huge", T + "c = torch.Tensor\nx = c(10**9)\n", "limit"),
    ("legacy_type_huge", T + "x = torch.FloatTensor(100000, 100000)\n", "limit"),
    ("legacy_type_attr", T + "d = torch.FloatTensor.dtype\n", "not_allowed"),
    ("device_setattr", T + "d = torch.device('cpu')\nd.type = 'cuda'\n", "not_allowed"),
    ("cuda_internals", T + "n = torch.cuda.NO_CUDA\n", "not_allowed"),
    ("class_attribute_read", T + "m = torch.no_grad.clone\n", "not_allowed"),
    ("bound_method_self", T + "x = torch.ones(1)\nf = x.add\ng = f.__func__\n", "not_allowed"),
    ("method_attribute", T + "x = torch.ones(1)\nf = x.add\ng = f.x\n", "runtime"),
    ("builtin_wrapper_attr", "f = print.fn\n", "not_allowed"),
    ("import_os", "import os\n", "not_allowed"),
    ("import_as_torch", "import os as torch\n", "not_allowed"),
    ("from_import_private", "from torch import backend\n", "not_allowed"),
    ("from_engine", "from engine import backend\n", "not_allowed"),
    ("open_file", "f = open('/etc/passwd')\n", "not_allowed"),
    ("eval_name", "eval('1')\n", "not_allowed"),
    ("exec_name", "exec('1')\n", "not_allowed"),
    ("vars_name", "v = vars()\n", "not_allowed"),
    ("breakpoint", "breakpoint()\n", "not_allowed"),
    ("walrus_names_an_unknown", "print(a := b)\n", "not_allowed"),
    ("lambda_hook_dunder", T + "x = torch.ones(1, requires_grad=True)\n"
     "x.register_hook(lambda g: g.__class__.__dict__)\n", "not_allowed"),
    ("decorator", "@print\nclass A:\n    pass\n", "not_allowed"),
    ("async_def", "async def f():\n    await g()\n", "not_allowed"),
    ("yield_stmt", "yield 1\n", "syntax"),
    ("module_apply", T + "import torch.nn as nn\nm = nn.Linear(1, 1)\n"
     "m.apply(torch.no_grad())\n", "not_allowed"),
    ("module_call_internals", T + "import torch.nn as nn\nm = nn.Linear(1, 1)\nf = m.forward.x\n",
     "runtime"),
    ("list_methods", "a = [1]\na.append(a)\nprint(a)\n", "limit"),
    ("dict_mutation", T + "import torch.nn as nn\nimport torch.optim as optim\n"
     "o = optim.SGD(nn.Linear(1, 1).parameters(), lr=0.1)\no.param_groups[0].clear()\n"
     "o.step()\n", "runtime"),
    ("no_grad_decorator", T + "f = torch.no_grad()(print)\n", "not_allowed"),
    # the grown language: every route to a dunder, an engine internal or a class stays shut
    ("format_field_class", "s = '{0.__class__.__bases__}'.format(1)\n", "not_allowed"),
    ("format_field_private", T + "s = '{0._data}'.format(torch.ones(1))\n", "not_allowed"),
    ("format_field_function_globals", "def f():\n    pass\ns = '{0.__globals__}'.format(f)\n",
     "not_allowed"),
    ("format_field_nested_spec", "s = '{0:{1.__class__.__base__}}'.format(1, 2)\n", "not_allowed"),
    ("format_field_keyword", "s = '{a.__doc__}'.format(a=1)\n", "not_allowed"),
    ("fstring_dunder", "def f():\n    pass\ns = f'{f.__code__}'\n", "not_allowed"),
    ("fstring_spec_dunder", "s = f'{1:{print.__self__}}'\n", "not_allowed"),
    ("exception_traceback", "try:\n    x = 1 / 0\nexcept Exception as e:\n"
     "    t = e.__traceback__\n", "not_allowed"),
    ("exception_with_traceback", "try:\n    x = 1 / 0\nexcept Exception as e:\n"
     "    t = e.with_traceback\n", "not_allowed"),
    ("exception_context", "try:\n    x = 1 / 0\nexcept Exception as e:\n"
     "    t = e.__context__\n", "not_allowed"),
    ("exception_attribute_set", "e = ValueError('a')\ne.args = ('b',)\n", "not_allowed"),
    ("exception_class_set", "ValueError.x = 1\n", "not_allowed"),
    ("super_getattribute", "class A:\n    def f(self):\n        return super().__getattribute__\n"
     "A().f()\n", "not_allowed"),
    ("super_class", "class A:\n    pass\nc = super(A, A()).__class__\n", "not_allowed"),
    ("super_private", T + "import torch.nn as nn\nclass M(nn.Module):\n    def f(self):\n"
     "        return super()._apply\nM().f()\n", "not_allowed"),
    ("class_body_dunder", "class A:\n    __slots__ = ()\n", "not_allowed"),
    ("class_dunder_method", "class A:\n    def __getattr__(self, n):\n        return 1\n",
     "not_allowed"),
    ("class_metaclass", "class A(metaclass=print):\n    pass\n", "not_allowed"),
    ("class_tensor_base", T + "class A(torch.Tensor):\n    pass\n", "not_allowed"),
    ("class_int_base", "class A(int):\n    pass\n", "not_allowed"),
    ("class_attribute_dunder", "class A:\n    x = print\ny = A.x.__self__\n", "not_allowed"),
    ("module_subclass_internals", T + "import torch.nn as nn\nclass M(nn.Module):\n"
     "    def __init__(self):\n        super().__init__()\n        self._modules = {}\nM()\n",
     "not_allowed"),
    ("module_subclass_read_internals", T + "import torch.nn as nn\nclass M(nn.Module):\n"
     "    pass\nd = M()._parameters\n", "not_allowed"),
    ("assign_onto_torch", T + "torch.zeros = print\n", "not_allowed"),
    ("assign_onto_functional", T + "import torch.nn.functional as F\nF.relu = print\n",
     "not_allowed"),
    ("assign_onto_engine_class", T + "import torch.nn as nn\nnn.Module.forward = print\n",
     "not_allowed"),
    ("assign_onto_layer_class", T + "import torch.nn as nn\nnn.Linear.extra = 1\n",
     "not_allowed"),
    ("delete_from_torch", T + "del torch.zeros\n", "not_allowed"),
    ("delete_grad_fn", T + "x = torch.ones(1)\ndel x.grad_fn\n", "not_allowed"),
    ("decorator_engine_function", T + "@torch.ones\ndef f():\n    pass\n", "not_allowed"),
    ("decorator_not_callable", T + "@torch.no_grad\ndef f():\n    pass\n", "runtime"),
    ("default_dunder", "def f(x=print.__self__):\n    pass\n", "not_allowed"),
    ("lambda_default_dunder", "f = lambda x=print: x.__self__\nf()\n", "not_allowed"),
    ("closure_cells", "def f():\n    x = 1\n    def g():\n        return x\n    return g\n"
     "c = f().__closure__\n", "not_allowed"),
    ("function_attribute", "def f():\n    pass\nc = f.node\n", "not_allowed"),
    ("function_run", "def f():\n    pass\nr = f.run\n", "not_allowed"),
    ("generator_frame", "g = (i for i in [1])\nf = g.gi_frame\n", "runtime"),
    ("engine_generator_frame", T + "import torch.nn as nn\np = nn.Linear(1, 1).parameters()\n"
     "f = p.gi_frame\n", "not_allowed"),
    ("map_object_attr", "m = map(abs, [1])\nf = m.x\n", "runtime"),
    # torch.autograd.Function subclasses and their ctx
    ("fn_ctx_dunder_read", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return ctx.__dict__\nx = torch.ones(1, requires_grad=True)\n"
     "F.apply(x).sum().backward()\n", "not_allowed"),
    ("fn_ctx_private_write", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        ctx._saved = ()\n        return g\nx = torch.ones(1, requires_grad=True)\n"
     "F.apply(x).sum().backward()\n", "not_allowed"),
    ("fn_ctx_private_read", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return ctx._forward_cls\nx = torch.ones(1, requires_grad=True)\n"
     "F.apply(x).sum().backward()\n", "not_allowed"),
    ("fn_ctx_overwrite_method", T + "class F(torch.autograd.Function):\n    @staticmethod\n"
     "    def forward(ctx, x):\n        ctx.save_for_backward = print\n        return x\n"
     "F.apply(torch.ones(1, requires_grad=True))\n", "not_allowed"),
    ("fn_grad_fn_backward_class", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return g\ny = F.apply(torch.ones(1, requires_grad=True))\n"
     "c = y.grad_fn._forward_cls\n", "not_allowed"),
    ("fn_backward_cls_attr", FN + "c = F._backward_cls\n", "runtime"),
    ("fn_backward_returns_function", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return print\nF.apply(torch.ones(1, requires_grad=True)).sum().backward()\n",
     "runtime"),
    ("fn_backward_returns_string", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return 'grad'\nF.apply(torch.ones(1, requires_grad=True)).sum().backward()\n",
     "runtime"),
    ("fn_backward_returns_many", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return tuple([g] * 100000)\n"
     "F.apply(torch.ones(1, requires_grad=True)).sum().backward()\n", "runtime"),
    ("fn_backward_recursion", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return F.apply(g).sum().backward()\n"
     "with torch.enable_grad():\n"
     "    F.apply(torch.ones(1, requires_grad=True)).sum().backward(create_graph=True)\n",
     None),
    ("fn_backward_self_recursion", T + "def deep(n):\n    return deep(n + 1)\n"
     "class F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x):\n"
     "        return x * 2\n    @staticmethod\n    def backward(ctx, g):\n"
     "        return deep(0)\nF.apply(torch.ones(1, requires_grad=True)).sum().backward()\n",
     "limit"),
    ("fn_backward_endless_loop", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        while True:\n            g = g + 1\n"
     "F.apply(torch.ones(1, requires_grad=True)).sum().backward()\n", "limit"),
    ("fn_backward_huge_tensor", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return torch.ones(10**9)\n"
     "F.apply(torch.ones(1, requires_grad=True)).sum().backward()\n", "limit"),
    ("fn_backward_many_tensors", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        keep = [torch.ones(1000, 1000) for i in range(50)]\n        return g\n"
     "F.apply(torch.ones(1, requires_grad=True)).sum().backward()\n", "limit"),
    ("fn_metaclass", T + "class F(torch.autograd.Function, metaclass=type):\n    pass\n",
     "not_allowed"),
    ("fn_init_subclass", T + "class F(torch.autograd.Function):\n"
     "    def __init_subclass__(cls):\n        pass\n", "not_allowed"),
    ("fn_class_getitem", T + "class F(torch.autograd.Function):\n"
     "    def __class_getitem__(cls, k):\n        pass\n", "not_allowed"),
    ("fn_base_forward_call", T + "f = torch.autograd.Function.forward\n", "not_allowed"),
    ("fn_base_instantiate", T + "f = torch.autograd.Function()\n", "not_allowed"),
    ("fn_base_apply", T + "y = torch.autograd.Function.apply(torch.ones(1))\n", "not_allowed"),
    ("fn_base_apply_rebind", T + "torch.autograd.Function.apply = print\n", "not_allowed"),
    ("fn_base_forward_rebind", T + "torch.autograd.Function.forward = print\n",
     "not_allowed"),
    ("fn_once_attr", T + "from torch.autograd.function import once_differentiable\n"
     "def b(ctx, g):\n    return g\nw = once_differentiable(b).wrapped\n", "not_allowed"),
    ("fn_once_engine_fn", T + "from torch.autograd.function import once_differentiable\n"
     "w = once_differentiable(print)\nw(1)\n", "not_allowed"),
    ("fn_function_module_internals", T + "a = torch.autograd.function.apply\n",
     "not_allowed"),
    ("fn_ctx_store_engine_fn", FN + "    @staticmethod\n    def backward(ctx, g):\n"
     "        return g\ny = F.apply(torch.ones(1, requires_grad=True))\n"
     "y.grad_fn.hook = torch.ones\nh = y.grad_fn.hook.__self__\n", "not_allowed"),
    ("global_builtins", "def f():\n    global __builtins__\n", "not_allowed"),
    ("kwargs_dunder", "def f(**kw):\n    pass\nf(**{'__class__': 1})\n", "not_allowed"),
    ("raise_non_exception", "raise print\n", "runtime"),
    ("raise_system_exit", "raise SystemExit\n", "not_allowed"),
    ("catch_base_exception", "try:\n    pass\nexcept BaseException:\n    pass\n",
     "not_allowed"),
    ("map_uncallable", T + "m = list(map(torch.no_grad(), [1]))\n", "not_allowed"),
    ("sorted_key_uncallable", T + "s = sorted([2, 1], key=torch.no_grad())\n", "not_allowed"),
    ("hook_uncallable", T + "x = torch.ones(1, requires_grad=True)\n"
     "x.register_hook(torch.no_grad())\n", "not_allowed"),
    ("isinstance_not_a_type", "b = isinstance(1, print)\n", "runtime"),
    ("next_on_a_list", "n = next([1])\n", "runtime"),
    ("str_method_private", "s = 'a'._x\n", "not_allowed"),
    ("str_encode", "b = 'a'.encode()\n", "not_allowed"),
    ("random_internals", "import random\nr = random._rng\n", "not_allowed"),
    ("random_getstate", "import random\ns = random.getstate()\n", "runtime"),
    ("math_module_private", "import math\nd = math.__dict__\n", "not_allowed"),
    ("collections_other", "from collections import ChainMap\n", "not_allowed"),
    # the grown language: limits hold inside every new construct
    ("recursion", "def f(n):\n    return f(n + 1)\nf(0)\n", "limit"),
    ("mutual_recursion", "def f(n):\n    return g(n)\ndef g(n):\n    return f(n)\nf(0)\n",
     "limit"),
    ("recursive_init", "class A:\n    def __init__(self):\n        A()\nA()\n", "limit"),
    ("recursive_lambda", "f = lambda n: f(n)\nf(1)\n", "limit"),
    ("while_true", "while True:\n    pass\n", "limit"),
    ("while_true_work", "while True:\n    x = [1] * 1000\n", "limit"),
    ("while_in_function", "def f():\n    while True:\n        pass\nf()\n", "limit"),
    ("catch_the_limit", "try:\n    while True:\n        pass\nexcept Exception:\n"
     "    print('caught')\n", "limit"),
    ("catch_the_element_limit", T + "try:\n    x = torch.ones(10**9)\nexcept Exception:\n"
     "    print('caught')\n", "limit"),
    ("finally_after_limit", "try:\n    while True:\n        pass\nfinally:\n"
     "    while True:\n        pass\n", "limit"),
    ("comprehension_bomb", "a = [i for i in range(10**6)]\n", "limit"),
    ("nested_comprehension", "a = [[j for j in range(1000)] for i in range(1000)]\n", "limit"),
    ("generator_sum", "s = sum(i for i in range(10**7))\n", "limit"),
    ("sorted_huge", "s = sorted(range(10**7))\n", "limit"),
    ("range_loop_computed", "n = 10**6\nfor i in range(n):\n    pass\n", "limit"),
    ("list_extend_doubling", "a = [1]\nfor i in range(64):\n    a.extend(a)\n", "limit"),
    ("set_update_growth", "s = set()\nfor i in range(100):\n    s.update(range(i * 5000, "
     "(i + 1) * 5000))\n", "limit"),
    ("dict_growth", "d = {}\nfor i in range(10**6):\n    d[i] = i\n", "limit"),
    ("str_join_bomb", "s = ('a' * 10000).join(['b'] * 10000)\n", "limit"),
    ("str_replace_bomb", "s = 'a' * 10000\nt = s.replace('a', s)\n", "limit"),
    ("str_ljust_bomb", "s = 'a'.ljust(10**9)\n", "limit"),
    ("str_zfill_bomb", "s = 'a'.zfill(10**9)\n", "limit"),
    ("fstring_width_bomb", "s = f'{1:>1000000000}'\n", "limit"),
    ("format_nested_width_bomb", "s = '{:{w}}'.format(1, w=10**9)\n", "limit"),
    ("fstring_growth", "s = 'ab'\nfor i in range(100):\n    s = f'{s}{s}'\n", "limit"),
    ("shift_bomb", "x = 1 << 10**9\n", "limit"),
    ("pow_builtin_bomb", "x = pow(2, 10**10)\n", "limit"),
    ("factorial_bomb", "import math\nx = math.factorial(10**6)\n", "limit"),
    ("comb_bomb", "import math\nx = math.comb(10**6, 5 * 10**5)\n", "limit"),
    ("random_choices_bomb", "import random\nx = random.choices([1], k=10**9)\n", "limit"),
    ("random_sample_bomb", "import random\nx = random.sample(range(10**9), 10**8)\n", "limit"),
    ("iterate_huge_tensor", T + "for row in torch.ones(100000, 1):\n    pass\n", "limit"),
    ("hook_flood", T + "x = torch.ones(1, requires_grad=True)\n"
     "h = x.register_hook(lambda g: [0 for i in range(10**6)])\nx.sum().backward()\n",
     "limit"),
    ("hook_returns_text", T + "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "h = y.register_hook(lambda g: 'text')\ny.sum().backward()\n", "runtime"),
    ("module_apply_recursion", T + "import torch.nn as nn\nm = nn.Sequential(nn.Linear(1, 1))\n"
     "def f(mod):\n    m.apply(f)\nm.apply(f)\n", "limit"),
    ("print_recursive_dict", "d = {}\nd['d'] = d\nprint(d)\n", "limit"),
    ("star_unpack_bomb", "a, *b = range(10**8)\n", "limit"),
    ("star_call_bomb", "print(*range(10**8))\n", "limit"),
    # resources
    ("ones_1e9", T + "x = torch.ones(10**9)\n", "limit"),
    ("zeros_1e10", T + "x = torch.zeros(100000, 100000)\n", "limit"),
    ("zeros_tuple", T + "x = torch.zeros((100000, 100000))\n", "limit"),
    ("zeros_alias", T + "z = torch.zeros\nx = z(100000, 100000)\n", "limit"),
    ("full_big", T + "x = torch.full((100000, 100000), 1.0)\n", "limit"),
    ("randn_big", T + "x = torch.randn(10000, 10000)\n", "limit"),
    ("arange_big", T + "x = torch.arange(1e12)\n", "limit"),
    ("arange_inf", T + "x = torch.arange(0, float('inf'))\n", "limit"),
    ("linspace_big", T + "x = torch.linspace(0, 1, 10**9)\n", "limit"),
    ("eye_big", T + "x = torch.eye(100000)\n", "limit"),
    ("expand_big", T + "x = torch.ones(1, 1)\ny = x.expand(100000, 100000)\n", "limit"),
    ("broadcast_big", T + "a = torch.ones(1000, 1, 1)\nb = torch.ones(1, 1000, 1)\n"
     "c = torch.ones(1, 1, 1000)\nd = a * b * c\n", "limit"),
    ("matmul_work", T + "a = torch.ones(1000, 1000)\nb = a @ a\n", "limit"),
    ("matmul_outer", T + "a = torch.ones(100000, 1)\nb = a @ a.t()\n", "limit"),
    ("cat_many", T + "x = torch.ones(1000, 1000)\ny = torch.cat([x, x, x, x, x, x])\n", "limit"),
    ("tensor_of_tensors", T + "x = torch.ones(1000, 1000)\ny = torch.tensor([x, x, x, x, x, x])\n",
     "limit"),
    ("index_blowup", T + "x = torch.ones(1000, 1000)\ny = x[[0] * 10000]\n", "limit"),
    ("linear_huge", T + "import torch.nn as nn\nm = nn.Linear(100000, 100000)\n", "limit"),
    ("linear_work", T + "import torch.nn as nn\nm = nn.Linear(1000, 1000)\n"
     "y = m(torch.ones(1000, 1000))\n", "limit"),
    ("total_elements", T + "a = torch.ones(1000, 1000)\nb = a + 1\nc = a + 2\nd = a + 3\n"
     "e = a + 4\nf = a + 5\n", "limit"),
    ("graph_nodes", T + "x = torch.ones(1, requires_grad=True)\ny = x\nfor i in range(10000):\n"
     "    y = y + x\n    y = y * 1\n", "limit"),
    ("pow_tower", "x = 2**10**10\n", "limit"),
    ("pow_augassign", "x = 3\nx **= 10**6\n", "limit"),
    ("mul_bignum", "x = 10**300\ny = x * x * x * x\n", "limit"),
    ("string_bomb", "s = 'a' * 10**9\n", "limit"),
    ("string_doubling", "s = 'ab'\nfor i in range(100):\n    s = s + s\n", "limit"),
    ("list_bomb", "a = [0] * 10**9\n", "limit"),
    ("list_doubling", "a = [1]\nfor i in range(64):\n    a = a + a\n", "limit"),
    ("list_shared_nesting", "a = [1]\nfor i in range(64):\n    a = [a, a]\nprint(a)\n", "limit"),
    ("list_deep_nesting", "a = [1]\nfor i in range(5000):\n    a = [a]\nprint(a)\n", "limit"),
    ("round_bomb", "x = round(5, -10**9)\n", "runtime"),
    ("int_string", "x = int('9' * 5000)\n", "limit"),
    ("deep_parens", "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n", "limit"),
    ("deep_unary", "x = " + "-" * 5000 + "1\n", "limit"),
    ("deep_binop", "x = 1" + " + 1" * 4000 + "\n", "limit"),
    ("deep_lists", "x = " + "[" * 150 + "]" * 150 + "\n", "limit"),
    ("deep_calls", "x = " + "abs(" * 150 + "1" + ")" * 150 + "\n", "limit"),
    ("deep_attributes", "import torch\nx = torch" + ".nn" * 3000 + "\n", "limit"),
    ("long_loop", "for i in range(10**9):\n    pass\n", "limit"),
    ("nested_loops", "for i in range(10000):\n    for j in range(10000):\n        pass\n", "limit"),
    ("nested_loops_work", T + "x = torch.ones(10)\nfor i in range(10000):\n"
     "    for j in range(10000):\n        y = x * 2\n", "limit"),
    ("huge_program", "x = 1\n" * 10_000, "limit"),
    ("million_char_token", "x = " + "1" * 1_000_000 + "\n", "limit"),
    ("many_statements", "x = 1; " * 2000 + "\n", "limit"),
    ("print_flood", "for i in range(10000):\n    print('x' * 1000)\n", "limit"),
    ("print_file", "print(1, file=print)\n", "runtime"),
    ("hook_recursion", T + "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "h = y.register_hook(y.backward)\ny.backward(retain_graph=True)\n", None),
    # classes deriving from the engine's layers and optimizers: the engine's own state and
    # methods stay the engine's
    ("subclass_tensor", T + "class X(torch.Tensor):\n    pass\n", "not_allowed"),
    ("subclass_parameter", T + "class P(torch.nn.Parameter):\n    pass\n", "not_allowed"),
    ("subclass_loader", T + "class L(torch.utils.data.DataLoader):\n    pass\n", "not_allowed"),
    ("subclass_scheduler", T + "class S(torch.optim.lr_scheduler.StepLR):\n    pass\n",
     "not_allowed"),
    ("subclass_grad_mode", T + "class G(torch.no_grad):\n    pass\n", "not_allowed"),
    ("subclass_replaces_engine_method", T + "class L(torch.nn.Linear):\n"
     "    def _named_members(self, *a):\n        return []\n", "not_allowed"),
    ("subclass_replaces_engine_attr", T + "class S(torch.nn.Sequential):\n"
     "    _get_item_by_idx = print\n", "not_allowed"),
    ("subclass_of_subclass_replaces", T + "class A(torch.nn.ReLU):\n    pass\n"
     "class B(A):\n    def _load_from_state_dict(self, *a):\n        pass\n", "not_allowed"),
    ("subclass_assigns_engine_method", T + "class L(torch.nn.Linear):\n    pass\n"
     "L._call_with_hooks = print\n", "not_allowed"),
    ("optimizer_subclass_assigns_private", T + "class O(torch.optim.SGD):\n    pass\n"
     "p = torch.ones(1, requires_grad=True)\no = O([p], lr=0.1)\no._update_group = print\n",
     "not_allowed"),
    ("optimizer_subclass_replaces_private", T + "class O(torch.optim.Optimizer):\n"
     "    def _update_group(self, *a):\n        pass\n", "not_allowed"),
    ("optimizer_subclass_reads_private", T + "class O(torch.optim.Adam):\n    pass\n"
     "p = torch.ones(1, requires_grad=True)\no = O([p])\nx = o._update_group\n",
     "not_allowed"),
    ("subclass_engine_method_via_class", T + "class L(torch.nn.Linear):\n    pass\n"
     "f = L.forward\n", "not_allowed"),
    ("subclass_super_private", T + "class L(torch.nn.Linear):\n"
     "    def go(self):\n        return super()._get_name\n"
     "x = L(1, 1).go()\n", "not_allowed"),
    ("subclass_super_engine_class", T + "class L(torch.nn.Linear):\n    pass\n"
     "m = L(1, 1)\nd = super(torch.nn.Linear, m)._parameters\n", "not_allowed"),
    ("subclass_dunder_mro", T + "class L(torch.nn.Linear):\n    pass\nb = L.__mro__\n",
     "not_allowed"),
    ("subclass_engine_class_mutation", T + "class L(torch.nn.Linear):\n    pass\n"
     "torch.nn.Linear.forward = print\n", "not_allowed"),
    ("subclass_extra_repr_recursion", T + "class L(torch.nn.Linear):\n"
     "    def extra_repr(self):\n        return repr(self)\nprint(L(1, 1))\n", "limit"),
    ("subclass_forward_recursion", T + "class S(torch.nn.Sequential):\n"
     "    def forward(self, x):\n        return self(x)\ny = S()(torch.ones(1))\n", "limit"),
    ("optimizer_subclass_step_forever", T + "class O(torch.optim.Optimizer):\n"
     "    def step(self):\n        while True:\n            pass\n"
     "p = torch.ones(1, requires_grad=True)\nO([p], {}).step()\n", "limit"),
    ("subclass_huge_layer", T + "class L(torch.nn.Linear):\n    pass\nm = L(100000, 100000)\n",
     "limit"),
    ("subclass_super_init_huge", T + "class L(torch.nn.Linear):\n    def __init__(self):\n"
     "        super().__init__(100000, 100000)\nm = L()\n", "limit"),
    # generators: nothing of their frame is reachable, and every budget holds inside them
    ("generator_function_frame", "def g():\n    yield 1\n" "f = g().gi_frame\n", "not_allowed"),
    ("generator_code", "def g():\n    yield 1\n" "c = g().gi_code\n", "not_allowed"),
    ("generator_dunder_next", "def g():\n    yield 1\n" "n = g().__next__\n", "not_allowed"),
    ("generator_getattr_frame", "def g():\n    yield 1\n" "f = getattr(g(), 'gi_frame')\n", "not_allowed"),
    ("generator_format_field", "def g():\n    yield 1\n" "s = '{0.gi_frame}'.format(g())\n", "not_allowed"),
    ("generator_type_call", "def g():\n    yield 1\n" "t = type(g())()\n", "not_allowed"),
    ("yield_in_expression", "def g():\n    x = [(yield 1)]\n", "not_allowed"),
    ("yield_in_call", "def g():\n    print((yield 1))\n", "not_allowed"),
    ("yield_in_lambda", "f = lambda: (yield 1)\n", "not_allowed"),
    ("yield_at_module_level", "yield 1\n", "syntax"),
    ("yield_in_class_body", "def f():\n    class A:\n        yield 1\n", "syntax"),
    ("generator_endless_list", "def g():\n    while True:\n        yield 1\nx = list(g())\n",
     "limit"),
    ("generator_endless_for", "def g():\n    while True:\n        yield 1\n"
     "for v in g():\n    pass\n", "limit"),
    ("generator_endless_inner_loop", "def g():\n    while True:\n        if False:\n"
     "            yield 1\nnext(g())\n", "limit"),
    ("generator_statements", "def g():\n    for i in range(10**9):\n        x = i\n"
     "        yield x\nfor v in g():\n    pass\n", "limit"),
    ("generator_self_delegation", "def g():\n    yield from g()\nnext(g())\n", "limit"),
    ("generator_recursion_in_loop", "def g(n):\n    yield n\n    for v in g(n + 1):\n"
     "        yield v\nfor v in g(0):\n    pass\n", "limit"),
    ("generator_resumes_itself", "def g():\n    yield next(it)\nit = g()\nnext(it)\n",
     "runtime"),
    ("generator_yield_from_huge_range", "def g():\n    yield from range(10**12)\n"
     "x = sum(g())\n", "limit"),
    ("generator_zip_endless", "def g():\n    while True:\n        yield 1\n"
     "x = list(zip(g(), g()))\n", "limit"),
    ("generator_string_bomb", "def g():\n    s = 'a'\n    while True:\n        s = s + s\n"
     "        yield s\nfor v in g():\n    pass\n", "limit"),
    ("generator_tensor_flood", T + "def g():\n    while True:\n"
     "        yield torch.ones(1000, 1000)\nx = list(g())\n", "limit"),
    ("generator_hook_endless", T + "def g():\n    while True:\n        yield 1\n"
     "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "h = y.register_hook(lambda gr: sum(g()))\ny.backward()\n", "limit"),
    # send/throw/close: the generator's own methods show nothing of it; closing runs the
    # program's code under the run's budget, and only while the run goes on
    ("generator_send_attr", "def g():\n    yield 1\nf = g().send.fn\n", "not_allowed"),
    ("generator_close_self", "def g():\n    yield 1\nf = g().close.__self__\n",
     "not_allowed"),
    ("generator_close_format", "def g():\n    yield 1\ns = '{0.close.fn}'.format(g())\n",
     "not_allowed"),
    ("generator_gi_running", "def g():\n    yield 1\nr = g().gi_running\n", "not_allowed"),
    ("generator_throw_not_exception", "def g():\n    yield 1\nx = g()\nnext(x)\n"
     "x.throw(print)\n", "runtime"),
    ("generator_throw_engine_class", "import torch\ndef g():\n    yield 1\nx = g()\n"
     "next(x)\nx.throw(torch.nn.Linear)\n", "runtime"),
    ("generator_throw_traceback", "def g():\n    yield 1\nx = g()\nnext(x)\n"
     "x.throw(ValueError, 1, 2)\n", "runtime"),
    ("generator_send_into_itself", "def g():\n    x = yield 1\n    yield it.send(x)\n"
     "it = g()\nnext(it)\nit.send(1)\n", "runtime"),
    ("generator_close_inside_itself", "def g():\n    yield it.close()\nit = g()\nnext(it)\n",
     "runtime"),
    ("generator_finally_forever_on_break", "def g():\n    try:\n        yield 1\n"
     "    finally:\n        while True:\n            pass\nfor x in g():\n    break\n",
     "limit"),
    ("generator_finally_forever_at_end", "def g():\n    try:\n        yield 1\n"
     "    finally:\n        while True:\n            pass\nx = g()\nnext(x)\n", "limit"),
    ("generator_finally_forever_on_close", "def g():\n    try:\n        yield 1\n"
     "    finally:\n        while True:\n            pass\nx = g()\nnext(x)\nx.close()\n",
     "limit"),
    ("generator_finally_makes_more", "def g(n):\n    try:\n        yield n\n    finally:\n"
     "        h = g(n + 1)\n        next(h)\nx = g(0)\nnext(x)\nx = None\n", "limit"),
    ("generator_finally_ignores_exit_forever", "def g():\n    while True:\n        try:\n"
     "            yield 1\n        except:\n            pass\nx = g()\nnext(x)\nx.close()\n",
     "runtime"),
    ("generator_finally_memory", "import torch\ndef g():\n    try:\n        yield 1\n"
     "    finally:\n        a = [torch.ones(1000, 1000) for i in range(10)]\n"
     "for x in g():\n    break\n", "limit"),
    ("generator_finally_recursion", "def g():\n    try:\n        yield 1\n    finally:\n"
     "        for y in g():\n            break\nfor x in g():\n    break\n", "limit"),
    ("generator_dropped_in_hook", "import torch\ndef g():\n    try:\n        yield 1\n"
     "    finally:\n        while True:\n            pass\n"
     "x = torch.ones(1, requires_grad=True)\ny = x * 2\n"
     "h = y.register_hook(lambda gr: next(g()))\ny.backward()\n", "limit"),
    ("generator_yield_in_with_of_engine_object", "import torch\ndef g():\n"
     "    with torch.nn.Linear(1, 1):\n        yield 1\nnext(g())\n", "not_allowed"),
    ("generator_yield_assignment_dunder", "def g():\n    __x = yield 1\n", "not_allowed"),
    ("generator_yield_from_send_huge", "def g():\n    yield from range(10**9)\nx = g()\n"
     "next(x)\nwhile True:\n    x.send(None)\n", "limit"),
    # ctx.mark_dirty: the engine's record of dirty inputs stays the engine's
    ("ctx_dirty_private", T + "class D(torch.autograd.Function):\n    @staticmethod\n"
     "    def forward(ctx, x):\n        ctx._dirty = (x,)\n        return x\n"
     "y = D.apply(torch.ones(1, requires_grad=True))\n", "not_allowed"),
    ("ctx_mark_dirty_replaced", T + "class D(torch.autograd.Function):\n    @staticmethod\n"
     "    def forward(ctx, x):\n        ctx.mark_dirty = print\n        return x\n"
     "y = D.apply(torch.ones(1, requires_grad=True))\n", "not_allowed"),
    ("ctx_mark_dirty_many", T + "class D(torch.autograd.Function):\n    @staticmethod\n"
     "    def forward(ctx, x):\n        ctx.mark_dirty(*([x] * 90000))\n        return x\n"
     "    @staticmethod\n    def backward(ctx, g):\n        return g\n"
     "for i in range(10**6):\n    y = D.apply(torch.ones(1) * 1)\n", "limit"),
    ("ctx_mark_dirty_leaf_engine_param", T + "class D(torch.autograd.Function):\n"
     "    @staticmethod\n    def forward(ctx, x):\n        x.zero_()\n"
     "        ctx.mark_dirty(x)\n        return x\n    @staticmethod\n"
     "    def backward(ctx, g):\n        return g\n"
     "m = torch.nn.Linear(1, 1)\ny = D.apply(m.weight)\n", "runtime"),
    ("ctx_mark_dirty_view_of_param", T + "class D(torch.autograd.Function):\n"
     "    @staticmethod\n    def forward(ctx, x):\n        x.zero_()\n"
     "        ctx.mark_dirty(x)\n        return x\n    @staticmethod\n"
     "    def backward(ctx, g):\n        return g\n"
     "m = torch.nn.Linear(2, 2)\ny = D.apply(m.weight[0])\n", "runtime"),
    ("ctx_mark_dirty_view_chain_long", T + "class D(torch.autograd.Function):\n"
     "    @staticmethod\n    def forward(ctx, x):\n        x.add_(1)\n"
     "        ctx.mark_dirty(x)\n        return x\n    @staticmethod\n"
     "    def backward(ctx, g):\n        return g\n"
     "b = torch.ones(4, requires_grad=True) * 1\nv = b\n"
     "for i in range(9000):\n    v = D.apply(v[:])\nb.sum().backward()\n", "limit"),
    ("ctx_mark_dirty_view_backward_huge_grad", T + "class D(torch.autograd.Function):\n"
     "    @staticmethod\n    def forward(ctx, x):\n        x.add_(1)\n"
     "        ctx.mark_dirty(x)\n        return x\n    @staticmethod\n"
     "    def backward(ctx, g):\n        return torch.ones(1000, 1000, 10)\n"
     "b = torch.ones(4, requires_grad=True) * 1\ny = D.apply(b[:2])\nb.sum().backward()\n",
     "limit"),
    # the program's context managers: limits and policy errors are never handed to __exit__
    ("with_exit_swallows_limit", "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n        return True\n" "with S():\n    while True:\n        pass\n", "limit"),
    ("with_exit_swallows_not_allowed", T + "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n        return True\n" "with S():\n    y = torch.ones(1).numpy()\n",
     "not_allowed"),
    ("with_exit_swallows_memory", T + "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n        return True\n" "with S():\n    a = torch.ones(1000, 1000)\n"
     "    b = [a + i for i in range(10)]\n", "limit"),
    ("with_exit_traceback", "class S:\n    def __enter__(self):\n        pass\n"
     "    def __exit__(self, t, e, tb):\n        f = tb.tb_frame\nwith S():\n    x = 1 / 0\n",
     "runtime"),
    ("with_exit_type_walk", "class S:\n    def __enter__(self):\n        pass\n"
     "    def __exit__(self, t, e, tb):\n        f = t.mro()\nwith S():\n    x = 1 / 0\n",
     "not_allowed"),
    ("with_exit_exception_dunder", "class S:\n    def __enter__(self):\n        pass\n"
     "    def __exit__(self, t, e, tb):\n        f = e.__traceback__\nwith S():\n    x = 1 / 0\n",
     "not_allowed"),
    ("with_enter_recursion", "class S:\n    def __enter__(self):\n        with self:\n"
     "            pass\n    def __exit__(self, *a):\n        pass\nwith S():\n    pass\n",
     "limit"),
    ("with_exit_forever", "class S:\n    def __enter__(self):\n        pass\n"
     "    def __exit__(self, *a):\n        while True:\n            pass\nwith S():\n    pass\n",
     "limit"),
    ("with_enter_read", "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n        return True\n" "f = S.__enter__\n", "not_allowed"),
    ("with_engine_object", T + "with torch.nn.Linear(1, 1):\n    pass\n", "not_allowed"),
    ("with_builtin", "with print:\n    pass\n", "not_allowed"),
    ("with_module", T + "with torch:\n    pass\n", "not_allowed"),
    ("with_as_dunder_target", "class S:\n    def __enter__(self):\n        return self\n    def __exit__(self, t, e, tb):\n        return True\n" "with S() as __x:\n    pass\n", "not_allowed"),
    # the program's __repr__/__str__/__call__/__iter__/__next__: Python calls them from C (a
    # list's repr, unpacking, `in`), where only the run's limits can stop them
    *[(f"dunder_{name}", "class A:\n" + body, kind) for name, body, kind in (
        ("repr_forever", _D("__repr__", "while True:\n    pass") + "print(A())\n", "limit"),
        ("repr_recurses", _D("__repr__", "return repr(self)") + "s = repr(A())\n", "limit"),
        ("repr_recurses_in_list", _D("__repr__", "return str([self])") + "print([A()])\n",
         "limit"),
        ("str_recurses_in_fstring", _D("__str__", "return f'{self}'") + "s = f'{A()}'\n",
         "limit"),
        ("repr_raises", _D("__repr__", "raise ValueError('no')") + "print([A()])\n",
         "runtime"),
        ("repr_not_str", _D("__repr__", "return 1") + "s = repr(A())\n", "runtime"),
        ("str_not_str", _D("__str__", "return None") + "print(A())\n", "runtime"),
        ("repr_in_key_error", _D("__repr__", "while True:\n    pass") + "d = {}\nd[A()]\n",
         "limit"),
        ("repr_raises_in_key_error", _D("__repr__", "return 1 / 0") + "d = {}\nd[A()]\n",
         "runtime"),
        ("repr_huge_list", _D("__repr__", "return 'x' * 10000") + "s = repr([A()] * 100000)\n",
         "limit"),
        ("str_huge_print", _D("__str__", "return 'x' * 10000") + "for i in range(1000):\n"
         "    s = str(A())\n", "limit"),
        ("repr_huge_format", _D("__repr__", "return 'x' * 10000") + "s = '{}'.format([A()] * "
         "100000)\n", "limit"),
        ("iter_never_ends_for", _FOREVER + "for x in A():\n    pass\n", "limit"),
        ("iter_never_ends_list", _FOREVER + "x = list(A())\n", "limit"),
        ("iter_never_ends_in", _FOREVER + "print(2 in A())\n", "limit"),
        ("iter_never_ends_unpack", _FOREVER + "a, b = A()\n", "limit"),
        ("iter_never_ends_star", _FOREVER + "x = [*A()]\n", "limit"),
        ("iter_never_ends_join", _FOREVER + "x = ''.join(str(i) for i in A())\n", "limit"),
        ("iter_never_ends_sorted", _FOREVER + "x = sorted(A())\n", "limit"),
        ("iter_never_ends_zip", _FOREVER + "x = dict(zip(A(), A()))\n", "limit"),
        ("iter_never_ends_comprehension", _FOREVER + "x = {i for i in A()}\n", "limit"),
        ("iter_huge_range", _D("__iter__", "return iter(range(10**18))") + "x = max(A())\n",
         "limit"),
        ("iter_huge_range_in", _D("__iter__", "return iter(range(10**18))") + "x = -1 in A()\n",
         "limit"),
        ("iter_not_iterator", _D("__iter__", "return 1") + "x = list(A())\n", "runtime"),
        ("iter_generator_forever", _D("__iter__", "while True:\n    yield 1") + "x = all(A())\n",
         "limit"),
        ("next_raises_limit_in_list", _D("__iter__", "return self") + _D("__next__", "return "
         "'a' * 10**6") + "x = list(A())\n", "limit"),
        ("call_recurses", _D("__call__", "return self()") + "A()()\n", "limit"),
        ("call_forever_as_hook", _D("__call__", "while True:\n    pass", "self, g") + T +
         "x = torch.ones(1, requires_grad=True)\nh = x.register_hook(A())\n"
         "(x * 2).sum().backward()\n", "limit"),
        ("call_forever_in_apply", _D("__call__", "while True:\n    pass", "self, m") + T +
         "m = torch.nn.Linear(1, 1).apply(A())\n", "limit"),
        ("call_read", _D("__call__", "return 1") + "f = A().__call__\n", "not_allowed"),
        ("repr_read", _D("__repr__", "return 'a'") + "f = A.__repr__\n", "not_allowed"),
        ("str_format_field", _D("__str__", "return 'a'") + "s = '{0.__str__}'.format(A())\n",
         "not_allowed"),
        ("iter_getattr", _D("__iter__", "return self") + "f = getattr(A(), '__iter__')\n",
         "not_allowed"),
        ("repr_of_module_forever", _D("__repr__", "while True:\n    pass") + T +
         "class M(A, torch.nn.Module):\n    pass\nprint(torch.nn.Sequential(M()))\n", "limit"),
    )],
    # := binds names like an assignment, nothing more
    ("walrus_dunder", "y = (__builtins__ := 1)\n", "not_allowed"),
    ("walrus_in_comprehension_bomb", "s = 'ab'\nx = [(s := s + s) for i in range(100)]\n",
     "limit"),
    ("walrus_while_forever", "i = 0\nwhile (i := i + 1):\n    pass\n", "limit"),
    # a property's setter takes the program's own functions only, and shows nothing else
    ("property_setter_builtin", "p = property(lambda s: 1)\nq = p.setter(print)\n", "runtime"),
    ("property_fget", "p = property(lambda s: 1)\nf = p.fget\n", "not_allowed"),
    ("property_setter_engine_fn", "import torch\np = property(lambda s: 1)\n"
     "q = p.setter(torch.ones)\n", "runtime"),
    # match statements: a class pattern reads attributes as `subject.name` would (the policy),
    # capture names bind like assignments, __match_args__ is the interpreter's to read
    ("match_kwd_dunder", "match 1:\n    case int(__class__=c):\n        pass\n", "not_allowed"),
    ("match_capture_dunder", "match 1:\n    case __builtins__:\n        pass\n", "not_allowed"),
    ("match_rest_dunder", "match {}:\n    case {**__d}:\n        pass\n", "not_allowed"),
    ("match_star_dunder", "match []:\n    case [*__s]:\n        pass\n", "not_allowed"),
    ("match_as_dunder", "match 1:\n    case 1 as __x:\n        pass\n", "not_allowed"),
    ("match_value_dunder", "match 1:\n    case int.__dict__:\n        pass\n", "not_allowed"),
    ("match_class_dunder_path", "match 1:\n    case int.__base__():\n        pass\n",
     "not_allowed"),
    ("match_args_dunder_dict", "class C:\n    __match_args__ = ('__dict__',)\n"
     "match C():\n    case C(d):\n        print(d)\n", "not_allowed"),
    ("match_args_dunder_init", "class C:\n    __match_args__ = ('__init__',)\n"
     "match C():\n    case C(f):\n        print(f)\n", "not_allowed"),
    ("match_args_engine_private", T + "class L(torch.nn.Linear):\n"
     "    __match_args__ = ('_parameters',)\nmatch L(1, 1):\n    case L(p):\n        print(p)\n",
     "not_allowed"),
    ("match_args_read", "class C:\n    __match_args__ = ('x',)\nm = C.__match_args__\n",
     "not_allowed"),
    ("match_args_getattr", "class C:\n    __match_args__ = ('x',)\n"
     "m = getattr(C, '__match_args__')\n", "not_allowed"),
    ("match_args_format_field", "class C:\n    __match_args__ = ('x',)\n"
     "m = '{0.__match_args__}'.format(C)\n", "not_allowed"),
    ("match_args_setattr", "class C:\n    pass\nsetattr(C, '__match_args__', ('x',))\n",
     "not_allowed"),
    ("match_args_assigned_later", "class C:\n    pass\nC.__match_args__ = ('x',)\n",
     "not_allowed"),
    ("match_args_at_module_level", "__match_args__ = ('x',)\n", "not_allowed"),
    ("match_args_in_a_method", "class C:\n    def f(self):\n        __match_args__ = 1\n",
     "not_allowed"),
    ("match_args_on_engine_class", T + "torch.nn.Linear.__match_args__ = ('weight',)\n",
     "not_allowed"),
    ("match_engine_private_kwd", T + "match torch.nn.Linear(1, 1):\n"
     "    case torch.nn.Linear(_parameters=p):\n        print(p)\n", "not_allowed"),
    ("match_tensor_numpy", T + "match torch.ones(1):\n    case torch.Tensor(numpy=f):\n"
     "        f()\n", "not_allowed"),
    ("match_tensor_private", T + "match torch.ones(1):\n    case torch.Tensor(_data=d):\n"
     "        print(d)\n", "not_allowed"),
    ("match_function_closure", "def f():\n    pass\nmatch f:\n    case object(closure=c):\n"
     "        print(c)\n", "not_allowed"),
    ("match_function_run", "def f():\n    pass\nmatch f:\n    case object(run=r):\n"
     "        print(r)\n", "not_allowed"),
    ("match_builtin_wrapper", "match print:\n    case object(fn=f):\n        f('x')\n",
     "not_allowed"),
    ("match_generator_frame", "def g():\n    yield 1\nmatch g():\n"
     "    case object(gi_frame=f):\n        print(f)\n", "not_allowed"),
    ("match_exception_traceback", "try:\n    1 / 0\nexcept Exception as e:\n    match e:\n"
     "        case ZeroDivisionError(with_traceback=t):\n            print(t)\n",
     "not_allowed"),
    ("match_super_proxy", "class A:\n    def f(self):\n        match super():\n"
     "            case object(obj=o):\n                return o\nA().f()\n", "not_allowed"),
    ("match_class_pattern_type", "match 1:\n    case type():\n        pass\n", "not_allowed"),
    ("match_class_pattern_function_type", "def f():\n    pass\nF = type(f)\nmatch f:\n"
     "    case F():\n        pass\n", "not_allowed"),
    ("match_class_pattern_not_a_class", "match 1:\n    case print():\n        pass\n",
     "runtime"),
    ("match_sequence_unpacks_huge_range", "match range(10**12):\n    case [*rest]:\n"
     "        pass\n", "limit"),
    ("match_sequence_middle_of_huge_range", "match range(10**12):\n    case [a, *rest, b]:\n"
     "        pass\n", "limit"),
    ("match_guard_forever", "def f():\n    while True:\n        pass\nmatch 1:\n"
     "    case x if f():\n        pass\n", "limit"),
    ("match_recursion", "def f(v):\n    match v:\n        case [x]:\n            return f([x])\n"
     "f([1])\n", "limit"),
    ("match_property_recursion", "class C:\n    __match_args__ = ('p',)\n    @property\n"
     "    def p(self):\n        match self:\n            case C(q):\n                return q\n"
     "match C():\n    case C(v):\n        pass\n", "limit"),
    ("match_in_loop_forever", "while True:\n    match 1:\n        case 1:\n            pass\n",
     "limit"),
    ("match_args_huge", "class C:\n    __match_args__ = ('x',) * 10**6\n", "limit"),
    ("match_tensor_broadcast_value", T + "class K:\n    big = torch.ones(1000, 1000)\n"
     "match torch.ones(1000, 1, 1):\n    case K.big:\n        pass\n", "limit"),
    # C loops over a range of 10**9 numbers inside one call: taken in full (bounded) first
    ("range_contains_float", "x = 0.5 in range(10**12)\ny = [] in range(10**12)\n", "limit"),
    ("range_contains_tensor", T + "x = torch.ones(1) in range(10**12)\n", "limit"),
    ("list_extend_range", "a = []\na.extend(range(10**12))\n", "limit"),
    ("set_union_range", "s = {1}\nt = s.union([1], range(10**12))\n", "limit"),
    ("set_issuperset_range", "s = {1}\nt = s.issuperset(range(10**12))\n", "limit"),
    ("dict_update_pairs", "d = {}\nd.update(zip(range(10**12), range(10**12)))\n", "limit"),
    ("math_fsum_range", "import math\nx = math.fsum(range(10**12))\n", "limit"),
    ("math_prod_growing", "import math\nx = math.prod(range(1, 10**5))\n", "limit"),
    ("math_prod_start_huge", "import math\nx = math.prod([2] * 2000, start=3)\n", "limit"),
    # collections: their constructors and methods run over iterables in C; a deque nests
    ("counter_of_range", "from collections import Counter\nc = Counter(range(10**12))\n",
     "limit"),
    ("deque_of_range", "from collections import deque\nq = deque(range(10**12), maxlen=1)\n",
     "limit"),
    ("deque_repeat", "from collections import deque\nq = deque([1, 2]) * 10**9\n", "limit"),
    ("deque_nesting", "from collections import deque\nq = deque()\nfor i in range(60):\n"
     "    q = deque([q, q])\nprint(q)\n", "limit"),
    ("deque_grows", "from collections import deque\nq = deque()\nwhile True:\n"
     "    q.extendleft([1] * 1000)\n", "limit"),
    ("defaultdict_factory_engine", "import torch\nfrom collections import defaultdict\n"
     "d = defaultdict(torch.nn.Linear)\nx = d[1]\n", "runtime"),
    ("defaultdict_factory_read", "from collections import defaultdict\n"
     "f = defaultdict(list).default_factory\n", "not_allowed"),
    ("defaultdict_factory_bomb", "from collections import defaultdict\n"
     "d = defaultdict(lambda: [0] * 10**6)\nx = d[1]\n", "limit"),
    ("counter_elements_huge", "from collections import Counter\n"
     "x = list(Counter({'a': 10**12}).elements())\n", "limit"),
    ("counter_update_range", "from collections import Counter\nc = Counter()\n"
     "c.update(range(10**12))\n", "limit"),
    ("counter_private", "from collections import Counter\nf = Counter()._keep_positive\n",
     "not_allowed"),
    ("deque_dunder", "from collections import deque\nf = deque().__class__.__init__\n",
     "not_allowed"),
    ("typing_internals", "import typing\nf = typing.List.__origin__\n", "not_allowed"),
    ("typing_not_listed", "from typing import NamedTuple\n", "not_allowed"),
    ("typing_cast", "import typing\nf = typing.cast\n", "not_allowed"),
    ("future_not_first", "x = 1\nfrom __future__ import annotations\n", "syntax"),
    ("future_barry", "from __future__ import barry_as_FLUFL\n", "not_allowed"),
    ("future_module", "import __future__\n", "not_allowed"),
    ("future_feature_attr", "from __future__ import annotations\nx = annotations.compiler_flag\n",
     "not_allowed"),
    # set_printoptions: a full print is refused before it is formatted; options stay per run
    ("print_full_huge", T + "torch.set_printoptions(profile='full')\nprint(torch.ones(1000, 100))\n",
     "limit"),
    ("print_threshold_inf", T + "torch.set_printoptions(threshold=float('inf'))\n"
     "s = str(torch.arange(10**5))\n", "limit"),
    ("print_huge_linewidth", T + "torch.set_printoptions(linewidth=10**18, threshold=10**9)\n"
     "print(torch.ones(1000, 60))\n", "limit"),
    ("print_options_internals", T + "o = torch.printing.PRINT_OPTIONS\n", "not_allowed"),
    ("null_bytes", "x = 1\x00\n", "syntax"),
    ("bad_unicode", "x = '\udcff'\n", None),
    ("not_text", b"import os", "syntax"),
]


def _maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@pytest.mark.parametrize("name,src,kind", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_program_ends_in_a_clean_error(name, src, kind):
    start = time.perf_counter()
    result = run(src)
    elapsed = time.perf_counter() - start
    assert elapsed < LIMITS.max_seconds + GRACE, f"{name} took {elapsed:.1f}s"
    err = result.error
    assert isinstance(err, ProgramError), f"{name} ran: {result.output[:200]!r}"
    if kind is not None:
        assert err.kind == kind, err
    assert err.message and err.kind in ("syntax", "not_allowed", "limit", "runtime")
    if err.kind != "syntax" or name != "not_text":
        assert err.line is not None and err.line >= 1


def test_every_hostile_program_together_keeps_memory_bounded():
    before = _maxrss_mb()
    for _name, src, _kind in HOSTILE:
        result = run(src)
        assert isinstance(result.error, ProgramError)
    grown = _maxrss_mb() - before
    # the largest tensors allowed are 1M elements (4-8 MB) and 5M live at once
    assert grown < 400, f"peak memory grew by {grown:.0f} MB"


_SIDE = math.isqrt(LIMITS.max_tensor_elements)


def test_limit_errors_name_their_limit():
    assert _SIDE**3 > LIMITS.max_matmul_work
    cases = {
        "max_tensor_elements": T + "x = torch.ones(10**9)\n",
        "max_loop_iterations": "for i in range(10**6):\n    pass\n",
        "max_int_bits": "x = 2**10**10\n",
        "max_string_chars": "s = 'a' * 10**9\n",
        "max_program_chars": "x = 1\n" * 10_000,
        "max_depth": "x = " + "-" * 500 + "1\n",
        "max_executed": "for i in range(10000):\n    for j in range(10000):\n        pass\n",
        "max_call_depth": "def f(n):\n    return f(n + 1)\nf(0)\n",
        # the largest square matrix one tensor may hold: its square is over the work cap
        "max_matmul_work": T + f"a = torch.ones({_SIDE}, {_SIDE})\nb = a @ a\n",
        "max_output_chars": "for i in range(10000):\n    print('x' * 1000)\n",
    }
    # a statement cap a loaded machine reaches well inside the time cap
    small = Limits(max_executed=5_000)
    for limit, src in cases.items():
        limits = small if limit == "max_executed" else LIMITS
        err = run(src, limits=limits).error
        assert (err.kind, err.limit) == ("limit", limit), (limit, err)
        assert f"{getattr(limits, limit):,}" in err.message or limit in ("max_int_bits",
                                                                          "max_depth",
                                                                          "max_seconds")


def test_the_host_session_survives_every_dunder_program():
    """Through the host (as the UI sends it), each hostile program of the protocol dunders ends
    in its error, and the same session runs the next program normally."""
    from playground.host import Host, handle_json
    host = Host()
    for name, src, kind in HOSTILE:
        if not name.startswith("dunder_"):
            continue
        reply = json.loads(handle_json(host, json.dumps({"type": "run", "id": 1,
                                                         "program": src})))
        assert reply["type"] == "result", (name, reply)
        assert reply["timeline"]["error"]["kind"] == kind, (name, reply["timeline"]["error"])
        reply = json.loads(handle_json(host, json.dumps({"type": "run", "id": 2,
                                                         "program": T + "print(torch.ones(2))\n"})))
        assert reply["timeline"]["console"][0]["text"] == "tensor([1., 1.])\n", name


def test_the_programs_dunders_run_no_code_after_its_run():
    """An object of the program's class that outlives its run (the host holds the namespace):
    Python calling its __repr__, __iter__ or __call__ then runs none of the program's code."""
    src = ("class A:\n    def __repr__(self):\n        print('ran')\n        return 'A'\n"
           "    def __iter__(self):\n        print('ran')\n        return iter([1])\n"
           "    def __call__(self):\n        print('ran')\n        return 1\n"
           "a = A()\nprint(repr(a), list(a), a())\n")
    result = run(src)
    assert result.output == "ran\nran\nran\nA [1] 1\n"
    a = result.namespace["a"]
    for use in (repr, str, iter, lambda obj: obj()):
        with pytest.raises(RuntimeError, match="belongs to a run that has ended"):
            use(a)
    assert result.output.count("ran") == 3


def test_wall_time_limit_stops_a_slow_loop_between_statements():
    limits = Limits(max_seconds=0.2)
    src = T + "x = torch.ones(100, 100)\nfor i in range(10000):\n    y = x @ x\n    z = y.sum()\n"
    start = time.perf_counter()
    err = run(src, limits=limits).error
    assert time.perf_counter() - start < 0.2 + GRACE
    assert (err.kind, err.limit) == ("limit", "max_seconds")
    assert "0.2 seconds" in err.message


def test_a_normal_300_node_graph_is_well_inside_the_limits():
    lines = [T, "x = torch.tensor([0.5, 1.5], requires_grad=True)\n", "y = x\n"]
    lines += ["y = (y * 1.01 + x).tanh()\n" for _ in range(100)]
    lines += ["y.sum().backward()\n", "print(x.grad)\n"]
    result = run("".join(lines))
    assert result.error is None


# -- fuzzing ------------------------------------------------------------------------------------

FUZZ_LIMITS = Limits(max_seconds=1.0, max_executed=2_000, max_tensor_elements=10_000,
                     max_total_elements=100_000)
FUZZ = settings(max_examples=150, deadline=4000, suppress_health_check=list(HealthCheck))


def _run_clean(src):
    result = run(src, limits=FUZZ_LIMITS)
    assert result.error is None or isinstance(result.error, ProgramError)
    if result.error is not None:
        assert result.error.kind in ("syntax", "not_allowed", "limit", "runtime")


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_end_cleanly(data):
    _run_clean(data.decode("utf-8", "replace"))


@FUZZ
@given(st.text(alphabet=string.printable + "é∂\x00\udcff", max_size=200))
def test_random_text_ends_cleanly(text):
    _run_clean(text)


NAMES = ["x", "y", "torch", "print", "nn", "a", "__class__", "_data", "grad", "backward", "sum"]
ATOMS = st.one_of(
    st.integers(-3, 3).map(lambda v: ast.Constant(v)),
    st.floats(-2, 2, allow_nan=False).map(lambda v: ast.Constant(v)),
    st.sampled_from(["a", "grad"]).map(lambda v: ast.Constant(v)),
    st.sampled_from([None, True]).map(lambda v: ast.Constant(v)),
    st.sampled_from(NAMES).map(lambda n: ast.Name(n, ast.Load())),
)


def _exprs():
    return st.recursive(ATOMS, lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(NAMES + ["tensor", "ones", "shape", "grad_fn",
                                                  "next_functions", "T", "item"])).map(
            lambda t: ast.Attribute(t[0], t[1], ast.Load())),
        st.tuples(inner, st.lists(inner, max_size=3)).map(
            lambda t: ast.Call(t[0], t[1], [])),
        st.tuples(inner, st.sampled_from([ast.Add(), ast.Mult(), ast.Pow(), ast.MatMult(),
                                          ast.Sub(), ast.Div(), ast.Mod()]), inner).map(
            lambda t: ast.BinOp(t[0], t[1], t[2])),
        st.lists(inner, max_size=3).map(lambda v: ast.List(v, ast.Load())),
        st.tuples(inner, inner).map(lambda t: ast.Subscript(t[0], t[1], ast.Load())),
        st.tuples(inner).map(lambda t: ast.UnaryOp(ast.USub(), t[0])),
        st.tuples(inner).map(lambda t: ast.Lambda(
            ast.arguments([], [ast.arg("a")], None, [], [], None, []), t[0])),
        st.tuples(inner, inner, inner).map(lambda t: ast.IfExp(t[0], t[1], t[2])),
        st.tuples(inner, inner).map(lambda t: ast.BoolOp(ast.Or(), [t[0], t[1]])),
        st.tuples(inner, inner).map(lambda t: ast.Compare(t[0], [ast.In()], [t[1]])),
        st.tuples(inner, inner).map(lambda t: ast.Dict([t[0]], [t[1]])),
        st.tuples(st.sampled_from(["a", "x", "__x"]), inner).map(
            lambda t: ast.NamedExpr(ast.Name(t[0], ast.Store()), t[1])),
        st.tuples(inner, st.sampled_from(["", ">9", ".3f", "!r", "{a}"])).map(
            lambda t: ast.JoinedStr([ast.FormattedValue(
                t[0], ord("r") if t[1] == "!r" else -1,
                None if t[1] in ("", "!r") else ast.JoinedStr([ast.Constant(t[1])]))])),
        st.tuples(inner, st.sampled_from(["{0}", "{0.__class__}", "{0[0]}", "{0:>5}",
                                          "{0._data}", "%s"])).map(
            lambda t: ast.Call(ast.Attribute(ast.Constant(t[1]), "format", ast.Load()),
                               [t[0]], [])),
        st.tuples(inner, inner).map(lambda t: ast.ListComp(t[0], [ast.comprehension(
            ast.Name("a", ast.Store()), t[1], [], 0)])),
    ), max_leaves=12)


def _stmts():
    expr = _exprs()
    return st.one_of(
        expr.map(lambda e: ast.Expr(e)),
        st.tuples(st.sampled_from(["x", "y", "a"]), expr).map(
            lambda t: ast.Assign([ast.Name(t[0], ast.Store())], t[1])),
        st.tuples(st.sampled_from(["x", "y"]), expr).map(
            lambda t: ast.AugAssign(ast.Name(t[0], ast.Store()), ast.Add(), t[1])),
        st.just(ast.Import([ast.alias("torch")])),
        st.tuples(st.integers(0, 3), expr).map(lambda t: ast.For(
            ast.Name("i", ast.Store()),
            ast.Call(ast.Name("range", ast.Load()), [ast.Constant(t[0])], []),
            [ast.Expr(t[1])], [])),
        st.tuples(expr).map(lambda t: ast.While(t[0], [ast.Pass()], [])),
        st.tuples(expr, expr).map(lambda t: ast.If(t[0], [ast.Expr(t[1])], [ast.Pass()])),
        st.tuples(expr, expr).map(lambda t: ast.FunctionDef(
            name="f", args=ast.arguments([], [ast.arg("a")], None, [], [], None, [t[1]]),
            body=[ast.Return(t[0])], decorator_list=[])),
        st.tuples(expr, st.sampled_from(["Exception", "RuntimeError", "x", "print"])).map(
            lambda t: ast.Try([ast.Expr(t[0])], [ast.ExceptHandler(
                ast.Name(t[1], ast.Load()), "e", [ast.Expr(ast.Name("e", ast.Load()))])],
                [], [ast.Pass()])),
        st.tuples(expr, st.sampled_from(["nn.Module", "object", "Exception", "torch.Tensor",
                                         "torch.autograd.Function", "torch.nn.Sequential",
                                         "torch.nn.ReLU", "torch.optim.Optimizer", "x"])
                  ).map(lambda t: ast.ClassDef(
                      name="C", bases=[ast.parse(t[1], mode="eval").body], keywords=[],
                      body=[ast.FunctionDef(
                          name="m", args=ast.arguments([], [ast.arg("self")], None, [], [],
                                                       None, []),
                          body=[ast.Return(t[0])], decorator_list=[])], decorator_list=[])),
        st.tuples(expr).map(lambda t: ast.Expr(ast.Call(ast.Attribute(
            ast.Call(ast.Name("C", ast.Load()), [], []), "m", ast.Load()), [], []))),
        st.tuples(expr, expr).map(lambda t: _generator_function(t[0], t[1])),
        st.tuples(expr, expr, st.sampled_from(["send", "throw", "close"])).map(
            lambda t: _drive_generator(*t)),
        st.tuples(expr, expr).map(lambda t: _context_manager(t[0], t[1])),
        st.tuples(expr).map(lambda t: ast.For(
            ast.Name("i", ast.Store()), ast.Call(ast.Name("gen", ast.Load()), [t[0]], []),
            [ast.Expr(ast.Name("i", ast.Load()))], [])),
        st.tuples(expr).map(lambda t: ast.Raise(t[0], None)),
        st.tuples(expr, expr).map(lambda t: _function_class(t[0], t[1])),
        st.tuples(st.sampled_from(sorted(_PROTOCOL_DUNDERS)), expr, st.sampled_from(
            sorted(_PROTOCOL_USES))).map(lambda t: _protocol_class(*t)),
        st.just(ast.parse("y = G.apply(torch.ones(2, requires_grad=True), 2)\n"
                          "y.sum().backward()").body[0]),
        st.tuples(expr, st.lists(st.tuples(_match_patterns(), st.one_of(st.none(), expr)),
                                 min_size=1, max_size=3)).map(lambda t: _match(*t)),
    )


def _match_patterns():
    """Patterns reaching for what a class pattern could read: dunders, engine internals, the
    playground's own objects' fields, on every kind of class a program can name."""
    leaves = st.one_of(
        st.sampled_from(["0", "-1", "'a'", "None", "True", "_", "a", "x", "__x",
                         "torch.float32", "x.grad", "C.m"]),
    )
    classes = st.sampled_from(["torch.Tensor", "nn.Linear", "torch.nn.Module", "object", "int",
                               "list", "dict", "C", "Exception", "print", "torch.Size",
                               "torch.autograd.Function", "G", "type", "x"])
    attrs = st.sampled_from(["shape", "grad", "grad_fn", "_data", "__class__", "gi_frame", "fn",
                             "closure", "args", "numpy", "weight", "_parameters", "run",
                             "m", "real"])

    def grow(inner):
        items = st.lists(inner, max_size=3)
        return st.one_of(
            items.map(lambda xs: "[" + ", ".join(xs) + "]"),
            items.map(lambda xs: "[" + ", ".join(xs + ["*rest"]) + "]"),
            st.tuples(st.lists(st.tuples(st.sampled_from(["'a'", "1", "C.m"]), inner),
                               max_size=2), st.booleans()).map(
                lambda t: "{" + ", ".join([f"{k}: {v}" for k, v in t[0]]
                                          + (["**kw"] if t[1] else [])) + "}"),
            st.tuples(classes, st.lists(inner, max_size=2),
                      st.lists(st.tuples(attrs, inner), max_size=2)).map(
                lambda t: t[0] + "(" + ", ".join(t[1] + [f"{k}={v}" for k, v in t[2]]) + ")"),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(" + " | ".join(xs) + ")"),
            st.tuples(inner, st.sampled_from(["a", "y", "__y"])).map(
                lambda t: f"({t[0]} as {t[1]})"),
        )
    return st.recursive(leaves, grow, max_leaves=5)


def _match(subject, cases):
    """match SUBJECT with random (pattern, guard) cases, each body printing what it bound."""
    text = "match 0:\n"
    for pattern, guard in cases:
        body = "print(a)" if re.search(r"\ba\b", pattern) else "pass"
        text += f"    case {pattern}{' if 1' if guard is not None else ''}:\n        {body}\n"
    tree = ast.parse(text).body[0]
    tree.subject = subject
    for case, (_, guard) in zip(tree.cases, cases):
        if guard is not None:
            case.guard = guard
    return tree


def _generator_function(yielded, iterated):
    """def gen(a) with random yield and yield-from values, inside a loop, a try whose finally
    and bare except run when it is closed, and a value sent in."""
    tree = ast.parse(
        "def gen(a):\n"
        "    for k in range(2):\n"
        "        try:\n"
        "            a = yield YIELDED\n"
        "        except:\n"
        "            print(a)\n"
        "            raise\n"
        "        finally:\n"
        "            print(k)\n"
        "    r = yield from ITERATED\n"
        "    return r\n").body[0]
    tree.body[0].body[0].body[0].value.value = yielded
    tree.body[1].value.value = iterated
    return tree


def _drive_generator(arg, sent, method):
    """Make a generator, start it and call send/throw/close on it with a random value; then
    let it go by a loop that breaks off (its finally runs)."""
    tree = ast.parse(
        "try:\n"
        "    g = gen(ARG)\n"
        "    next(g)\n"
        f"    g.{method}({'' if method == 'close' else 'SENT'})\n"
        "    for v in gen(ARG):\n"
        "        break\n"
        "except Exception as e:\n"
        "    print(e)\n").body[0]
    tree.body[0].value.args = [arg]
    tree.body[3].iter.args = [arg]
    if method != "close":
        tree.body[2].value.args = [sent]
    return tree


def _context_manager(exit_value, body):
    """A class with __enter__/__exit__ (returning a random value) used by a with statement
    around a random expression."""
    tree = ast.parse(
        "class CM:\n"
        "    def __enter__(self):\n"
        "        return self\n"
        "    def __exit__(self, kind, exc, tb):\n"
        "        return EXIT\n"
        "with CM() as cm:\n"
        "    BODY\n")
    tree.body[0].body[1].body[0].value = exit_value
    tree.body[1].body[0].value = body
    return ast.If(ast.Constant(True), tree.body, [])


_PROTOCOL_DUNDERS = {"__repr__": "self", "__str__": "self", "__call__": "self, *a",
                     "__iter__": "self", "__next__": "self"}
_PROTOCOL_USES = ("print(P(), [P()])", "s = f'{P()!r:>5}{P()}'", "P()(1)", "x = list(P())",
                  "a, b = P()", "x = 1 in P()", "x = next(P())", "x = sorted(P())",
                  "x = {str(P()): P()}", "h = torch.ones(1, requires_grad=True).register_hook(P())",
                  "x = [i for i in zip(P(), range(3))]", "x = dict(enumerate(P()))")


def _protocol_class(dunder, value, use):
    """class P defining one protocol dunder (returning a random value), __iter__ returning
    itself besides, then used the way Python calls that dunder (or another)."""
    tree = ast.parse(
        "class P:\n"
        f"    def {dunder}({_PROTOCOL_DUNDERS[dunder]}):\n"
        "        return VALUE\n"
        + ("    def __iter__(self):\n        return self\n" if dunder == "__next__" else "")
        + use + "\n")
    tree.body[0].body[0].body[0].value = value
    return ast.If(ast.Constant(True), tree.body, [])


def _function_class(forward_value, backward_value):
    """class G(torch.autograd.Function) with random forward and backward return values."""
    tree = ast.parse(
        "class G(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, k):\n"
        "        ctx.k = k\n"
        "        ctx.save_for_backward(x)\n"
        "        return FORWARD\n"
        "    @staticmethod\n"
        "    def backward(ctx, g):\n"
        "        return BACKWARD\n").body[0]
    tree.body[0].body[2].value = forward_value
    tree.body[1].body[0].value = backward_value
    return tree


@FUZZ
@given(st.lists(_stmts(), min_size=1, max_size=6))
def test_random_syntax_trees_end_cleanly(stmts):
    module = ast.fix_missing_locations(ast.Module([ast.Import([ast.alias("torch")]), *stmts],
                                                  []))
    try:
        src = ast.unparse(module)
    except Exception:  # a tree ast cannot even write back out: not a program
        return
    _run_clean(src)


@FUZZ
@given(st.data())
def test_mutated_share_tokens_end_in_share_errors(data):
    src = "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x ** 2\ny.backward()\n"
    token = encode(src)
    chars = list(token)
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        i = data.draw(st.integers(0, max(len(chars) - 1, 0)))
        if op == "flip" and chars:
            chars[i] = data.draw(st.sampled_from(string.ascii_letters + string.digits + "-_.=+/"))
        elif op == "cut":
            del chars[i:]
        else:
            chars.insert(i, data.draw(st.sampled_from(string.printable)))
    mutated = "".join(chars)
    try:
        text = decode(mutated)
    except ShareError:
        return
    # a mutation that still decodes must be the original (or one the checksum cannot tell)
    assert isinstance(text, str)
    _run_clean(text)
