"""KnowGen (ALCUNA): artificial entities made from real ones by heredity, variation, dropout and
extension, written to the graph as mutations, with KU/KD/KA questions about them."""

from .drop import drop_batch
from .generate import generate_batch
from .params import KnowGenParams

__all__ = ["KnowGenParams", "drop_batch", "generate_batch"]
