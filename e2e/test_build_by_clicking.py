"""Building the seed graph with clicks only: leaf, ops from the palette, backward."""

from playwright.sync_api import expect

from playground.share import encode

from .ui import click_and_wait, code_text, field, node, open_app, play_to_end

EMPTY = "import torch\n"


def _add_leaf(page, name, value, requires_grad):
    page.get_by_test_id("leaf-name").fill(name)
    page.get_by_test_id("leaf-value").fill(value)
    box = page.get_by_test_id("leaf-requires-grad")
    box.check() if requires_grad else box.uncheck()
    click_and_wait(page, page.get_by_test_id("leaf-submit"))
    expect(node(page, name)).to_be_visible()


def test_build_the_seed_example_by_clicking_and_read_x_grad_8(page, host, shot):
    open_app(page, host[1], "p=" + encode(EMPTY))
    _add_leaf(page, "x", "[2.0]", True)
    # y = x ** 2: select x, press the palette's power op (exponent 2 by default)
    node(page, "x").click()
    click_and_wait(page, page.get_by_test_id("op-pow"))
    y = [ln for ln in code_text(page).splitlines() if ln.strip()][-1].split("=")[0].strip()
    # z = two * y, with a constant leaf that does not require grad
    _add_leaf(page, "two", "2.0", False)
    node(page, "two").click()
    node(page, y).click(modifiers=["Shift"])
    click_and_wait(page, page.get_by_test_id("op-mul"))
    z = [ln for ln in code_text(page).splitlines() if "two *" in ln][0].split("=")[0].strip()
    node(page, z).click()
    click_and_wait(page, page.get_by_test_id("backward"))
    assert f"{z}.backward()" in code_text(page)
    play_to_end(page)
    assert "8." in field(page, "x", "grad")
    shot(page, "05-built-by-clicking")


def test_retain_grad_detach_inplace_and_no_grad_are_gestures(page, host):
    program = ("import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
               "y = x * 3.0\nz = y.sum()\n")
    open_app(page, host[1], "p=" + encode(program))
    node(page, "y").click()
    click_and_wait(page, page.get_by_test_id("retain-grad"))
    assert "y.retain_grad()" in code_text(page)
    node(page, "y").click()
    click_and_wait(page, page.get_by_test_id("detach"))
    assert "y.detach()" in code_text(page)
    node(page, "z").click()
    click_and_wait(page, page.get_by_test_id("backward"))
    play_to_end(page)
    assert "1." in field(page, "y", "grad")  # retained: dz/dy = 1
    assert "3." in field(page, "x", "grad")
    node(page, "x").click()
    page.get_by_test_id("inplace-method").select_option("mul_")
    click_and_wait(page, page.get_by_test_id("inplace"))
    assert "x.mul_(" in code_text(page)
    # x requires grad, so an in-place op on it is torch's leaf error, shown at its line
    expect(page.get_by_test_id("error")).to_contain_text("a leaf Variable that requires grad")
    node(page, "y").click()
    click_and_wait(page, page.get_by_test_id("no-grad"))
    assert "with torch.no_grad():" in code_text(page)


def test_non_scalar_backward_asks_for_a_gradient(page, host):
    program = "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\ny = x * x\n"
    open_app(page, host[1], "p=" + encode(program))
    node(page, "y").click()
    grad_input = page.get_by_test_id("backward-gradient")
    expect(grad_input).to_be_visible()
    grad_input.fill("[1.0, 1.0]")
    click_and_wait(page, page.get_by_test_id("backward"))
    assert "y.backward(gradient=torch.tensor([1.0, 1.0]))" in code_text(page)
    play_to_end(page)
    text = field(page, "x", "grad")
    assert "4." in text and "6." in text
