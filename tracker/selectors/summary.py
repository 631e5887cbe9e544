"""The end-of-night summary of a session: its standings, how many deals counted, and who
still pays whom."""

from __future__ import annotations

from dataclasses import dataclass

from tracker.models import Deal, Session, counted
from tracker.money import Settlement, settlement_of
from tracker.selectors.settlement import session_player_names
from tracker.selectors.standings import StandingRow, session_standings


@dataclass
class Summary:
    rows: list[StandingRow]  # in standings order
    deal_count: int  # deals that count in the standings
    settlement: Settlement
    names: dict[int, str]  # everyone in the standings or with money in the session


def session_summary(session: Session) -> Summary:
    """The night in one read. Queries: the standings (1), the counted deals (1), the
    settlement (3), names (1): six, however long the session."""
    rows = session_standings(session)
    deal_count = Deal.objects.filter(counted(), session=session).count()
    settlement = settlement_of(session)
    names = session_player_names(session, set(settlement.owed))
    names.update({row.player: row.name for row in rows})
    return Summary(rows=rows, deal_count=deal_count, settlement=settlement, names=names)
