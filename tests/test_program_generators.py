"""Generators as CPython runs them: send, throw and close, `x = yield v`, `yield from`'s return
value and delegation, and the closing of a generator the program lets go of while it waits
(its finally blocks, with exits and a bare except run when CPython's reference counting would
close it: after a loop over it broke off, when a name or a call lets go of it, when an
exception leaves the loop or the call holding it). The oracle is Python itself running the
same text."""

from __future__ import annotations

import gc

import pytest

from playground import run
from tests.test_program import dedent
from tests.test_program_match import program_result, python_result

GENERATOR_PROGRAMS = {
    "for_break_closes": """
        def gen():
            try:
                yield 1
                yield 2
            finally:
                print("finally")
        for x in gen():
            print("got", x)
            break
        print("after loop")
    """,
    "return_inside_a_loop_in_a_function": """
        def gen():
            try:
                yield 1
                yield 2
            finally:
                print("finally")
        def first():
            for x in gen():
                return x
        print("first", first())
    """,
    "exception_leaving_the_loop": """
        def gen():
            try:
                yield 1
            finally:
                print("finally")
        try:
            for x in gen():
                raise ValueError("boom")
        except ValueError as e:
            print("caught", e)
        def f():
            for x in gen():
                raise KeyError("inner")
        try:
            f()
        except KeyError as e:
            print("caught", e)
        print("end")
    """,
    "a_traceback_keeps_the_frame": """
        def gen():
            try:
                yield 1
            finally:
                print("finally")
        def f():
            g = gen()
            next(g)
            raise ValueError("boom")
        try:
            f()
        except ValueError as e:
            print("caught", e)
        print("end")
        try:
            f()
        except ValueError as e:
            kept = e
        print("kept: not closed yet")
        del kept
        print("end again")
    """,
    "next_of_a_temporary": """
        def gen():
            try:
                yield 1
            finally:
                print("finally")
        print("next", next(gen()))
        print("end")
    """,
    "rebinding_and_del": """
        def gen(n):
            try:
                yield n
            finally:
                print("finally", n)
        g = gen(1)
        next(g)
        g = gen(2)
        print("rebound")
        next(g)
        del g
        print("deleted")
        gs = [gen(3), gen(4)]
        for g in gs:
            next(g)
        del g
        gs = None
        print("list dropped")
    """,
    "send_throw_close": """
        def running_total():
            total = 0
            try:
                while True:
                    try:
                        x = yield total
                    except ValueError as e:
                        print("handled", e)
                        x = 0
                    total += x
            finally:
                print("closing at", total)
        g = running_total()
        print(next(g))
        print(g.send(5))
        print(g.send(7))
        print(g.throw(ValueError("bad")))
        print(g.throw(ValueError, "bad2"))
        print(g.throw(ValueError, ("bad3",)))
        g.close()
        g.close()
        try:
            next(g)
        except StopIteration as e:
            print("stop", e.args)
        try:
            g.send(1)
        except StopIteration:
            print("done generators stop")
    """,
    "throw_errors": """
        def gen():
            yield 1
        g = gen()
        for args in [(1,), (ValueError("a"), "b"), (ValueError, None, 3)]:
            try:
                g.throw(*args)
            except TypeError as e:
                print("TypeError:", e)
        try:
            gen().send(1)
        except TypeError as e:
            print("TypeError:", e)
        g = gen()
        try:
            g.throw(KeyError("early"))
        except KeyError as e:
            print("raised before the first statement", e)
        print(list(g))
    """,
    "ignoring_generator_exit": """
        def stubborn():
            try:
                yield 1
            except:
                print("caught the exit")
                yield 2
        g = stubborn()
        next(g)
        try:
            g.close()
        except RuntimeError as e:
            print(type(e).__name__, e)
        def polite():
            try:
                yield 1
            except Exception:
                print("never: GeneratorExit is not an Exception")
            finally:
                print("polite finally")
        p = polite()
        next(p)
        p.close()
    """,
    "with_blocks_in_a_generator": """
        class Log:
            def __init__(self, name):
                self.name = name
            def __enter__(self):
                print("enter", self.name)
                return self
            def __exit__(self, kind, exc, tb):
                print("exit", self.name, kind, exc is None)
                return False
        def gen():
            with Log("outer"), Log("inner") as inner:
                yield inner.name
                yield "two"
        for x in gen():
            print(x)
            break
        g = gen()
        print(next(g))
        try:
            g.throw(ValueError("into the block"))
        except ValueError as e:
            print("came back out", e)
    """,
    "yield_from_delegates": """
        def inner():
            try:
                x = yield 1
                print("inner got", x)
                y = yield 2
                print("inner got", y)
            except KeyError as e:
                print("inner handled", e)
                yield 99
            finally:
                print("inner finally")
            return "inner done"
        def outer():
            try:
                r = yield from inner()
                print("outer got back", r)
                yield r
            finally:
                print("outer finally")
        g = outer()
        print(next(g))
        print(g.send("a"))
        print(g.send("b"))
        g = outer()
        next(g)
        print(g.throw(KeyError("k")))
        g.close()
        print("closed")
    """,
    "nested_for_generators": """
        def inner():
            try:
                yield 1
                yield 2
            finally:
                print("inner finally")
        def outer():
            try:
                for v in inner():
                    yield v
            finally:
                print("outer finally")
        for v in outer():
            print(v)
            break
        print("after")
        kept = inner()
        def wrap(it):
            for v in it:
                yield v
        w = wrap(kept)
        next(w)
        w.close()
        print("kept still open:", next(kept))
        kept.close()
    """,
    "zip_and_enumerate_let_go_in_cpythons_order": """
        def gen(n):
            try:
                for i in range(3):
                    yield i
            finally:
                print("finally", n)
        for i, (a, b) in enumerate(zip(gen(1), gen(2))):
            print(i, a, b)
            break
        print("after")
    """,
    "a_finally_that_raises_is_ignored": """
        def gen():
            try:
                yield 1
            finally:
                raise ValueError("in finally")
        for x in gen():
            break
        print("after")
    """,
    "a_loop_over_a_named_generator_leaves_it_open": """
        def gen():
            try:
                yield 1
                yield 2
            finally:
                print("finally")
        g = gen()
        for x in g:
            break
        print("still open")
        for x in g:
            print("resumed", x)
        print("end")
    """,
    "generator_return_value": """
        def gen():
            yield 1
            return 10
        g = gen()
        next(g)
        try:
            next(g)
        except StopIteration as e:
            print("returned", e.args)
    """,
}


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the oracle's
@pytest.mark.parametrize("name", sorted(GENERATOR_PROGRAMS))
def test_generators_run_as_python_runs_them(name):
    src = dedent(GENERATOR_PROGRAMS[name])
    assert program_result(src) == python_result(src)


def test_generators_still_waiting_are_closed_when_the_program_ends():
    # Python closes them at exit, as it clears the module's names (single-underscore names
    # first, then the others in binding order; a generator held by a list when the list goes)
    src = dedent("""
        def gen(n):
            try:
                yield n
            finally:
                print("finally", n)
        a = gen(1)
        next(a)
        b = gen(2)
        next(b)
        keep = [b]
        _c = gen(3)
        next(_c)
        d = gen(4)
        print("end of program")
    """)
    result = run(src)
    assert result.error is None
    assert result.output == "end of program\nfinally 3\nfinally 1\nfinally 2\n"
    closes = [s for s in result.steps if s.kind == "close"]
    assert [(s.line, s.output) for s in closes] == [(3, "finally 3\n"), (3, "finally 1\n"),
                                                   (3, "finally 2\n")]


def test_a_runtime_error_still_closes_them_a_limit_error_does_not():
    src = "def gen():\n    try:\n        yield 1\n    finally:\n        print('finally')\n" \
          "g = gen()\nnext(g)\n"
    result = run(src + "x = 1 / 0\n")
    assert result.error.exc_type == "ZeroDivisionError" and result.output == "finally\n"
    result = run(src + "while True:\n    pass\n")
    assert result.error.kind == "limit" and result.output == ""
    result = run(src + "import torch\ny = torch.ones(1).numpy()\n")
    assert result.error.kind == "not_allowed" and result.output == ""


def test_a_close_at_the_module_level_is_a_step_at_the_yield_it_waits_at():
    src = dedent("""
        def gen():
            try:
                yield 1
            finally:
                print("finally")
        for x in gen():
            break
        print("after")
    """)
    result = run(src)
    assert [(s.kind, s.line, s.output) for s in result.steps[-3:]] == [
        ("break", 7, ""), ("close", 3, "finally\n"), ("expr", 8, "after\n")]


def test_a_generator_freed_after_its_run_runs_none_of_its_code():
    src = dedent("""
        import torch
        log = []
        def gen():
            try:
                with torch.no_grad():
                    yield 1
            finally:
                log.append("finally")
        g = gen()
        next(g)
        raise_limit = [0] * 10**6
    """)
    result = run(src)
    assert result.error.kind == "limit"
    log = result.namespace["log"]
    del result
    gc.collect()
    import engine
    assert engine.is_grad_enabled()  # the host's grad mode is untouched
    assert log == []  # the generator went with its run's names, running none of its code
