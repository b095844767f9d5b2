"""The Panel component (the server host and the notebook helper), without a browser."""

import json
import re
from pathlib import Path

import panel
import pytest

from playground.app import BUNDLE, Playground, create_app

SEED = "import torch\nx = torch.tensor([2.0], requires_grad=True)\n(x**2 * 2).backward()\n"


def test_the_bundle_is_built_and_exports_render():
    # Panel loads the ESM from a blob: URL, so it must be one file with no relative imports
    text = Path(BUNDLE).read_text()
    assert re.search(r"export\s*\{[^}]*\brender\b", text) or "export function render" in text
    assert not re.search(r"""\bfrom\s*["']\.\.?/""", text)


def test_a_notebook_component_answers_requests_with_its_own_host():
    a, b = Playground(program=SEED), Playground()
    assert a.program == SEED and not a.sync_url
    ra = json.loads(a.answer({"type": "run", "id": 1, "program": SEED}))
    assert ra["type"] == "result" and ra["timeline"]["ok"]
    rb = json.loads(b.answer(json.dumps({"type": "run", "id": 2, "program": "import torch\n"})))
    assert rb["type"] == "result"
    # each component keeps its own session state
    assert a._host.program == SEED and b._host.program == "import torch\n"


@pytest.mark.parametrize("bad", ["{not json", "[1]", json.dumps({"type": "nope", "id": 3}), 7])
def test_a_bad_message_gets_an_error_reply_not_an_exception(bad):
    reply = json.loads(Playground().answer(bad))
    assert reply["type"] == "error" and reply["error"]["kind"] == "protocol"


def test_the_full_page_app_makes_a_synced_playground():
    app = create_app()
    assert isinstance(app, panel.Column)
    (pg,) = [o for o in app.objects if isinstance(o, Playground)]
    assert pg.sync_url
