"""A request that runs past its time limit is stopped, said so, and the session goes on.

One statement that would run for minutes (a list of thousands of large matrix products): the
engine checks the run's deadline at every op and stops it at its line. What no check foresaw is
stopped by the host's own deadline: the server's pool kills its worker process, the browser page
terminates its Pyodide worker and starts another (tests/test_host_hostile.py, static/test/).
Either way the answer is a `limit` error that says the program was stopped.
"""

from playwright.sync_api import expect

from .ui import error_text, node, open_app, results, set_code, type_code, wait_result

# 50,000 products: numpy's threaded products do 10,000 in about 1.4 s on an idle machine, so
# fewer would finish inside the time limit (the pure backend's size limits allow 170 x 170)
RUNAWAY = ("import torch\na = torch.ones(170, 170)\n"
           "b = [(a @ a).sum() for i in range(10000) for j in range(5)]\n")
GOOD = "import torch\nx = torch.tensor([2.0], requires_grad=True)\ny = x * 3\ny.backward()\n"
# The host's time limit (5 s on the server, 8 s in the browser), the deadline's margin (3 s on
# the server, 5 s in the browser), and in the browser a new Pyodide's start before the next reply.
STOPPED_MS = 30_000
RESTARTED_MS = 90_000


def test_a_runaway_program_is_stopped_and_the_session_goes_on(page, host):
    open_app(page, host[1])
    set_code(page, GOOD)
    before = results(page)
    type_code(page, RUNAWAY)
    wait_result(page, before, timeout=STOPPED_MS)
    # the reply drawn first may be the emptied editor's (type_code deletes, then pastes): the
    # runaway's own stop comes up to the time limit and its margin later
    expect(page.get_by_test_id("error")).to_be_visible(timeout=STOPPED_MS)
    text = error_text(page)
    assert "it was stopped" in text
    assert "Traceback" not in text and "/work" not in text
    # the next program runs (in the browser, on a new Pyodide worker)
    before = results(page)
    type_code(page, GOOD.replace("x * 3", "x * 5"))
    wait_result(page, before, timeout=RESTARTED_MS)
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(node(page, "y")).to_be_visible()
