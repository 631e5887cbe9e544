"""A write service's transaction (`gate.write_transaction`): no savepoint of its own
straight inside the gate's transaction, which rolls back whole on any exception; its
savepoint everywhere else, so that a caller that catches a refusal goes on."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from tracker import gate
from tracker.errors import Refusal
from tracker.models import Session, Tap
from tracker.services import deal_tap


def test_called_inside_another_transaction_a_refusal_leaves_that_transaction_usable(
    make_session, actor, db
):
    session, players = make_session()
    deal = session.deals.get()
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    with transaction.atomic(), CaptureQueriesContext(connection) as sent:
        with pytest.raises(Refusal):
            deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)  # again
        # The caller goes on: its own savepoint rolled the refused tap back.
        deal_tap(deal_id=deal.pk, player_id=players["Ben"].pk, actor=actor)

    assert any("SAVEPOINT" in query["sql"] for query in sent.captured_queries)
    assert Tap.objects.filter(deal=deal).count() == 2


@pytest.mark.django_db(transaction=True)
def test_through_the_gate_a_refusal_rolls_back_everything_the_write_did(make_session, actor):
    """The lock moved the session's version on before the refusal; the gate's rollback
    takes it back, with no savepoint of the service's own."""
    session, players = make_session()
    deal = session.deals.get()
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    version = Session.objects.get(pk=session.pk).version

    def again():
        return deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    with CaptureQueriesContext(connection) as sent, pytest.raises(Refusal):
        gate.write_once(actor=actor, key="k1", fingerprint="f", work=again, answer=lambda _: None)

    assert not any("SAVEPOINT" in query["sql"] for query in sent.captured_queries)
    assert Session.objects.get(pk=session.pk).version == version
    assert Tap.objects.filter(deal=deal).count() == 1
    assert not connection.in_atomic_block and not connection.needs_rollback


@pytest.mark.django_db(transaction=True)
def test_a_service_called_by_a_service_inside_the_gate_keeps_its_savepoint(make_session, actor):
    """Only the block straight inside the gate's goes without: one a level further in
    (here a service's own call into another) is still a savepoint."""
    session, players = make_session()
    deal = session.deals.get()

    def two_in_one():
        with transaction.atomic():  # a service's own block, around another service
            return deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)

    with CaptureQueriesContext(connection) as sent:
        gate.write_once(
            actor=actor, key="k2", fingerprint="f", work=two_in_one, answer=lambda _: None
        )

    savepoints = [q["sql"] for q in sent.captured_queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 2  # the outer block's and the tap's own
