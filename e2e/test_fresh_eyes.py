"""What a second look at the screenshots found, each checked where it was seen: a failed run
that named a line of the old program, the loss plot's ring on the iteration drawn (and drawn at
all), an example's text left over a program that is not the example's, words cut short, the
phone's drawer and legend, and a tensor titled by an alias instead of the name that made it."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image  # Pillow: a dependency of Bokeh, which the app needs
from playwright.sync_api import Page, expect

from playground.share import encode

from .ui import REPLY_MS, node, open_app, results, set_code, wait_result

SIZES = {"desktop": (1400, 900), "laptop": (1024, 700), "phone": (390, 844)}

LOOP = ("import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\n"
        "for step in range(4):\n    loss = (w ** 2).sum() * (step + 1)\n    loss.backward()\n")

ALIAS = ("import torch\nx = torch.ones(2, requires_grad=True)\nh = x\n"
         "y = (h * 2).sum()\ny.backward()\n")


def size_page(page: Page, size: str) -> None:
    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})


@pytest.mark.parametrize("size", list(SIZES))
def test_a_failed_run_names_no_line_of_the_program_before_it(page, host, shot, size):
    size_page(page, size)
    open_app(page, host[1])
    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True)\nprint('from the first program')\n")
    moment = page.get_by_test_id("moment")
    expect(moment).to_contain_text("print('from the first program')")
    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True\n")
    expect(page.get_by_test_id("console")).not_to_contain_text("from the first program")
    expect(page.get_by_test_id("stale-note")).to_have_text("Graph from the last successful run")
    expect(moment).not_to_contain_text("from the first program")
    expect(moment).not_to_contain_text("line ")
    expect(moment).to_contain_text("of the last successful run")
    # stepping through the kept graph names no line of it either
    page.get_by_test_id("to-start").click()
    expect(moment).to_contain_text("of the last successful run")
    expect(moment).not_to_contain_text("line ")
    shot(page, f"fresh-failed-run-{size}")


def blue_pixels(png: bytes) -> int:
    """Pixels of the loss's colour (#1a73e8, the line and the dots) in a screenshot."""
    px = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    r, g, b = px[..., 0], px[..., 1], px[..., 2]
    return int(((abs(r - 26) < 40) & (abs(g - 115) < 40) & (b > 190)).sum())


@pytest.mark.parametrize("size", list(SIZES))
def test_the_loss_plot_is_drawn_and_rings_the_iteration_whose_graph_is_shown(page, host, shot, size):
    size_page(page, size)
    open_app(page, host[1])
    set_code(page, LOOP)
    plot = page.get_by_test_id("loss-plot")
    iteration = page.get_by_test_id("iteration")
    iteration.select_option("1")  # the second iteration, before its backward()
    page.wait_for_function("(el) => el.value === '1'", arg=iteration.element_handle())
    expect(plot).to_have_attribute("data-current", "2")
    expect(page.get_by_test_id("loss-now")).to_contain_text("iteration 2")
    iteration.select_option("3")
    expect(plot).to_have_attribute("data-current", "4")
    expect(page.get_by_test_id("loss-now")).to_contain_text("iteration 4")
    iteration.select_option("1")
    expect(plot).to_have_attribute("data-current", "2")
    chart = page.get_by_test_id("loss-chart")
    chart.scroll_into_view_if_needed()
    page.wait_for_function("(el) => el.dataset.renderer", arg=chart.element_handle(), timeout=REPLY_MS)
    page.wait_for_timeout(500)  # Bokeh draws in a frame of its own
    drawn = blue_pixels(chart.screenshot(animations="disabled"))
    assert drawn > 60, ("the loss plot is blank", drawn)  # drawn: about 120
    shot(page, f"fresh-loop-iteration-{size}")


def test_an_examples_text_folds_when_edited_and_goes_when_the_program_is_replaced(page, host, shot):
    open_app(page, host[1])
    explanation = page.get_by_test_id("explanation")
    expect(explanation).to_be_visible()
    expect(page.get_by_test_id("edited-note")).to_be_hidden()
    body = explanation.locator(".gp-explanation-body")
    expect(body).to_be_visible()
    # an edit that keeps the example's statements: the text folds, one click opens it
    before = results(page)
    page.get_by_test_id("code").locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("\nprint(x.grad)\n")
    wait_result(page, before)
    expect(page.get_by_test_id("edited-note")).to_be_visible()
    expect(body).to_be_hidden()
    toggle = page.get_by_test_id("explanation-toggle")
    toggle.click()
    expect(body).to_be_visible()
    shot(page, "fresh-explanation-opened")
    toggle.click()
    expect(body).to_be_hidden()
    # the learner's own program: nothing of the example is left, neither is its text
    set_code(page, ALIAS)
    expect(explanation).to_be_hidden()
    shot(page, "fresh-explanation-replaced")


CUT_JS = """(el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1"""


@pytest.mark.parametrize("size", list(SIZES))
def test_no_words_cut_short_in_the_program_head_or_on_an_accumulating_card(page, host, shot, size):
    size_page(page, size)
    open_app(page, host[1], "p=" + encode(LOOP))
    hint = page.locator(".gp-typing-hint")
    expect(hint).to_have_text("edits run as you type")
    assert not hint.evaluate(CUT_JS), "the hint is cut short"
    # the second backward(): w.grad = [2., -4.] + [4., -8.], each number in full on the card
    page.get_by_test_id("iteration").select_option("1")
    line = node(page, "w").locator("[data-testid=incoming]")
    for _ in range(40):
        if (line.text_content() or "").startswith("= ["):
            break
        page.get_by_test_id("step-forward").click()
    text = line.text_content() or ""
    assert text.startswith("= ") and "…" not in text, text
    shot(page, f"fresh-card-accumulation-{size}")


def test_on_a_phone_the_drawer_opens_where_the_learner_is_and_the_legend_folds(page, host, shot):
    size_page(page, "phone")
    open_app(page, host[1])
    legend = page.get_by_test_id("legend")
    box = legend.bounding_box()
    assert box["height"] < 40, ("the legend covers the graph", box)
    expect(legend.get_by_text("non-leaf")).to_be_hidden()
    page.get_by_test_id("legend-toggle").click()
    expect(legend.get_by_text("non-leaf")).to_be_visible()
    page.get_by_test_id("legend-toggle").click()
    expect(legend.get_by_text("non-leaf")).to_be_hidden()
    # scrolled down to the program, the learner picks a card and opens the inspector
    main = page.locator(".gp-main")
    node(page, "y").click()
    main.evaluate("(el) => el.scrollTo(0, 520)")
    page.wait_for_function("(el) => el.scrollTop > 400", arg=main.element_handle())
    page.get_by_test_id("drawer-toggle").click()
    drawer = page.get_by_test_id("drawer")
    expect(drawer).to_be_visible()
    dbox = drawer.bounding_box()
    assert 0 <= dbox["y"] < 200, ("the drawer opened out of sight", dbox)
    expect(page.get_by_test_id("drawer-close")).to_be_in_viewport()
    shot(page, "fresh-phone-drawer")


def test_a_tensor_is_titled_by_the_name_that_made_it(page, host, shot):
    open_app(page, host[1], "p=" + encode(ALIAS))
    # the card of the leaf is drawn under `h`'s data-name (the name the timeline calls latest)
    expect(node(page, "h").locator(".gp-title")).to_have_text("x (also h)")
    expect(page.get_by_test_id("accum-callout")).to_contain_text("x.grad: None + [2., 2.] = [2., 2.]")
    shot(page, "fresh-alias")


SKIP = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "a = x * 2\nb = a * 3\nc = b * 4\nd = (c + x).sum()\nd.backward()\n")

# Edges (their drawn paths, sampled) and edge labels that cross a card other than their ends,
# in the canvas's own units.
CROSSING_JS = """(graph) => {
  const cards = new Map();
  for (const n of graph.querySelectorAll("[data-testid=node]")) {
    const card = n.querySelector(".gp-card");
    const m = n.getCTM(), b = card.getBBox();
    cards.set(n.dataset.id, { x: m.e + b.x * m.a, y: m.f + b.y * m.d, w: b.width * m.a, h: b.height * m.d });
  }
  const inside = (p, c, pad) => p.x > c.x + pad && p.x < c.x + c.w - pad && p.y > c.y + pad && p.y < c.y + c.h - pad;
  const out = [];
  for (const g of graph.querySelectorAll("[data-from]")) {
    const path = g.querySelector("path");
    const len = path.getTotalLength();
    const m = path.getCTM();
    for (let i = 1; i < 40; i++) {
      const q = path.getPointAtLength((len * i) / 40);
      const p = { x: m.e + q.x * m.a, y: m.f + q.y * m.d };
      for (const [id, c] of cards) {
        if (id !== g.dataset.from && id !== g.dataset.to && inside(p, c, 2)) out.push([g.dataset.id, id]);
      }
    }
  }
  return [...new Set(out.map((x) => x.join(" through ")))];
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_edge_runs_through_a_card_that_is_not_its_end(page, host, shot, size):
    size_page(page, size)
    open_app(page, host[1], "p=" + encode(SKIP))
    page.get_by_test_id("fit").click() if page.get_by_test_id("fit").count() else None
    page.wait_for_timeout(400)
    crossing = page.get_by_test_id("graph").evaluate(CROSSING_JS)
    assert not crossing, crossing
    shot(page, f"fresh-edges-clear-{size}")
