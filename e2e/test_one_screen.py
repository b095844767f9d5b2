"""One screen at every size: the top bar, the toolbar and the player stay on screen while a long
backward pass plays (the page itself never scrolls), the editor keeps the running statement in
view, and the play button reads Play as soon as playback has reached the end."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from playground.share import encode

from .test_readable import chain_program
from .ui import REPLY_MS, open_app, set_code

SIZES = {"laptop": (1024, 700), "phone": (390, 844)}


def box(page: Page, testid: str) -> dict:
    return page.get_by_test_id(testid).first.bounding_box()


def on_screen(b: dict, w: int, h: int) -> bool:
    return b["x"] >= -1 and b["y"] >= -1 and b["x"] + b["width"] <= w + 1 and b["y"] + b["height"] <= h + 1


@pytest.mark.parametrize("size", list(SIZES))
def test_mid_backward_the_page_is_one_screen_with_the_player_on_it(page, host, shot, size):
    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})
    open_app(page, host[1], "p=" + encode(chain_program()))
    page.get_by_test_id("speed").select_option("16")
    page.get_by_test_id("play").click()
    page.wait_for_function(
        "(el) => Number(el.value) > Number(el.max) * 0.75",
        arg=page.get_by_test_id("scrub").element_handle(), timeout=REPLY_MS)
    page.get_by_test_id("play").click()  # pause mid-backward
    page.wait_for_timeout(300)  # the camera and the editor settle
    scroll = page.evaluate(
        "() => ({ y: scrollY, x: scrollX, h: document.scrollingElement.scrollHeight })")
    assert scroll["y"] == 0 and scroll["x"] == 0, scroll
    assert scroll["h"] <= h + 1, f"the page is taller than the screen: {scroll}"
    for testid in ("examples", "backward", "play", "scrub", "moment"):
        assert on_screen(box(page, testid), w, h), f"{testid} is off screen: {box(page, testid)}"
    graph = box(page, "graph")
    assert graph["y"] >= 0 and graph["height"] > 200, graph
    assert graph["y"] < box(page, "play")["y"], "the graph is above the player"
    if size == "phone":
        player = box(page, "player")
        assert abs(player["y"] + player["height"] - h) <= 1, f"the player is pinned at the bottom: {player}"
    else:
        # the statement being run (line 65, `loss.backward()`) is in the editor's view
        step = page.locator(".cm-gp-step").first
        expect(step).to_contain_text("loss.backward()")
        scroller = page.locator(".cm-scroller").first.bounding_box()
        line = step.bounding_box()
        assert scroller["y"] - 1 <= line["y"] and line["y"] + line["height"] <= scroller["y"] + scroller["height"] + 1
        # the top bar is one row (Share and the other host's link on the same line as the gallery)
        assert page.locator("header.gp-top").bounding_box()["height"] < 60
    shot(page, f"one-screen-mid-backward-{size}")


def test_the_play_button_reads_play_when_playback_reaches_the_end(page, host):
    open_app(page, host[1])
    page.get_by_test_id("to-start").click()
    page.get_by_test_id("speed").select_option("4")
    page.get_by_test_id("play").click()
    # read the button in the same frame the scrub reaches its end
    playing = page.wait_for_function(
        """([scrub, play]) => scrub.value === scrub.max ? play.dataset.playing : null""",
        arg=[page.get_by_test_id("scrub").element_handle(), page.get_by_test_id("play").element_handle()],
        timeout=REPLY_MS).json_value()
    assert playing == "false"
    expect(page.get_by_test_id("play")).to_have_text("Play")


def test_the_loss_plot_counts_iterations_as_the_selector_does(page, host):
    open_app(page, host[1])
    set_code(page, "import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\n"
                   "for i in range(4):\n    loss = (w ** 2).sum()\n    loss.backward()\n"
                   "    with torch.no_grad():\n        w -= 0.1 * w.grad\n    w.grad.zero_()\n")
    if page.get_by_test_id("to-end").is_enabled():  # a typed program opens at its end
        page.get_by_test_id("to-end").click()
    iteration = page.get_by_test_id("iteration")
    expect(iteration.locator("option:checked")).to_have_text("iteration 4 of 4")
    expect(page.get_by_test_id("loss-now")).to_contain_text("iteration 4:")
