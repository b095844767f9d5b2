"""The program language: every allowed construct runs and prints exactly what the same code
prints as plain Python with `import engine as torch`; every rejected one fails at its line and
column with the right kind; a runtime error stops the run like a notebook cell."""

from __future__ import annotations

import builtins
import contextlib
import importlib
import io
import textwrap
import warnings

import pytest

import engine
from engine import observer as engine_observer
from engine.autograd import grad_mode
from playground import Interpreter, Limits, ProgramError, parse, run


def python_output(src: str) -> str:
    """Run src as real Python with torch imported as the engine (the oracle; test code only)."""

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "torch" or name.startswith("torch."):
            mod = importlib.import_module("engine" + name[len("torch"):])
            return mod if fromlist else engine
        return builtins.__import__(name, globals, locals, fromlist, level)

    env = {"__builtins__": {**vars(builtins), "__import__": _import}}
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(src, "<oracle>", "exec"), env)  # the test's oracle, never the playground
    return out.getvalue()


def program_output(src: str) -> str:
    result = run(src)
    assert result.error is None, result.error
    return result.output


def dedent(src: str) -> str:
    return textwrap.dedent(src).lstrip("\n")


SAME_AS_PYTHON = {
    "seed_example": """
        import torch
        x = torch.tensor([2.0], requires_grad=True)
        y = x**2
        z = 2*y
        z.backward()
        print(x.grad)
    """,
    "imports": """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import torch.optim as optim
        from torch import nn, optim
        from torch.nn import functional as F2
        from torch import tensor, float64
        import torch.autograd
        print(tensor([1.0], dtype=float64), F.relu(torch.tensor([-1.0, 1.0])))
        print(F2.relu(torch.tensor([-2.0, 3.0])), torch.autograd.grad is not None)
    """,
    "tuple_unpacking": """
        import torch
        x = torch.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
        values, indices = x.max(dim=0)
        a, (b, c) = 1, (2, 3)
        [d, e] = [4.0, 5.0]
        print(values, indices, a, b, c, d, e)
        values.sum().backward()
        print(x.grad)
    """,
    "augmented_assignment_is_in_place": """
        import torch
        a = torch.ones(3)
        b = a
        a += 1
        a *= 3
        a -= 1
        a /= 5
        print(a, b, a is b)
        n = 2
        n += 3
        n **= 2
        s = "ab"
        s += "c"
        xs = [1]
        xs += [2]
        print(n, s, xs)
        c = torch.tensor([1.0, 2.0])
        c @= torch.eye(2)
        c **= 2
        print(c)
    """,
    "augmented_assignment_on_attribute_and_item": """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        x.grad += torch.tensor([10.0, 20.0])
        print(x.grad)
        y = torch.zeros(3)
        y[1] += 5
        y[0] = 2.5
        y[1:] = torch.tensor([7.0, 8.0])
        print(y)
    """,
    "attribute_assignment": """
        import torch
        x = torch.tensor([1.0, 2.0])
        x.requires_grad = True
        (x * x).sum().backward()
        print(x.grad)
        x.grad = None
        print(x.grad)
        x.data = torch.tensor([5.0, 6.0])
        print(x, x.requires_grad)
        x.grad = torch.tensor([1.0, 1.0])
        print(x.grad)
    """,
    "grad_mode_blocks": """
        import torch
        x = torch.tensor([1.0], requires_grad=True)
        with torch.no_grad():
            y = x * 2
            with torch.enable_grad():
                z = x * 3
            print(torch.is_grad_enabled())
        with torch.set_grad_enabled(False):
            w = x * 4
        with torch.no_grad(), torch.enable_grad():
            v = x * 5
        print(y.requires_grad, z.requires_grad, w.requires_grad, v.requires_grad)
        print(torch.is_grad_enabled())
        torch.set_grad_enabled(False)
        u = x * 6
        torch.set_grad_enabled(True)
        print(u.requires_grad, (x * 7).requires_grad)
    """,
    "for_loops": """
        import torch
        x = torch.tensor([1.0], requires_grad=True)
        for i in range(3):
            y = x * (i + 1)
            y.backward()
            print(i, x.grad)
        for j in range(2 * 3 - 4):
            for k in range(1, 10, 4):
                print(j, k)
        for m in range(-2):
            print("never")
        for m in range(5, 0, -2):
            pass
        print(m)
    """,
    "print_forms": """
        import torch
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = (x * 2).sum()
        print()
        print("x.grad:", x.grad)
        print(1, 2.5, -3, True, None, "text", [1, 2.0], (3,), sep=", ", end=".\\n")
        print(x.shape, x.dtype, x.size(0), x.ndim, x.is_leaf, y.is_leaf)
        print(y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
        print(x.sum(), x.mean(dim=0), x.T, x.t(), x.numel(), len(x))
        print(torch.float64, torch.Size([2, 3]), torch.Size([2, 3]).numel())
        print("a", "b", sep=None, end=None)
        print(x.tolist(), x[0, 1].item(), x.requires_grad)
        print(str(x), str(3), str())
    """,
    "operators": """
        import torch
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = torch.tensor([4.0, 5.0, 6.0])
        print(a + b, a - b, a * b, a / b, a ** 2, 2 ** a, a @ b, -a, +a)
        print(a + 1, 1 + a, 1 - a, 2 * a, a / 2, 1 / a)
        print(a > 2, a >= 2, a < 2, a <= 2, a == 2, a != 2)
        m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        print(m @ m, m @ torch.tensor([1.0, 1.0]))
        print(1 < 2 < 3, 3 < 2 < 5, 1 == 1.0, a.grad is None, a.grad is not None)
        print(7 / 2, 2 ** 10, 2 ** -1, 2.0 ** 0.5, -(3), not True)
        print((a > 1) & (a < 3), (a < 2) | (a > 2), ~(a > 2))
        print("ab" + "cd", "ab" * 3, [1] * 3, (1, 2) + (3,))
    """,
    "subscripts": """
        import torch
        x = torch.arange(12.0).reshape(3, 4)
        print(x[0], x[-1], x[1, 2], x[0:2], x[:, 1], x[::2, 1:3], x[1][2])
        print(x[None].shape, x[..., 0], x[x > 5], x[torch.tensor([0, 2])], x[[0, 1]])
        print(x.shape[0], x.shape[-1], (1, 2, 3)[1:], [4, 5, 6][-1], "abc"[1])
        t = (10, 20)
        print(t[0], x[0, 0:2])
    """,
    "methods_and_grad_fn": """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        print(x.grad)
        z = x.detach()
        c = x.clone()
        print(z.requires_grad, c.grad_fn.name(), c.requires_grad)
        w = (x * 2)
        w.retain_grad()
        w.sum().backward()
        print(w.grad, w.retains_grad, x.grad)
        node = w.grad_fn
        print(node.next_functions[0][0].name(), node.next_functions[0][0].variable is x)
    """,
    "hooks": """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        h = x.register_hook(print)
        (x * 3).sum().backward()
        h.remove()
        (x * 3).sum().backward()
        print(x.grad)
    """,
    "second_derivative": """
        import torch
        x = torch.tensor(3.0, requires_grad=True)
        y = x ** 3
        g, = torch.autograd.grad(y, x, create_graph=True)
        g2, = torch.autograd.grad(g, x)
        print(g, g2)
    """,
    "builtins": """
        import torch
        x = torch.tensor([3.0, -1.0, 2.0])
        print(len(x), abs(-2), float(x[0]), int(x[0]), bool(x[0]), round(2.567, 2))
        print(min(3, 1, 2), max([4, 7, 1]), sum([1, 2, 3]), sum([1.5, 2.5], 10))
        print(list((1, 2)), tuple([3, 4]), list(x), str(x), round(x[0].item()))
        print(sum(x), max(x), min(1.5, 2))
    """,
    "mlp_training_loop_with_sgd": """
        import torch
        import torch.nn as nn
        import torch.optim as optim
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
        criterion = nn.MSELoss()
        optimizer = optim.SGD(model.parameters(), lr=0.1)
        x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
        t = torch.tensor([[1.0], [0.0], [0.5]])
        for i in range(5):
            optimizer.zero_grad()
            loss = criterion(model(x), t)
            loss.backward()
            optimizer.step()
            print(i, loss.item())
        print(model[0].weight.grad, model[2].bias)
        print(model, model[0].in_features, optimizer.param_groups[0]["lr"])
        print(len(list(model.parameters())))
    """,
    "adam_and_module_attributes": """
        import torch
        from torch import nn, optim
        torch.manual_seed(1)
        lin = nn.Linear(3, 1)
        opt = optim.Adam(lin.parameters(), lr=0.01)
        x = torch.ones(2, 3)
        for i in range(3):
            opt.zero_grad()
            out = lin(x).sum()
            out.backward()
            opt.step()
        print(lin.weight, lin.bias, lin.weight.grad, lin.out_features, lin.training)
        lin.eval()
        print(lin.training)
    """,
    "numbers_and_strings": """
        x = 3
        y = x * 2 + 1
        z = (y - 1) / 4
        s = "hi"
        print(x, y, z, s, 10 ** 20, 2 ** 0.5, -x)
        pass
    """,
    "if_elif_else_and_conditional_expressions": """
        import torch
        x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
        for v in [-1, 0, 1, 5]:
            if v < 0:
                print("negative", v)
            elif v == 0:
                print("zero")
            elif v in (1, 2) and not v > 3:
                print("small", v)
            else:
                print("large" if v > 4 else "medium", v)
        y = (x * x).sum() if x.requires_grad else x.sum()
        print(y, x.sum() > 0, 0 or "default", 3 and 4)
    """,
    "while_break_continue_else": """
        n, found = 0, []
        while n < 10:
            n += 1
            if n % 2:
                continue
            if n > 7:
                break
            found.append(n)
        else:
            print("never")
        k = 0
        while k < 2:
            k += 1
        else:
            print("done", k)
        print(n, found, 17 // 5, -17 // 5, 17 % 5, -7 % 3, 7.5 // 2, 2 ** -1)
    """,
    "for_over_every_iterable": """
        import torch
        import torch.nn as nn
        import torch.optim as optim
        model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
        opt = optim.SGD(model.parameters(), lr=0.1)
        for name, p in model.named_parameters():
            print(name, tuple(p.shape), p.requires_grad)
        for layer in model:
            print(layer)
        for g in opt.param_groups:
            g["lr"] = 0.05
            print(g["lr"], len(g["params"]))
        for row in torch.tensor([[1.0, 2.0], [3.0, 4.0]]):
            print(row)
        for i, (a, b) in enumerate(zip("xyz", reversed(range(3))), start=1):
            print(i, a, b)
        for k, v in {"a": 1, "b": 2}.items():
            print(k, v)
        n = 4
        for i in range(n // 2, n * 2, 3):
            print(i)
        print(sum(p.numel() for p in model.parameters()))
    """,
    "functions_defaults_closures_recursion": """
        import torch
        def scale(x, factor=2.0, *rest, bias=0.0, **options):
            out = x * factor + bias
            return out, len(rest), sorted(options)
        print(scale(torch.tensor([1.0, 2.0])))
        print(scale(1.0, 3.0, 7, 8, bias=1.0, b=1, a=2))
        def make_accumulator(start):
            total = start
            def add(v):
                nonlocal total
                total += v
                return total
            return add
        acc = make_accumulator(10)
        acc(1)
        print(acc(5))
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        print([fib(i) for i in range(10)])
        counter = 0
        def bump():
            global counter
            counter += 1
        bump()
        bump()
        print(counter)
        square = lambda t: t * t
        print(list(map(square, [1, 2, 3])), list(filter(lambda v: v % 2, range(6))))
        print(sorted(["bb", "a", "ccc"], key=len, reverse=True), max([3, 9, 2], key=lambda v: -v))
    """,
    "lambda_hooks_and_module_apply": """
        import torch
        import torch.nn as nn
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        h = x.register_hook(lambda g: g * 10)
        y = x * 3
        y.register_hook(lambda g: seen.append(g.sum().item()))
        y.sum().backward()
        print(x.grad, seen)
        h.remove()
        def init_weights(m):
            if isinstance(m, nn.Linear):
                with torch.no_grad():
                    m.weight.fill_(0.5)
                    m.bias.zero_()
        net = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
        net.apply(init_weights)
        print(net(torch.ones(1, 2)))
    """,
    "classes_modules_and_decorators": """
        import torch
        import torch.nn as nn
        class TwoLayer(nn.Module):
            def __init__(self, n_in, n_hidden):
                super().__init__()
                self.fc1 = nn.Linear(n_in, n_hidden)
                self.act = nn.ReLU()
                self.fc2 = nn.Linear(n_hidden, 1)
                self.scale = 2.0
            def forward(self, x):
                return self.fc2(self.act(self.fc1(x))) * self.scale
        class Wrapper(TwoLayer):
            def __init__(self):
                super(Wrapper, self).__init__(3, 4)
                self.extra = nn.Parameter(torch.zeros(1))
            def forward(self, x):
                return super().forward(x) + self.extra
        m = Wrapper()
        print(m)
        print([n for n, _ in m.named_parameters()], len(list(m.parameters())))
        with torch.no_grad():
            for p in m.parameters():
                p.fill_(0.1)
        out = m(torch.ones(2, 3))
        print(out, out.grad_fn.name())
        class Counter:
            count = 0
            def __init__(self, start=0):
                self.value = start
                Counter.count += 1
            @property
            def doubled(self):
                return self.value * 2
            @staticmethod
            def describe(v):
                return f"value={v}"
            @classmethod
            def zero(cls):
                return cls()
            def inc(self, by=1):
                self.value += by
                return self
        c = Counter(3).inc().inc(2)
        print(c.value, c.doubled, Counter.describe(c.value), Counter.zero().value, Counter.count)
        @torch.no_grad()
        def frozen(t):
            return t * 2
        @torch.enable_grad()
        def thawed(t):
            return t * 2
        t = torch.ones(1, requires_grad=True)
        with torch.no_grad():
            print(frozen(t).requires_grad, thawed(t).requires_grad)
    """,
    "try_except_else_finally_raise_assert_del": """
        import torch
        x = torch.ones(3)
        try:
            x.backward()
        except RuntimeError as e:
            print("caught:", e)
        else:
            print("no error")
        finally:
            print("finally")
        try:
            y = x[5]
        except (KeyError, IndexError) as e:
            print(isinstance(e, IndexError), e.args)
        def check(v):
            if v < 0:
                raise ValueError(f"negative: {v}")
            return v
        for v in (1, -1):
            try:
                print(check(v))
            except ValueError as e:
                print("bad", e)
        class MyError(Exception):
            pass
        try:
            raise MyError("custom")
        except Exception as e:
            print(isinstance(e, MyError), e)
        try:
            try:
                1 / 0
            except ZeroDivisionError:
                raise
        except ArithmeticError as e:
            print("outer", e)
        try:
            assert 1 + 1 == 3, "math is broken"
        except AssertionError as e:
            print(e)
        d = {"a": 1, "b": 2}
        del d["a"]
        z = 5
        del z
        print(d, d.get("z", "gone"))
        for i in range(3):
            try:
                if i == 1:
                    continue
                print("body", i)
            finally:
                print("cleanup", i)
    """,
    "strings_formatting_and_containers": """
        import torch
        loss = torch.tensor(0.123456)
        t = torch.tensor([1.5, 2.5])
        print(f"loss={loss.item():.4f} t={t!r} {3:>5}|{'x':<3}|{7:03d}|{0.5:.1%}")
        print("{} and {:.2f} and {name}".format(1, 2.345, name="n"), "%.3f %d %s" % (3.14159, 4, "s"))
        print("%(a)s-%(b)05.1f" % {"a": "A", "b": 2.25}, "{0[1]} {1[k]}".format([5, 6], {"k": 7}))
        words = "the quick brown fox".split()
        print(words[1:3], words[::-1], "-".join(words).upper(), "fox" in words, "cat" not in words)
        print("  pad ".strip(), "a,b".replace(",", ";"), "abc"[1:], "abc".startswith("ab"))
        s = {1, 2, 3}
        s.add(4)
        s.discard(1)
        d = dict(a=1, b=2)
        d.update({"c": 3})
        d.setdefault("e", 5)
        print(sorted(s), d, list(d.keys()), list(d.values()), d.pop("a"), len(d))
        squares = {i: i * i for i in range(4)}
        evens = {i for i in range(10) if i % 2 == 0}
        pairs = [(i, j) for i in range(3) for j in range(i)]
        print(squares, sorted(evens), pairs, [*range(3), *"ab"], {**d, "z": 0})
        first, *middle, last = [1, 2, 3, 4, 5]
        print(first, middle, last, any(v > 4 for v in middle), all([True, 1]))
        nums = [3, 1, 2]
        nums.sort()
        nums.append(10)
        nums.insert(0, -1)
        print(nums, nums.index(10), nums.count(1), nums.pop(), min(nums), abs(-2), divmod(7, 2))
    """,
    "math_random_and_ordered_dict": """
        import math
        import random
        from collections import OrderedDict
        import torch.nn as nn
        print(math.sqrt(16), math.floor(2.7), math.ceil(2.1), round(math.pi, 4), math.isclose(0.1 + 0.2, 0.3))
        print(math.exp(0), math.log(math.e), math.factorial(5), math.inf > 1e308, math.isnan(math.nan))
        random.seed(3)
        a = [random.random() for _ in range(3)]
        random.seed(3)
        print(a == [random.random() for _ in range(3)], random.randint(1, 6) in range(1, 7))
        model = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        print(model, [n for n, _ in model.named_children()])
    """,
    "class_repr_str_call": """
        import torch
        class Scale:
            def __init__(self, k):
                self.k = k
            def __repr__(self):
                return f"Scale(k={self.k})"
            def __str__(self):
                return "times " + str(self.k)
            def __call__(self, t):
                return t * self.k
        half = Scale(0.5)
        print(half, repr(half), [half, half], {"s": half}, (half,))
        print(f"{half} / {half!r} / {str(half):>12}|", "{} {!r}".format(half, half), "%s %r" % (half, half))
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = half(x).sum()
        y.backward()
        print(y, x.grad, callable(half), str(half).upper())
        h = x.register_hook(Scale(3.0))
        (x * 1.0).sum().backward()
        print(x.grad)
        print(list(map(Scale(2), [1, 2])), sorted([3, 1, 2], key=Scale(-1)))
    """,
    "class_iter_next": """
        import torch
        class Countdown:
            def __init__(self, start):
                self.n = start
            def __iter__(self):
                return self
            def __next__(self):
                if self.n <= 0:
                    raise StopIteration
                self.n -= 1
                return self.n + 1
        class Batches:
            def __init__(self, data, size):
                self.data, self.size = data, size
            def __iter__(self):
                for i in range(0, len(self.data), self.size):
                    yield self.data[i:i + self.size]
            def __len__(self):
                return (len(self.data) + self.size - 1) // self.size
        print(list(Countdown(3)), sum(Countdown(4)), [c * 2 for c in Countdown(2)])
        for c in Countdown(2):
            print("tick", c)
        it = Countdown(2)
        print(next(it), next(it), next(it, "done"))
        a, b = Countdown(2)
        print(a, b, 3 in Countdown(5), sorted(Countdown(3)), dict(zip("ab", Countdown(2))))
        data = torch.arange(5.0)
        for i, batch in enumerate(Batches(data, 2)):
            print(i, batch)
        print(len(Batches(data, 2)), [len(b) for b in Batches(data, 2)], max(Countdown(3)))
        print(list(zip(Countdown(2), Batches(data, 3))), tuple(Countdown(1)), set(Countdown(2)))
    """,
    "stop_iteration_in_functions": """
        def first(items):
            return next(iter(items))
        def safe_first(items):
            try:
                return next(iter(items))
            except StopIteration:
                return None
        try:
            first([])
        except StopIteration:
            print("empty")
        print(safe_first([]), safe_first([4]))
        def gen():
            yield 1
            raise StopIteration
        try:
            print(list(gen()))
        except RuntimeError as e:
            print("RuntimeError:", e)
        def gen2():
            try:
                next(iter([]))
            except StopIteration:
                yield "handled"
        print(list(gen2()))
    """,
}


@pytest.mark.parametrize("name", sorted(SAME_AS_PYTHON))
def test_allowed_construct_prints_what_python_prints(name):
    src = dedent(SAME_AS_PYTHON[name])
    assert program_output(src) == python_output(src)


def test_seed_example_prints_tensor_8():
    src = dedent(SAME_AS_PYTHON["seed_example"])
    assert program_output(src) == "tensor([8.])\n"


def test_augmented_assignment_calls_the_tensors_iadd():
    result = run("import torch\na = torch.ones(2)\nb = a\na += 1\n")
    ns = result.namespace
    assert ns["a"] is ns["b"]
    assert ns["a"]._version == 1


def test_tensor_version_is_the_one_readable_underscore_attribute():
    src = dedent("""
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        v = y[0:1]
        print(y._version, v._version)
        y.add_(1)
        v.mul_(3)
        print(y._version, v._version, x._version, x.detach()._version)
    """)
    assert program_output(src) == python_output(src) == "0 0\n2 2 0 0\n"


@pytest.mark.parametrize("src,line,col,words", [
    # it opens nothing else: not for writing, not on other objects, not a prefix
    ("import torch\nx = torch.ones(1)\nx._version = 3\n", 3, 1, "only .grad"),
    ("import torch\nx = torch.ones(1)\nx._version += 1\n", 3, 1, "only .grad"),
    ("import torch\nx = torch.ones(1)\nv = x._versions\n", 3, 5, "'_'"),
    ("import torch\nx = torch.ones(1)\nv = x._base\n", 3, 5, "'_'"),
    ("import torch\nx = torch.ones(1)\nv = x.__version\n", 3, 5, "'__'"),
    ("import torch\nv = torch._version\n", 2, 5, "torch._version is not available"),
    ("import torch.nn as nn\nm = nn.Linear(1, 1)\nv = m._version\n", 3, 5, "not available"),
    ("import torch\nx = torch.ones(1, requires_grad=True) * 2\nv = x.grad_fn._version\n", 3, 5,
     "not available"),
    ("x = 1\nv = x._version\n", 2, 5, "not available"),
    ("v = print._version\n", 1, 5, "not available"),
])
def test_version_is_readable_on_tensors_only(src, line, col, words):
    err = run(src).error
    assert isinstance(err, ProgramError) and err.kind == "not_allowed", err
    assert (err.line, err.col) == (line, col), err
    assert words in err.message


# -- errors: kind, line and column ----------------------------------------------------------------

REJECTED = [
    # (program, kind, line, col, words in the message)
    ("x = 1\ny = (\n", "syntax", 2, 5, "never closed"),
    ("async def f():\n    pass\n", "not_allowed", 1, 1, "async"),
    ("def f():\n    x = 1 + (yield 1)\n", "not_allowed", 2, 14, "yield"),
    ("x = yield 1\n", "syntax", 1, 5, "outside function"),
    ("def f():\n    print((yield))\n", "not_allowed", 2, 12, "statement of its own"),
    ("yield 1\n", "syntax", 1, 1, "outside function"),
    ("import torch\nx = torch.ones(1)\ny = x.grad_fn.__dict__\n", "not_allowed", 3, 5, "'__'"),
    ("import os\n", "not_allowed", 1, 1, "only torch"),
    ("from os import path\n", "not_allowed", 1, 1, "only torch"),
    ("f = open('x')\n", "not_allowed", 1, 5, "not available"),
    ("f = globals\n", "not_allowed", 1, 5, "not available"),
    ("t = vars(1)\n", "not_allowed", 1, 5, "not available"),
    ("x = __import__('os')\n", "not_allowed", 1, 5, "'__'"),
    ("x = y\n", "not_allowed", 1, 5, "not defined"),
    ("x = torch.ones(1)\n", "not_allowed", 1, 5, "import torch"),
    ("print(__x := 1)\n", "not_allowed", 1, 7, "'__'"),
    ("from torch import *\n", "not_allowed", 1, 1, "import *"),
    ("from . import torch\n", "not_allowed", 1, 1, "relative"),
    ("x = 1j\n", "not_allowed", 1, 5, "complex"),
    ("x = b'a'\n", "not_allowed", 1, 5, "bytes"),
    ("@print\nclass A:\n    pass\n", "not_allowed", 1, 2, "class decorators"),
    ("class A(metaclass=print):\n    pass\n", "not_allowed", 1, 19, "metaclass"),
    ("class A:\n    def __getattr__(self, n):\n        return 'x'\n", "not_allowed", 2, 5, "'__'"),
    ("class A:\n    def __del__(self):\n        pass\n", "not_allowed", 2, 5, "'__'"),
    ("class A:\n    for i in range(2):\n        pass\n", "not_allowed", 2, 5, "class body"),
    ("def f(__x):\n    pass\n", "not_allowed", 1, 7, "'__'"),
    ("def f(**kw):\n    pass\nf(**{})\nf(__x=1)\n", "not_allowed", 4, 3, "'__'"),
    ("break\n", "syntax", 1, 1, "outside loop"),
    ("def f():\n    for i in range(2):\n        def g():\n            continue\n", "syntax",
     4, 13, "not properly in loop"),
    ("return 1\n", "syntax", 1, 1, "outside function"),
    ("match 1:\n    case __x:\n        pass\n", "not_allowed", 2, 10, "'__'"),
    ("match 1:\n    case x:\n        pass\n    case 1:\n        pass\n", "syntax", 2, 10,
     "makes remaining patterns unreachable"),
    ("import torch\nx = torch.ones(1)\nx.__dict__ = {}\n", "not_allowed", 3, 1, "'__'"),
    ("class A:\n    pass\nA.__init__ = print\n", "not_allowed", 3, 1, "'__'"),
    ("x = f'{print.__self__}'\n", "not_allowed", 1, 8, "'__'"),
]


@pytest.mark.parametrize("src,kind,line,col,words", REJECTED)
def test_rejected_program_fails_at_its_line_and_column(src, kind, line, col, words):
    result = run(src)
    err = result.error
    assert isinstance(err, ProgramError)
    assert (err.kind, err.line, err.col) == (kind, line, col), err
    assert words.lower() in err.message.lower()
    assert result.steps == []  # nothing ran: validation happens before the first statement
    with pytest.raises(ProgramError):
        parse(src)


RUNTIME_NOT_ALLOWED = [
    ("import torch\nx = torch.ones(2)\ny = x.numpy()\n", 3, 5, ".numpy of a tensor"),
    ("import torch\nx = torch.backend\n", 2, 5, "torch.backend"),
    ("import torch\nx = torch.ones(2)\ns = 'a'.encode()\n", 3, 5, ".encode"),
    ("import torch\nx = torch.ones(2)\nx.shape = (1, 2)\n", 3, 1, ".grad"),
    ("import torch\nx = torch.ones(2)\nx.grad_fn.name()\n", 3, 1, "NoneType"),
    ("import torch\nwith torch.ones(1):\n    pass\n", 2, 6, "with statement"),
    ("x = (1, 2)\nx[0] = 3\n", 2, 1, "items of tensors, lists and dicts"),
    ("import torch.nn as nn\nm = nn.Linear(2, 2)\nm.reset_parameters()\n", 3, 1,
     ".reset_parameters"),
    ("import torch\ng = torch.no_grad()\ng(print)\n", 3, 1, "cannot be called"),
]


@pytest.mark.parametrize("src,line,col,words", RUNTIME_NOT_ALLOWED)
def test_objects_attributes_are_checked_when_the_statement_runs(src, line, col, words):
    err = run(src).error
    assert isinstance(err, ProgramError)
    assert (err.line, err.col) == (line, col), err
    assert err.kind in ("not_allowed", "runtime")
    assert words in err.message


def test_missing_attribute_of_a_plain_value_is_pythons_attribute_error():
    err = run("import torch\nx = torch.ones(2)\nx.grad_fn.name()\n").error
    assert (err.kind, err.exc_type) == ("runtime", "AttributeError")
    assert err.message == "'NoneType' object has no attribute 'name'"


def test_syntax_error_carries_pythons_message_and_position():
    err = run("import torch\nx = torch.ones(2\nprint(x)\n").error
    assert err.kind == "syntax" and err.line == 2 and err.exc_type == "SyntaxError"


def test_columns_count_characters_not_bytes():
    err = run("s = 'ééé'; y = undefined_name\n").error
    assert (err.line, err.col) == (1, 16)


# -- runtime errors stop the run like a notebook cell -------------------------------------------

def test_runtime_error_stops_at_its_statement_and_keeps_what_ran_before():
    src = dedent("""
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        print("before")
        z = x * 2
        z.backward()
        print("after")
    """)
    result = run(src)
    err = result.error
    assert err.kind == "runtime" and err.exc_type == "RuntimeError"
    assert err.message == "grad can be implicitly created only for scalar outputs"
    assert (err.line, err.col) == (5, 1)
    assert result.output == "before\n"
    assert "z" in result.namespace and "x" in result.namespace
    assert [s.line for s in result.steps] == [1, 2, 3, 4, 5]
    assert result.steps[-1].error is err and all(s.error is None for s in result.steps[:-1])


def test_runtime_error_inside_a_loop_reports_the_iteration():
    src = "import torch\nx = torch.ones(3)\nfor i in range(5):\n    y = x[i]\n"
    result = run(src)
    err = result.error
    assert (err.exc_type, err.line) == ("IndexError", 4)
    assert "index 3 is out of bounds" in err.message
    assert result.steps[-1].loop == (3,)


def test_leaf_in_place_error_is_torchs():
    result = run("import torch\nx = torch.ones(2, requires_grad=True)\nx += 1\n")
    assert result.error.exc_type == "RuntimeError"
    assert "a leaf Variable that requires grad" in result.error.message


def test_name_used_before_assignment_is_a_name_error():
    err = run("x = 1\nprint(y)\ny = 2\n").error
    assert (err.kind, err.exc_type, err.line, err.col) == ("runtime", "NameError", 2, 7)


def test_unpacking_the_wrong_number_of_values_is_pythons_value_error():
    err = run("a, b = (1, 2, 3)\n").error
    assert err.exc_type == "ValueError" and "too many values to unpack" in err.message


def test_python_errors_keep_their_type_names():
    assert run("x = 1 / 0\n").error.exc_type == "ZeroDivisionError"
    assert run("x = 10.0 ** 400\n").error.exc_type == "OverflowError"
    assert run("import torch\nx = torch.ones(2) + torch.ones(3)\n").error.exc_type == \
        "RuntimeError"


# -- warnings, grad mode isolation, steps and the observer ------------------------------------

def test_engine_warnings_are_captured_with_their_line():
    src = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ng = y.grad\nprint(g)\n"
    result = run(src)
    assert result.error is None and result.output == "None\n"
    assert len(result.warnings) == 1
    w = result.warnings[0]
    assert w.category == "UserWarning" and w.line == 4
    assert "is not a leaf Tensor" in w.message
    assert result.steps[3].warnings == [w]


def test_program_grad_mode_never_leaks_into_the_host():
    assert grad_mode.state.grad_enabled
    result = run("import torch\ntorch.set_grad_enabled(False)\nx = torch.ones(1)\n")
    assert result.error is None
    assert grad_mode.state.grad_enabled
    steps = Interpreter().steps("import torch\nwith torch.no_grad():\n    x = 1\n    y = 2\n")
    next(steps)
    with_step = next(steps)
    assert with_step.kind == "with"
    assert grad_mode.state.grad_enabled  # suspended inside the block: the host is unaffected
    inner = next(steps)
    assert inner.grad_enabled is False
    steps.close()
    assert grad_mode.state.grad_enabled


def test_steps_iterator_yields_each_executed_statement_in_order():
    src = "import torch\nx = torch.ones(1)\nfor i in range(2):\n    y = x * i\nprint(y)\n"
    gen = Interpreter().steps(src)
    seen = []
    with pytest.raises(StopIteration) as stop:
        while True:
            seen.append(next(gen))
    result = stop.value.value
    # the for header is a step (it evaluates the iterable), then the body once per iteration
    assert [(s.line, s.kind, s.loop) for s in seen] == [
        (1, "import", ()), (2, "assign", ()), (3, "for", ()), (4, "assign", (0,)),
        (4, "assign", (1,)), (5, "expr", ())]
    assert [s.index for s in seen] == list(range(6))
    assert seen[3].stmt_id == seen[4].stmt_id == 3
    assert seen[3].assigned == ["y"]
    assert result.output == "tensor([1.])\n"


def test_before_and_after_step_hooks_wrap_every_statement():
    calls = []
    Interpreter().run("x = 1\nprint(x)\n", on_step=lambda s: calls.append(("after", s.line,
                                                                           s.output)),
                      before_step=lambda s: calls.append(("before", s.line, s.output)))
    assert calls == [("before", 1, ""), ("after", 1, ""), ("before", 2, ""),
                     ("after", 2, "1\n")]


def test_a_session_observer_receives_the_engine_events_of_the_run():
    class Recorder(engine_observer.Observer):
        def __init__(self):
            self.events = []

        def tensor_created(self, tensor, node, op, inputs):
            self.events.append(("created", op))

        def accumulate(self, tensor, before, delta, after):
            self.events.append(("accumulate", tuple(after.tolist())))

    rec = Recorder()
    result = run("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x * x\n"
                 "y.backward()\n", observer=rec)
    assert result.error is None
    assert ("created", "tensor") in rec.events
    assert ("accumulate", (4.0,)) in rec.events
    assert engine_observer.current() is None  # nothing left installed


def test_limits_are_configurable():
    small = Limits(max_executed=3)
    err = run("x = 1\nx = 2\nx = 3\nx = 4\n", limits=small).error
    assert (err.kind, err.limit, err.line) == ("limit", "max_executed", 4)


def test_error_to_dict_has_every_field():
    d = run("x = y\n").error.to_dict()
    assert d == {"kind": "not_allowed", "message": "name 'y' is not defined", "line": 1,
                 "col": 5, "end_line": 1, "end_col": 6, "exc_type": "NameError", "limit": None}


# Learning-rate schedules and gradient clipping, reached by every spelling torch offers. Each
# expected output was printed by torch 2.13 running the same program (and is compared live with
# torch below when it imports).
SCHEDULE_PROGRAMS = {
    "step_lr_training_loop": ("""
        import torch
        import torch.nn as nn
        from torch.optim.lr_scheduler import StepLR

        torch.manual_seed(0)
        model = nn.Linear(2, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        sched = StepLR(opt, step_size=2, gamma=0.5)
        x = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
        y = torch.tensor([[1.0], [0.0]])
        for epoch in range(5):
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            opt.step()
            sched.step()
            print(epoch, sched.last_epoch, sched.get_last_lr(), f"{loss.item():.4f}")
        print(opt.param_groups[0]["lr"], sched.optimizer is opt, sched.base_lrs)
        print(sorted(sched.state_dict()))
        """, """
        0 1 [0.05] 0.8208
        1 2 [0.025] 0.1800
        2 3 [0.025] 0.0519
        3 4 [0.0125] 0.0337
        4 5 [0.0125] 0.0227
        0.0125 True [0.05]
        ['_get_lr_called_within_step', '_is_initial', '_last_lr', '_step_count', 'base_lrs', 'gamma', 'last_epoch', 'step_size']
        """),
    "clip_grad_norm_training_loop": ("""
        import torch
        from torch import nn
        from torch.optim import lr_scheduler

        w = nn.Parameter(torch.tensor([3.0, -4.0]))
        opt = torch.optim.SGD([w], lr=0.1)
        sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)
        for step in range(3):
            opt.zero_grad()
            loss = (w * w).sum() * 10
            loss.backward()
            total = nn.utils.clip_grad_norm_([w], max_norm=1.0)
            print(step, f"{total.item():.4f}", w.grad)
            opt.step()
            sched.step()
            print(w.data, sched.get_last_lr())
        torch.nn.utils.clip_grad_value_([w], 0.5)
        print(w.grad)
        v = torch.nn.utils.parameters_to_vector([w])
        torch.nn.utils.vector_to_parameters(v * 2, [w])
        print(v, w)
        """, """
        0 100.0000 tensor([ 0.6000, -0.8000])
        tensor([ 2.9400, -3.9200]) [0.09000000000000001]
        1 98.0000 tensor([ 0.6000, -0.8000])
        tensor([ 2.8860, -3.8480]) [0.08100000000000002]
        2 96.2000 tensor([ 0.6000, -0.8000])
        tensor([ 2.8374, -3.7832]) [0.07290000000000002]
        tensor([ 0.5000, -0.5000])
        tensor([ 2.8374, -3.7832], grad_fn=<CatBackward0>) Parameter containing:
        tensor([ 5.6748, -7.5664], requires_grad=True)
        """),
    "lambda_plateau_and_cosine": ("""
        import torch
        from torch import nn, optim
        w = nn.Parameter(torch.tensor([1.0]))
        opt = optim.SGD([w], lr=1.0)
        lam = optim.lr_scheduler.LambdaLR(opt, lambda e: 1 / (e + 1))
        plat = optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
        cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
        for e in range(4):
            opt.step()
            lam.step()
            plat.step(1.0)
            print(e, lam.get_last_lr(), plat.get_last_lr(), plat.num_bad_epochs,
                  plat.in_cooldown, plat.best)
        print(cos.T_max, cos.eta_min, lam.state_dict()["lr_lambdas"])
        """, """
        0 [0.5] [0.5] 0 False 1.0
        1 [0.3333333333333333] [0.3333333333333333] 1 False 1.0
        2 [0.25] [0.125] 0 False 1.0
        3 [0.2] [0.2] 1 False 1.0
        4 0.0 [None]
        """),
    "optimizer_state_save_and_load": ("""
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        for _ in range(2):
            opt.zero_grad()
            (w ** 2).sum().backward()
            opt.step()
        print(opt.state[w])
        sd = opt.state_dict()
        print(sd["state"], sd["param_groups"][0]["params"])
        fresh = torch.optim.SGD([w], lr=0.5, momentum=0.9)
        fresh.load_state_dict(sd)
        print(fresh.param_groups[0]["lr"], fresh.state[w]["momentum_buffer"])
        fresh.add_param_group({"params": [torch.zeros(1, requires_grad=True)]})
        print(len(fresh.param_groups), fresh.param_groups[1]["lr"])
        """, """
        {'momentum_buffer': tensor([ 3.4000, -6.8000])}
        {0: {'momentum_buffer': tensor([ 3.4000, -6.8000])}} [0]
        0.1 tensor([ 3.4000, -6.8000])
        2 0.5
        """),
}


@pytest.mark.parametrize("name", sorted(SCHEDULE_PROGRAMS))
def test_schedules_and_clipping_print_what_torch_prints(name):
    src, expected = SCHEDULE_PROGRAMS[name]
    assert program_output(dedent(src)) == dedent(expected)


@pytest.mark.parametrize("name", sorted(SCHEDULE_PROGRAMS))
def test_schedule_expectations_are_torchs_own_output(name):
    torch = pytest.importorskip("torch")
    src, expected = SCHEDULE_PROGRAMS[name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # real torch running the test's own program (test code only, never the playground)
        exec(compile(dedent(src), "<torch>", "exec"), {"torch": torch})
    assert out.getvalue() == dedent(expected)


_SCHED = dedent("""
    import torch
    from torch import nn
    from torch.optim import lr_scheduler
    w = nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([w], lr=0.1)
    s = lr_scheduler.StepLR(opt, 1)
    """)


@pytest.mark.parametrize("src,words", [
    ("torch.optim.lr_scheduler.__dict__", "'__' are not allowed"),
    ("lr_scheduler.__dict__", "'__' are not allowed"),
    ("s.__dict__", "'__' are not allowed"),
    ("s.step.__self__", "'__' are not allowed"),
    ("lr_scheduler._check_optimizer", "lr_scheduler._check_optimizer is not available"),
    ("lr_scheduler.math", "lr_scheduler.math is not available"),
    ("lr_scheduler.LRScheduler", "lr_scheduler.LRScheduler is not available"),
    ("import torch.optim.lr_scheduler as L\nL.warnings", "lr_scheduler.warnings is not"),
    ("from torch.optim.lr_scheduler import Optimizer", "lr_scheduler.Optimizer is not"),
    ("s._last_lr", "._last_lr of a StepLR object"),
    ("s._step_count", "._step_count of a StepLR object"),
    ("s.optimizer._opt_called", "._opt_called of a SGD object"),
    ("print('{0._last_lr}'.format(s))", "._last_lr of a StepLR object"),
    ("s.last_epoch = 3", "can be assigned (not .last_epoch"),
    ("nn.utils._grads", "torch.nn.utils._grads is not available"),
    ("torch.nn.utils.tensor", "torch.nn.utils.tensor is not available"),
    ("nn.utils.grad_mode", "torch.nn.utils.grad_mode is not available"),
])
def test_schedule_and_utils_internals_stay_refused(src, words):
    err = run(_SCHED + src + "\n").error
    assert err is not None and err.kind == "not_allowed", err
    assert words in err.message
    assert err.line == _SCHED.count("\n") + 1 + src.count("\n")


def test_each_run_resolves_its_own_functions_scopes():
    # Function scopes were once cached by id() of the syntax node across runs: when a later run's
    # tree reused a freed node's address, its function got the old scope (a nonlocal became a
    # local). Alternate two programs whose functions differ only in their scope, many times.
    plain = "def make():\n    v = 0\n    def f(x):\n        w = x\n        return w\n    return f\n"
    keeps = ("def make():\n    v = 0\n    def f(x):\n        nonlocal v\n        v = v + x\n"
             "        return v\n    return f\n")
    calls = "f = make()\nf(1)\nprint(f(2))\n"
    for _ in range(300):
        assert run(plain + calls).output == "2\n"
        assert run(keeps + calls).output == "3\n"


def test_a_name_error_in_an_except_clause_is_the_programs_error():
    caught = ("try:\n    try:\n        1 / 0\n    except missing:\n        pass\n"
              "except NameError as e:\n    print('caught', e)\nmissing = 1\n")
    assert run(caught).output == "caught name 'missing' is not defined\n"
    uncaught = "try:\n    1 / 0\nexcept missing:\n    pass\nmissing = 1\n"
    err = run(uncaught).error
    assert (err.kind, err.exc_type, err.line) == ("runtime", "NameError", 3)


def test_a_runs_print_options_are_its_own():
    # torch.set_printoptions changes the run's options only: not the host's, not the next run's
    first = run("import torch\ntorch.set_printoptions(precision=1)\nprint(torch.tensor([1.25]))\n")
    assert first.error is None and first.output == "tensor([1.2])\n"
    assert repr(engine.tensor([1.25])) == "tensor([1.2500])"
    second = run("import torch\nprint(torch.tensor([1.25]))\n")
    assert second.output == "tensor([1.2500])\n"


def test_what_torch_has_and_the_playground_lacks_is_named_so():
    for src, words in (("import torch\ntorch.save({}, 'x.pt')\n", "torch.save is not available"),
                       ("from torch import nn\nr = nn.LSTM(2, 2)\n", "torch.nn.LSTM is not available"),
                       ("import torch.optim as optim\nf = optim.lr_scheduler.OneCycleLR\n",
                        "OneCycleLR is not available")):
        err = run(src).error
        assert (err.kind, err.line) == ("not_allowed", 2) and words in err.message, err
    err = run("import torch\nx = torch.zeroes(3)\n").error  # torch has no such name either
    assert (err.kind, err.exc_type) == ("runtime", "AttributeError")
    assert err.message == "module 'torch' has no attribute 'zeroes'"


def test_the_table_of_torchs_names_is_torchs():
    torch = pytest.importorskip("torch")
    import json
    import subprocess
    import sys

    from playground.program.policy import NAMESPACES
    from playground.program.torch_api_names import TORCH_API_NAMES
    assert set(TORCH_API_NAMES) == set(NAMESPACES)
    # in a fresh process, as the table was recorded: importing torch's submodules adds names
    code = ("import importlib, json, sys\npaths = json.loads(sys.argv[1])\n"
            "print(json.dumps({p: sorted(n for n in dir(importlib.import_module(p)) "
            "if not n.startswith('_')) for p in paths}))")
    out = subprocess.run([sys.executable, "-c", code, json.dumps(sorted(NAMESPACES))],
                         capture_output=True, text=True, check=True, cwd="/")
    for path, names in json.loads(out.stdout).items():
        assert TORCH_API_NAMES[path] == set(names), (
            f"{path}: re-run scripts/record_torch_api_names.py (torch {torch.__version__})")
