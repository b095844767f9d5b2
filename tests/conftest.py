"""Fixtures shared by the unit tests (the helper modules they use sit beside this file)."""

from __future__ import annotations

import pytest
from live_torch import TORCH_LIKE, torch_like_id


@pytest.fixture(params=TORCH_LIKE, ids=torch_like_id)
def T(request):
    """The torch-like module under test: the engine, and real torch when it imports, so each
    check is shown to be torch's behaviour and not only the engine's."""
    return request.param
