"""The UI's copies of Python's tables (static/src/python-tables.js) are what
scripts/write_js_tables.py generates from Python now: change a table in Python, regenerate."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("write_js_tables",
                                               ROOT / "scripts" / "write_js_tables.py")
WRITER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(WRITER)


def test_the_generated_tables_are_up_to_date():
    assert WRITER.OUT.read_text() == WRITER.render(), "run scripts/write_js_tables.py"


def test_the_tables_hold_pythons_values():
    from playground import share
    from playground.edits import INPLACE_METHODS

    text = WRITER.render()
    for name, method in INPLACE_METHODS.items():
        assert f'{{ method: "{name}", args: "{method.example}" }}' in text
    assert f"maxTokenChars: {share.MAX_TOKEN_CHARS} " in text
    assert f"maxProgramChars: {share.MAX_PROGRAM_CHARS}," in text


def test_the_ui_takes_its_tables_from_the_generated_module():
    for name in ("actions.js", "share-token.js"):
        source = (ROOT / "static" / "src" / name).read_text()
        assert 'from "./python-tables.js"' in source, name
