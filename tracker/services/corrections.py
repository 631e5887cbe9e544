"""Corrections: a filed or ended deal recomputed from its facts put right (SPEC 3.4).

What a correction may change, and in which order its records replay, is a rule of the
game (`scoring.correct`); this module stores it: the old records kept as history, marked
undone by the correction, which records who made it and the deal before and after.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

import scoring
from tracker.access import Actor
from tracker.errors import NotFound, refused_by_rules
from tracker.models import Correction, Deal, DealEvent
from tracker.records import DealState, deal_facts, live_records, read_deal_state, snapshot
from tracker.services.locks import lock_session_of_deal, locked_deal
from tracker.services.results import next_opening, reopen, save_records, store_result

NO_EVENT = gettext_noop("There is no event %(id)s on this deal.")


@transaction.atomic
def deal_correct(
    *,
    deal_id: int,
    taps: Sequence[int] | None = None,
    loser: int | None = None,
    add_events: Sequence[scoring.Record] = (),
    remove_event_ids: Sequence[int] = (),
    replace_hands: bool = False,
    reason: str = "",
    actor: Actor,
) -> DealState:
    """Correct a filed or ended deal: new tap order and/or events added or removed. With
    `replace_hands`, a hand added takes out the one recorded for that player, if any.

    The deal's points and ledger are recomputed; the old records are kept as history
    (marked undone by this correction) and a Correction stores before and after.
    """
    # A closed deal's answers are kept by the rows' counter (`tracker.answers.ROWS`): its
    # records change even when no total does (the same order tapped again, a reason).
    lock_session_of_deal(deal_id, rows=True)
    deal = locked_deal(deal_id)
    rows = live_records(deal)
    facts = deal_facts(deal, rows)
    index = {row.pk: position for position, row in enumerate(rows) if isinstance(row, DealEvent)}
    unknown = set(remove_event_ids) - set(index)
    if unknown:
        raise NotFound(NO_EVENT, id=min(unknown))
    remove = {index[event_id] for event_id in remove_event_ids}
    if replace_hands:
        replaced = {record.player for record in add_events if isinstance(record, scoring.Hand)}
        remove |= {
            index[row.pk]
            for row in rows
            if isinstance(row, DealEvent)
            and row.type == DealEvent.Type.HAND
            and row.player_id in replaced
        }
    try:
        corrected, after = scoring.correct(
            facts,
            order=taps,
            loser=loser,
            add=add_events,
            remove=remove,
        )
    except scoring.ScoringError as error:
        raise refused_by_rules(error) from None
    before = scoring.play(facts)
    correction = Correction.objects.create(
        deal=deal,
        reason=str(reason)[:200],
        before=snapshot(facts, before),
        after=snapshot(corrected, after),
        **actor.fields("made"),
    )
    now = timezone.now()
    for row in rows:
        row.undone_at, row.undone_by, row.undone_via = now, actor.user, actor.link
        row.correction = correction
        row.save(update_fields=["undone_at", "undone_by", "undone_via", "correction"])
    save_records(deal, corrected.records, after, actor)
    store_result(deal, corrected, after, before=(facts, before))
    _refresh_next_opening(deal, corrected, after)
    return read_deal_state(deal)


def _refresh_next_opening(deal: Deal, facts: scoring.DealFacts, result: scoring.DealResult) -> None:
    """A correction changes who deals and leads next and what trading owes, while that
    deal is untouched."""
    following = Deal.objects.filter(session_id=deal.session_id, number=deal.number + 1).first()
    if following is None or not following.is_open or live_records(following):
        return
    players = list(following.deal_players.order_by("seat").values_list("player_id", flat=True))
    reopen(following, next_opening(deal.session, players, (facts, result)))
