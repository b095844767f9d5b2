"""The pure backend's JavaScript lane (engine/backend/js_kernels.py, taken in the browser) gives
bit for bit what its Python lane gives, and what the numpy backend gives for element-wise ops and sums.

The lane only exists in Pyodide, so this test runs the engine in Pyodide under Node.js (the npm
package the site ships), computes every case once with the JavaScript loops and once with them
switched off, and compares both with the numpy backend here. Skipped, saying why, when Node.js or
the npm `pyodide` package is absent.
"""

from __future__ import annotations

import io
import json
import math
import random
import shutil
import struct
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYODIDE = ROOT / "node_modules" / "pyodide"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (PYODIDE / "pyodide.mjs").exists(),
    reason="needs Node.js and the npm package pyodide (npm install) to run the browser's lane")

F32_MAX = struct.unpack("<f", struct.pack("<I", 0x7F7FFFFF))[0]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, 1e-45, -1e-45, 1e-38, F32_MAX, -F32_MAX, 1e30, -1e30,
           math.inf, -math.inf, math.nan, 2.0 ** -149, 1.0000001, 0.1, -7.25]
# around the boundaries of torch's sum kernel (engine/backend/sum_order.py); 40001 is
# summed in two pieces, as torch's two threads do
SUM_LENGTHS = [64, 100, 127, 128, 129, 136, 255, 511, 512, 513, 1000, 2001, 8193, 40001]

# Runs in Pyodide: every case through the JavaScript loops, then through the Python ones.
IN_PYODIDE = r"""
import json, os, struct, sys, zipfile
os.environ["GRADPLAY_BACKEND"] = "pure"
zipfile.ZipFile("/engine.zip").extractall("/src")
sys.path.insert(0, "/src")
import engine.backend.pure_backend as pb

cases = json.loads(open("/cases.json").read())
FMT = {"float32": "<f", "float64": "<d"}

def bits(values, dtype):
    return ["nan" if v != v else struct.pack(FMT[dtype], v).hex() for v in values]

def flat(a):
    return pb.tolist(pb.reshape(a, (-1,)))

def expanded(x, y):  # the single value of the two, expanded to the other's shape
    if x.ndim == 0:
        return pb.expand(x, y.shape), y
    return x, pb.expand(y, x.shape)

def run():
    out = []
    for c in cases:
        dt = c["dtype"]
        x = pb.array(c["x"], dt)
        if c["op"] in ("add", "sub", "mul", "div"):
            y = pb.array(c["y"], dt)
            if c.get("expand"):
                x, y = expanded(x, y)
            r = getattr(pb, c["op"])(x, y)
        elif c["op"] == "neg":
            r = pb.neg(x)
        elif c["op"] == "astype":
            r = pb.astype(x, c["to"])
            dt = c["to"]
        else:
            x = pb.reshape(x, tuple(c.get("shape", [len(c["x"])])))
            r = pb.sum(x, None if c.get("dims") is None else tuple(c["dims"]),
                       c.get("keepdim", False))
        out.append(bits(flat(r), dt))
    return out

kernels = pb._JS
assert kernels is not None, "no JavaScript lane in Pyodide"
js = run()
pb._JS = None
py = run()
json.dumps({"js": js, "py": py})
"""

NODE_SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [pyodideDir, engineZip, casesFile, programFile] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(pyodideDir + "/pyodide.mjs").href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + "/" });
pyodide.FS.writeFile("/engine.zip", readFileSync(engineZip));
pyodide.FS.writeFile("/cases.json", readFileSync(casesFile));
process.stdout.write(pyodide.runPython(readFileSync(programFile, "utf8")));
"""


def _cases():
    rng = random.Random(10)
    cases = []
    for dtype in ("float32", "float64"):
        vals = SPECIAL + [rng.uniform(-1e3, 1e3) for _ in range(60)] + \
            [rng.gauss(0, 1) * 10 ** rng.randint(-40, 40) for _ in range(30)]
        if dtype == "float32":
            vals = [struct.unpack("<f", struct.pack("<f", v))[0] if abs(v) <= F32_MAX or
                    math.isinf(v) or v != v else math.copysign(math.inf, v) for v in vals]
        other = vals[7:] + vals[:7]
        for op in ("add", "sub", "mul", "div"):
            cases.append({"op": op, "dtype": dtype, "x": vals, "y": other})
            for s in SPECIAL[:16:3] + [vals[40]]:
                cases.append({"op": op, "dtype": dtype, "x": vals, "y": s})
                cases.append({"op": op, "dtype": dtype, "x": s, "y": vals})
                # one value expanded to the other's shape (strides 0), as a sum's gradient
                cases.append({"op": op, "dtype": dtype, "x": vals, "y": s, "expand": True})
                cases.append({"op": op, "dtype": dtype, "x": s, "y": vals, "expand": True})
        cases.append({"op": "neg", "dtype": dtype, "x": vals})
        for n in SUM_LENGTHS:
            xs = [rng.gauss(0, 1) * 10 ** rng.randint(-3, 3) for _ in range(n)]
            if dtype == "float32":
                xs = [struct.unpack("<f", struct.pack("<f", v))[0] for v in xs]
            cases.append({"op": "sum", "dtype": dtype, "x": xs})
            # the same values as a row, a column and a matrix, summed whole or along a dim
            for shape, dims in (([1, n], [1]), ([n, 1], [0]), ([n, 1], [0, 1])):
                cases.append({"op": "sum", "dtype": dtype, "x": xs, "shape": shape,
                              "dims": dims, "keepdim": True})
            if n % 8 == 0:
                for dims in ([0], [1], None):
                    cases.append({"op": "sum", "dtype": dtype, "x": xs, "shape": [n // 8, 8],
                                  "dims": dims})
    f32 = next(c["x"] for c in cases if c["dtype"] == "float32")
    cases.append({"op": "astype", "dtype": "float32", "x": f32, "to": "float64"})
    # float64 values that round to float32 at a tie, past its largest value, below its smallest
    ties = [1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, F32_MAX * (1 + 2.0 ** -25), 2.0 ** 128, 2.0 ** -150,
            3 * 2.0 ** -151, -(1 + 2.0 ** -24)]
    cases.append({"op": "astype", "dtype": "float64", "x": ties * 10, "to": "float32"})
    return cases


def _engine_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path in sorted((ROOT / "engine").rglob("*.py")):
            z.write(path, path.relative_to(ROOT).as_posix())
    return buf.getvalue()


def _bits(values, dtype):
    fmt = "<f" if dtype == "float32" else "<d"
    return ["nan" if v != v else struct.pack(fmt, v).hex() for v in values]


def _numpy_results(cases):
    np = pytest.importorskip("numpy")
    from engine.backend import numpy_backend as nb

    out = []
    for c in cases:
        dt = c["dtype"]
        x = nb.array(c["x"], dt)
        if c["op"] in ("add", "sub", "mul", "div"):
            y = nb.array(c["y"], dt)
            if c.get("expand"):
                shape = max(x.shape, y.shape, key=len)
                x, y = nb.expand(x, shape), nb.expand(y, shape)
            with np.errstate(all="ignore"):
                r = getattr(nb, c["op"])(x, y)
        elif c["op"] == "neg":
            r = nb.neg(x)
        elif c["op"] == "astype":
            with np.errstate(all="ignore"):
                r = nb.astype(x, c["to"])
            dt = c["to"]
        else:
            x = nb.reshape(x, tuple(c.get("shape", [len(c["x"])])))
            # both backends add in torch's order
            r = nb.sum(x, None if c.get("dims") is None else tuple(c["dims"]),
                       c.get("keepdim", False))
        out.append(_bits(nb.reshape(r, (-1,)).tolist(), dt))
    return out


@pytest.fixture(scope="module")
def lanes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("js_kernels")
    cases = _cases()
    (tmp / "engine.zip").write_bytes(_engine_zip())
    (tmp / "cases.json").write_text(json.dumps(cases))
    (tmp / "program.py").write_text(IN_PYODIDE)
    (tmp / "run.mjs").write_text(NODE_SCRIPT)
    done = subprocess.run(
        [NODE, str(tmp / "run.mjs"), str(PYODIDE), str(tmp / "engine.zip"),
         str(tmp / "cases.json"), str(tmp / "program.py")],
        capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return cases, json.loads(done.stdout)


def test_the_javascript_lane_gives_the_python_lanes_bits(lanes):
    cases, got = lanes
    assert len(got["js"]) == len(cases)
    for case, js, py in zip(cases, got["js"], got["py"]):
        assert js == py, {k: case[k] for k in ("op", "dtype")}


def test_the_javascript_lane_gives_the_numpy_backends_bits(lanes):
    cases, got = lanes
    checked = 0
    for case, js, want in zip(cases, got["js"], _numpy_results(cases)):
        if want is not None:
            assert js == want, {k: case[k] for k in ("op", "dtype")}
            checked += 1
    assert checked > 100
