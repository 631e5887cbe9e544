"""Small helpers for the service tests."""

from tracker.models import Deal, DealEvent, LedgerLine, Tap
from tracker.services import deal_tap


def open_deal(session):
    return session.deals.get(status=Deal.Status.OPEN)


def tap_all(deal, players, names, actor):
    for name in names:
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)


def live_taps(deal):
    return list(
        Tap.objects.filter(deal=deal, undone_at__isnull=True)
        .order_by("seq")
        .values_list("player__name", "place")
    )


def snapshot():
    """Everything a refused action must leave untouched."""
    return (
        list(Deal.objects.order_by("pk").values_list("pk", "status", "winner", "loser")),
        list(Tap.objects.order_by("pk").values_list("pk", "undone_at")),
        list(DealEvent.objects.order_by("pk").values_list("pk", "undone_at")),
        list(LedgerLine.objects.order_by("pk").values_list("pk", "amount")),
    )
