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


def test_what_a_pause_made_is_in_the_oldest_generation_and_cycles_are_still_freed():
    import weakref

    class Node:
        pass

    with paused_gc():
        kept = [[k] for k in range(1000)]
        cycle = Node()
        cycle.me = cycle
        alive = weakref.ref(cycle)
    # not left in the youngest generation, where the first collection after the pause would walk it all
    assert not any(o is kept for o in gc.get_objects(generation=0))
    assert any(o is kept for o in gc.get_objects(generation=2))
    del cycle
    gc.collect()
    assert alive() is None


def test_what_a_caller_froze_stays_frozen():
    kept = [["frozen by the caller"]]
    gc.freeze()
    try:
        assert gc.get_freeze_count() > 0
        with paused_gc():
            made = [[k] for k in range(100)]
        # still in the permanent generation, which no generation's object list shows (the
        # count itself may fall: a frozen object whose last reference goes is freed)
        assert not any(o is kept for o in gc.get_objects()) and made
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
    assert any(o is kept for o in gc.get_objects())
