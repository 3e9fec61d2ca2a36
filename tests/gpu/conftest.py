"""What the GPU tests share: the backend each runs on."""

from __future__ import annotations

import pytest

from xhip.runtime.backends import make_backend
from xhip.runtime.backends.gpu.driver import DriverUnavailable


@pytest.fixture(scope="module", params=("cuda", "hip"))
def backend_name(request):
    """Each GPU backend in turn; skipped with its one-line reason where it cannot run."""
    try:
        make_backend(request.param)
    except DriverUnavailable as err:
        pytest.skip(str(err))
    return request.param
