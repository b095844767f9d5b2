"""The oracle corpus is consistent: scenarios and recorded fixtures match one to one."""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.oracle import scenarios as scenarios_module  # noqa: E402
from tests.oracle.scenarios import SCENARIOS  # noqa: E402

FIXTURES = json.loads((ROOT / "tests" / "oracle" / "fixtures.json").read_text())


def _public_functions():
    return {
        name
        for name, obj in vars(scenarios_module).items()
        if inspect.isfunction(obj)
        and obj.__module__ == scenarios_module.__name__
        and not name.startswith("_")
    }


def test_every_scenario_has_a_fixture_and_vice_versa():
    defined = set(SCENARIOS)
    recorded = set(FIXTURES["scenarios"])
    missing = sorted(defined - recorded)
    extra = sorted(recorded - defined)
    assert not missing, f"scenarios without fixtures (run scripts/record_oracle.py): {missing}"
    assert not extra, f"fixtures without scenarios (stale entries): {extra}"


def test_every_public_function_is_a_scenario():
    not_scenarios = sorted(_public_functions() - set(SCENARIOS))
    assert not not_scenarios, (
        f"public functions in scenarios.py that are not (torch, rec) scenarios: {not_scenarios}; "
        "prefix helpers with an underscore"
    )


def test_fixtures_header_and_no_unexpected_errors():
    assert FIXTURES["header"]["torch_version"].startswith("2.13.0"), FIXTURES["header"]
    errors = {k: v["error"] for k, v in FIXTURES["scenarios"].items() if v["error"] is not None}
    assert not errors, f"scenarios that raised unexpectedly in real torch: {errors}"
    assert len(FIXTURES["scenarios"]) >= 120
