"""Shared fixtures. --require-gpu (scripts/python-gpu-check.sh passes it)
turns the GPU tests' skips into failures, so that a GPU machine cannot pass
them by skipping."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))  # dense.py


def pytest_addoption(parser):
    parser.addoption(
        "--require-gpu",
        action="store_true",
        help="fail, instead of skipping, GPU tests whose device, CUDA build or framework is missing",
    )


@pytest.fixture
def require(request):
    """require(condition, why): skip (or, with --require-gpu, fail) unless
    condition holds."""

    def check(condition, why):
        if condition:
            return
        if request.config.getoption("--require-gpu"):
            pytest.fail(f"--require-gpu: {why}")
        pytest.skip(why)

    return check


@pytest.fixture
def rng():
    return np.random.default_rng(20261201)


DTYPES = ["float64", "complex128", "float32", "complex64"]
