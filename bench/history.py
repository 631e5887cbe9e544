"""Build a long session fast, with bulk inserts shaped exactly as the services store deals
(filed 4-player podium deals under loser pays), for measuring reads at scale."""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from tracker.access import Actor
from tracker.models import Circle, Deal, DealPlayer, LedgerLine, Session, Tap
from tracker.services import session_create, session_tallies_rebuild

POINTS = {1: 3, 2: 2, 3: 1}


@transaction.atomic
def build_session(*, user, deals: int) -> Session:
    circle = Circle.objects.filter(owner=user).first()
    session = session_create(
        circle=circle,
        name=f"History of {deals}",
        players=["Alice", "Ben", "Cara", "Dev"],
        actor=Actor(user=user),
    )
    players = [seat.player_id for seat in session.seats.order_by("position")]
    session.deals.filter(number=1).update(number=deals + 1)  # the open deal goes last
    started = timezone.now() - timedelta(minutes=deals)
    filed = Deal.objects.bulk_create(
        [
            Deal(
                session=session,
                number=number,
                status=Deal.Status.FILED,
                winner_id=players[number % 4],
                loser_id=players[(number + 3) % 4],
                last_seq=3,
                opened_at=started + timedelta(minutes=number),
                closed_at=started + timedelta(minutes=number, seconds=50),
            )
            for number in range(1, deals + 1)
        ],
        batch_size=2000,
    )
    deal_players, taps, lines = [], [], []
    for deal in filed:
        order = [players[(deal.number + offset) % 4] for offset in range(4)]
        for seat, player in enumerate(players, start=1):
            place = order.index(player) + 1
            deal_players.append(
                DealPlayer(
                    deal=deal, player_id=player, seat=seat, place=place, points=POINTS.get(place, 0)
                )
            )
        for place, player in enumerate(order[:3], start=1):
            taps.append(Tap(deal=deal, seq=place, player_id=player, place=place, recorded_by=user))
            lines.append(
                LedgerLine(
                    deal=deal,
                    session=session,
                    position=place,
                    payer_id=order[3],
                    payee_id=player,
                    amount=session.stake,
                    reason=LedgerLine.Reason.LOSER_PAYS,
                )
            )
    DealPlayer.objects.bulk_create(deal_players, batch_size=5000)
    Tap.objects.bulk_create(taps, batch_size=5000)
    LedgerLine.objects.bulk_create(lines, batch_size=5000)
    session_tallies_rebuild(session=session)  # bulk rows bypass the services
    return session
