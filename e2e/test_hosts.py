"""Between the hosts: a link opens in the other one; the in-browser host's load and edit times."""

import json
import os
import statistics

from playwright.sync_api import expect

from playground.share import encode

from .conftest import ARTIFACTS
from .test_load import big_program
from .ui import LOAD_MS, click_and_wait, code_text, field, node, open_app, wait_idle


def test_the_server_app_opens_its_program_in_the_in_browser_version(guarded, panel_server):
    page = guarded().new_page()
    open_app(page, panel_server)
    page.get_by_test_id("examples").select_option("fan-out")
    wait_idle(page)
    program = code_text(page)
    link = page.get_by_test_id("other-host")
    href = link.get_attribute("href")
    assert href.startswith("site/index.html#p="), href
    page.goto(panel_server.rsplit("/", 1)[0] + "/" + href)
    wait_idle(page, LOAD_MS)
    assert page.get_by_test_id("playground").get_attribute("data-host") == "browser"
    assert code_text(page) == program


def _record(name, data):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.json").write_text(json.dumps(data, indent=1))
    print(f"[{name}]", data)


def test_browser_host_cold_load_with_a_link_and_edit_round_trips(guarded, site_server):
    """Time to first graph from a cold load (Pyodide's own load measured in the same run) and
    the per-edit round trip in the worker for a 100-node program: recorded, not asserted."""
    program = big_program(34)  # about 100 tensors
    page = guarded().new_page()
    open_app(page, site_server, "p=" + encode(program))
    expect(node(page, "loss")).to_be_visible()
    timings = page.evaluate("() => ({...window.__gradplay_timings})")
    assert timings.get("first_graph_ms") is not None and timings.get("pyodide_ms")
    nodes = page.locator("[data-testid=node]").count()
    assert nodes >= 100
    # per edit: change x's value through the inspector's set_value, time reply to redraw
    latencies = []
    for i in range(8):
        # a long chain does not fit at a readable zoom: select x from the keyboard, as a
        # person using the keyboard would (nodes are focusable buttons)
        node(page, "x").focus()
        page.keyboard.press("Enter")
        page.get_by_test_id("set-value-input").fill(f"[0.{i + 1}, -0.25]")
        t0 = page.evaluate("() => performance.now()")
        click_and_wait(page, page.get_by_test_id("set-value"))
        latencies.append(page.evaluate("() => performance.now()") - t0)
        assert f"0.{i + 1}" in field(page, "x", "value")
    edits = page.evaluate("() => window.__gradplay_timings.requests"
                          ".filter((r) => r.type === 'edit')")[-8:]
    keep = ("pyodide_ms", "engine_ms", "ready_ms", "first_graph_ms",
            "first_graph_after_pyodide_ms", "first_draw_ms", "first_graph_since_start_ms")
    _record("browser-load", {
        "nodes": nodes, **{k: timings.get(k) for k in keep},
        # the worker's round trip (request posted -> reply received) and the host's own time
        "edit_round_trip_ms_median": statistics.median(r["ms"] for r in edits),
        "edit_host_ms_median": statistics.median(r["host_ms"] for r in edits),
        # click -> the new graph drawn and the edit's step played (the UI auto-plays it)
        "edit_to_drawn_ms_median": round(statistics.median(latencies), 1)})


# Clicks a button found through any shadow roots (Panel renders the UI in one) and waits, one
# animation frame at a time, until the UI has drawn the reply it asked for.
_CLICK_UNTIL_DRAWN = """async (testid) => {
  const find = (sel, root = document) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const inner = find(sel, el.shadowRoot); if (inner) return inner; }
    }
    return null;
  };
  const ui = find('[data-testid=playground]');
  const button = find(`[data-testid=${testid}]`);
  const before = ui.dataset.results;
  const t0 = performance.now();
  button.click();
  while (ui.dataset.results === before) await new Promise((r) => requestAnimationFrame(r));
  return performance.now() - t0;
}"""


# The UI's own time for the last reply it drew (ui.js measures it as "gradplay:draw").
_LAST_DRAW_MS = "() => performance.getEntriesByName('gradplay:draw').at(-1)?.duration ?? null"


def test_edit_latency_on_each_host(page, host):
    """Click -> the edited program's graph drawn, on the seed and on a 100-node program:
    recorded with the machine's load and the UI's own share (the issue's target: 150 ms on
    each host for the 100-node program)."""
    kind, url = host
    figures = {"load_before": [round(x, 2) for x in os.getloadavg()]}
    for label, program in (("seed", None), ("100-node", big_program(34))):
        page.goto("about:blank")  # a new hash alone would not reload the page
        open_app(page, url, None if program is None else "p=" + encode(program))
        assert page.locator("[data-testid=node]").count() >= (100 if program else 3)
        times, draws = [], []
        for i in range(8):
            node(page, "x").focus()
            page.keyboard.press("Enter")
            page.get_by_test_id("set-value-input").fill(f"[{i + 1}.5]" if program is None
                                                       else f"[0.{i + 1}, -0.25]")
            times.append(page.evaluate(_CLICK_UNTIL_DRAWN, "set-value"))
            draws.append(page.evaluate(_LAST_DRAW_MS))
            wait_idle(page)
            assert f"{i + 1}.5" in field(page, "x", "value") or f"0.{i + 1}" in field(
                page, "x", "value")
        figures[label] = {"median_ms": round(statistics.median(times), 1),
                          "min_ms": round(min(times), 1),
                          "max_ms": round(max(times), 1),
                          # of which the UI drawing the reply (the rest: the host and the way there and back)
                          "ui_draw_median_ms": round(statistics.median(draws), 1)}
    figures["load_after"] = [round(x, 2) for x in os.getloadavg()]
    _record(f"{kind}-edit-latency", figures)
