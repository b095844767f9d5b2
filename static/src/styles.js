// The playground's CSS, injected next to the UI (inside Panel's shadow root or the site's page); system fonts only.

export const CSS = String.raw`
.gp-root {
  --gp-sans: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif;
  --gp-mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", "Liberation Mono", monospace;
  --gp-bg: #f5f6f8;
  --gp-panel: #ffffff;
  --gp-line: #e0e3e8;
  --gp-text: #1f2328;
  --gp-muted: #646b75;
  --gp-focus: #1a73e8;
  --gp-accent: #1a73e8;
  --gp-leaf: #e8710a;
  --gp-param: #0f9d9a;
  --gp-const: #8a9099;
  --gp-nonleaf: #1a73e8;
  --gp-gradt: #188038;
  --gp-grad: #8430ce;
  --gp-error: #d93025;
  --gp-run: #f9ab00;
  --gp-code-bg: #fcfcfd;
  --gp-code-gutter: #f4f5f7;
  --gp-syn-keyword: #770088; --gp-syn-atom: #221199; --gp-syn-number: #116644; --gp-syn-string: #aa1111;
  --gp-syn-def: #0000dd; --gp-syn-type: #006655; --gp-syn-special: #225566; --gp-syn-comment: #8a4b00;
  container-type: size;
  container-name: gp;
  /* exactly one screen: the page never scrolls the top bar or the player away; the layout
     containment makes the root the box a phone's pinned player bar is placed in */
  contain: layout;
  overflow: clip;
  position: relative;
  width: 100%;
  height: 100%;
  min-height: 640px;
  font-family: var(--gp-sans);
  font-size: 13px;
  color: var(--gp-text);
  background: var(--gp-bg);
  box-sizing: border-box;
}
.gp-root *, .gp-root *::before, .gp-root *::after { box-sizing: border-box; }
.gp-root [hidden] { display: none !important; }
.gp-icon { display: block; }
.gp-btn.icon { display: inline-flex; align-items: center; justify-content: center; }
.gp-btn.play { display: inline-flex; align-items: center; gap: 6px; }
.gp-app { position: absolute; inset: 0; display: grid; grid-template-rows: auto minmax(0, 1fr); grid-template-columns: minmax(0, 1fr); }

/* top bar */
.gp-top { display: flex; align-items: center; gap: 10px; padding: 8px 14px; background: var(--gp-panel); border-bottom: 1px solid var(--gp-line); flex-wrap: wrap; }
.gp-brand { display: flex; align-items: baseline; gap: 8px; margin-right: 8px; }
.gp-brand b { font-size: 16px; letter-spacing: -0.2px; }
.gp-brand b span { color: var(--gp-grad); }
.gp-brand small { color: var(--gp-muted); font-size: 12px; }
.gp-spacer { flex: 1; }
.gp-badge { font-size: 12px; color: var(--gp-muted); border: 1px solid var(--gp-line); border-radius: 999px; padding: 2px 9px; white-space: nowrap; }
.gp-badge.busy::before { content: ""; display: inline-block; width: 7px; height: 7px; border-radius: 50%; background: var(--gp-run); margin-right: 6px; animation: gp-pulse 0.9s infinite alternate; }
.gp-share-link { width: 240px; }
.gp-top .gp-select[data-testid=examples] { max-width: 300px; min-width: 160px; }

/* controls */
.gp-btn { font: inherit; font-size: 12.5px; line-height: 1; padding: 7px 11px; border-radius: 6px; border: 1px solid #c9ced6; background: #fff; color: var(--gp-text); cursor: pointer; white-space: nowrap; transition: background 0.12s, border-color 0.12s; }
.gp-btn:hover:not(:disabled) { background: #f1f3f5; border-color: #b6bcc6; }
.gp-btn:active:not(:disabled) { background: #e8eaed; }
.gp-btn:disabled { opacity: 0.45; cursor: not-allowed; }
.gp-btn.primary { background: var(--gp-accent); border-color: var(--gp-accent); color: #fff; font-weight: 600; }
.gp-btn.primary:hover:not(:disabled) { background: #1765cc; }
.gp-btn.danger { color: var(--gp-error); }
.gp-btn.icon { padding: 6px 9px; min-width: 32px; }
.gp-root :focus-visible { outline: 2px solid var(--gp-focus); outline-offset: 1px; }
.gp-input, .gp-select { font: inherit; font-size: 12.5px; padding: 5px 7px; border: 1px solid #c9ced6; border-radius: 6px; background: #fff; color: var(--gp-text); min-width: 0; }
.gp-input.mono, .gp-select.mono { font-family: var(--gp-mono); font-size: 12px; }
.gp-input:focus, .gp-select:focus { border-color: var(--gp-focus); outline: none; box-shadow: 0 0 0 2px rgba(26,115,232,0.2); }
.gp-check { display: inline-flex; align-items: center; gap: 5px; font-family: var(--gp-mono); font-size: 12px; white-space: nowrap; cursor: pointer; }
.gp-field { display: inline-flex; flex-direction: column; gap: 3px; font-size: 12px; color: var(--gp-muted); min-width: 0; }
.gp-field.inline { flex-direction: row; align-items: center; gap: 6px; }
.gp-field.grow { flex: 1; }
.gp-field.want .gp-input { border-color: var(--gp-error); }
.gp-row { display: flex; align-items: flex-end; gap: 8px; margin: 6px 0; }
.gp-row.wrap { flex-wrap: wrap; }
.gp-muted { color: var(--gp-muted); }
.gp-hint { color: var(--gp-muted); font-size: 12px; margin: 2px 0 8px; }
.small { font-size: 12px; }

/* main grid */
.gp-main { display: grid; grid-template-columns: minmax(280px, 29%) minmax(0, 1fr) 318px; grid-template-rows: minmax(0, 1fr); min-height: 0; }
.gp-left { display: flex; flex-direction: column; min-height: 0; border-right: 1px solid var(--gp-line); background: var(--gp-panel); }
.gp-center { display: grid; grid-template-rows: auto minmax(0, 1fr) auto; min-height: 0; min-width: 0; }
.gp-right { display: flex; flex-direction: column; border-left: 1px solid var(--gp-line); background: var(--gp-panel); min-height: 0; }
.gp-build { flex: 0 1 auto; max-height: 50%; overflow: auto; border-bottom: 2px solid var(--gp-line); }
.gp-inspect { flex: 1 1 0; min-height: 140px; overflow: auto; }

/* explanation */
.gp-explanation { padding: 10px 14px 8px; border-bottom: 1px solid var(--gp-line); max-height: 34%; overflow: auto; flex: none; }
.gp-explanation h2 { font-size: 14px; margin: 0 0 4px; }
.gp-explanation .gp-summary { color: var(--gp-muted); margin: 0 0 6px; }
.gp-explanation p { margin: 0 0 7px; line-height: 1.5; }
.gp-explanation code, .gp-inspector code { font-family: var(--gp-mono); font-size: 12px; background: #f1f3f5; padding: 1px 4px; border-radius: 4px; }
.gp-differs { display: inline-block; font-size: 12px; font-weight: 600; color: #a50e0e; background: #fce8e6; border-radius: 999px; padding: 1px 8px; margin-left: 6px; vertical-align: 1px; }
.gp-edited-note { display: none; font-size: 12px; color: #8a5a00; background: #fef7e0; border-radius: 6px; padding: 4px 8px; }
.gp-explanation.edited .gp-edited-note { display: block; }
.gp-link-btn { background: none; border: none; padding: 0; font: inherit; font-weight: 600; color: inherit; text-decoration: underline; cursor: pointer; }

/* code and console */
.gp-code { flex: 1; min-height: 120px; overflow: hidden; position: relative; }
.gp-code .cm-editor { height: 100%; }
.gp-pane-head { display: flex; align-items: center; gap: 8px; padding: 6px 10px 6px 14px; border-bottom: 1px solid var(--gp-line); font-size: 12px; font-weight: 600; color: var(--gp-muted); text-transform: uppercase; letter-spacing: 0.04em; }
.gp-program-tools { display: inline-flex; gap: 4px; margin-left: 6px; text-transform: none; letter-spacing: 0; font-weight: 400; }
.gp-program-tools .gp-btn { padding: 4px 8px; font-size: 12px; min-width: 28px; }
.gp-typing-hint { text-transform: none; font-weight: 400; min-width: 0; text-align: right; line-height: 1.25; } /* wraps rather than cut short */
.gp-console { flex: none; height: 22%; min-height: 96px; overflow: auto; padding: 8px 14px; margin: 0; font-family: var(--gp-mono); font-size: 12px; line-height: 1.45; background: #1f2328; color: #e6e8eb; white-space: pre-wrap; word-break: break-word; }
.gp-console span { background: none; }
.gp-c-out { color: #e6e8eb; }
.gp-c-warn { color: #fdd663; }
.gp-c-error { color: #ff8a80; }
.gp-c-empty { color: #8b949e; font-style: italic; }
/* loss over the run */
.gp-has-loss .gp-console { height: 15%; min-height: 72px; }
.gp-loss { flex: none; border-top: 1px solid var(--gp-line); }
.gp-loss[hidden] { display: none; }
.gp-loss .gp-pane-head { border-bottom: none; padding-bottom: 0; }
.gp-loss-now { text-transform: none; letter-spacing: 0; font-weight: 400; font-family: var(--gp-mono); font-size: 12px; color: var(--gp-text); white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
.gp-loss-body { padding: 0 8px 4px 4px; }
.gp-loss .gp-plot { margin-top: 0; min-height: 120px; }
@keyframes gp-line-flash { 0% { background-color: rgba(249,171,0,0.45); } 100% { background-color: transparent; } }

/* actions bar */
.gp-actions { display: flex; align-items: center; gap: 6px 16px; flex-wrap: wrap; padding: 7px 12px; background: var(--gp-panel); border-bottom: 1px solid var(--gp-line); }
.gp-actions-group { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; min-width: 0; max-width: 100%; }
.gp-target { font-family: var(--gp-mono); font-weight: 600; font-size: 12.5px; padding: 3px 8px; border-radius: 5px; background: #eef3fd; color: #174ea6; }
.gp-target.unnamed { background: #f1f3f5; color: var(--gp-muted); }

/* canvas */
.gp-canvas { position: relative; min-height: 0; overflow: hidden; contain: strict; background-color: #f7f8fa; background-image: radial-gradient(#d9dde3 1px, transparent 1px); background-size: 22px 22px; }
.gp-surface { position: absolute; left: 0; top: 0; cursor: grab; touch-action: none; user-select: none; -webkit-user-select: none; }
.gp-surface.panning { cursor: grabbing; }
.gp-svg { position: absolute; left: 0; top: 0; display: block; will-change: transform; pointer-events: none; overflow: hidden; }
.gp-node { pointer-events: auto; }
/* grey, not faded: its text stays as readable (the contrast) as on a current graph */
.gp-canvas.stale .gp-surface { filter: grayscale(1); }
.gp-banner { position: absolute; top: 10px; left: 12px; right: 12px; z-index: 3; display: flex; gap: 10px; align-items: flex-start; padding: 9px 12px; border-radius: 8px; background: #fce8e6; border: 1px solid #f4b4ae; color: #5f1410; box-shadow: 0 2px 8px rgba(60,64,67,0.15); font-size: 12.5px; }
.gp-banner[hidden] { display: none; }
.gp-banner .gp-banner-body { flex: 1; min-width: 0; }
.gp-banner b { color: #a50e0e; }
.gp-banner .gp-msg { font-family: var(--gp-mono); font-size: 12px; white-space: pre-wrap; word-break: break-word; margin-top: 2px; }
.gp-banner ul { margin: 4px 0 0; padding-left: 18px; font-family: var(--gp-mono); font-size: 12px; }
.gp-banner .gp-btn { padding: 4px 8px; }
.gp-info { position: absolute; top: 10px; left: 12px; z-index: 2; max-width: calc(100% - 200px); padding: 6px 10px; border-radius: 8px; background: #e8f0fe; color: #174ea6; font-size: 12.5px; }
.gp-info[hidden] { display: none; }
.gp-stale-note { padding: 5px 10px; border-radius: 8px; background: #fef7e0; color: #5c3c00; border: 1px solid #f0d589; font-size: 12.5px; }
.gp-banner .gp-help { font-size: 12.5px; margin-top: 6px; color: #3c1410; }
.gp-banner .gp-btn.gp-link { margin-left: 8px; padding: 3px 8px; }
.gp-zoom { position: absolute; right: 10px; bottom: 10px; display: flex; gap: 4px; z-index: 2; }
.gp-zoom .gp-btn { background: rgba(255,255,255,0.92); }
.gp-corner { position: absolute; left: 10px; bottom: 10px; z-index: 2; display: flex; flex-direction: column; align-items: flex-start; gap: 6px; max-width: calc(100% - 200px); }
.gp-legend { display: flex; gap: 10px; flex-wrap: wrap; padding: 5px 9px; border-radius: 8px; background: rgba(255,255,255,0.9); border: 1px solid var(--gp-line); font-size: 12px; color: var(--gp-muted); }
.gp-legend-items { display: contents; }
.gp-legend-toggle { display: none; background: none; border: none; padding: 0; font: inherit; color: inherit; cursor: pointer; }
.gp-legend i { display: inline-block; width: 10px; height: 10px; border-radius: 3px; margin-right: 4px; vertical-align: -1px; }
.gp-empty-graph { position: absolute; inset: 0; display: flex; align-items: center; justify-content: center; color: var(--gp-muted); pointer-events: none; font-size: 13px; }
.gp-empty-graph[hidden] { display: none; }

/* graph: nodes */
.gp-node { cursor: pointer; transition: opacity 0.3s ease; }
.gp-node:focus { outline: none; }
.gp-node:focus-visible .gp-sel { stroke: var(--gp-focus); stroke-opacity: 0.6; }
.gp-card { fill: #fff; stroke: #cfd4db; stroke-width: 1.2; transition: fill 0.25s, stroke 0.25s, stroke-width 0.25s; }
.gp-stripe { fill: var(--gp-const); }
.gp-glow { fill: var(--gp-run); opacity: 0; transition: opacity 0.25s; }
.gp-sel { fill: none; stroke: transparent; stroke-width: 2.5; stroke-dasharray: 5 3; }
.gp-node.selected .gp-sel { stroke: var(--gp-focus); }
.gp-title { font: 600 13px var(--gp-sans); fill: var(--gp-text); }
.gp-shape { font: 10.5px var(--gp-mono); fill: var(--gp-muted); }
.gp-badges { font: 10.5px var(--gp-sans); fill: var(--gp-muted); }
.gp-label { font: 10.5px var(--gp-sans); fill: var(--gp-muted); }
.gp-val { font: 11px var(--gp-mono); fill: var(--gp-text); }
.gp-extra { font: 600 11px var(--gp-mono); fill: var(--gp-grad); }
.gp-node.x-incoming .gp-extra { font-weight: 500; }
.gp-node.k-leaf .gp-stripe { fill: var(--gp-leaf); }
.gp-node.k-leaf .gp-title { fill: #b85600; }
.gp-node.k-param .gp-stripe { fill: var(--gp-param); }
.gp-node.k-nonleaf .gp-stripe, .gp-node.k-fn .gp-stripe { fill: var(--gp-nonleaf); }
.gp-node.k-gradt .gp-stripe { fill: var(--gp-gradt); }
.gp-node.k-const .gp-card { fill: #fafbfc; stroke-dasharray: 4 3; }
.gp-node.k-fn .gp-card { fill: #f5f9ff; stroke: #b5cdf5; }
.gp-node.k-acc .gp-card { fill: #fff8f1; stroke: #f3c594; }
.gp-node.k-group .gp-card { fill: #f4f0fb; stroke: #8d6cc9; stroke-width: 1.6; }
.gp-node.k-group .gp-stripe { fill: #6b24a8; }
/* an open call: an outline around what it made, its title closes it */
.gp-frame-box { fill: rgba(141,108,201,0.06); stroke: #8d6cc9; stroke-width: 1.4; stroke-dasharray: 7 5; }
.gp-frame-close { pointer-events: auto; cursor: pointer; }
.gp-frame-title { font: 600 13px var(--gp-sans); fill: #5a1f8c; }
.gp-lod-compact .gp-frame-title { font-size: 22px; }
.gp-lod-dots .gp-frame-title { display: none; }
.gp-frame-close:focus { outline: none; }
.gp-frame-close:focus-visible .gp-frame-title { text-decoration: underline; }
.gp-node.k-acc .gp-stripe { fill: var(--gp-leaf); }
.gp-node.has-grad [data-testid=grad] { fill: var(--gp-grad); font-weight: 600; }
.gp-node.ran .gp-card { stroke: #b98ee0; }
.gp-node.running .gp-glow { opacity: 0.4; }
.gp-node.running .gp-card { stroke: var(--gp-run); stroke-width: 2.5; fill: #fffbeb; }
.gp-node.root .gp-card { stroke: var(--gp-grad); stroke-width: 2; }
.gp-node.error .gp-card { stroke: var(--gp-error); stroke-width: 2.5; fill: #fdecea; }
.gp-node.error .gp-glow { fill: var(--gp-error); opacity: 0.18; }
/* not created yet at this moment: faded. A card fades as one group (its box is small); an edge
   fades its stroke only: a group's opacity is painted apart and blended over the group's whole
   box, which for a long edge is the whole canvas, at every repaint. */
.gp-node.ghost { opacity: 0.2; }
.gp-node.dragging { cursor: grabbing; }
.gp-flash { animation: gp-text-flash 1.1s ease-out; }
@keyframes gp-text-flash { 0% { fill: var(--gp-run); } 35% { fill: var(--gp-grad); } 100% { } }
@keyframes gp-pulse { from { opacity: 0.2; } to { opacity: 0.55; } }

/* graph: marks on a card's top edge (graph-marks.js) */
.gp-mark-tag { stroke: none; }
.gp-mark-text { font: 600 10.5px var(--gp-sans); fill: #fff; }
.gp-mark.gp-c .gp-mark-text { font: 700 22px var(--gp-sans); }
.gp-mark.m-hook .gp-mark-tag { fill: #0b6e6b; }
/* registered, not run yet: the same colour, drawn as an outline */
.gp-mark.m-hook-waiting .gp-mark-tag { fill: #fff; stroke: #0b6e6b; stroke-width: 1.4; stroke-dasharray: 4 2; }
.gp-mark.m-hook-waiting .gp-mark-text { fill: #0b6e6b; }
.gp-mark.m-retain .gp-mark-tag { fill: #6b24a8; }
.gp-mark.m-nograd .gp-mark-tag { fill: #5f6368; }
.gp-mark.m-detach .gp-mark-tag { fill: #9a4a00; }
.gp-mark.m-nan .gp-mark-tag { fill: #fce8e6; stroke: #b3261e; stroke-width: 1.2; }
.gp-mark.m-nan .gp-mark-text { fill: #8c1d18; }
.gp-mark.m-nan-origin .gp-mark-tag, .gp-mark.m-nan-grad-origin .gp-mark-tag { fill: #b3261e; }
.gp-detail-mark { font-family: var(--gp-sans); margin-top: 2px; }
.gp-detail-mark.m-nan-origin, .gp-detail-mark.m-nan-grad-origin { color: var(--gp-error); font-weight: 600; }

/* graph: edges */
.gp-edge-path { fill: none; stroke: #aab2bd; stroke-width: 1.6; transition: stroke 0.25s, stroke-width 0.25s, opacity 0.3s; }
.gp-arrowhead { fill: #aab2bd; }
.gp-arrowhead.hot { fill: var(--gp-grad); }
.gp-edge.nograd .gp-edge-path { stroke-dasharray: 3 4; }
.gp-edge.cut .gp-edge-path { stroke: #9a4a00; stroke-dasharray: 2 6; stroke-width: 2; }
.gp-edge.inplace .gp-edge-path { stroke: #e8a33d; stroke-dasharray: 7 4; }
.gp-edge.carried .gp-edge-path { stroke: var(--gp-grad); stroke-opacity: 0.55; stroke-width: 2; }
.gp-edge.current .gp-edge-path { stroke-opacity: 1; stroke-width: 3; }
.gp-edge.ghost .gp-edge-path { stroke-opacity: 0.15; }
.gp-pill { fill: #fff; stroke: var(--gp-grad); stroke-opacity: 0.5; }
.gp-pill-text { font: 600 10.5px var(--gp-mono); fill: var(--gp-grad); text-anchor: middle; }
.gp-edge-label.current .gp-pill { stroke-opacity: 1; stroke-width: 1.5; }
.gp-pill.hot { fill: var(--gp-grad); stroke: none; }
.gp-pill-text.hot { fill: #fff; }
.gp-flight { position: absolute; left: 0; top: 0; z-index: 1; pointer-events: none; will-change: transform, opacity; opacity: 0; }
.gp-flight[data-active=true] { opacity: 1; }
.gp-flight-dot { position: absolute; left: -7px; top: -7px; width: 14px; height: 14px; border-radius: 50%; background: var(--gp-grad); border: 2px solid #fff; box-shadow: 0 0 0 5px rgba(132,48,206,0.18); }
.gp-flight-label { position: absolute; left: 0; top: -32px; transform: translateX(-50%); padding: 2px 8px; border-radius: 9px; background: var(--gp-grad); color: #fff; font: 600 12px var(--gp-mono); white-space: nowrap; }

/* graph: level of detail (graph-view.js levelOfDetail): no text under 12 px on screen */
.gp-surface:not(.gp-lod-full) .gp-d { display: none; }
.gp-surface:not(.gp-lod-compact) .gp-c { display: none; }
.gp-surface:not(.gp-lod-full) .gp-edge-label { display: none; }
.gp-ctitle { font: 700 24px var(--gp-sans); fill: var(--gp-text); }
.gp-cshape { font: 22px var(--gp-mono); fill: var(--gp-muted); }
.gp-cgrad { font: 22px var(--gp-mono); fill: var(--gp-muted); }
.gp-node.has-grad .gp-cgrad { fill: var(--gp-grad); font-weight: 600; }
.gp-node[data-active=true] .gp-card { stroke: var(--gp-run); stroke-width: 4; }
.gp-detail { position: absolute; z-index: 2; max-width: 260px; padding: 7px 10px; border-radius: 8px; background: var(--gp-panel); color: var(--gp-text); border: 1px solid var(--gp-line); box-shadow: 0 2px 10px rgba(60,64,67,0.2); font: 12px var(--gp-mono); pointer-events: none; overflow-wrap: anywhere; }
.gp-detail b { font-family: var(--gp-sans); font-size: 13px; display: block; margin-bottom: 2px; }
.gp-detail span { color: var(--gp-muted); }
.gp-detail-extra { color: var(--gp-grad); font-weight: 600; }
/* its width and line breaks are set by graph-view.js (callout-place.js), so it is as big as estimated */
.gp-callout { position: absolute; left: 0; top: 0; z-index: 1; max-width: calc(100% - 8px); padding: 5px 9px; border-radius: 8px; background: var(--gp-panel); border: 1.5px solid var(--gp-grad); color: var(--gp-grad); font: 600 12.5px/17px var(--gp-mono); white-space: pre; pointer-events: none; box-shadow: 0 2px 8px rgba(60,64,67,0.15); }
.gp-callout.heat { white-space: normal; line-height: normal; }
.gp-callout.away { visibility: hidden; }
.gp-callout.heat .gp-heat-cell { pointer-events: auto; } /* clicks elsewhere on it reach the card under it */
.gp-heat-row { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
.gp-heat-grid { display: inline-grid; gap: 2px; }
.gp-heat-cell { width: 14px; height: 14px; border-radius: 3px; cursor: help; }
.gp-heat-readout { margin-top: 4px; font-weight: 400; color: var(--gp-text); }
.gp-minimap { position: absolute; right: 10px; top: 10px; z-index: 2; width: 168px; height: 112px; border-radius: 8px; border: 1px solid var(--gp-line); background: rgba(255,255,255,0.9); cursor: pointer; }
.gp-minimap[data-side=left] { right: auto; left: 10px; }

/* player */
.gp-player { display: flex; align-items: center; gap: 8px; padding: 7px 12px; background: var(--gp-panel); border-top: 1px solid var(--gp-line); flex-wrap: wrap; }
.gp-player .gp-btn.play { min-width: 84px; font-weight: 600; }
.gp-scrub { flex: 1; min-width: 140px; accent-color: var(--gp-grad); }
.gp-moment { flex: 1 1 260px; font-size: 12px; color: var(--gp-muted); min-width: 0; max-width: 100%; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.gp-moment code { font-family: var(--gp-mono); color: var(--gp-text); }

/* right column: build and inspector */
.gp-card-section { padding: 10px 14px; border-bottom: 1px solid var(--gp-line); }
.gp-right h3 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--gp-muted); margin: 0 0 6px; }
.gp-right h4 { font-size: 12px; margin: 12px 0 4px; color: var(--gp-text); }
.gp-leaf-form .gp-input { width: 100%; }
.gp-group { display: grid; grid-template-columns: 74px 1fr; gap: 6px; margin: 4px 0; align-items: start; }
.gp-group-name { font-size: 12px; color: var(--gp-muted); padding-top: 5px; }
.gp-group-ops { display: flex; flex-wrap: wrap; gap: 4px; }
.gp-op { font: 12px var(--gp-mono); padding: 4px 7px; border-radius: 5px; border: 1px solid #d3d8df; background: #fafbfc; color: var(--gp-text); cursor: pointer; }
.gp-op:hover:not(:disabled) { background: #eef3fd; border-color: #a8c4f5; }
.gp-op:disabled { opacity: 0.4; cursor: not-allowed; }
.gp-params summary { cursor: pointer; font-size: 12px; color: var(--gp-muted); margin-top: 6px; }
.gp-param-row { display: flex; flex-wrap: wrap; gap: 8px; margin-top: 6px; }
.gp-inspector { padding: 10px 14px 16px; }
.gp-inspector h3 { font-size: 15px; text-transform: none; letter-spacing: 0; color: var(--gp-text); margin: 0 0 4px; font-family: var(--gp-mono); }
.gp-empty { color: var(--gp-muted); font-size: 12.5px; line-height: 1.5; }
.gp-empty[hidden] { display: none; }
.gp-chips { display: flex; gap: 6px; flex-wrap: wrap; margin-bottom: 6px; }
.gp-chip { font-size: 12px; padding: 2px 8px; border-radius: 999px; background: #eef0f3; color: #3c4043; }
.gp-chip.ghost { background: #fef7e0; color: #8a5a00; }
.gp-props { display: grid; grid-template-columns: max-content 1fr; gap: 3px 10px; margin: 6px 0; font-size: 12px; }
.gp-props dt { color: var(--gp-muted); font-family: var(--gp-mono); font-size: 12px; }
.gp-props dd { margin: 0; font-family: var(--gp-mono); font-size: 12px; word-break: break-word; }
.gp-pre { font-family: var(--gp-mono); font-size: 12px; background: #f6f8fa; border: 1px solid var(--gp-line); border-radius: 6px; padding: 6px 8px; margin: 0; white-space: pre; overflow: auto; max-height: 220px; }
.gp-pre.small { margin-top: 4px; font-size: 12px; }
.gp-heat-wrap { overflow: auto; }
.gp-heat { border-collapse: collapse; font-family: var(--gp-mono); font-size: 12px; }
.gp-heat td { border: 1px solid #fff; padding: 3px 6px; text-align: right; min-width: 40px; }
.gp-history { margin: 0; padding-left: 20px; font-size: 12px; }
.gp-history li { margin: 3px 0; }
.gp-history li.future { opacity: 0.45; }
.gp-history .gp-hline { color: var(--gp-muted); font-size: 12px; margin-right: 6px; }
.gp-plot { margin-top: 8px; min-height: 110px; }
.gp-plot.pickable { cursor: pointer; }
.gp-spark { width: 100%; height: 110px; }
.gp-spark-title { font: 12px var(--gp-sans); fill: var(--gp-muted); }
.gp-spark-axis { stroke: #dadce0; }
.gp-spark-line { fill: none; stroke: var(--gp-grad); stroke-width: 2; stroke-opacity: 0.5; }
.gp-spark-dot { fill: #fff; stroke: var(--gp-grad); stroke-width: 1.5; }
.gp-spark-dot.past { fill: var(--gp-grad); }
.gp-spark-now { fill: none; stroke: var(--gp-grad); stroke-width: 2; }
.gp-spark-readout { font: 12px var(--gp-mono); fill: var(--gp-text); }
.gp-spark-tick { font: 12px var(--gp-mono); fill: var(--gp-muted); }
.gp-chain { margin: 8px 0; padding: 7px 9px; border-radius: 6px; background: #f6f0fd; color: var(--gp-text); font-size: 12.5px; line-height: 1.5; border-left: 3px solid var(--gp-grad); overflow-wrap: anywhere; }
.gp-chain-numbers { margin-top: 3px; font-family: var(--gp-mono); font-size: 12px; color: var(--gp-grad); }
.gp-insp-edits { margin-top: 10px; border-top: 1px solid var(--gp-line); padding-top: 4px; }
.gp-insp-edits .gp-input { flex: 1; }

/* the inspector and palette's drawer: a button at medium and narrow widths opens it over the graph */
.gp-actions-row { display: flex; align-items: stretch; background: var(--gp-panel); border-bottom: 1px solid var(--gp-line); min-width: 0; }
.gp-actions-row .gp-actions { flex: 1; border-bottom: none; min-width: 0; }
.gp-drawer-toggle { display: none; align-self: center; margin: 0 10px 0 4px; max-width: 40%; overflow: hidden; text-overflow: ellipsis; }
.gp-drawer-head { display: none; align-items: center; gap: 8px; padding: 6px 10px 6px 14px; border-bottom: 1px solid var(--gp-line); font-size: 12px; font-weight: 600; color: var(--gp-muted); }

/* medium: code and graph side by side; build and inspector in a drawer over the graph */
@container gp (max-width: 1180px) {
  /* one screen: the top bar takes what it needs, the graph what is left */
  .gp-app { grid-template-rows: auto minmax(0, 1fr); }
  .gp-main { position: relative; display: grid; grid-template-columns: minmax(280px, 36%) minmax(0, 1fr); grid-template-areas: "left center"; }
  .gp-left { grid-area: left; }
  .gp-center { grid-area: center; }
  .gp-right { display: none; position: absolute; z-index: 5; top: 0; right: 0; width: min(360px, 100%); height: 100%; border-left: 1px solid var(--gp-line); box-shadow: -6px 0 18px rgba(60,64,67,0.22); }
  .gp-right.open { display: flex; }
  .gp-drawer-toggle, .gp-drawer-head { display: inline-flex; }
  .gp-drawer-head { display: flex; }
  .gp-moment { max-width: 100%; }
  .gp-brand small { display: none; }
}
/* narrow: one column, the graph first */
@container gp (max-width: 760px) {
  /* the graph fills the screen under the top bar; the program is below it (scrolled to inside
     the main area), and the player is a bar pinned at the bottom of the screen */
  .gp-main { display: flex; flex-direction: column; overflow-x: hidden; overflow-y: auto; padding-bottom: var(--gp-player-h, 104px); }
  .gp-left { flex: none; height: 560px; border-right: none; border-top: 1px solid var(--gp-line); }
  .gp-center { order: -1; flex: none; height: 100%; }
  .gp-player { position: fixed; left: 0; right: 0; bottom: 0; z-index: 6; box-shadow: 0 -2px 8px rgba(60,64,67,0.15); }
  .gp-right { width: 100%; border-left: none; height: calc(100% - var(--gp-player-h, 104px)); }
  /* the top bar in two rows: the brand and the gallery, then the buttons (the host's badge
     is left out: the page has no room for words that are not a control) */
  .gp-top { gap: 6px; padding: 6px 10px; }
  .gp-top .gp-select[data-testid=examples] { flex: 1 1 180px; max-width: none; min-width: 0; }
  .gp-top .gp-spacer, .gp-top [data-testid=host-status] { display: none; }
  .gp-top .gp-btn { padding: 7px 8px; }
  /* the legend folds to a button: open, it lists the colours one a line */
  .gp-legend { flex-direction: column; gap: 4px; }
  .gp-legend-toggle { display: block; }
  .gp-legend-toggle::after { content: " ▸"; }
  .gp-legend.open .gp-legend-toggle::after { content: " ▾"; }
  .gp-legend:not(.open) .gp-legend-items { display: none; }
}
/* dark: following the system's setting; every text pair meets WCAG AA (4.5:1) on its background */
@media (prefers-color-scheme: dark) {
  .gp-root {
    --gp-bg: #15181d; --gp-panel: #1d2127; --gp-line: #343a42; --gp-text: #e6e8eb; --gp-muted: #a3abb6;
    --gp-focus: #8ab4f8; --gp-accent: #8ab4f8; --gp-leaf: #f29b4b; --gp-param: #4fd1c5; --gp-const: #8a9099;
    --gp-nonleaf: #8ab4f8; --gp-gradt: #81c995; --gp-grad: #c58af9; --gp-error: #f28b82; --gp-run: #fdd663;
    --gp-code-bg: #1b1f24; --gp-code-gutter: #20242a;
    --gp-syn-keyword: #d7aefb; --gp-syn-atom: #8ab4f8; --gp-syn-number: #81c995; --gp-syn-string: #f6aea9;
    --gp-syn-def: #a8c7fa; --gp-syn-type: #7fd1c7; --gp-syn-special: #9ad0f5; --gp-syn-comment: #e3b27a;
    color-scheme: dark;
  }
  .gp-btn, .gp-input, .gp-select, .gp-op { background: #262b33; border-color: #48505b; color: var(--gp-text); }
  .gp-btn:hover:not(:disabled), .gp-op:hover:not(:disabled) { background: #2f353e; border-color: #5f6873; }
  .gp-btn:active:not(:disabled) { background: #363d47; }
  .gp-btn.primary { background: #8ab4f8; border-color: #8ab4f8; color: #10131a; }
  .gp-btn.primary:hover:not(:disabled) { background: #a5c5fa; }
  .gp-canvas { background-color: #12151a; background-image: radial-gradient(#2a3038 1px, transparent 1px); }
  .gp-card { fill: #1f242b; stroke: #48505b; }
  .gp-node.k-fn .gp-card { fill: #1c2633; stroke: #3d5a85; }
  .gp-node.k-acc .gp-card { fill: #2b2118; stroke: #8a5a2b; }
  .gp-node.k-group .gp-card { fill: #251f33; stroke: #8d6cc9; }
  .gp-mark.m-hook-waiting .gp-mark-tag { fill: #1f242b; stroke: #7fd1c7; }
  .gp-mark.m-hook-waiting .gp-mark-text { fill: #7fd1c7; }
  .gp-frame-box { fill: rgba(141,108,201,0.08); }
  .gp-frame-title { fill: #d2bdf5; }
  .gp-node.k-const .gp-card { fill: #1b1f24; }
  .gp-node.k-leaf .gp-title { fill: #f6ad6b; }
  .gp-node.running .gp-card { fill: #2e2a17; }
  .gp-node.error .gp-card { fill: #3a1d1b; }
  .gp-pill { fill: #1f242b; }
  .gp-edge-path, .gp-arrowhead { stroke: #6b7480; }
  .gp-arrowhead { fill: #6b7480; stroke: none; }
  .gp-banner { background: #3a1d1b; border-color: #8c3b35; color: #f6d5d2; }
  .gp-banner b { color: #ffb4ab; }
  .gp-banner .gp-help { color: #f6d5d2; }
  .gp-info { background: #1c2b45; color: #c6dafc; }
  .gp-stale-note, .gp-edited-note, .gp-chip.ghost { background: #3a3117; color: #fce8b2; border-color: #6b5a1e; }
  .gp-zoom .gp-btn, .gp-legend, .gp-minimap { background: rgba(29,33,39,0.94); }
  .gp-target { background: #1c2b45; color: #c6dafc; }
  .gp-target.unnamed, .gp-chip, .gp-explanation code, .gp-inspector code { background: #262b33; color: var(--gp-text); }
  .gp-pre { background: #181b20; }
  .gp-chain { background: #2a2136; }
  .gp-differs { background: #3a1d1b; color: #ffb4ab; }
}
.gp-surface.gp-big .gp-node, .gp-surface.gp-big .gp-card, .gp-surface.gp-big .gp-glow, .gp-surface.gp-big .gp-edge-path { transition: none; }
@media (prefers-reduced-motion: reduce) {
  .gp-node, .gp-card, .gp-glow, .gp-edge-path { transition: none; }
  .gp-flash { animation: none; }
}
`;

/** Adds the stylesheet to the node that holds the UI (a shadow root keeps it to itself). */
export function injectStyles(el) {
  const style = document.createElement("style");
  style.textContent = CSS;
  el.append(style);
  return style;
}
