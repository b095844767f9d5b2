"""The issue's story, step by step: open, play backward, backward again, accumulate, zero."""

from playwright.sync_api import expect

from playground.share import encode

from .ui import click_and_wait, code_text, error_text, field, node, open_app, play_to_end

SEED_RETAIN = ("import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x**2\nz = 2*y\n"
               "z.backward(retain_graph=True)\n")


def test_opens_with_the_seed_and_plays_backward_to_x_grad_8(page, host, shot):
    open_app(page, host[1])
    expect(node(page, "x")).to_be_visible()
    assert "z.backward()" in code_text(page)
    expect(page.get_by_test_id("backward")).to_be_visible()
    page.get_by_test_id("to-start").click()
    # before the backward, x has no .grad
    assert "8" not in field(page, "x", "grad")
    shot(page, "01-opened")
    play_to_end(page)
    assert "8." in field(page, "x", "grad")
    shot(page, "02-after-backward")


def test_backward_again_shows_the_freed_graph_error_at_its_line(page, host, shot):
    open_app(page, host[1])
    click_and_wait(page, page.get_by_test_id("backward"))
    text = error_text(page)
    # the new z.backward() is appended after the example's print(x.grad) on line 6
    assert "RuntimeError" in text and "line 7" in text
    assert "Trying to backward through the graph a second time" in text
    expect(page.get_by_test_id("console")).to_contain_text("Trying to backward through the graph")
    shot(page, "03-backward-twice-error")


def test_retain_graph_accumulates_8_then_16_and_zeroing_resets(page, host, shot):
    open_app(page, host[1], "p=" + encode(SEED_RETAIN))
    assert "8." in field(page, "x", "grad")
    page.get_by_test_id("retain-graph").check()
    click_and_wait(page, page.get_by_test_id("backward"))
    play_to_end(page)
    assert "16." in field(page, "x", "grad")
    expect(page.get_by_test_id("error")).to_be_hidden()
    shot(page, "04-accumulated-16")
    # zero it in place, then set it to None: both are edits the code pane shows
    node(page, "x").click()
    click_and_wait(page, page.get_by_test_id("zero-grad"))
    assert "x.grad.zero_()" in code_text(page)
    play_to_end(page)
    assert "0." in field(page, "x", "grad") and "16" not in field(page, "x", "grad")
    node(page, "x").click()
    click_and_wait(page, page.get_by_test_id("grad-none"))
    assert "x.grad = None" in code_text(page)
    play_to_end(page)
    assert "None" in field(page, "x", "grad")
