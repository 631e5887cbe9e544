"""The bottom sheets that record on a deal, as both screens show them: the tap screen
records what happens on the open deal, the deal page adds what was missed to a filed one.
What each sheet offers, and to whom, is `scoring.allowed`: this only lays it out for
`templates/deals/_sheets.html`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import scoring
from tracker.views.forms import BEATER_CHOICES, INSTANT_WIN_CHOICES
from tracker.views.screens.words import twos_label

Choice = tuple[int, str]

UNUSED_COUNTS = [0, 1, 2]


@dataclass
class Sheets:
    deal: int
    action: str  # where each sheet's form posts
    preview: str  # where a sheet asks what its Save would move
    live: bool  # the tap screen (htmx, swaps the screen); else the deal page (adds, asks why)
    players: list[Choice]  # everyone at the deal, in seat order
    two_beaten: bool
    cutup_beaten: bool
    cutup_owners: list[Choice]  # whose standing cutup may be beaten
    guaransheed: list[Choice]
    instant_win: list[Choice]
    hands: list[Choice]
    known_hands: list[str] = field(default_factory=list)  # recorded, replaced by a new one
    card_counts: list[int] = field(default_factory=list)
    cards_pay: bool = True  # the number of cards left is asked only where it pays
    unused_cards: bool = False
    twos: list[tuple[str, str]] = field(default_factory=list)  # ("1-0", "1 ♠♣"): which 2s
    unused_counts: list[int] = field(default_factory=lambda: list(UNUSED_COUNTS))
    beaters: list[tuple[str, str]] = field(default_factory=lambda: list(BEATER_CHOICES))
    instant_win_kinds: list[tuple[str, str]] = field(default_factory=list)
    # Live only: how many records the deal holds as drawn, sent back as `seen` (the same
    # event recorded by another phone since is refused, not counted twice).
    seen: int | None = None

    @property
    def any(self) -> bool:
        return any(
            (self.two_beaten, self.cutup_beaten, self.guaransheed, self.instant_win, self.hands)
        )


def sheets(
    allowed: scoring.Allowed,
    *,
    deal: int,
    names: dict[int, str],
    action: str,
    preview: str,
    live: bool,
    known_hands: list[str] | None = None,
    seen: int | None = None,
) -> Sheets:
    """The sheets `allowed` offers on deal `deal`, posting to `action`."""
    kinds = {value: label for value, label in INSTANT_WIN_CHOICES}

    def choices(players: tuple[int, ...]) -> list[Choice]:
        return [(player, names.get(player, "?")) for player in players]

    return Sheets(
        deal=deal,
        action=action,
        preview=preview,
        live=live,
        players=choices(tuple(names)),
        two_beaten=allowed.two_beaten,
        cutup_beaten=allowed.cutup_beaten,
        cutup_owners=choices(allowed.cutup_owners),
        guaransheed=choices(allowed.guaransheed),
        instant_win=choices(allowed.instant_win),
        hands=choices(allowed.hands),
        known_hands=known_hands or [],
        card_counts=list(range(0, allowed.most_cards + 1)),
        cards_pay=allowed.cards_pay,
        unused_cards=allowed.unused_cards,
        twos=[(f"{black}-{red}", twos_label(black, red)) for black, red in allowed.twos],
        instant_win_kinds=[(kind.value, kinds[kind.value]) for kind in allowed.instant_win_kinds],
        seen=seen,
    )
