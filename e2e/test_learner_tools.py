"""What a learner reads and uses beyond the graph itself: marks where hooks, retain_grad, no_grad,
detach and NaN happen; the program's undo/redo, copy and .py download; a banner that waits for
typing to pause; picking a loop iteration on the loss plot; the drawer at laptop and phone sizes;
a matrix's accumulation as heatmaps; WCAG AA contrast in the light and the dark theme."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest
from playwright.sync_api import Page, expect

from playground.share import encode

from .conftest import ARTIFACTS
from .test_readable import check_callout_and_minimap, named_controls
from .ui import REPLY_MS, code_text, node, open_app, results, type_code, wait_result

SIZES = {"desktop": (1400, 900), "laptop": (1024, 700), "phone": (390, 844)}

MARKS = """import torch
x = torch.tensor([1.0, 0.0], requires_grad=True)
h = x.register_hook(lambda g: g * 2)
y = x * 3
y.retain_grad()
with torch.no_grad():
    c = x * 2
d = y.detach()
e = torch.log(x)
f = e * 0
z = (y + f).sum()
z.backward()
print(x.grad)
"""

TRAIN = """import torch
import random
w = torch.tensor([1.0, -2.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
for step in range(6):
    optimizer.zero_grad()
    loss = (w ** 2).sum() * random.uniform(0.5, 1.5)  # a noisy loss
    loss.backward()
    optimizer.step()
print(w)
"""

MATRIX = """import torch
W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
(W * W).sum().backward()
(W * 3).sum().backward()
"""


def marks_of(page: Page, name: str) -> list[str]:
    return node(page, name).locator("[data-testid=mark]").evaluate_all(
        "(ms) => ms.map((m) => m.dataset.mark)")


def test_marks_show_where_hooks_retain_grad_no_grad_detach_and_nan_happen(guarded, host, shot):
    for size, (w, h) in SIZES.items():
        page = guarded().new_page()
        page.set_viewport_size({"width": w, "height": h})
        open_app(page, host[1], "p=" + encode(MARKS))
        if size == "desktop":
            assert marks_of(page, "x") == ["hook"]
            assert marks_of(page, "y") == ["retain"]
            assert marks_of(page, "c") == ["nograd"]
            assert marks_of(page, "d") == ["detach"]
            # log(0) made the first non-finite number, and its grad_fn the first NaN gradient
            assert marks_of(page, "e") == ["nan-origin", "nan-grad-origin"]
            assert marks_of(page, "f") == ["nan"]
            hook = node(page, "x").locator("[data-testid=mark] title").first.text_content()
            assert hook == "hook got [3., nan], returned [6., nan]"
            cut = page.locator(f"[data-testid=edge][data-to='{node(page, 'd').get_attribute('data-id')}']")
            expect(cut).to_have_class(re.compile(r"\bcut\b"))
            page.get_by_test_id("view-toggle").click()
            origin = page.locator("[data-testid=node]:has([data-mark=nan-grad-origin])")
            expect(origin).to_have_count(1)
            assert "LogBackward0" in origin.get_attribute("aria-label")
            page.get_by_test_id("view-toggle").click()
            # before backward the hook is marked where it was registered, as waiting to run
            scrub = page.get_by_test_id("scrub")
            scrub.fill("3")
            expect(node(page, "x").locator("[data-testid=mark]")).to_have_attribute("data-mark", "hook-waiting")
            shot(page, "marks-hook-waiting")
            page.get_by_test_id("to-end").click()
        # the accumulation callout (x.grad's) covers no card and no card's mark tags
        check_callout_and_minimap(page, "x", named_controls(page))
        shot(page, f"marks-{size}")


def test_undo_redo_copy_and_a_py_download_that_runs_in_pytorch(guarded, host, shot, tmp_path):
    page = guarded(permissions=["clipboard-read", "clipboard-write"]).new_page()
    open_app(page, host[1])
    undo, redo = page.get_by_test_id("undo"), page.get_by_test_id("redo")
    expect(undo).to_be_disabled()  # the program it opened with is where the history starts
    first = code_text(page)
    before = results(page)
    type_code(page, TRAIN)
    wait_result(page, before)
    expect(undo).to_be_enabled()
    before = results(page)
    undo.click()
    wait_result(page, before)
    assert code_text(page).strip() == first.strip()
    expect(redo).to_be_enabled()
    before = results(page)
    redo.click()
    wait_result(page, before)
    assert "optimizer.step()" in code_text(page)

    page.get_by_test_id("copy-program").click()
    expect(page.get_by_test_id("copy-program")).to_have_attribute("data-copied", "true")
    assert page.evaluate("() => navigator.clipboard.readText()").strip() == TRAIN.strip()

    with page.expect_download() as dl:
        page.get_by_test_id("download-program").click()
    path = tmp_path / dl.value.suggested_filename
    dl.value.save_as(path)
    text = path.read_text()
    assert path.name == "program.py"
    assert text.startswith("# A gradplay program: runs as it is in PyTorch")
    assert "import random\nrandom.seed(0)" in text
    shot(page, "program-tools")
    # the file prints in real PyTorch what the playground's console printed (when torch is here)
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    console = page.get_by_test_id("console").inner_text().strip()
    assert ran.stdout.strip() == console, (ran.stdout, console)


def test_while_typing_the_underline_is_at_once_and_the_banner_waits_for_a_pause(page, host, shot):
    open_app(page, host[1])
    content = page.get_by_test_id("code").locator(".cm-content")
    content.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text("import torch\nweight = torch.ones(2, requires_grad=True)\ny = wieght * 2")
    squiggle = page.get_by_test_id("code").locator(".cm-lintRange-error")
    banner = page.get_by_test_id("error")
    # keep typing (a key every 0.4 s: each starts a run, whose reply underlines the error)
    seen_underline = False
    end = time.monotonic() + 4
    while time.monotonic() < end:
        page.keyboard.type(" ")
        page.wait_for_timeout(400)
        seen_underline = seen_underline or squiggle.count() > 0
        assert not banner.is_visible(), "the banner showed while the person was typing"
    assert seen_underline, "the error was underlined while typing"
    shot(page, "typing-underline-no-banner")
    expect(page.get_by_test_id("error-title")).to_have_text("NameError at line 3", timeout=REPLY_MS)
    shot(page, "typing-paused-banner")


def test_a_click_on_the_loss_plot_picks_that_iteration(page, host, shot):
    open_app(page, host[1], "p=" + encode(TRAIN))
    chart = page.get_by_test_id("loss-chart")
    expect(chart).to_be_visible()
    iteration = page.get_by_test_id("iteration")
    expect(iteration).to_have_value("5")
    page.wait_for_function("(el) => el.dataset.renderer", arg=chart.element_handle(), timeout=REPLY_MS)
    if chart.get_attribute("data-renderer") == "svg":
        chart.locator("[data-testid=plot-point][data-x='2']").click()  # iteration 2 (value 1)
    else:
        # Bokeh draws on a canvas: click where x = 2 (iteration 2) of 1..6 is, inside the plot's frame
        box = chart.bounding_box()
        page.wait_for_timeout(300)
        frame = page.evaluate("""(el) => {
            const index = window.Bokeh.index;
            const views = typeof index.values === "function" ? [...index.values()] : Object.values(index);
            const all = views.flatMap((x) => [x, ...(x.child_views || x.views?.all_views?.() || [])]);
            const v = all.find((x) => x && x.frame && el.contains(x.el));
            const r = v.el.getBoundingClientRect();
            return {left: r.left + v.frame.x_scale.compute(2), top: r.top + v.frame.bbox.vcenter};
        }""", chart.element_handle())
        page.mouse.click(frame["left"], frame["top"])
        assert box
    expect(iteration).to_have_value("1")
    scrub = page.get_by_test_id("scrub")
    expect(page.get_by_test_id("loss-plot")).to_have_attribute("data-past", "2")
    assert int(scrub.input_value()) < int(scrub.get_attribute("max"))
    shot(page, "loss-pick")


# The loss plot's y-axis labels: where each is drawn (px from the plot's top) and its font size.
Y_LABELS_JS = """(el) => {
  if (el.dataset.renderer === "svg") {
    return [...el.querySelectorAll(".gp-spark-tick")].map((t) => ({
      at: t.getBoundingClientRect().top, size: t.getBoundingClientRect().height }));
  }
  const index = window.Bokeh.index;
  const views = typeof index.values === "function" ? [...index.values()] : Object.values(index);
  const all = views.flatMap((x) => [x, ...(x.child_views || x.views?.all_views?.() || [])]);
  const v = all.find((x) => x && x.frame && el.contains(x.el));
  const axis = [...v.renderer_views.values()].find((r) => r.model.ticker && r.dimension === 1);
  const size = parseFloat(axis.model.major_label_text_font_size);
  return axis.tick_coords.major[1].map((y) => ({ at: v.frame.y_scale.compute(y), size }));
}"""


@pytest.mark.parametrize("size", ["laptop", "desktop"])
def test_the_loss_plot_fits_its_pane_with_room_between_its_labels(page, host, shot, size):
    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})
    open_app(page, host[1], "p=" + encode(TRAIN))
    chart = page.get_by_test_id("loss-chart")
    expect(chart).to_be_visible()
    page.wait_for_function("(el) => el.dataset.renderer", arg=chart.element_handle(), timeout=REPLY_MS)
    page.wait_for_timeout(500)  # Bokeh draws in a frame of its own
    labels = sorted(chart.evaluate(Y_LABELS_JS), key=lambda t: t["at"])
    assert len(labels) >= 2, labels
    gaps = [b["at"] - a["at"] for a, b in zip(labels, labels[1:], strict=False)]
    assert min(gaps) >= 1.5 * labels[0]["size"], ("y labels crowded", labels)
    # the whole pane is on screen: the x axis's words are not cut off by the page's bottom
    box = page.get_by_test_id("loss-plot").bounding_box()
    assert box["y"] + box["height"] <= h + 0.5, (box, h)
    shot(page, f"loss-plot-{size}")


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_inspector_and_palette_open_as_a_drawer(page, host, shot, size):
    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})
    open_app(page, host[1])
    page.get_by_test_id("to-end").click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer).to_be_hidden()
    node(page, "y").click()
    toggle = page.get_by_test_id("drawer-toggle")
    expect(toggle).to_have_text("Inspect y ▸")
    toggle.click()
    expect(drawer).to_be_visible()
    rule = page.get_by_test_id("chain-rule")
    expect(rule).to_contain_text("PowBackward0:")
    box = drawer.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= w + 1, box
    # the palette is in it: an op applies to the selected node
    before = results(page)
    page.get_by_test_id("build").get_by_role("button", name="exp(a)").click()
    wait_result(page, before)
    shot(page, f"drawer-{size}")
    page.get_by_test_id("drawer-close").click()
    expect(drawer).to_be_hidden()


def test_a_matrix_grad_accumulates_as_heatmaps_with_values_on_hover(page, host, shot):
    open_app(page, host[1], "p=" + encode(MATRIX))
    callout = page.get_by_test_id("accum-callout")
    expect(callout).to_be_visible()
    expect(callout.get_by_test_id("callout-heatmap")).to_have_count(3)
    cells = callout.get_by_test_id("callout-cell")
    expect(cells).to_have_count(12)
    cells.nth(11).hover()
    expect(page.get_by_test_id("callout-readout")).to_have_text("W.grad[1][1] after: 11.")
    shot(page, "matrix-callout")


# WCAG 2 contrast of every visible text against what is behind it, from computed styles: HTML
# text against its (composited) background, graph text against the card, pill or tag drawn
# behind it. Disabled controls and cards not made yet at the moment shown are exempt (WCAG's
# "inactive" components); the loss plot's canvas text is checked by its colours (styles).
CONTRAST_JS = """(root) => {
  const parse = (c) => {
    const m = c && c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    const mix = (x, y) => (x * top.a + y * bottom.a * (1 - top.a)) / (a || 1);
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
  };
  const lum = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  };
  const ratio = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const up = (e) => e.parentElement || (e.getRootNode && e.getRootNode().host) || null;
  const bgOf = (el) => {
    const layers = [];
    for (let e = el; e; e = up(e)) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = layers.length && layers[layers.length - 1].a >= 1 ? layers.pop() : { r: 255, g: 255, b: 255, a: 1 };
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const svgBg = (t) => {
    const g = t.closest(".gp-mark, .gp-edge-label, .gp-node");
    const shape = g && g.querySelector(".gp-mark-tag, .gp-pill, .gp-card");
    const behind = bgOf(t.closest("svg").parentElement);
    const f = shape && parse(getComputedStyle(shape).fill);
    return f ? over(f, behind) : behind;
  };
  const found = [];
  let least = Infinity, count = 0;
  const visit = (scope) => {
    for (const el of scope.querySelectorAll("*")) {
      if (el.shadowRoot) visit(el.shadowRoot);
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      if (el.closest("[hidden], .ghost, option, title, button:disabled, select:disabled, input:disabled")) continue;
      const st = getComputedStyle(el);
      if (st.visibility === "hidden" || st.display === "none") continue;
      const box = el.getBoundingClientRect();
      if (!box.width || !box.height) continue;
      const svg = el instanceof SVGElement;
      const bg = svg ? svgBg(el) : bgOf(el);
      let fg = parse(svg ? st.fill : st.color);
      if (!fg) continue;
      let opacity = 1;
      for (let e = el; e && e.nodeType === 1; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
      fg = over({ ...fg, a: fg.a * opacity }, bg);
      const r = ratio(fg, bg);
      const size = parseFloat(st.fontSize);
      const large = size >= 24 || (Number(st.fontWeight) >= 700 && size >= 18.66);
      count += 1;
      least = Math.min(least, r);
      if (r < (large ? 3 : 4.5)) {
        found.push({ text: el.textContent.trim().slice(0, 40), cls: String(el.className?.baseVal ?? el.className), ratio: Math.round(r * 100) / 100 });
      }
    }
  };
  visit(root);
  return { failing: found, least: Math.round(least * 100) / 100, count };
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_both_themes_meet_wcag_aa_contrast_editor_included(guarded, host, shot, scheme):
    page = guarded(color_scheme=scheme).new_page()
    open_app(page, host[1], "p=" + encode(MARKS))
    theme = page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches")
    assert theme == (scheme == "dark")
    measured = {}

    def check(state):
        found = page.evaluate(CONTRAST_JS, page.locator("body").element_handle())
        measured[state] = {"least": found["least"], "texts": found["count"]}
        assert found["count"] > 20, found
        assert not found["failing"], (state, found["failing"])

    node(page, "e").click()
    check("marks, e selected")
    assert page.get_by_test_id("code").locator(".cm-line span").count() > 5, "the editor's tokens are measured"
    page.get_by_test_id("view-toggle").click()
    check("autograd view")
    page.get_by_test_id("view-toggle").click()
    before = results(page)
    type_code(page, "import torch\nweight = torch.ones(2, requires_grad=True)\ny = wieght * 2\n")
    wait_result(page, before)
    expect(page.get_by_test_id("error")).to_be_visible()
    check("NameError banner")
    page.set_viewport_size({"width": 1024, "height": 700})
    page.get_by_test_id("drawer-toggle").click()
    expect(page.get_by_test_id("drawer")).to_be_visible()
    check("drawer at 1024")
    shot(page, f"contrast-{scheme}")
    page.get_by_test_id("drawer-close").click()
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(300)  # the graph refits to the phone's canvas
    check("phone")
    shot(page, f"contrast-{scheme}-phone")
    (ARTIFACTS / f"{host[0]}-contrast-{scheme}.json").write_text(json.dumps(measured, indent=1))


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_screens_at_three_sizes(guarded, host, shot, scheme):
    """Screenshots of the default example mid-backward and of a training loop, each size and theme."""
    for size, (w, h) in SIZES.items():
        ctx = guarded(color_scheme=scheme)
        page = ctx.new_page()
        page.set_viewport_size({"width": w, "height": h})
        open_app(page, host[1])
        for _ in range(6):
            page.get_by_test_id("step-forward").click()
        shot(page, f"screen-{scheme}-{size}-example")
        page.close()
        page = ctx.new_page()
        page.set_viewport_size({"width": w, "height": h})
        open_app(page, host[1], "p=" + encode(TRAIN))
        shot(page, f"screen-{scheme}-{size}-training")
        page.close()


MODULE = """import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x = torch.ones(2, 3)
out = model(x)
loss = out.sum()
loss.backward()
"""


def test_a_module_call_is_one_box_opened_by_a_click(page, host, shot):
    open_app(page, host[1], "p=" + encode(MODULE))
    box = page.locator("[data-testid=node][data-id^='g:']")
    expect(box).to_have_count(1)
    assert box.get_attribute("data-name") == "Sequential"
    cards = page.locator("[data-testid=node]")
    closed = cards.count()
    expect(node(page, "out")).to_be_visible()
    shot(page, "call-box-closed")
    box.click()
    expect(box).to_have_count(0)
    assert cards.count() > closed
    shot(page, "call-box-open")
    page.get_by_test_id("close-calls").click()
    expect(box).to_have_count(1)
    expect(page.get_by_test_id("close-calls")).to_be_hidden()


CALLS = """import torch
import torch.nn as nn
torch.manual_seed(0)
def poly(t):
    return t * t + 1
def energy(a, b, scale):
    c = poly(a) + b
    return c.sum() * scale
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = nn.Linear(3, 2)
    def forward(self, x):
        return torch.relu(self.l1(x))
net = Net()
x = torch.ones(2, 3, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = energy(x, b, 0.5) + net(x).sum()
loss.backward()
"""


# Every card's place in graph units (its transform) and size, keyed by id.
PLACES_JS = """(graph) => Object.fromEntries([...graph.querySelectorAll("[data-testid=node]")].map((n) => {
  const [x, y] = n.getAttribute("transform").match(/-?[\\d.]+/g).map(Number);
  const card = n.querySelector(".gp-card");
  return [n.dataset.id, { x, y, w: Number(card.getAttribute("width")), h: Number(card.getAttribute("height")) }];
}))"""

# The transforms one card goes through in the next animation frames.
MOVES_JS = """([graph, id, frames]) => new Promise((done) => {
  const seen = [];
  const tick = () => {
    const n = graph.querySelector(`[data-testid=node][data-id="${id}"]`);
    seen.push(n ? n.getAttribute("transform") : null);
    if (seen.length < frames) requestAnimationFrame(tick); else done(seen);
  };
  requestAnimationFrame(tick);
})"""

# The title of a card as drawn at the level of detail shown, and how wide it is drawn.
TITLE_JS = """(n) => {
  const t = [...n.querySelectorAll(".gp-title, .gp-ctitle")].find((e) => getComputedStyle(e).display !== "none");
  return { text: t.textContent, width: t.getComputedTextLength(), card: Number(n.querySelector(".gp-card").getAttribute("width")) };
}"""


def places(page: Page) -> dict:
    graph = page.get_by_test_id("graph")
    # (the server's page draws the UI in a shadow root: the element itself is asked, not the document)
    page.wait_for_function("(g) => !g.dataset.moving", arg=graph.element_handle(), timeout=REPLY_MS)
    return graph.evaluate(PLACES_JS)


def assert_same_arrangement(before: dict, after: dict, ids: list[str]) -> None:
    """No two of `ids` change their order left to right or top to bottom."""
    for a in ids:
        for b in ids:
            if before[a]["x"] < before[b]["x"] - 0.5:
                assert after[a]["x"] < after[b]["x"], (a, b, "left to right")
            if before[a]["y"] < before[b]["y"] - 0.5:
                assert after[a]["y"] < after[b]["y"], (a, b, "top to bottom")


def assert_no_overlap(found: dict) -> None:
    items = list(found.items())
    for i, (a, p) in enumerate(items):
        for b, q in items[i + 1:]:
            apart = (p["x"] + p["w"] <= q["x"] or q["x"] + q["w"] <= p["x"]
                     or p["y"] + p["h"] <= q["y"] or q["y"] + q["h"] <= p["y"])
            assert apart, ("cards overlap", a, b, p, q)


def test_function_calls_are_boxes_that_open_and_close_nested_too(page, host, shot):
    open_app(page, host[1], "p=" + encode(CALLS))
    boxes = page.locator("[data-testid=node][data-id^='g:']")
    expect(boxes).to_have_count(2)
    assert sorted(boxes.evaluate_all("(bs) => bs.map((b) => b.dataset.name)")) == ["Net", "energy"]
    expect(node(page, "net.l1.weight")).to_have_count(1)  # made in Net.__init__, used outside it
    # a closed box's title is whole, and fits its box
    title = page.locator("[data-testid=node][data-name=energy]").evaluate(TITLE_JS)
    assert title["text"] == "energy(x, b, 0.5)", title
    assert title["width"] <= title["card"] - 20, title
    shot(page, "function-call-closed")
    closed = places(page)
    # opening a call moves the rest of the graph aside, smoothly, and keeps its arrangement
    graph = page.get_by_test_id("graph").element_handle()
    loss_id = page.locator("[data-testid=node][data-name=loss]").get_attribute("data-id")
    page.locator("[data-testid=node][data-name=energy]").click()
    moves = page.evaluate(MOVES_JS, [graph, loss_id, 8])  # loss, under the call
    frame = page.locator("[data-testid=call-frame]")
    expect(frame).to_have_count(1)
    opened = places(page)
    outside = [i for i in closed if i in opened]
    assert len(outside) >= 6, outside
    assert_same_arrangement(closed, opened, outside)
    assert_no_overlap(opened)
    assert len(set(moves)) >= 3, ("the rest of the graph moved over several frames", moves)
    shot(page, "function-call-opening")
    # poly, called inside energy, is a box of its own inside energy's outline
    expect(page.locator("[data-testid=node][data-name=poly]")).to_have_count(1)
    page.locator("[data-testid=node][data-name=poly]").click()
    expect(frame).to_have_count(2)
    expect(page.locator("[data-testid=node][data-name=poly]")).to_have_count(0)
    both = places(page)
    assert_same_arrangement(opened, both, [i for i in opened if i in both])
    assert_no_overlap(both)
    page.get_by_test_id("to-start").click()  # no accumulation callout over the titles
    page.mouse.move(1, 1)
    shot(page, "function-call-open")
    page.locator("[data-testid=close-call][data-id=c2]").click()  # energy's title closes it
    expect(frame).to_have_count(0)
    expect(boxes).to_have_count(2)
    # closed again, every card is back where it was
    back = places(page)
    assert set(back) == set(closed)
    for i, p in closed.items():
        assert abs(back[i]["x"] - p["x"]) < 0.5 and abs(back[i]["y"] - p["y"]) < 0.5, (i, p, back[i])
