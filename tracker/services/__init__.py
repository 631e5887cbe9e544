"""Every write SquareScores makes: one function per action, `<noun>_<verb>`, keyword-only,
each one transaction, one module per noun (re-exported here).

A service locks what it changes (`locks`), asks `scoring` whether the change is allowed
and what it comes to, stores the answer, and names who did it (`Actor`). Refusals raise
a `tracker.errors.Refusal` carrying the HTTP status, a stable code and a sentence for the
person; nothing is written when one is raised.
"""

from tracker.services.accounts import (
    api_token_create,
    api_token_revoke,
    api_tokens_revoke_all,
)
from tracker.services.circles import circle_create, circle_rename
from tracker.services.corrections import deal_correct
from tracker.services.deals import (
    deal_end,
    deal_event_record,
    deal_event_remove,
    deal_tap,
    deal_undo,
)
from tracker.services.members import (
    circle_hand_over,
    invite_accept,
    invite_create,
    invite_revoke,
    member_remove,
    player_claim,
    player_unclaim,
)
from tracker.services.payment_details import payment_details_set
from tracker.services.payments import (
    payment_cancel,
    payment_record,
    transfer_mark_paid,
    transfer_mark_unpaid,
)
from tracker.services.players import player_create, player_rename, players_change, players_seat
from tracker.services.sessions import session_create, session_end
from tracker.services.share_links import share_link_create, share_link_revoke
from tracker.services.tallies import session_tallies_rebuild

__all__ = [
    "player_unclaim",
    "player_claim",
    "member_remove",
    "invite_revoke",
    "invite_create",
    "invite_accept",
    "circle_hand_over",
    "api_token_create",
    "api_token_revoke",
    "api_tokens_revoke_all",
    "circle_create",
    "circle_rename",
    "deal_correct",
    "deal_end",
    "deal_event_record",
    "deal_event_remove",
    "deal_tap",
    "deal_undo",
    "payment_cancel",
    "payment_details_set",
    "payment_record",
    "player_create",
    "player_rename",
    "players_change",
    "players_seat",
    "session_create",
    "session_end",
    "session_tallies_rebuild",
    "share_link_create",
    "share_link_revoke",
    "transfer_mark_paid",
    "transfer_mark_unpaid",
]
