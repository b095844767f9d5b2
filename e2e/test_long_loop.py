"""A training loop of 2,000 iterations (docs/timeline.md, "Long loops"): it runs to its end in
both hosts, its timeline keeps the first and last iterations in detail, and the loss plot shows
every iteration's loss."""

from __future__ import annotations

from playwright.sync_api import expect

from .ui import REPLY_MS, expect_moment_at_end, open_app, set_code

# a small problem per iteration, so that the browser's pure-Python engine also ends in time
PROGRAM = """import torch
w = torch.tensor(5.0, requires_grad=True)
for step in range(2000):
    loss = (w - 3) ** 2
    loss.backward()
    with torch.no_grad():
        w -= 0.001 * w.grad
    w.grad = None
    if step % 500 == 499:
        print(step, round(loss.item(), 4))
"""


def test_a_2000_iteration_loop_runs_and_plots_every_loss(page, host, shot):
    open_app(page, host[1])
    set_code(page, PROGRAM)
    expect(page.get_by_test_id("error")).to_be_hidden()
    plot = page.get_by_test_id("loss-plot")
    expect(plot).to_be_visible(timeout=REPLY_MS)
    expect(plot).to_have_attribute("data-points", "2000")
    expect_moment_at_end(page)  # a run is shown at its end
    expect(plot).to_have_attribute("data-past", "2000")
    # as torch 2.13 prints it (w - 3 shrinks by 0.998 an iteration)
    console = page.get_by_test_id("console")
    for line in ("499 0.5424", "999 0.0733", "1499 0.0099", "1999 0.0013"):
        expect(console).to_contain_text(line)
    shot(page, "long-loop")

