"""Match statements: every kind of pattern runs as Python 3.11 runs it (the oracle is Python
itself running the same text, with `import engine as torch` where a program uses torch), and
every error Python's compiler or its pattern matching raises is raised here with the same type,
message and position. A random-pattern fuzzer compares the two on many programs."""

from __future__ import annotations

import ast
import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playground import run
from tests.test_program import dedent, python_output


def program_result(src: str):
    """(output, error) of the playground, the error as (type, message[, line, col])."""
    result = run(src)
    err = result.error
    if err is None:
        return result.output, None
    if err.kind == "syntax":
        return result.output, ("SyntaxError", err.message, err.line, err.col)
    assert err.kind == "runtime", err
    return result.output, (err.exc_type, err.message)


def python_result(src: str):
    """(output, error) of plain Python running src (the test's oracle, never the playground)."""
    out = io.StringIO()
    err = None
    with contextlib.redirect_stdout(out):
        try:
            code = compile(src, "<oracle>", "exec")
        except SyntaxError as e:
            return "", ("SyntaxError", e.msg, e.lineno, e.offset)
        try:
            exec(code, {"__name__": "__main__"})  # the oracle: test code only
        except Exception as e:
            err = (type(e).__name__, str(e))
    return out.getvalue(), err


MATCH_PROGRAMS = {
    "literals_and_singletons": """
        for v in [0, 1, -1, 2.5, "a", True, False, None, "b"]:
            match v:
                case 0:
                    print("zero", v)
                case -1:
                    print("minus one")
                case 2.5 | "a":
                    print("two and a half or a", v)
                case True:
                    print("true")
                case None:
                    print("none")
                case False:
                    print("false")
                case _:
                    print("other", v)
    """,
    "capture_guard_binds_before_guard": """
        match 3:
            case n if n > 5:
                print("big")
            case m:
                print("n stays bound when its guard is false:", n, m)
    """,
    "sequences_and_stars": """
        for v in [[], [1], [1, 2], (1, 2, 3), [1, [2, 3]], "ab", range(4), {1: 2}]:
            match v:
                case []:
                    print("empty")
                case [x]:
                    print("one", x)
                case [1, [a, b]]:
                    print("nested", a, b)
                case [first, *middle, last]:
                    print("first", first, "middle", middle, "last", last)
                case [*_]:
                    print("never")
                case _:
                    print("not a sequence", v)
    """,
    "star_wildcard_indexes": """
        match list(range(10)):
            case [a, b, *_, y, z]:
                print(a, b, y, z)
        match (1, 2):
            case (*_, last):
                print(last)
    """,
    "mappings_and_rest": """
        from collections import OrderedDict
        for v in [{"lr": 0.1}, {"lr": 0.1, "momentum": 0.9, "nesterov": False}, {}, {"x": 1},
                  OrderedDict(lr=1.0), [("lr", 1)]]:
            match v:
                case {"lr": lr, "momentum": m, **rest}:
                    print("momentum", lr, m, rest)
                case {"lr": float(lr)}:
                    print("lr only", lr)
                case {}:
                    print("some mapping", v)
                case _:
                    print("not a mapping")
        match {"a": 1, "b": 2}:
            case {**everything}:
                print(everything)
    """,
    "class_patterns_of_python_types": """
        for v in [1, True, 2.0, "s", [1], (1,), {1: 2}, {3}, None]:
            match v:
                case bool(b):
                    print("bool", b)
                case int(i):
                    print("int", i)
                case float() as f:
                    print("float", f)
                case str(s):
                    print("str", s)
                case list([x]) | tuple((x,)):
                    print("one item", x)
                case dict(d):
                    print("dict", d)
                case set():
                    print("set")
                case object():
                    print("anything", v)
    """,
    "class_patterns_of_the_programs_classes": """
        class Point:
            __match_args__ = ("x", "y")
            def __init__(self, x, y):
                self.x = x
                self.y = y
        class Point3(Point):
            __match_args__ = ("x", "y", "z")
            def __init__(self, x, y, z):
                super().__init__(x, y)
                self.z = z
        class Plain:
            def __init__(self):
                self.kind = "plain"
        def where(p):
            match p:
                case Point3(0, 0, 0):
                    return "origin in 3d"
                case Point3(x, y, z=z) if z > 0:
                    return f"above ({x}, {y}) at {z}"
                case Point(0, y):
                    return f"on the y axis at {y}"
                case Point(x=0) | Point(y=0):
                    return "on the x axis"
                case Point(x, y):
                    return f"at ({x}, {y})"
                case Plain(kind=k, missing=m):
                    return "never: no attribute `missing`"
                case Plain(kind=k):
                    return "a plain " + k
        for p in [Point3(0, 0, 0), Point3(1, 2, 3), Point3(1, 2, -3), Point(0, 5), Point(4, 0),
                  Point(2, 3), Plain()]:
            print(where(p))
    """,
    "value_patterns_are_dotted_names": """
        class Mode:
            TRAIN = "train"
            EVAL = "eval"
        class Config:
            mode = Mode
        for m in ["train", "eval", "test"]:
            match m:
                case Mode.TRAIN:
                    print("training")
                case Config.mode.EVAL:
                    print("evaluating")
                case other:
                    print("unknown", other)
    """,
    "or_and_as_patterns": """
        for v in [(1, 2), (2, 1), [3, 3], 7, "x"]:
            match v:
                case (1, b) | (b, 1):
                    print("has a one beside", b)
                case [a, b] as pair if a == b:
                    print("a pair of equals", pair)
                case (7 | 8 | 9) as n:
                    print("seven to nine", n)
                case _:
                    print("no")
    """,
    "torch_objects": """
        import torch
        import torch.nn as nn
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        def describe(v):
            match v:
                case torch.Tensor(shape=(n,), requires_grad=True):
                    return f"vector of {n} that requires grad"
                case torch.Tensor(shape=(), grad_fn=None):
                    return "a scalar leaf"
                case torch.Tensor(shape=()):
                    return "a scalar with history"
                case nn.Linear(in_features=i, out_features=o):
                    return f"linear {i}->{o}"
                case nn.Module():
                    return "module " + type(v).__name__
                case torch.Size((rows, cols)):
                    return f"size {rows}x{cols}"
                case torch.float32 | torch.float64:
                    return "a float dtype"
                case _:
                    return "other"
        for v in [x, x.sum(), torch.tensor(3.0), nn.Linear(2, 3), nn.ReLU(), torch.Size([2, 3]),
                  torch.float64, torch.int64]:
            print(describe(v))
        match x.max(0):
            case (value, index):
                print(value, index)
        match nn.Linear(2, 1).state_dict():
            case {"weight": w, **rest}:
                print(w.shape, list(rest))
        match torch.tensor(3.0):
            case 3:
                print("a one-element tensor equals 3")
    """,
    "match_in_functions_loops_and_generators": """
        def parse(commands):
            for c in commands:
                match c.split():
                    case ["stop"]:
                        break
                    case ["skip", *_]:
                        continue
                    case ["say", *words]:
                        yield " ".join(words)
                    case [verb, *_]:
                        yield "unknown " + verb
        print(list(parse(["say hello there", "skip this", "jump", "stop", "say never"])))
        def classify(n):
            match n % 3, n % 5:
                case 0, 0:
                    return "fizzbuzz"
                case 0, _:
                    return "fizz"
                case _, 0:
                    return "buzz"
            return str(n)
        print([classify(n) for n in range(1, 16)])
    """,
}


@pytest.mark.parametrize("name", sorted(MATCH_PROGRAMS))
def test_match_prints_what_python_prints(name):
    src = dedent(MATCH_PROGRAMS[name])
    result = run(src)
    assert result.error is None, result.error
    assert result.output == python_output(src)


# errors: Python's type, message and (for the compiler's) position
MATCH_ERRORS = {
    "not_a_type": "f = len\nmatch 1:\n    case f():\n        pass\n",
    "too_many_positional": "class C:\n    pass\nmatch C():\n    case C(1):\n        pass\n",
    "too_many_positional_one": ("class C:\n    __match_args__ = ('a',)\nmatch C():\n"
                                "    case C(1, 2):\n        pass\n"),
    "int_takes_one": "match 1:\n    case int(a, b):\n        pass\n",
    "match_args_not_a_tuple": ("class C:\n    __match_args__ = ['a']\nmatch C():\n"
                               "    case C(1):\n        pass\n"),
    "match_args_not_strings": ("class C:\n    __match_args__ = (1,)\nmatch C():\n"
                               "    case C(1):\n        pass\n"),
    "match_args_function": ("def f():\n    pass\nclass C:\n    __match_args__ = f\nmatch C():\n"
                            "    case C(1):\n        pass\n"),
    "attribute_twice": ("class C:\n    __match_args__ = ('a',)\n    a = 1\nmatch C():\n"
                        "    case C(x, a=2):\n        pass\n"),
    "exception_has_no_match_args": "match ValueError(1):\n    case ValueError(x):\n        pass\n",
    "duplicate_key_at_run_time": ("class K:\n    a = 1\n    b = 1\nmatch {1: 2, 3: 4}:\n"
                                  "    case {K.a: 1, K.b: 2}:\n        pass\n"),
    "unhashable_key": "class K:\n    a = []\nmatch {1: 2}:\n    case {K.a: 1}:\n        pass\n",
    "huge_range_length": "match range(2**100):\n    case [a]:\n        pass\n",
    "tensor_ambiguous": ("import torch\nmatch torch.ones(2):\n    case 1:\n        pass\n"),
    "value_name_error": "match 1:\n    case K.a:\n        pass\nK = 1\n",
    "guard_error": "match 1:\n    case x if 1 / 0:\n        pass\n",
    "capture_unbound_in_function": ("def f(v):\n    match v:\n        case [x]:\n            pass\n"
                                    "    return x\nprint(f([1]))\nprint(f(2))\n"),
    # what the compiler refuses (compile.c), at the position it reports
    "duplicate_literal_key": "match {}:\n    case {'a': 1, 'a': 2}:\n        pass\n",
    "duplicate_folded_key": "match {}:\n    case {1: 1, -0: 2, 0.0: 3}:\n        pass\n",
    "duplicate_true_key": "match {}:\n    case {1: 1, True: 2}:\n        pass\n",
    "capture_twice": "match (1, 2):\n    case (x, x):\n        pass\n",
    "capture_then_as": "match 1:\n    case [x] as x:\n        pass\n",
    "capture_then_rest": "match {}:\n    case {'a': x, **x}:\n        pass\n",
    "capture_then_star": "match []:\n    case [x, *x]:\n        pass\n",
    "irrefutable_capture_not_last": "match 1:\n    case x:\n        pass\n    case 2:\n        pass\n",
    "wildcard_not_last": "match 1:\n    case _:\n        pass\n    case 2:\n        pass\n",
    "irrefutable_as": "match 1:\n    case (x as y):\n        pass\n    case 2:\n        pass\n",
    "wildcard_as": "match 1:\n    case _ as y:\n        pass\n    case 2:\n        pass\n",
    "or_binds_different_names": "match 1:\n    case 1 | x:\n        pass\n",
    "or_irrefutable_first": "match 1:\n    case x | 1:\n        pass\n",
    "or_nested_irrefutable": "match 1:\n    case [x | 1]:\n        pass\n",
    "or_of_captures": "match 1:\n    case (x | y):\n        pass\n",
    "attribute_repeated": "match 1:\n    case int(real=1, real=2):\n        pass\n",
    "two_stars": "match 1:\n    case [*a, *b]:\n        pass\n",
    "fstring_key": "match {}:\n    case {f'a': 1}:\n        pass\n",
    "error_in_body_before_next_case": ("match 1:\n    case 1:\n        break\n    case x:\n"
                                       "        pass\n    case 2:\n        pass\n"),
    "parser_error": "match 1:\n    case x.y():\n        pass\n    case a b:\n        pass\n",
}


@pytest.mark.parametrize("name", sorted(MATCH_ERRORS))
def test_match_errors_are_pythons(name):
    src = MATCH_ERRORS[name]
    if "import torch" in src:
        # the oracle runs the program in Python itself, so a program with tensors needs torch
        pytest.importorskip("torch")
    assert program_result(src) == python_result(src)


def test_a_match_is_one_step_then_its_case_body():
    src = "v = [1, 2]\nmatch v:\n    case [a, b]:\n        print(a + b)\n"
    result = run(src)
    kinds = [(s.kind, s.line) for s in result.steps]
    assert kinds == [("assign", 1), ("match", 2), ("expr", 4)]
    assert result.steps[1].assigned == ["a", "b"]
    assert result.output == "3\n"


def test_no_case_matching_runs_nothing_and_binds_nothing():
    result = run("match 5:\n    case [x]:\n        print(x)\n    case {'k': y}:\n        pass\n")
    assert result.error is None and result.output == ""
    assert "x" not in result.namespace and "y" not in result.namespace


def test_class_patterns_read_attributes_through_the_policy():
    # an attribute a program may not read is refused in a pattern as in `obj.name`
    src = "import torch\nmatch torch.ones(1):\n    case torch.Tensor(_version=v):\n        pass\n"
    assert program_result(src)[1] is None  # _version is the one readable underscore name
    for attr in ("numpy", "_data"):
        src = f"import torch\nmatch torch.ones(1):\n    case torch.Tensor({attr}=v):\n        pass\n"
        err = run(src).error
        assert err.kind == "not_allowed" and attr in err.message and err.line == 3


# -- a differential fuzzer: random patterns against random subjects, Python is the oracle ------

_PRELUDE = dedent("""
    class K:
        one = 1
        s = "s"
        none = None
    class Point:
        __match_args__ = ("x", "y")
        def __init__(self, x, y):
            self.x = x
            self.y = y
    def show(v):
        if isinstance(v, Point):
            return ("Point", show(v.x), show(v.y))
        if isinstance(v, (list, tuple)):
            return [show(i) for i in v]
        if isinstance(v, dict):
            return {k: show(i) for k, i in v.items()}
        return v
    a = b = c = "unset"
    SUBJECTS = [0, 1, -1, 2.5, "s", "", None, True, [], [1], [1, 2], (1, "s"), [1, [2, 3]],
                {"a": 1}, {"a": 1, "b": [2]}, {1: "one"}, Point(1, 2), Point([1], None),
                range(3), {3}]
""")

_NAMES = st.sampled_from(["a", "b", "c"])
_LITERALS = st.sampled_from(["0", "1", "-1", "2.5", "'s'", "''", "None", "True", "False",
                             "K.one", "K.s", "K.none"])
_CLASSES = st.sampled_from(["Point", "int", "str", "list", "tuple", "dict", "object", "bool",
                            "float", "K", "Exception"])
_KEYS = st.sampled_from(["'a'", "'b'", "1", "K.one", "K.s"])


def _patterns():
    leaves = st.one_of(_LITERALS, _NAMES, st.just("_"))

    def grow(inner):
        items = st.lists(inner, max_size=3)
        return st.one_of(
            items.map(lambda xs: "[" + ", ".join(xs) + "]"),
            st.tuples(items, st.sampled_from(["*_", "*a", "*b"]), st.integers(0, 3)).map(
                lambda t: "[" + ", ".join(t[0][:t[2]] + [t[1]] + t[0][t[2]:]) + "]"),
            st.tuples(st.lists(st.tuples(_KEYS, inner), max_size=3),
                      st.sampled_from(["", "c"])).map(
                lambda t: "{" + ", ".join([f"{k}: {v}" for k, v in t[0]]
                                          + ([f"**{t[1]}"] if t[1] else [])) + "}"),
            st.tuples(_CLASSES, st.lists(inner, max_size=3),
                      st.lists(st.tuples(st.sampled_from(["x", "y", "real"]), inner),
                               max_size=2)).map(
                lambda t: t[0] + "(" + ", ".join(t[1] + [f"{k}={v}" for k, v in t[2]]) + ")"),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: "(" + " | ".join(xs) + ")"),
            st.tuples(inner, _NAMES).map(lambda t: f"({t[0]} as {t[1]})"),
        )
    return st.recursive(leaves, grow, max_leaves=6)


_GUARDS = st.sampled_from([None, "a", "b == 1", "c", "True", "show(a) != 0"])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.tuples(_patterns(), _GUARDS), min_size=1, max_size=4))
def test_random_match_statements_run_as_python_runs_them(cases):
    lines = ["for subject in SUBJECTS:", "    match subject:"]
    for i, (pattern, guard) in enumerate(cases):
        names = sorted({n for n in ("a", "b", "c") if n in pattern})
        guard_text = f" if {guard}" if guard else ""
        lines.append(f"        case {pattern}{guard_text}:")
        lines.append(f"            print({i}, {', '.join(f'show({n})' for n in names) or '0'})")
    src = _PRELUDE + "\n".join(lines) + "\n"
    assert program_result(src) == python_result(src), src


def test_the_fuzzers_prelude_is_a_program():
    assert run(_PRELUDE).error is None
    ast.parse(_PRELUDE)
