"""Every read the screens and the API make: one module per noun (re-exported here), each
read in a fixed number of queries however long the session or circle grows."""

from tracker.records import DealState, Settlement, TransferView
from tracker.selectors.deals import (
    DealPage,
    Table,
    deal_events,
    deal_page,
    deal_state,
    open_deal,
    session_deal_history,
    session_deals,
    table,
)
from tracker.selectors.leaderboard import (
    LEADERBOARD_COLUMNS,
    DayRange,
    HeadToHead,
    Leaderboard,
    LeaderboardRow,
    circle_leaderboard,
    leaderboard_csv,
)
from tracker.selectors.sessions import (
    CirclePage,
    Home,
    NewSession,
    Seating,
    active_share_links,
    circle_page,
    home,
    new_session,
    seating,
    session_queryset,
)
from tracker.selectors.settlement import (
    session_balances,
    session_player_names,
    session_settlement,
)
from tracker.selectors.standings import (
    StandingRow,
    session_points_by_deal,
    session_standings,
    standings_by_aggregate,
)

__all__ = [
    "active_share_links",
    "LEADERBOARD_COLUMNS",
    "CirclePage",
    "DayRange",
    "DealPage",
    "DealState",
    "HeadToHead",
    "Home",
    "Leaderboard",
    "LeaderboardRow",
    "NewSession",
    "Seating",
    "Settlement",
    "StandingRow",
    "Table",
    "TransferView",
    "circle_leaderboard",
    "circle_page",
    "deal_events",
    "deal_page",
    "deal_state",
    "home",
    "leaderboard_csv",
    "new_session",
    "open_deal",
    "seating",
    "session_balances",
    "session_deal_history",
    "session_deals",
    "session_player_names",
    "session_points_by_deal",
    "session_queryset",
    "session_settlement",
    "session_standings",
    "standings_by_aggregate",
    "table",
]
