"""What the e2e tests do with the playground, in one place: open it, wait for it, read it."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

LOAD_MS = 90_000  # a cold Pyodide start on a loaded 2-core machine
REPLY_MS = 20_000


def open_app(page: Page, url: str, hash_: str | None = None) -> None:
    page.goto(url + ("#" + hash_ if hash_ else ""))
    wait_idle(page, LOAD_MS)


def wait_idle(page: Page, timeout: float = REPLY_MS) -> None:
    """Until the UI has drawn a reply, has no run waiting for its debounce, and asks nothing
    more of its host."""
    root = page.get_by_test_id("playground")
    expect(root).to_have_attribute("data-busy", "false", timeout=timeout)
    expect(root).to_have_attribute("data-pending", "false", timeout=timeout)
    page.locator("[data-testid=moment][data-pos]").first.wait_for(state="attached",
                                                                   timeout=timeout)


def results(page: Page) -> int:
    """How many host replies the UI has drawn so far."""
    return int(page.get_by_test_id("playground").get_attribute("data-results") or 0)


def wait_result(page: Page, after: int, timeout: float = REPLY_MS) -> None:
    """Until a reply newer than the `after`-th has been drawn and the UI is idle."""
    root = page.get_by_test_id("playground")
    page.wait_for_function("([el, n]) => Number(el.dataset.results || 0) > n",
                           arg=[root.element_handle(), after], timeout=timeout)
    wait_idle(page, timeout)


def node(page: Page, name: str):
    return page.locator(f"[data-testid=node][data-name='{name}']").last


def field(page: Page, name: str, which: str) -> str:
    return node(page, name).locator(f"[data-testid={which}]").first.text_content() or ""


def to_end(page: Page) -> None:
    page.get_by_test_id("to-end").click()
    expect_moment_at_end(page)


def expect_moment_at_end(page: Page, timeout: float = REPLY_MS) -> None:
    scrub = page.get_by_test_id("scrub")
    page.wait_for_function(
        "(el) => el.value === el.max", arg=scrub.element_handle(), timeout=timeout)


def play_to_end(page: Page, timeout: float = 60_000, speed: str = "4") -> None:
    page.get_by_test_id("speed").select_option(speed)
    page.get_by_test_id("play").click()
    expect_moment_at_end(page, timeout)


def moment(page: Page) -> tuple[int, int]:
    scrub = page.get_by_test_id("scrub")
    return int(scrub.input_value()), int(scrub.get_attribute("max"))


def code_text(page: Page) -> str:
    return page.get_by_test_id("code").locator(".cm-content").inner_text()


def type_code(page: Page, text: str) -> None:
    """Replace the program as a person would: select all in the editor and paste."""
    content = page.get_by_test_id("code").locator(".cm-content")
    content.click()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


def set_code(page: Page, text: str) -> None:
    """type_code, then wait until the run it started has been drawn."""
    before = results(page)
    type_code(page, text)
    wait_result(page, before)


def click_and_wait(page: Page, locator) -> None:
    """Click something that asks the host (an edit, an example) and wait for its reply."""
    before = results(page)
    locator.click()
    wait_result(page, before)


def error_text(page: Page) -> str:
    banner = page.get_by_test_id("error")
    expect(banner).to_be_visible()
    return banner.inner_text()


def number_in(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.?\d*(?:e[-+]?\d+)?", text)]
