"""A differential fuzzer for values: random valid calls of the public API, run in the engine and
in torch 2.13, compared value by value.

`catalogue` draws an example (an op and its arguments, as plain JSON) from a seed; `outcome` runs
an example in a torch-like module (the engine or real torch) and describes what came out
(values, dtype, shape, grad_fn name, the gradients of a backward with a random upstream
gradient, or the exception's type and first line), and compares two descriptions: bit for bit
where the engine claims torch's exact values, to a tight tolerance where docs/semantics.md lists
a last-bit difference (pointwise transcendental math, float sum order).

tests/test_value_fuzz.py runs the examples recorded by scripts/record_value_fuzz.py (so CI
needs no torch) and, with torch importable and GRADPLAY_VALUE_FUZZ_EXAMPLES=N, N fresh ones.
"""
