"""``paused_gc``: the cyclic collector is off inside, back as it was after (also after an
error), and a pause inside a pause leaves it to the outer one."""

from __future__ import annotations

import gc

import pytest

from knowforge.models.gc_pause import paused_gc


def test_the_collector_is_paused_and_restored():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()          # the inner pause leaves it to the outer one
    assert gc.isenabled()
    with pytest.raises(ValueError):
        with paused_gc():
            raise ValueError("boom")
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    try:
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
