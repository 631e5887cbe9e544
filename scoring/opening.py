"""Who deals and leads the next deal, and what trading owes (SPEC 3.1, 3.5, 4.5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from scoring.facts import DealResult, PlayerId, Rules, TradingReminder


@dataclass(frozen=True)
class Opening:
    """A new deal's dealer and leader; None means the table decides ("3♠ leads" for a
    first deal or a changed table, "the table picks" a dealer when no loser is known)."""

    dealer: PlayerId | None
    leader: PlayerId | None
    trading: tuple[TradingReminder, ...] = ()


def opening(
    *,
    rules: Rules,
    players: Sequence[PlayerId],
    previous_players: Sequence[PlayerId] = (),
    previous: DealResult | None = None,
) -> Opening:
    """The loser of the last deal deals, its winner leads, when they still play.

    After a change of players the lowest card leads again (SPEC 3.5).
    """
    if previous is None or not previous.closed:
        return Opening(dealer=None, leader=None)
    seated = set(players)
    dealer = previous.loser if previous.loser in seated else None
    same_table = set(previous_players) == seated
    leader = previous.winner if same_table else None
    reminders = trading_reminders(previous, len(previous.points)) if rules.options.trading else ()
    reminders = tuple(r for r in reminders if r.giver in seated and r.receiver in seated)
    return Opening(dealer=dealer, leader=leader, trading=reminders)


def trading_reminders(previous: DealResult, table_size: int) -> tuple[TradingReminder, ...]:
    """The loser gives their two highest cards to the winner, who returns any two; the
    second-to-last gives their highest to the second, who returns any one."""
    by_place = {place: player for player, place in previous.places.items()}
    reminders = []
    winner, loser = previous.winner, previous.loser
    if winner is not None and loser is not None and winner != loser:
        reminders.append(TradingReminder(giver=loser, receiver=winner, cards=2, returns=2))
    second = by_place.get(2)
    second_to_last = by_place.get(table_size - 1)
    # With 2 players the second is the loser and the second-to-last the winner; with 3
    # the second is the second-to-last: only the loser's trade applies.
    if second is not None and second_to_last is not None and table_size >= 4:
        reminders.append(TradingReminder(giver=second_to_last, receiver=second, cards=1, returns=1))
    return tuple(reminders)
