// Where the accumulation callout goes and how its text breaks into lines (pure geometry, no DOM).
//
// The callout is drawn in 12.5 px monospace (styles.js .gp-callout), so its size follows from its
// text: nothing is measured in the page (measuring forced a layout of every card, at every
// accumulation while playing).

const CHAR_W = 7.6; // 12.5 px monospace is 7.53 px a character: a little more, so no line is fuller than estimated
const LINE_H = 17;
const PAD_W = 21; // padding and border, left and right
const PAD_H = 12;
export const CALLOUT_MAX_W = 340;
const CALLOUT_MIN_W = 132; // below this a value breaks into more lines than it is worth

/** `text` broken into lines of at most `perLine` characters at spaces (a longer word is cut). */
function wrapWords(text, perLine) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= perLine) {
      line = next;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (line.length > perLine) {
      lines.push(line.slice(0, perLine));
      line = line.slice(perLine);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * The callout's text as lines for a box at most `maxW` px wide: one line when it fits, else one
 * line for each of `a.grad: before`, `+ delta` and `= after` (each wrapped at spaces when longer
 * still), so the sum reads down the box instead of breaking anywhere.
 */
export function calloutLines(text, maxW) {
  const perLine = Math.max(8, Math.floor((maxW - PAD_W) / CHAR_W));
  if (text.length <= perLine) return [text];
  const parts = text.split(/ (?=[+=] )/);
  return parts.flatMap((p) => wrapWords(p, perLine));
}

/**
 * The callout's size when at most `maxW` px wide: {w, h, lines} for a text callout (lines as
 * calloutLines gives them), {w, h} for a matrix's three heatmaps (`heatmaps`: {name, before,
 * delta, after}; 14 px cells that wrap as a flex row).
 */
export function calloutBox(text, heatmaps, maxW = CALLOUT_MAX_W) {
  if (heatmaps) {
    // a flex row that wraps (styles.js .gp-heat-row: 6 px gaps): `name.grad:`, three grids
    // of 14 px cells with 2 px gaps, `+` and `=`; then the hover readout (up to 40 characters)
    const grid = (v) => {
      if (v == null) return { w: 4 * CHAR_W, h: LINE_H }; // "None"
      const rows = v.shape.length === 2 ? v.shape[0] : 1;
      const cols = v.shape.length === 2 ? v.shape[1] : v.shape[0] || 1;
      return { w: cols * 16 - 2, h: rows * 16 - 2 };
    };
    const word = (chars) => ({ w: chars * CHAR_W, h: LINE_H });
    const name = word(`${heatmaps.name || ""}.grad:`.length);
    const items = [name, grid(heatmaps.before), word(1), grid(heatmaps.delta), word(1), grid(heatmaps.after)];
    const inner = Math.max(maxW, name.w + PAD_W) - PAD_W; // the name is never cut
    let width = 0;
    let height = 0;
    let line = { w: 0, h: 0 };
    for (const it of items) {
      if (line.w && line.w + 6 + it.w > inner) {
        width = Math.max(width, line.w);
        height += line.h + 6;
        line = { w: 0, h: 0 };
      }
      line = { w: line.w + (line.w ? 6 : 0) + it.w, h: Math.max(line.h, it.h) };
    }
    width = Math.max(width, line.w);
    height += line.h;
    const w = Math.ceil(width + PAD_W);
    const readout = Math.ceil((40 * CHAR_W) / (w - PAD_W)) * LINE_H + 4;
    return { w, h: Math.ceil(height + readout + PAD_H) };
  }
  const lines = calloutLines(text, maxW);
  const longest = Math.max(...lines.map((l) => l.length));
  return { w: Math.ceil(longest * CHAR_W + PAD_W), h: lines.length * LINE_H + PAD_H, lines };
}

/**
 * The widths worth trying for a callout in a canvas `canvasW` px wide: the widest first, then
 * narrower ones that fit beside a card (a narrow box reads down, a wide one covers what is under it).
 */
export function calloutWidths(canvasW) {
  const widest = Math.max(CALLOUT_MIN_W, Math.min(CALLOUT_MAX_W, canvasW - 16));
  const out = [widest];
  for (const w of [260, 200, 160, CALLOUT_MIN_W]) if (w < widest - 20) out.push(w);
  return out;
}

const overlap = (a, b) =>
  Math.max(0, Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0)) * Math.max(0, Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0));

/**
 * Where the accumulation callout of `card` (a screen box {x0, y0, x1, y1}) goes: beside the
 * card, leaving it readable, covering the least of the canvas's controls (`controls`), of the
 * other cards (`others`) and of the space outside the canvas (`canvas`, {w, h}). `boxes` are
 * the sizes it can take (a box or a list, the preferred first: calloutBox at calloutWidths).
 * Returns {x, y, box}: its top-left corner and the size chosen.
 */
export function bestCalloutSpot(card, boxes, canvas, others = [], controls = []) {
  const gap = 6;
  const inside = { x0: 0, y0: 0, x1: canvas.w, y1: canvas.h };
  let best = null;
  for (const [b, box] of [].concat(boxes).entries()) {
    const clampX = (x) => Math.max(2, Math.min(x, canvas.w - box.w - 2));
    const clampY = (y) => Math.max(2, Math.min(y, canvas.h - box.h - 2));
    const side = 4; // beside a card the gap can be narrower than below it: a phone has little width to spare
    const spots = [
      { x: clampX(card.x0), y: card.y1 + gap }, // below, the first place the eye looks after the card
      { x: clampX(card.x1 - box.w), y: card.y1 + gap },
      { x: clampX(card.x0), y: card.y0 - gap - box.h }, // above
      { x: clampX(card.x1 - box.w), y: card.y0 - gap - box.h },
      { x: card.x1 + side, y: clampY(card.y0) }, // right, level with the card's top or its bottom
      { x: card.x1 + side, y: clampY(card.y1 - box.h) },
      { x: card.x0 - side - box.w, y: clampY(card.y0) }, // left
      { x: card.x0 - side - box.w, y: clampY(card.y1 - box.h) },
      // beside the card but kept inside the canvas, over the card's edge if it must be
      { x: clampX(card.x1 + side), y: clampY(card.y0) },
      { x: clampX(card.x0 - side - box.w), y: clampY(card.y0) },
    ];
    const area = box.w * box.h;
    for (const [i, sp] of spots.entries()) {
      const r = { x0: sp.x, y0: sp.y, x1: sp.x + box.w, y1: sp.y + box.h };
      // a box cut off by the canvas's edge, covering a control or its own card is worse than
      // covering other cards, and covering a card worse than a narrower box that covers none
      let cost = (area - overlap(r, inside)) * 40 + overlap(r, card) * 30;
      for (const c of controls) cost += overlap(r, c) * 30;
      for (const o of others) cost += overlap(r, o) * 4;
      cost += b * 40 + i; // ties go to the wider box, then the earlier spot
      if (!best || cost < best.cost) best = { cost, x: sp.x, y: sp.y, box };
    }
  }
  return { x: best.x, y: best.y, box: best.box };
}
