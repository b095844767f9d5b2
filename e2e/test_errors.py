"""Every error from the seeds is shown at its line, with torch's type and message."""

import pytest
from playwright.sync_api import expect

from .ui import error_text, open_app, set_code

SEED_ERRORS = [
    ("non-scalar backward (seed 004)",
     "import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\nz = x * 2\n"
     "z.backward()\n",
     4, "RuntimeError", "grad can be implicitly created only for scalar outputs"),
    ("in-place on a leaf (seed 001)",
     "import torch\nx = torch.tensor([1.0], requires_grad=True)\nx += 1\n",
     3, "RuntimeError", "a leaf Variable that requires grad is being used in an in-place"),
    ("backward twice (seed 002)",
     "import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\ny.backward()\n"
     "y.backward()\n",
     5, "RuntimeError", "Trying to backward through the graph a second time"),
    ("no grad_fn (seed 003)",
     "import torch\nx = torch.tensor([1.0, 2.0])\ny = (x * 2).sum()\ny.backward()\n",
     4, "RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn"),
    ("modified by an in-place op",
     "import torch\na = torch.tensor([1.0, 2.0], requires_grad=True)\nb = a.sigmoid()\n"
     "b.mul_(2)\nb.sum().backward()\n",
     5, "RuntimeError", "modified by an inplace operation"),
    ("not in the language", "import os\n", 1, None, "import"),
]


@pytest.mark.parametrize("title, program, line, exc, message", SEED_ERRORS,
                         ids=[e[0] for e in SEED_ERRORS])
def test_seed_error_is_shown_at_its_line(page, host, title, program, line, exc, message):
    open_app(page, host[1])
    set_code(page, program)
    text = error_text(page)
    assert f"line {line}" in text and message in text
    if exc:
        assert exc in text
    expect(page.get_by_test_id("error")).to_have_attribute("data-line", str(line))
    # the editor underlines the failing line
    expect(page.get_by_test_id("code").locator(".cm-lintRange-error, .gp-error-line")
           .first).to_be_visible()
    # the session goes on: a good program afterwards runs
    set_code(page, "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x * 3).sum()"
                   ".backward()\n")
    expect(page.get_by_test_id("error")).to_be_hidden()
