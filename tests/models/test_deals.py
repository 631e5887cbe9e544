"""What the models say about deals."""

import itertools

import pytest

import scoring
from tracker.models import Deal, counted

pytestmark = pytest.mark.django_db


def test_counted_in_sql_is_scoring_counts(make_session):
    """`models.counted` is `scoring.counts` said as a filter: the same deals, for every
    status with and without a winner (a session a deal: one open deal per session)."""
    for status, won in itertools.product(scoring.DealStatus, (False, True)):
        session, players = make_session()
        session.deals.update(status=status.value, winner=players["Alice"] if won else None)

    in_sql = set(Deal.objects.filter(counted()).values_list("pk", flat=True))
    in_python = {
        deal.pk
        for deal in Deal.objects.all()
        if scoring.counts(scoring.DealStatus(deal.status), deal.winner_id)
    }

    assert Deal.objects.count() == 6
    assert in_sql == in_python
    assert sorted(Deal.objects.filter(counted()).values_list("status", flat=True)) == [
        "ended",
        "filed",
    ]
