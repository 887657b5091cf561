"""The registry of benchmark methods (``knowforge.models.methods``), for the workflow and the
CLI: ``available``, ``get_method``, ``split_benchmark``, ``load_errors``, ``refresh``."""

from knowforge.models.methods import (ENTRY_POINT_GROUP, available, get_method, load_errors, refresh,
                                      split_benchmark)

__all__ = ["ENTRY_POINT_GROUP", "available", "get_method", "load_errors", "refresh", "split_benchmark"]
