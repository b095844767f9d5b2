"""A property-based fuzzer over programs: syntax trees built from a small grammar of the program
language, mixing the heavy work an attacker would reach for (products of big tensors in loops,
hooks that multiply during backward, printing containers of tensors, sizes of every type), run
through the worker host's real entry point (`handle_json`) with a short time limit.

Whatever a generated program does, the host answers once, with a timeline or a clean error of a
known kind, with no traceback or host path, and within the time limit plus a margin (the engine
checks the run's deadline at every op, hook and print; engine/budget.py). The examples are
derandomized and few, so CI runs the same ones in a few seconds.
"""

import ast
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import playground
from playground.host import Host, handle_json
from playground.limits import default_limits

SECONDS = 0.5
LIMITS = replace(default_limits(), max_seconds=SECONDS)
ROOT = str(Path(playground.__file__).resolve().parent.parent)
SECRETS = ("Traceback", 'File "', ROOT, sys.prefix)
KINDS = {"limit", "runtime", "not_allowed", "syntax"}

NAMES = ("a", "b", "x", "y")  # every program binds all of them first (see _program)


def _name(n: str) -> ast.expr:
    return ast.Name(n, ast.Load())


def _torch(fn: str, *args) -> ast.expr:
    return ast.Call(ast.Attribute(_name("torch"), fn, ast.Load()), list(args), [])


def _method(obj: ast.expr, fn: str, *args) -> ast.expr:
    return ast.Call(ast.Attribute(obj, fn, ast.Load()), list(args), [])


# sizes of every type a program can write: ints small and huge, floats, bools, tensors
_sizes = st.one_of(  # mostly ints that fit, so most programs get to their heavy part
    st.integers(1, 600), st.integers(1, 600), st.integers(0, 600),
    st.sampled_from([10**5, 10**6, 2**31, 2**63, -1]),
    st.floats(0, 1e5, allow_nan=False), st.booleans(),
).map(lambda v: ast.Constant(v))
_size_exprs = st.one_of(_sizes, _sizes.map(lambda c: _torch("tensor", c)))
_factories = st.builds(lambda fn, dims: _torch(fn, *dims),
                       st.sampled_from(["zeros", "ones", "rand", "randn", "empty"]),
                       st.lists(_size_exprs, min_size=1, max_size=3))
_leaves = st.one_of(st.sampled_from(NAMES).map(_name), _factories,
                    st.floats(-3, 3, allow_nan=False).map(ast.Constant))


def _extend(inner):
    return st.one_of(
        st.builds(lambda left, op, right: ast.BinOp(left, op, right), inner,
                  st.sampled_from([ast.MatMult(), ast.Add(), ast.Mult()]), inner),
        st.builds(lambda e, fn: _method(e, fn), inner,
                  st.sampled_from(["sum", "t", "relu", "tanh", "exp", "unbind", "tolist"])),
        st.builds(lambda e, n: ast.BinOp(ast.List([e], ast.Load()), ast.Mult(), ast.Constant(n)),
                  inner, st.sampled_from([1, 10, 1000])),
        st.builds(lambda e: _torch("stack", e), inner),
        st.builds(lambda e: _torch("Size", e), inner),
    )


_exprs = st.recursive(_leaves, _extend, max_leaves=6)

# what a hook may return: the gradient, a product, or something torch refuses
_hook_bodies = st.one_of(
    st.just(_name("g")),
    _exprs.map(lambda e: ast.BinOp(_name("g"), ast.MatMult(), e)),
    st.sampled_from([ast.Constant(5), ast.Constant("s"), ast.Constant(None)]),
    _exprs,
)


def _assign(target: str, value: ast.expr) -> ast.stmt:
    return ast.Assign([ast.Name(target, ast.Store())], value)


def _expr_stmt(value: ast.expr) -> ast.stmt:
    return ast.Expr(value)


def _loop(n: int, body: list) -> ast.stmt:
    return ast.For(ast.Name("i", ast.Store()), ast.Call(_name("range"), [ast.Constant(n)], []),
                   body, [])


_hook = st.builds(
    lambda target, body: _expr_stmt(_method(_name(target), "register_hook", ast.Lambda(
        ast.arguments([], [ast.arg("g")], None, [], [], None, []), body))),
    st.sampled_from(["x", "y"]), _hook_bodies)
_simple = st.one_of(
    st.builds(_assign, st.sampled_from(NAMES), _exprs),
    _exprs.map(lambda e: _expr_stmt(ast.Call(_name("print"), [e], []))),
    _hook,
    st.just(_expr_stmt(_method(_method(_name("y"), "sum"), "backward"))),
)
_statements = st.one_of(
    _simple,
    st.builds(_loop, st.sampled_from([3, 100, 5000, 2**63]), st.lists(_simple, min_size=1,
                                                                       max_size=3)),
)


def _program(stmts: list) -> str:
    head = ast.parse("import torch\na = torch.ones(300, 300)\nb = torch.ones(300)\n"
                     "x = torch.ones(300, 300, requires_grad=True)\ny = x * 2\n").body
    tree = ast.Module(head + stmts, [])
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


@settings(max_examples=25, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(_statements, min_size=1, max_size=5))
def test_generated_heavy_programs_get_one_clean_answer_within_the_time_limit(stmts):
    program = _program(stmts)
    start = time.perf_counter()
    text = handle_json(Host(LIMITS), json.dumps({"type": "run", "id": 1, "program": program}))
    took = time.perf_counter() - start
    for secret in SECRETS:
        assert secret not in text, (program, text[:300])
    reply = json.loads(text)
    if reply["type"] == "error":  # a reply that could not be encoded within the time limit
        assert reply["error"]["kind"] == "limit", (program, reply)
        return
    assert reply["type"] == "result", (program, reply)
    error = reply["timeline"]["error"]
    assert error is None or error["kind"] in KINDS, (program, error)
    # generous: the limit is checked at every op, so overshooting it by one op is all there is
    assert took < SECONDS + 8.0, (program, took)
