"""Payment marks, and who made them."""

from decimal import Decimal

import pytest

from tests.services.helpers import open_deal, tap_all

pytestmark = pytest.mark.django_db


def test_payment_marks_name_the_scorer_link_that_made_them(make_session, actor, user):
    from tracker.access import Actor
    from tracker.services import share_link_create, transfer_mark_paid, transfer_mark_unpaid

    session, p = make_session()
    tap_all(open_deal(session), p, ["Alice", "Cara", "Ben"], actor)  # Dev pays 1.00 each
    link = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    transfer = {"payer_id": p["Dev"].pk, "payee_id": p["Alice"].pk, "amount": Decimal("1.00")}

    payment = transfer_mark_paid(session_id=session.pk, **transfer, actor=Actor(link=link))
    transfer_mark_unpaid(session_id=session.pk, **transfer, actor=actor)
    payment.refresh_from_db()

    assert (payment.recorded_by, payment.recorded_via) == (None, link)
    assert (payment.cancelled_by, payment.cancelled_via) == (user, None)
    assert payment.cancelled_at is not None
