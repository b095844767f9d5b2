"""Float element loops run by JavaScript on the arrays' own memory: the pure backend's fast lane
in the browser (Pyodide), where a Python loop over 2,000 floats costs ~0.7 ms and the same loop
in JavaScript ~0.01 ms.

The pure backend keeps big float arrays in `array('f')` / `array('d')` buffers, which live in
the WebAssembly memory; JavaScript reads and writes them there through Float32Array /
Float64Array views of that memory, so nothing is copied. Exactness: JavaScript computes + - * /
of two float32 values in float64 and a Float32Array store rounds the result to the nearest
float32, which is the correctly rounded float32 result (float64 holds more than twice float32's
precision, so rounding twice cannot differ); numpy computes the same. Float64 ops are IEEE
float64 ops on both sides.

`load()` returns None outside Pyodide (and if its JavaScript bridge is missing), and the pure
backend then runs the same loops in Python.
"""

from __future__ import annotations

import sys

# the JavaScript operator of each binary op the backend hands over (the same IEEE operation as
# Python's float operator of that name)
BINARY = {"add": "+", "sub": "-", "mul": "*", "div": "/"}
_HEAPS = {"f": ("HEAPF32", 2), "d": ("HEAPF64", 3)}


# torch's vectorised sum of one contiguous run (engine/backend/sum_order.py, method "vec"), as
# torch's SumKernel.cpp loops it: row_sum over vectors of W lanes (rows of 4 vectors in a
# 4-level cascade of chunks of 2 ** lp rows, the leftover vectors, the 4 vectors in order), then
# the leftover values, then the W lanes. R(...) rounds to float32 in the float32 version and is
# nothing in the float64 one; accumulators start at 0, as torch's do.
_CASCADE = """
function multirow(h, s, size, L) {
  const lp = Math.max(4, Math.floor((size > 1 ? 32 - Math.clz32(size - 1) : 0) / 4));
  const step = 2 ** lp, mask = step - 1;
  const acc = [new Float64Array(L), new Float64Array(L), new Float64Array(L), new Float64Array(L)];
  const a0 = acc[0];
  let i = 0;
  while (i + step <= size) {
    for (let j = 0; j < step; j++, i++) {
      const base = s + i * L;
      for (let l = 0; l < L; l++) a0[l] = R(a0[l] + h[base + l]);
    }
    for (let j = 1; j < 4; j++) {
      const up = acc[j], down = acc[j - 1];
      for (let l = 0; l < L; l++) { up[l] = R(up[l] + down[l]); down[l] = 0; }
      if ((i & (mask * 2 ** (j * lp))) !== 0) break;
    }
  }
  for (; i < size; i++) {
    const base = s + i * L;
    for (let l = 0; l < L; l++) a0[l] = R(a0[l] + h[base + l]);
  }
  for (let j = 1; j < 4; j++) {
    const aj = acc[j];
    for (let l = 0; l < L; l++) a0[l] = R(a0[l] + aj[l]);
  }
  return a0;
}
function csum(h, s, n, W) {
  const nv = Math.floor(n / W), q = Math.floor(nv / 4);
  const p = multirow(h, s, q, 4 * W);
  for (let i = 4 * q; i < nv; i++) {
    for (let l = 0; l < W; l++) p[l] = R(p[l] + h[s + i * W + l]);
  }
  for (let k = 1; k < 4; k++) {
    for (let l = 0; l < W; l++) p[l] = R(p[l] + p[k * W + l]);
  }
  let f = 0;
  for (let k = nv * W; k < n; k++) f = R(f + h[s + k]);
  for (let l = 0; l < W; l++) f = R(f + p[l]);
  return f;
}
"""


class Kernels:
    """JavaScript loops over WebAssembly memory, compiled on first use, one per op, operand
    layout and float type (a loop that sees one array type only stays fast in JavaScript)."""

    def __init__(self, module, function):
        self._module = module  # the Emscripten module: its HEAPF32 / HEAPF64 views
        self._function = function  # JavaScript's Function constructor
        self._compiled: dict = {}

    def _compile(self, key, params, body):
        factory = self._function.new("M", f"return function ({params}) {{ {body} }};")
        fn = self._compiled[key] = factory(self._module)
        return fn

    def binary(self, name, tc, pa, pb, po, n, x, y):
        """out[i] = a[i] OP b[i] for n elements at byte addresses pa, pb, po; a zero address
        stands for a single value instead (x for a, y for b)."""
        key = (name, tc, pa != 0, pb != 0)
        fn = self._compiled.get(key)
        if fn is None:
            heap, shift = _HEAPS[tc]
            left = "h[a + i]" if pa else "x"
            right = "h[b + i]" if pb else "y"
            fn = self._compile(
                key, "pa, pb, po, n, x, y",
                f"const h = M.{heap}; const a = pa >>> {shift}, b = pb >>> {shift}, "
                f"o = po >>> {shift}; for (let i = 0; i < n; i++) h[o + i] = {left} "
                f"{BINARY[name]} {right};")
        fn(pa, pb, po, n, x, y)

    def neg(self, tc, pa, po, n):
        """out[i] = -a[i] for n elements at byte addresses pa, po."""
        fn = self._compiled.get(("neg", tc))
        if fn is None:
            heap, shift = _HEAPS[tc]
            fn = self._compile(
                ("neg", tc), "pa, po, n",
                f"const h = M.{heap}; const a = pa >>> {shift}, o = po >>> {shift}; "
                "for (let i = 0; i < n; i++) h[o + i] = -h[a + i];")
        fn(pa, po, n)

    def convert(self, src, dst, pa, po, n):
        """out[i] = a[i] from typecode src to dst: float32 to float64 is exact, float64 to float32
        a Float32Array store, which rounds to the nearest float32 (ties to even, +-inf beyond
        its range), as C's cast and numpy's astype do."""
        fn = self._compiled.get(("convert", src, dst))
        if fn is None:
            (h_in, s_in), (h_out, s_out) = _HEAPS[src], _HEAPS[dst]
            fn = self._compile(
                ("convert", src, dst), "pa, po, n",
                f"const hi = M.{h_in}, ho = M.{h_out}; const a = pa >>> {s_in}, "
                f"o = po >>> {s_out}; for (let i = 0; i < n; i++) ho[o + i] = hi[a + i];")
        fn(pa, po, n)


    def cascade_sum(self, tc, pa, n, width):
        """torch's sum of n contiguous elements at byte address pa in vectors of `width` lanes
        (n >= width; see _CASCADE)."""
        fn = self._compiled.get(("sum", tc))
        if fn is None:
            heap, shift = _HEAPS[tc]
            rounding = "Math.fround" if tc == "f" else "(v) => v"
            fn = self._compile(
                ("sum", tc), "pa, n, width",
                f"const R = {rounding}; {_CASCADE} return csum(M.{heap}, pa >>> {shift}, n, width);")
        return fn(pa, n, width)


def load():
    """The browser's kernels, or None where there is no Pyodide JavaScript bridge."""
    if sys.platform != "emscripten":
        return None
    try:
        import pyodide_js
        from js import Function
    except ImportError:
        return None
    module = getattr(pyodide_js, "_module", None)
    if module is None or getattr(module, "HEAPF32", None) is None:
        return None
    try:
        # a page whose Content-Security-Policy forbids 'unsafe-eval' refuses new Function():
        # then the Python loops run, rather than every op failing
        Function.new("return 0;")()
    except Exception:  # the JavaScript error, as whatever Python class Pyodide gives it
        return None
    return Kernels(module, Function)
