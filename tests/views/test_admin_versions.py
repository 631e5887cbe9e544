"""An edit in the Django admin moves on the version of every session it shows on, so the
answers kept by version (`tracker.answers`) are read again and watching phones hear of it
(`tracker.admin`)."""

import datetime
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from tests.views.helpers import play_deals
from tracker.models import Payment, Session, ShareLink
from tracker.services import payment_record, share_link_create

pytestmark = pytest.mark.django_db


def _value(data, name, value):
    if isinstance(value, datetime.datetime):  # the admin splits a moment in two fields
        local = timezone.localtime(value)
        data[f"{name}_0"], data[f"{name}_1"] = local.date().isoformat(), local.strftime("%H:%M:%S")
    elif value is None:
        data[name] = ""
    elif isinstance(value, list | tuple):
        data[name] = [getattr(item, "pk", item) for item in value]
    else:
        data[name] = getattr(value, "pk", value)


def change(client, obj, **changes):
    """Save `obj`'s admin change form as the page fills it in, with `changes`."""
    url = reverse(f"admin:tracker_{obj._meta.model_name}_change", args=[obj.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {}
    for name in form.fields:
        _value(data, name, changes.get(name, form[name].value()))
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        for field, value in formset.management_form.initial.items():
            data[f"{formset.prefix}-{field}"] = value
        for each in formset.forms:
            for name in each.fields:
                _value(data, each.add_prefix(name), each[name].value())
    saved = client.post(url, data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    return saved


def version(session):
    return Session.objects.values_list("version", flat=True).get(pk=session.pk)


def standings_names(client, session):
    url = reverse("member:standings", kwargs={"session_id": session.pk})
    return [line.row.name for line in client.get(url).context["lines"]]


@pytest.fixture
def operator(admin_client, user, circle):
    circle.members.add(admin_client.get("/").wsgi_request.user)
    return admin_client


def test_a_player_renamed_in_the_admin_shows_on_the_kept_standings(operator, make_session, actor):
    session, players = make_session()
    play_deals(session, players, 1, actor)
    assert "Alice" in standings_names(operator, session)  # kept at this version
    before = version(session)

    change(operator, players["Alice"], name="Alicia")

    assert version(session) == before + 1
    assert "Alicia" in standings_names(operator, session)


def test_a_link_revoked_in_the_admin_moves_its_session_on(operator, make_session, actor):
    session, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    before = version(session)

    change(operator, link, revoked_at=timezone.now())

    assert ShareLink.objects.get(pk=link.pk).revoked_at is not None
    assert version(session) == before + 1  # its open streams read it again, and end


def test_a_session_and_its_seats_saved_in_the_admin_move_it_on(operator, make_session):
    session, _ = make_session()
    other, _ = make_session()
    before, untouched = version(session), version(other)

    change(operator, Session.objects.get(pk=session.pk), name="Saturday")

    assert version(session) == before + 1
    assert version(other) == untouched


def test_a_payment_deleted_in_the_admin_moves_its_session_on(operator, make_session, actor):
    session, players = make_session()
    play_deals(session, players, 1, actor)
    payment = payment_record(
        session_id=session.pk,
        payer_id=players["Dev"].pk,
        payee_id=players["Alice"].pk,
        amount=Decimal("1.00"),
        actor=actor,
    )
    before = version(session)
    url = reverse("admin:tracker_payment_delete", args=[payment.pk])

    assert operator.post(url, {"post": "yes"}).status_code == 302

    assert not Payment.objects.filter(pk=payment.pk).exists()
    assert version(session) == before + 1


def test_a_member_removed_in_the_admin_moves_the_circle_s_sessions_on(
    operator, circle, make_session, django_user_model
):
    session, _ = make_session()
    friend = django_user_model.objects.create_user(username="friend", password="x-y-z-123")
    circle.members.add(friend)
    before = version(session)

    members = [member for member in circle.members.all() if member != friend]
    change(operator, circle, members=members)

    assert not circle.members.filter(pk=friend.pk).exists()
    assert version(session) == before + 1  # the friend's open streams read access again
