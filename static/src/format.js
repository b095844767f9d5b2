// Tensor values as PyTorch prints them (a port of engine/printing.py), plus the short forms node cards use.

const PRECISION = 4;
const THRESHOLD = 1000;
const EDGE_ITEMS = 3;
const LINE_WIDTH = 80;
const FLOAT_DTYPES = new Set(["float32", "float64", "float16", "bfloat16"]);
const IMPLIED_DTYPES = new Set(["float32", "int64", "bool"]);

/** Timeline JSON writes non-finite floats as strings; turn them back into numbers. */
export function num(v) {
  if (v === "nan") return NaN;
  if (v === "inf") return Infinity;
  if (v === "-inf") return -Infinity;
  return v;
}

export function isFloatDtype(dtype) {
  return FLOAT_DTYPES.has(dtype);
}

function shapeNumel(shape) {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

// Python's format() rounds half to even on the exact binary value; JS's toFixed/toExponential
// round ties away from zero. Ties only happen for values exactly representable with a 5 in the
// last kept place (e.g. 1/32 at 4 decimals), which is what this fixes up.
function fixed(v, digits) {
  if (Object.is(v, -0)) return "-" + (0).toFixed(digits);
  const text = v.toFixed(digits);
  const scaled = Math.abs(v) * 10 ** digits;
  if (Number.isFinite(scaled) && scaled < 2 ** 52 && scaled % 1 === 0.5) {
    const down = Math.floor(scaled);
    if (down % 2 === 0) {
      const s = (down / 10 ** digits).toFixed(digits);
      return v < 0 || Object.is(v, -0) ? "-" + s : s;
    }
  }
  return text;
}

function expo(v, digits) {
  let text;
  if (v === 0) {
    text = (0).toExponential(digits);
    if (Object.is(v, -0)) text = "-" + text;
  } else {
    text = v.toExponential(digits);
    const m = /^(-?)(\d)\.(\d+)e([+-])(\d+)$/.exec(text);
    // tie check on the mantissa, as in fixed()
    const exp = Number(m[4] + m[5]);
    const mant = Math.abs(v) / 10 ** exp;
    const scaled = mant * 10 ** digits;
    if (scaled % 1 === 0.5 && Math.floor(scaled) % 2 === 0 && Math.abs(v) === mant * 10 ** exp) {
      text = (Math.sign(v) * (Math.floor(scaled) / 10 ** digits) * 10 ** exp).toExponential(digits);
    }
  }
  // Python pads the exponent to two digits: 1.0000e+08
  return text.replace(/e([+-])(\d)$/, "e$10$2");
}

function pyStr(v, dtype) {
  if (dtype === "bool") return v ? "True" : "False";
  if (!isFloatDtype(dtype)) return String(v);
  if (Number.isNaN(v)) return "nan";
  if (v === Infinity) return "inf";
  if (v === -Infinity) return "-inf";
  return String(v);
}

/** One style and width for every printed element of a tensor, as torch's _Formatter. */
export class ElementFormatter {
  constructor(shown, dtype) {
    this.dtype = dtype;
    this.isFloat = isFloatDtype(dtype);
    this.intMode = true;
    this.sciMode = false;
    this.width = 1;
    if (!this.isFloat) {
      for (const v of shown) this.width = Math.max(this.width, pyStr(v, dtype).length);
      return;
    }
    const finite = shown.filter((v) => v !== 0 && Number.isFinite(v));
    if (!finite.length) return;
    let smallest = Infinity;
    let largest = 0;
    for (const v of finite) {
      const a = Math.abs(v);
      if (a < smallest) smallest = a;
      if (a > largest) largest = a;
    }
    this.intMode = finite.every((v) => v === Math.ceil(v));
    this.sciMode = largest / smallest > 1000 || largest > 1e8 || smallest < 1e-4;
    for (const v of finite) {
      let w;
      if (this.sciMode) w = expo(v, PRECISION).length;
      else if (this.intMode) w = fixed(v, 0).length + 1;
      else w = fixed(v, PRECISION).length;
      if (w > this.width) this.width = w;
    }
  }

  /** The element without padding (what a compact form shows). */
  bare(v) {
    if (!this.isFloat) return pyStr(v, this.dtype);
    if (!Number.isFinite(v)) return pyStr(v, this.dtype);
    if (this.sciMode) return expo(v, PRECISION);
    if (this.intMode) return fixed(v, 0) + ".";
    return fixed(v, PRECISION);
  }

  format(v) {
    return this.bare(v).padStart(this.width);
  }
}

function edgeIndices(length, summarize) {
  if (summarize && length > 2 * EDGE_ITEMS) {
    const out = [];
    for (let i = 0; i < EDGE_ITEMS; i++) out.push(i);
    out.push(null);
    for (let i = length - EDGE_ITEMS; i < length; i++) out.push(i);
    return out;
  }
  return Array.from({ length }, (_, i) => i);
}

function collectShown(values, shape, summarize, out) {
  if (!shape.length) {
    out.push(values);
    return;
  }
  for (const i of edgeIndices(shape[0], summarize)) {
    if (i !== null) collectShown(values[i], shape.slice(1), summarize, out);
  }
}

function coerceAll(values, shape, dtype) {
  if (!shape.length) {
    while (Array.isArray(values)) values = values[0];
    values = num(values);
    if (dtype === "bool") return Boolean(values);
    return values;
  }
  return values.map((v) => coerceAll(v, shape.slice(1), dtype));
}

function renderRow(row, indent, summarize, fmt) {
  const perLine = Math.max(1, Math.floor((LINE_WIDTH - indent) / (fmt.width + 2)));
  const cells = edgeIndices(row.length, summarize).map((i) => (i === null ? " ..." : fmt.format(row[i])));
  const lines = [];
  for (let k = 0; k < cells.length; k += perLine) lines.push(cells.slice(k, k + perLine).join(", "));
  return "[" + lines.join(",\n" + " ".repeat(indent + 1)) + "]";
}

function render(values, shape, indent, summarize, fmt) {
  if (!shape.length) return fmt.format(values);
  if (shape.length === 1) return renderRow(values, indent, summarize, fmt);
  const blocks = edgeIndices(shape[0], summarize).map((i) =>
    i === null ? "..." : render(values[i], shape.slice(1), indent + 1, summarize, fmt),
  );
  const sep = "," + "\n".repeat(shape.length - 1) + " ".repeat(indent + 1);
  return "[" + blocks.join(sep) + "]";
}

function appendSuffixes(body, suffixes, indent) {
  // torch over-counts the last line by 2 until a suffix wraps; mirrored from engine/printing.py
  let lineLen = body.length - body.lastIndexOf("\n") + 1;
  let out = body;
  for (const suffix of suffixes) {
    if (lineLen + suffix.length + 2 > LINE_WIDTH) {
      out += ",\n" + " ".repeat(indent) + suffix;
      lineLen = indent + suffix.length;
    } else {
      out += ", " + suffix;
      lineLen += suffix.length + 2;
    }
  }
  return out + ")";
}

/** Exactly torch's repr of a tensor given tolist() values, shape and dtype name. */
export function formatTensor(values, shape, dtype, { requiresGrad = false, gradFn = null, prefix = "tensor(" } = {}) {
  const indent = prefix.length;
  const numel = shapeNumel(shape);
  const suffixes = [];
  let body;
  if (numel === 0) {
    body = "[]";
    if (shape.length !== 1) suffixes.push("size=(" + shape.join(", ") + (shape.length === 1 ? ",)" : ")"));
    if (dtype !== "float32") suffixes.push("dtype=torch." + dtype);
  } else {
    if (!IMPLIED_DTYPES.has(dtype)) suffixes.push("dtype=torch." + dtype);
    const vals = coerceAll(values, shape, dtype);
    const summarize = numel > THRESHOLD;
    const shown = [];
    collectShown(vals, shape, summarize, shown);
    const fmt = new ElementFormatter(shown, dtype);
    body = render(vals, shape, indent, summarize, fmt);
  }
  if (gradFn) suffixes.push(`grad_fn=<${gradFn}>`);
  else if (requiresGrad) suffixes.push("requires_grad=True");
  return appendSuffixes(prefix + body, suffixes, indent);
}

/** Flat list of the numbers a timeline value carries (all of them, or the summary's first ones). */
export function flatValues(value) {
  if (value == null) return [];
  if (value.summary) return value.summary.first.map(num);
  const out = [];
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else out.push(num(v));
  };
  walk(value.data);
  return out;
}

function compactNested(values, shape, fmt) {
  if (!shape.length) return fmt.bare(values);
  return "[" + values.map((v) => compactNested(v, shape.slice(1), fmt)).join(", ") + "]";
}

/**
 * A one-line form of a timeline value for node cards: the numbers exactly as torch prints them
 * (`8.`, `[2., 3.]`, `[0.5000, 1.2500]`), without torch's padding, cut with an ellipsis when long.
 * `null` (no .grad) is Python's `None`.
 */
export function shortValue(value, maxChars = 28) {
  if (value == null) return "None";
  let text;
  if (value.summary) {
    const s = value.summary;
    const first = s.first.map(num);
    const fmt = new ElementFormatter(first.concat([num(s.min), num(s.max)]), value.dtype);
    text = "[" + first.map((v) => fmt.bare(v)).join(", ") + ", …]";
  } else {
    const vals = coerceAll(value.data, value.shape, value.dtype);
    const shown = [];
    collectShown(vals, value.shape, false, shown);
    const fmt = new ElementFormatter(shown, value.dtype);
    text = compactNested(vals, value.shape, fmt);
  }
  if (text.length > maxChars) text = text.slice(0, maxChars - 1).replace(/[,\s]+$/, "") + "…";
  return text;
}

/** torch's full repr for a value (or a labelled summary when the timeline only kept one). */
export function reprValue(value, opts = {}) {
  if (value == null) return "None";
  if (value.summary) {
    const s = value.summary;
    const first = s.first.map(num);
    const fmt = new ElementFormatter(first.concat([num(s.min), num(s.max)]), value.dtype);
    const b = (v) => fmt.bare(num(v));
    return (
      `tensor of shape (${value.shape.join(", ")}), ${s.numel} elements\n` +
      `first: [${first.map((v) => fmt.bare(v)).join(", ")}, ...]\n` +
      `min ${b(s.min)}  max ${b(s.max)}  mean ${b(s.mean)}`
    );
  }
  return formatTensor(value.data, value.shape, value.dtype, opts);
}

/** A plain number for plots and colour scales: the first element, and the L2 norm. */
export function scalarSummary(value) {
  const flat = flatValues(value);
  if (!flat.length) return { first: null, norm: null };
  let sq = 0;
  for (const v of flat) sq += v * v;
  return { first: flat[0], norm: value.summary ? null : Math.sqrt(sq) };
}

export function shapeText(shape) {
  return "[" + (shape || []).join(", ") + "]";
}

/** A value as a Python literal the edit intents accept (floats keep their point: 2.0, not 2). */
export function pyLiteral(value) {
  if (value == null || value.summary) return "";
  const one = (v) => {
    v = num(v);
    if (value.dtype === "bool") return v ? "True" : "False";
    if (!isFloatDtype(value.dtype)) return String(v);
    if (Number.isNaN(v)) return "float('nan')";
    if (!Number.isFinite(v)) return v > 0 ? "float('inf')" : "float('-inf')";
    return Number.isInteger(v) ? v.toFixed(1) : String(v);
  };
  const walk = (v) => (Array.isArray(v) ? "[" + v.map(walk).join(", ") + "]" : one(v));
  return walk(value.data);
}
