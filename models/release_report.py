"""What reading a released benchmark met, for every method's importer: each variant of the
released layout counted, and where it was first seen, so a user can open the file there."""

from __future__ import annotations

from collections import Counter


class Variants(Counter):
    """A Counter of variant descriptions that also keeps where each was first met."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.first: dict[str, str] = {}

    def add(self, key: str, where: str | None = None) -> None:
        if key not in self.first and where is not None:
            self.first[key] = where
        self[key] += 1

    def notes(self) -> list[str]:
        """One line per variant: its count and the first place it was met."""
        return [f"variant: {key} ×{n}" + (f", first at {self.first[key]}" if key in self.first else "")
                for key, n in sorted(self.items())]


__all__ = ["Variants"]
