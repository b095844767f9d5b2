// Small helpers to build HTML and SVG elements without a framework.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.setAttribute("class", v);
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "style" && typeof v === "object") Object.assign(el.style, v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** An HTML element: h("button", {class: "btn", onclick}, "Label"). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element, same signature as h(). */
export function s(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Sets textContent only when it differs (writes to the DOM are what cost). */
export function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

export function clear(el) {
  el.replaceChildren(); // one mutation: removing children one by one restyled the page each time
}

/** Paragraphs of plain text where `code` in backticks becomes <code> (example explanations). */
export function richText(text) {
  const out = [];
  for (const para of String(text || "").split(/\n\s*\n/)) {
    const p = document.createElement("p");
    const joined = para.replace(/\s*\n\s*/g, " ").trim();
    if (!joined) continue;
    joined.split(/(`[^`]+`)/).forEach((part) => {
      if (part.startsWith("`") && part.endsWith("`") && part.length > 1) p.append(h("code", null, part.slice(1, -1)));
      else if (part) p.append(document.createTextNode(part));
    });
    out.push(p);
  }
  return out;
}

// Player icons as inline SVG: the glyphs (⏮ ⏭) are missing from many system fonts.
const ICONS = {
  play: "M4 2.5v11l9-5.5z",
  pause: "M4 2.5h3v11H4zM9 2.5h3v11H9z",
  back: "M12 2.5v11L5 8zM3 2.5h2v11H3z",
  forward: "M4 2.5v11L11 8zM11 2.5h2v11h-2z",
  start: "M13 2.5v11L7.5 8zM7.5 2.5v11L2 8z",
  end: "M3 2.5v11L8.5 8zM8.5 2.5v11L14 8z",
};

export function icon(name) {
  return s(
    "svg",
    { class: "gp-icon", viewBox: "0 0 16 16", width: 14, height: 14, "aria-hidden": "true" },
    s("path", { d: ICONS[name], fill: "currentColor" }),
  );
}
