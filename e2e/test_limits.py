"""A request that overruns its host's deadline is stopped, said so, and the session goes on.

One statement that the interpreter's clock cannot interrupt (printing a long list of large
tensors takes minutes on either backend): the server's pool kills its worker process, the
browser page terminates its Pyodide worker and starts another. Both answer with a `limit` error.
"""

from playwright.sync_api import expect

from .ui import error_text, node, open_app, results, set_code, type_code, wait_result

RUNAWAY = "import torch\na = torch.ones(300, 300)\nprint([a] * 1000)\n"
GOOD = "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x * 3\ny.backward()\n"
# The host's 5 s time limit, the deadline's margin (3 s on the server, 5 s in the browser), and
# in the browser a new Pyodide's start before the next reply.
STOPPED_MS = 30_000
RESTARTED_MS = 90_000


def test_a_runaway_program_is_stopped_and_the_session_goes_on(page, host):
    open_app(page, host[1])
    set_code(page, GOOD)
    before = results(page)
    type_code(page, RUNAWAY)
    wait_result(page, before, timeout=STOPPED_MS)
    text = error_text(page)
    assert "The program was stopped" in text and "it was stopped" in text
    assert "Traceback" not in text and "/work" not in text
    # the next program runs (in the browser, on a new Pyodide worker)
    before = results(page)
    type_code(page, GOOD.replace("x * 3", "x * 5"))
    wait_result(page, before, timeout=RESTARTED_MS)
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(node(page, "y")).to_be_visible()
