"""Readable at every size: node text never under 12 px on screen, the backward pass followed,
links to the exact moment, errors a learner can act on, no overlapping controls on a phone."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import Page, expect

from playground.share import encode

from .conftest import ARTIFACTS
from .ui import REPLY_MS, moment, node, open_app, results, set_code, wait_idle, wait_result

SIZES = {"desktop": (1400, 900), "laptop": (1024, 700), "phone": (390, 844)}
MIN_PX = 12

# The smallest on-screen size of any drawn text in the graph: its font size times the zoom it
# is drawn at. Text that is not drawn (another level of detail, hidden labels) has no box.
SMALLEST_TEXT_JS = """(graph) => {
  let min = Infinity, count = 0, smallest = "";
  for (const t of graph.querySelectorAll("text")) {
    if (!t.textContent.trim()) continue;
    const box = t.getBoundingClientRect();
    if (!box.width || !box.height) continue;
    const style = getComputedStyle(t);
    if (style.visibility === "hidden") continue;
    const px = parseFloat(style.fontSize) * t.getScreenCTM().a;
    count += 1;
    if (px < min) { min = px; smallest = t.textContent; }
  }
  return { min, count, smallest };
}"""


def smallest_text(page: Page) -> dict:
    return page.get_by_test_id("graph").evaluate(SMALLEST_TEXT_JS)


def chain_program(links: int = 60) -> str:
    """About 2 * links tensors in one chain, with a backward pass through all of them."""
    lines = ["import torch", "x = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)", "h = x"]
    for i in range(links):
        lines.append(f"h = (h * {1 + (i % 4) * 0.05}).sin()")
    lines += ["loss = h.sum()", "loss.backward()"]
    return "\n".join(lines) + "\n"


def examples(page: Page) -> list[str]:
    return [v for v in page.get_by_test_id("examples").locator("option").evaluate_all(
        "(os) => os.map((o) => o.value)") if v]


def test_every_gallery_example_is_readable_at_three_sizes(shared_page, host, shot):
    page = shared_page
    found = {}
    for size, (w, h) in SIZES.items():
        page.set_viewport_size({"width": w, "height": h})
        for ex in examples(page):
            before = results(page)
            page.get_by_test_id("examples").select_option(ex)
            wait_result(page, before)
            text = smallest_text(page)
            found[f"{size}/{ex}"] = round(text["min"], 1) if text["count"] else None
            assert text["min"] >= MIN_PX, (size, ex, text)
        shot(page, f"readable-{size}-last-example")
    page.set_viewport_size({"width": 1400, "height": 900})
    (ARTIFACTS / f"{host[0]}-smallest-text.json").write_text(json.dumps(found, indent=1))


@pytest.mark.parametrize("size", list(SIZES))
def test_mid_backward_in_a_120_node_program_the_active_node_is_on_screen_and_readable(
        page, host, shot, size):
    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})
    open_app(page, host[1], "p=" + encode(chain_program()))
    assert page.locator("[data-testid=node]").count() >= 120
    page.get_by_test_id("speed").select_option("16")
    page.get_by_test_id("play").click()
    page.wait_for_function(
        "(el) => Number(el.value) > Number(el.max) * 0.75", arg=page.get_by_test_id("scrub").element_handle(),
        timeout=REPLY_MS)
    page.get_by_test_id("play").click()  # pause mid-backward
    active = page.locator("[data-testid=node][data-active=true]")
    expect(active).to_have_count(1)
    canvas = page.get_by_test_id("graph").bounding_box()
    box = active.bounding_box()
    assert box["x"] >= canvas["x"] - 1 and box["y"] >= canvas["y"] - 1
    assert box["x"] + box["width"] <= canvas["x"] + canvas["width"] + 1
    assert box["y"] + box["height"] <= canvas["y"] + canvas["height"] + 1
    text = smallest_text(page)
    assert text["count"] > 0, "the active node's text is drawn"
    assert text["min"] >= MIN_PX, text
    expect(page.get_by_test_id("minimap")).to_be_visible()
    shot(page, f"readable-mid-backward-{size}")


def test_the_travelled_edge_points_the_way_the_gradient_went(page, host):
    open_app(page, host[1])
    page.get_by_test_id("to-end").click()
    carried = page.locator("[data-testid=edge].carried path").first
    expect(carried).to_have_attribute("marker-start", "url(#gp-arrow-hot)")
    assert carried.get_attribute("marker-end") is None


def test_a_share_link_reopens_the_exact_event(guarded, host, shot):
    page = guarded().new_page()
    open_app(page, host[1])
    for _ in range(3):
        page.get_by_test_id("step-forward").click()
    at, _ = moment(page)
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link")
    page.wait_for_function("(el) => el.value.includes('#p=')", arg=link.element_handle(), timeout=REPLY_MS)
    url = link.input_value()
    assert f"&e={at}" in url, url
    other = guarded().new_page()
    other.goto(url)
    wait_idle(other, 90_000)
    assert moment(other)[0] == at
    shot(other, "share-exact-event")


def test_a_misspelt_name_is_a_NameError_with_a_suggestion(page, host, shot):
    open_app(page, host[1])
    set_code(page, "import torch\nweight = torch.ones(2, requires_grad=True)\ny = wieght * 2\n")
    expect(page.get_by_test_id("error-title")).to_have_text("NameError at line 3")
    expect(page.get_by_test_id("error-message")).to_contain_text("Did you mean: 'weight'?")
    shot(page, "name-error")


def test_a_common_autograd_error_is_explained_in_plain_words(page, host):
    open_app(page, host[1])
    set_code(page, "import torch\nx = torch.ones(3, requires_grad=True)\ny = x * 2\ny.backward()\n")
    expect(page.get_by_test_id("error-title")).to_have_text("RuntimeError at line 4")
    expect(page.get_by_test_id("error-help")).to_contain_text("needs a single number")


def test_a_failed_run_has_a_fresh_console_and_the_graph_says_where_it_is_from(page, host, shot):
    open_app(page, host[1])
    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True)\nprint('from the first program')\n")
    expect(page.get_by_test_id("console")).to_contain_text("from the first program")
    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True\n")
    expect(page.get_by_test_id("console")).not_to_contain_text("from the first program")
    expect(page.get_by_test_id("console")).to_contain_text("SyntaxError")
    expect(page.get_by_test_id("stale-note")).to_have_text("Graph from the last successful run")
    shot(page, "failed-run")


def overlap(a: dict, b: dict, slack: float = 1.0) -> bool:
    """Whether two screen boxes share more than `slack` px each way (positions are whole
    pixels, boxes are not)."""
    return (a["x"] + slack < b["x"] + b["width"] and b["x"] + slack < a["x"] + a["width"]
            and a["y"] + slack < b["y"] + b["height"] and b["y"] + slack < a["y"] + a["height"])


# The screen boxes of the cards drawn inside the canvas (the part of each on screen), and of
# the mark tags on their top edges.
CARDS_JS = """(graph) => {
  const c = graph.getBoundingClientRect();
  const box = (n, el, what) => {
    const r = el.getBoundingClientRect();
    return { name: n.dataset.name, id: n.dataset.id, what, x: r.x, y: r.y, width: r.width, height: r.height };
  };
  const out = [];
  for (const n of graph.querySelectorAll("[data-testid=node]")) {
    out.push(box(n, n.querySelector(".gp-card"), "card"));
    for (const m of n.querySelectorAll(".gp-mark-tag")) {
      if (getComputedStyle(m).display !== "none" && m.getBoundingClientRect().width) out.push(box(n, m, "mark"));
    }
  }
  return out.filter((r) => r.x < c.right && r.x + r.width > c.left && r.y < c.bottom && r.y + r.height > c.top);
}"""


def check_callout_and_minimap(page: Page, leaf: str, controls: dict) -> dict:
    """The accumulation callout covers no control and no card; the minimap covers neither the
    leaf's card nor the callout. Returns the boxes measured."""
    callout = page.get_by_test_id("accum-callout")
    expect(callout).to_be_visible()
    page.wait_for_timeout(300)  # the controls are measured in a frame of their own
    box = callout.bounding_box()
    hit = [k for k, b in controls.items() if k != "minimap" and overlap(box, b)]
    assert not hit, (hit, box, controls)
    cards = page.get_by_test_id("graph").evaluate(CARDS_JS)
    covered = [(c["name"] or c["id"], c["what"]) for c in cards if overlap(box, c)]
    assert not covered, ("the callout covers a card or its marks", covered, box)
    minimap = page.get_by_test_id("minimap")
    leaf_card = next(c for c in cards if c["name"] == leaf and c["what"] == "card")
    if minimap.is_visible():
        mbox = minimap.bounding_box()
        assert not overlap(mbox, leaf_card), ("the minimap covers the leaf", mbox, leaf_card)
        assert not overlap(mbox, box), ("the minimap covers the callout", mbox, box)
    return {"callout": box, "leaf": leaf_card}


def named_controls(page: Page) -> dict:
    names = {
        "zoom": page.locator(".gp-zoom"),
        "legend": page.get_by_test_id("legend"),
        "minimap": page.get_by_test_id("minimap"),
        "play": page.get_by_test_id("play"),
        "scrub": page.get_by_test_id("scrub"),
        "speed": page.get_by_test_id("speed"),
    }
    return {k: v.bounding_box() for k, v in names.items() if v.is_visible()}


@pytest.mark.parametrize("size", [(390, 844), (1024, 700)], ids=["phone", "laptop"])
def test_on_a_phone_the_canvas_controls_do_not_overlap(page, host, shot, size):
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_app(page, host[1], "p=" + encode(chain_program(20)))
    boxes = named_controls(page)
    assert {"zoom", "legend", "play", "scrub"} <= set(boxes), boxes
    keys = sorted(boxes)
    clashes = [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if overlap(boxes[a], boxes[b])]
    shot(page, f"controls-{size[0]}")
    assert not clashes, (clashes, boxes)
    # the accumulation callout at the run's end (a leaf's .grad just grew) covers no button and
    # no card, and the minimap leaves the leaf and the callout clear
    check_callout_and_minimap(page, "h", named_controls(page))
    shot(page, f"callout-{size[0]}")


TRAINING = """import torch
import random
w = torch.tensor([1.0, -2.0], requires_grad=True)
optimizer = torch.optim.SGD([w], lr=0.1)
for step in range(6):
    optimizer.zero_grad()
    loss = (w ** 2).sum() * random.uniform(0.5, 1.5)
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize("size", [(390, 844), (1024, 700), (1400, 900)], ids=["phone", "laptop", "desktop"])
def test_the_callout_beside_a_short_chain_covers_no_card(page, host, shot, size):
    """A training loop's iteration is a short chain under its leaf: the callout used to sit on
    the next card at 1024x700."""
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_app(page, host[1], "p=" + encode(TRAINING))
    found = check_callout_and_minimap(page, "w", named_controls(page))
    text = page.get_by_test_id("accum-callout").inner_text()
    assert text.replace("\n", " ").startswith("w.grad: None + ["), text
    shot(page, f"callout-training-{size[0]}")
    assert found["callout"]["width"] >= 100


def test_both_hosts_set_a_viewport_meta_tag(page, host):
    open_app(page, host[1])
    content = page.evaluate("() => document.querySelector('meta[name=viewport]')?.content")
    assert content and "width=device-width" in content


def test_the_inspector_explains_the_chain_rule_at_the_selected_node(page, host, shot):
    open_app(page, host[1])
    page.get_by_test_id("to-end").click()
    node(page, "y").click()
    rule = page.get_by_test_id("chain-rule")
    expect(rule).to_contain_text("PowBackward0:")
    expect(rule).to_contain_text("grad in [2.]")
    expect(rule).to_contain_text("to x: [8.]")
    node(page, "z").click()
    expect(rule).to_contain_text("MulBackward0:")
    # a program typed in opens at its end (after its backward)
    set_code(page, "import torch\na = torch.tensor([0.0], requires_grad=True)\nb = a.sin()\nb.backward()\n")
    node(page, "b").click()
    expect(rule).to_contain_text("SinBackward0:")
    expect(rule).to_contain_text("cos(self)")
    shot(page, "chain-rule")


def test_a_loop_is_drawn_one_iteration_at_a_time_with_a_selector(page, host, shot):
    open_app(page, host[1])
    set_code(page, "import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                   "for step in range(4):\n    loss = (w ** 2).sum()\n    loss.backward()\n")
    iteration = page.get_by_test_id("iteration")
    expect(iteration).to_be_visible()
    expect(iteration.locator("option")).to_have_count(4)
    expect(page.locator("[data-testid=node][data-name=loss]")).to_have_count(1)
    iteration.select_option("1")
    page.wait_for_function("(el) => el.value === '1'", arg=iteration.element_handle())
    expect(page.locator("[data-testid=node][data-name=loss]")).to_have_count(1)
    shot(page, "loop-iteration")


MARKED = """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 3).exp()
z = (y + x.sin()).sum()
z.backward()
"""


def inspect(page: Page, name: str) -> str:
    """Selects a card (from the keyboard: at small sizes it may be off screen) and returns the
    inspector's text, with the drawer opened where the inspector is one."""
    node(page, name).focus()
    page.keyboard.press("Enter")
    toggle = page.get_by_test_id("drawer-toggle")
    if toggle.is_visible() and not page.get_by_test_id("drawer-close").is_visible():
        toggle.click()
    return page.get_by_test_id("inspector").inner_text()


def close_drawer(page: Page) -> None:
    close = page.get_by_test_id("drawer-close")  # (at full width the inspector is no drawer)
    if close.is_visible():
        close.click()


@pytest.mark.parametrize("size", list(SIZES))
def test_done_when_at_each_size(guarded, host, shot, size):
    """The issue's list at one size, in one page: the chain rule for a few ops, an inspector
    with no null, a NameError with its suggestion, a fresh console after a failed run, and a
    link that reopens the exact event in a second page."""
    w, h = SIZES[size]
    ctx = guarded()
    page = ctx.new_page()
    page.set_viewport_size({"width": w, "height": h})
    open_app(page, host[1], "p=" + encode(MARKED))
    rule = page.get_by_test_id("chain-rule")
    seen = {}
    for name, op, words in (("y", "ExpBackward0:", "result"), ("z", "SumBackward0:", "grad in"),
                            ("x", "AccumulateGrad", ".grad = .grad +")):
        text = inspect(page, name)
        seen[name] = text
        expect(rule).to_contain_text(op)
        expect(rule).to_contain_text(words)
        assert not re.search(r"\b(null|undefined)\b", text), (name, text)
        if name == "y":
            shot(page, f"done-chain-rule-{size}")
        close_drawer(page)
    # every other card, unnamed ones too: nothing reads null, and no action names a tensor that has no name
    for i in range(page.locator("[data-testid=node]").count()):
        page.locator("[data-testid=node]").nth(i).focus()
        page.keyboard.press("Enter")
        text = page.get_by_test_id("inspector").inner_text()
        assert not re.search(r"\b(null|undefined)\b", text), text
        assert "(unnamed).retain_grad" not in text and "None.retain_grad" not in text, text

    set_code(page, "import torch\nweight = torch.ones(2, requires_grad=True)\ny = wieght * 2\n")
    expect(page.get_by_test_id("error-title")).to_have_text("NameError at line 3")
    expect(page.get_by_test_id("error-message")).to_contain_text("Did you mean: 'weight'?")
    expect(page.get_by_test_id("error")).to_be_visible()
    page.get_by_test_id("error").scroll_into_view_if_needed()  # on a phone the code is under the graph
    shot(page, f"done-name-error-{size}")

    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True)\nprint('printed by the first program')\n")
    expect(page.get_by_test_id("console")).to_contain_text("printed by the first program")
    set_code(page, "import torch\nx = torch.ones(2, requires_grad=True\n")
    expect(page.get_by_test_id("console")).not_to_contain_text("printed by the first program")
    expect(page.get_by_test_id("console")).to_contain_text("SyntaxError")
    expect(page.get_by_test_id("stale-note")).to_be_visible()
    shot(page, f"done-failed-run-{size}")

    set_code(page, MARKED)
    page.get_by_test_id("to-start").click()
    for _ in range(4):
        page.get_by_test_id("step-forward").click()
    at, _ = moment(page)
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-link")
    page.wait_for_function("(el) => el.value.includes('#p=')", arg=link.element_handle(), timeout=REPLY_MS)
    url = link.input_value()
    other = ctx.new_page()
    other.set_viewport_size({"width": w, "height": h})
    other.goto(url)
    wait_idle(other, 90_000)
    assert moment(other)[0] == at, (moment(other), at)
    shot(other, f"done-share-{size}")
