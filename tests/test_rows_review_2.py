"""A second review of the statements written by hand (tracker.rows, commits 85696b1 to
717291c): the generic helpers `all_with`, `insert` and `update` promise to read and write
as `select_related`, `save()` and `save(update_fields=...)` do. Each of the three failed
on 717291c, on SQLite and on PostgreSQL, and is fixed. None of them was reached by the
callers (no nested nullable path, no explicit key, no empty field list): they were
defects of the helpers against what their docstrings promise.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import values
from tracker.access import Actor
from tracker.models import Deal, IdempotencyKey, Payment
from tracker.row_writes import insert, update
from tracker.rows import all_with
from tracker.services import payment_record, share_link_create

pytestmark = pytest.mark.django_db


def test_a_path_through_a_nullable_key_is_joined_left_outer_all_the_way(make_session, actor):
    """select_related makes every join below a LEFT OUTER one LEFT OUTER too; all_with
    joins `recorded_via__session` INNER because ShareLink.session is not null, so the
    payment an account recorded (no link: recorded_via NULL) is dropped from the read."""
    session, p = make_session()
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    for who in (actor, Actor(link=link)):
        payment_record(
            session_id=session.pk,
            payer_id=p["Ben"].pk,
            payee_id=p["Alice"].pk,
            amount=Decimal("1.00"),
            actor=who,
        )
    related = ("recorded_via", "recorded_via__session")
    want = list(
        Payment.objects.filter(session=session).select_related(*related).order_by("paid_at", "pk")
    )
    read = all_with(Payment, related, "session", session.pk, order=("paid_at", "pk"))
    assert [values(payment) for payment in read] == [values(payment) for payment in want]
    assert read[0].recorded_via is None
    assert values(read[1].recorded_via.session) == values(want[1].recorded_via.session)


def test_insert_refuses_a_row_given_its_key(db):
    """save() stores the key an instance was given; insert left the key column out and
    overwrote the instance's key with a new one. It now refuses such a row (no caller
    gives one), and stores nothing."""
    given = IdempotencyKey(pk=4343, scope="user:1", key="b", fingerprint="f", status_code=200)
    with pytest.raises(TypeError, match="key already"):
        insert(given)
    assert given.pk == 4343 and not IdempotencyKey.objects.exists()
    stored = insert(IdempotencyKey(scope="user:1", key="c", fingerprint="f", status_code=200))
    with pytest.raises(TypeError, match="key already"):
        insert(stored)  # stored once already


def test_an_update_of_no_fields_does_nothing_as_save_does(make_session):
    """save(update_fields=[]) is a no-op without a statement; update(instance, ()) sends
    `UPDATE ... SET  WHERE ...`, a syntax error on both databases."""
    session, _ = make_session()
    deal = session.deals.get()
    with CaptureQueriesContext(connection) as saved:
        deal.save(update_fields=[])
    assert len(saved) == 0
    update(deal, ())
    assert values(Deal.objects.get(pk=deal.pk)) == values(deal)
