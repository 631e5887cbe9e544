"""How a long name is said short and still told apart from the others at the table.

A Vietnamese name is told apart by its last words (the given name comes last: "Nguyễn Thị
Lan Vy" is Vy at the table), so a short form keeps the fewest last words that no other
name ends with. Undo says "Nguyễn … Lan Vy" (`tracker.views.screens.words.told_apart`);
a transfer note, with 25 letters for two names, "Lan Vy>Hoa" (`scoring.vietqr`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


def _as_compared(text: str) -> str:
    return " ".join(text.split()).casefold()


def last_words_told_apart(
    name: str,
    others: Iterable[str],
    *,
    at_least: int = 1,
    compared: Callable[[str], str] = _as_compared,
) -> str | None:
    """The fewest last words of `name`, `at_least` of them and fewer than all, that no
    name of `others` ends with, as `compared` sees them (alike but for case and spacing
    is alike); None when there are none (two alike to the end, or too few words)."""
    words = name.split()
    ends = [" " + compared(other) for other in others]
    for count in range(at_least, len(words)):
        tail = " ".join(words[-count:])
        if not any(end.endswith(" " + compared(tail)) for end in ends):
            return tail
    return None
