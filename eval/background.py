"""Work the engine does beside its own: a function run in a thread of its own.

The graph's part of an eval is mostly the server's (a read of the questions, the write of the
answers), so the engine hands it to a thread and goes on with its own work on the other core:
the questions are checked while the solver answers, the answers written while the report is
built (issue 33). The caller takes the result, or the thread's error, in its own thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Background(Generic[T]):
    """``fn(*args, **kwargs)`` started in a daemon thread now. ``result()`` waits for it and
    returns its value or raises its error; ``raise_if_failed()`` raises the error of a call
    that has already failed and otherwise returns at once; ``settle()`` waits, whatever it did
    (for a caller that is raising an error of its own)."""

    def __init__(self, fn: Callable[..., T], *args, name: str = "knowforge-background", **kwargs):
        self._done = threading.Event()
        self._value: T | None = None
        self._error: BaseException | None = None

        def target():
            try:
                self._value = fn(*args, **kwargs)
            except BaseException as exc:        # handed over in the caller's thread
                self._error = exc
            finally:
                self._done.set()

        threading.Thread(target=target, name=name, daemon=True).start()

    def settle(self) -> None:
        self._done.wait()

    def result(self) -> T:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._value          # type: ignore[return-value]

    def raise_if_failed(self) -> None:
        if self._done.is_set() and self._error is not None:
            raise self._error


__all__ = ["Background"]
