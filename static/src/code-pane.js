// The program pane: CodeMirror 6 with Python highlighting, error underlines, flashed changed lines, the current step's line.

import {
  EditorView,
  keymap,
  lineNumbers,
  highlightActiveLine,
  highlightActiveLineGutter,
  drawSelection,
  Decoration,
} from "@codemirror/view";
import { EditorState, StateField, StateEffect, Annotation, Compartment, Transaction } from "@codemirror/state";
import { defaultKeymap, history, historyKeymap, undo, redo, undoDepth, redoDepth } from "@codemirror/commands";
import { tags } from "@lezer/highlight";
import { syntaxHighlighting, HighlightStyle, indentOnInput, bracketMatching, indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { setDiagnostics, lintGutter } from "@codemirror/lint";

// Text put in by the app (an example, an edit's result) must not count as typing, or it would
// be sent straight back to the host as a run.
const fromApp = Annotation.define();

const setFlash = StateEffect.define();
const setStep = StateEffect.define();

const flashMark = Decoration.line({ class: "cm-gp-flash" });
const stepMark = Decoration.line({ class: "cm-gp-step" });

function lineDecorations(effect, mark) {
  return StateField.define({
    create: () => Decoration.none,
    update(deco, tr) {
      deco = deco.map(tr.changes);
      for (const e of tr.effects) {
        if (e.is(effect)) {
          const lines = [...new Set(e.value)].filter((l) => l >= 1 && l <= tr.state.doc.lines).sort((a, b) => a - b);
          deco = Decoration.set(lines.map((l) => mark.range(tr.state.doc.line(l).from)));
        }
      }
      return deco;
    },
    provide: (f) => EditorView.decorations.from(f),
  });
}

const flashField = lineDecorations(setFlash, flashMark);
const stepField = lineDecorations(setStep, stepMark);

// Python's colours as the page's variables (styles.js), so the dark theme has its own and both
// meet WCAG AA on the editor's background.
const highlightStyle = HighlightStyle.define([
  { tag: tags.keyword, color: "var(--gp-syn-keyword)" },
  { tag: [tags.atom, tags.bool, tags.null], color: "var(--gp-syn-atom)" },
  { tag: [tags.number, tags.literal], color: "var(--gp-syn-number)" },
  { tag: [tags.string, tags.special(tags.string), tags.escape], color: "var(--gp-syn-string)" },
  {
    tag: [tags.definition(tags.variableName), tags.function(tags.definition(tags.variableName))],
    color: "var(--gp-syn-def)",
  },
  { tag: [tags.className, tags.typeName, tags.namespace], color: "var(--gp-syn-type)" },
  { tag: [tags.special(tags.variableName), tags.self], color: "var(--gp-syn-special)" },
  { tag: tags.comment, color: "var(--gp-syn-comment)", fontStyle: "italic" },
  { tag: tags.invalid, color: "var(--gp-error)" },
]);

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "13px", backgroundColor: "var(--gp-code-bg)" },
  ".cm-scroller": { fontFamily: "var(--gp-mono)", lineHeight: "1.55" },
  ".cm-content": { padding: "8px 0" },
  ".cm-gutters": {
    backgroundColor: "var(--gp-code-gutter)",
    borderRight: "1px solid var(--gp-line)",
    color: "var(--gp-muted)",
  },
  ".cm-activeLine": { backgroundColor: "rgba(26,115,232,0.045)" },
  ".cm-activeLineGutter": { backgroundColor: "rgba(26,115,232,0.08)", color: "var(--gp-text)" },
  "&.cm-focused": { outline: "2px solid var(--gp-focus)", outlineOffset: "-2px" },
  ".cm-gp-step": { boxShadow: "inset 3px 0 0 var(--gp-grad)", backgroundColor: "rgba(132,48,206,0.07)" },
  ".cm-gp-flash": { animation: "gp-line-flash 1.8s ease-out" },
  ".cm-lintRange-error": {
    backgroundImage: "none",
    textDecoration: "underline wavy #d93025",
    textUnderlineOffset: "3px",
  },
  ".cm-diagnostic-error": { borderLeft: "4px solid #d93025", fontFamily: "var(--gp-sans)" },
  ".cm-tooltip": { fontFamily: "var(--gp-sans)", fontSize: "12.5px", maxWidth: "420px" },
});

/** The lint diagnostics for a program error (timeline.error: 1-based line/col, end_line/end_col) in `doc`. */
function diagnostics(doc, err) {
  if (!err || !err.line) return [];
  const line = doc.line(Math.min(Math.max(1, err.line), doc.lines));
  let from = Math.min(line.to, line.from + Math.max(0, (err.col || 1) - 1));
  let to;
  if (err.end_line && err.end_col) {
    const el = doc.line(Math.min(Math.max(1, err.end_line), doc.lines));
    to = Math.min(el.to, el.from + Math.max(0, err.end_col - 1));
  } else {
    to = line.to;
  }
  if (to <= from) {
    // a point error (a syntax error at the end of a line): underline the line's text
    from = line.from + (line.text.length - line.text.trimStart().length);
    to = Math.max(line.to, from + 1);
  }
  to = Math.min(to, doc.length);
  if (from >= to && from > 0) from = to - 1;
  const head =
    err.type || { syntax: "SyntaxError", not_allowed: "Not allowed", limit: "Limit reached" }[err.kind] || "Error";
  return [{ from, to, severity: "error", message: `${head}: ${err.message}`, source: err.kind }];
}

/**
 * Mounts the editor in `parent`. `onChange(text)` is called for the person's edits only (an
 * undo or redo is one); `onHistory({undo, redo})` with how many steps each can go, whenever
 * that may have changed. Returns show, setProgram, getProgram, setError, flashLines,
 * setStepLines, undo, redo, focus, destroy.
 */
/**
 * The change from `cur` to `next` as one replaced span between their common start and end: an
 * edit's new program differs in a line or two, and the editor re-reads (parses, decorates) only
 * what changed instead of the whole program.
 */
export function smallestChange(cur, next) {
  let start = 0;
  const most = Math.min(cur.length, next.length);
  while (start < most && cur.charCodeAt(start) === next.charCodeAt(start)) start++;
  let end = 0;
  while (end < most - start && cur.charCodeAt(cur.length - 1 - end) === next.charCodeAt(next.length - 1 - end)) end++;
  return { from: start, to: cur.length - end, insert: next.slice(start, next.length - end) };
}

export function createCodePane(parent, { onChange, onRunShortcut, onHistory } = {}) {
  const readOnly = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        indentUnit.of("    "),
        bracketMatching(),
        highlightActiveLine(),
        EditorView.lineWrapping,
        syntaxHighlighting(highlightStyle),
        python(),
        lintGutter(),
        flashField,
        stepField,
        theme,
        readOnly.of([]),
        EditorView.contentAttributes.of({ "aria-label": "program (PyTorch)", "data-testid": "code-input" }),
        keymap.of([
          { key: "Mod-Enter", run: () => (onRunShortcut?.(), true) },
          { key: "Shift-Enter", run: () => (onRunShortcut?.(), true) },
          ...defaultKeymap,
          ...historyKeymap,
        ]),
        EditorView.updateListener.of((u) => {
          if (u.transactions.length) onHistory?.({ undo: undoDepth(u.state), redo: redoDepth(u.state) });
          if (!u.docChanged) return;
          if (u.transactions.some((t) => t.annotation(fromApp))) return;
          onChange?.(u.state.doc.toString());
        }),
      ],
    }),
  });

  let flashTimer = null;

  /**
   * What a host's reply changes, in one transaction (one editor update, one read of the page's
   * layout): the program (when it differs), the lines to flash, the error to underline and the
   * step's lines. Fields left out are left as they are.
   */
  function show({ program, flashLines, error, stepLines } = {}) {
    const cur = view.state.doc.toString();
    const changed = program != null && program !== cur;
    const doc = changed ? view.state.toText(program) : view.state.doc;
    const effects = [];
    if (flashLines !== undefined) {
      clearTimeout(flashTimer);
      const lines = flashLines || [];
      effects.push(setFlash.of(lines));
      if (lines.length) flashTimer = setTimeout(() => view.dispatch({ effects: setFlash.of([]) }), 2000);
    }
    if (stepLines !== undefined) {
      effects.push(setStep.of(stepLines || []));
    }
    if (error !== undefined) effects.push(...setDiagnostics(view.state, diagnostics(doc, error)).effects);
    const spec = { effects };
    // The program the pane opens with is where its history starts: undo never empties the pane.
    // Every later program put in (an example, an edit's result) can be undone like typing.
    const annotations = cur === "" ? [fromApp.of(true), Transaction.addToHistory.of(false)] : fromApp.of(true);
    if (changed) Object.assign(spec, { changes: smallestChange(cur, program), annotations });
    if (changed || effects.length) view.dispatch(spec);
    // the changed lines, else the running statement, scrolled to in the editor alone: the
    // editor's own scrollIntoView scrolled a phone's page down to the program after every edit,
    // taking the graph (and an open drawer) out of view
    if (flashLines?.length) keepInView(Math.min(...flashLines));
    else if (stepLines?.length) keepInView(Math.min(...stepLines));
  }

  /**
   * Scrolls the editor alone (not the page or a phone's scrolling main area, as the editor's
   * scrollIntoView would) so that `line`, the statement being run, is in view.
   */
  function keepInView(line) {
    const doc = view.state.doc;
    if (line < 1 || line > doc.lines) return;
    const block = view.lineBlockAt(doc.line(line).from);
    const scroller = view.scrollDOM;
    const top = block.top + view.documentPadding.top;
    if (top >= scroller.scrollTop && top + block.height <= scroller.scrollTop + scroller.clientHeight) return;
    scroller.scrollTop = Math.max(0, top - scroller.clientHeight / 3);
  }

  function setProgram(text, { flashLines = [] } = {}) {
    show({ program: text, flashLines });
  }

  function flash(lines) {
    show({ flashLines: lines });
  }

  /** Underlines the program error (timeline.error: 1-based line/col, end_line/end_col). */
  function setError(err) {
    show({ error: err });
  }

  /** Marks the lines of the statement the player is at (empty: none). */
  function setStepLines(lines) {
    show({ stepLines: lines });
  }

  return {
    view,
    show,
    setProgram,
    getProgram: () => view.state.doc.toString(),
    setError,
    flashLines: flash,
    setStepLines,
    setReadOnly(on) {
      view.dispatch({ effects: readOnly.reconfigure(on ? EditorState.readOnly.of(true) : []) });
    },
    undo: () => undo(view),
    redo: () => redo(view),
    focus: () => view.focus(),
    destroy() {
      clearTimeout(flashTimer);
      view.destroy();
    },
  };
}
