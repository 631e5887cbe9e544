"""An edit in the Django admin moves on the version of every session it shows on, once and
in the edit's transaction, so the answers kept by version (`tracker.answers`) are read
again and watching phones hear of it (`tracker.admin`); and the admin never sets a
version itself. The `test_guard_` tests came from a review of the change, with the two
defects it found (a session's form posting its version back, the changelist's delete
outside a transaction)."""

import datetime
from decimal import Decimal

import pytest
from django.contrib import admin as django_admin
from django.contrib.admin import helpers
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.views.helpers import open_deal, play_deals
from tracker import admin as tracker_admin
from tracker import answers
from tracker.models import Circle, Payment, Player, Session, ShareLink
from tracker.services import deal_tap, payment_record, share_link_create

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


def read_form(client, obj, **changes):
    """The admin change form of `obj` as the page fills it in now, with `changes`: the
    URL to post it to and the data (posted later, as an operator does)."""
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
    return url, data


def post_form(client, url, data):
    saved = client.post(url, data)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    return saved


def change(client, obj, **changes):
    return post_form(client, *read_form(client, obj, **changes))


def version(session):
    return Session.objects.values_list("version", flat=True).get(pk=session.pk)


@pytest.fixture
def operator(admin_client, user, circle):
    circle.members.add(admin_client.get("/").wsgi_request.user)
    return admin_client


def _payment(session, players, actor, amount="1.00"):
    return payment_record(
        session_id=session.pk,
        payer_id=players["Dev"].pk,
        payee_id=players["Alice"].pk,
        amount=Decimal(amount),
        actor=actor,
    )


@pytest.fixture
def moves_seen(monkeypatch):
    """For a payment: each time the admin moves versions on, whether it was inside a
    transaction and whether the payment was still there."""

    def watch(payment):
        seen = []
        moving = tracker_admin.sessions_moved_on

        def watched(sessions, **counters):
            exists = Payment.objects.filter(pk=payment.pk).exists()
            seen.append((connection.in_atomic_block, exists))
            moving(sessions, **counters)

        monkeypatch.setattr(tracker_admin, "sessions_moved_on", watched)
        return seen

    return watch


# --- The admin never sets a version: a session's form posts none back -----------------


def test_a_session_saved_from_a_form_read_before_a_tap_does_not_take_its_version_back(
    operator, make_session, actor
):
    """A tap between reading and saving a session's form (a table playing while the
    operator fixes its name): had the form posted back the version it was read at, the
    session would take a version it already had, whose kept answers (`tracker.answers`)
    would be served again for another state, and which streams (`Hub.changed`,
    `_Follower.look`) would ignore as not past the one they said. Found by a review."""
    session, players = make_session()
    url, data = read_form(operator, Session.objects.get(pk=session.pk), name="Saturday")
    read_at = version(session)

    deal = open_deal(session)
    deal_tap(deal_id=deal.pk, player_id=players["Alice"].pk, actor=actor)
    after_one_tap = Session.objects.get(pk=session.pk)
    assert after_one_tap.version == read_at + 1
    # A phone asked at this version: its answer is kept under it, for good.
    assert answers.kept(after_one_tap, ("probe",), lambda: "one tap") == "one tap"
    for name in ("Cara", "Ben"):
        deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    before_save = version(session)

    post_form(operator, url, data)

    assert Session.objects.get(pk=session.pk).name == "Saturday"
    now = Session.objects.get(pk=session.pk)
    assert now.version > before_save, (
        f"version went from {before_save} back to {now.version} (the form was read at {read_at})"
    )
    assert answers.kept(now, ("probe",), lambda: "fresh") == "fresh"


def test_the_version_an_operator_types_in_is_not_what_the_session_gets(
    operator, make_session, actor
):
    """A number typed in for `version` is not taken: a lower one would send every
    watching phone's version backwards."""
    session, players = make_session()
    play_deals(session, players, 1, actor)
    before = version(session)

    change(operator, Session.objects.get(pk=session.pk), version=0)

    assert version(session) == before + 1


# --- The changelist's "delete selected" moves versions in its transaction -------------


@pytest.mark.django_db(transaction=True)
def test_payments_deleted_with_the_changelist_action_move_versions_in_the_same_transaction(
    admin_client, user, circle, make_session, actor, moves_seen
):
    """Django runs the changelist's actions outside a transaction (ATOMIC_REQUESTS is
    off). Deleted and committed first, the versions moved after, a page could keep the new
    state under the old version, and a failure in between would leave the deletion with
    no version moved (every kept answer stale for good, no stream told). Found by a
    review."""
    session, players = make_session()
    play_deals(session, players, 1, actor)
    payment = _payment(session, players, actor)
    seen = moves_seen(payment)
    before = version(session)

    answer = admin_client.post(
        reverse("admin:tracker_payment_changelist"),
        {"action": "delete_selected", helpers.ACTION_CHECKBOX_NAME: [payment.pk], "post": "yes"},
    )

    assert answer.status_code == 302
    assert not Payment.objects.filter(pk=payment.pk).exists()
    assert version(session) == before + 1
    # Moved inside the transaction that deleted the payment, as the delete page does.
    assert seen == [(True, False)]


# --- Moving, adding, deleting, refusing ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_guard_the_delete_page_moves_the_version_in_its_transaction(
    admin_client, user, circle, make_session, actor, moves_seen
):
    """the control for the bulk-action test above, measured the same way."""
    session, players = make_session()
    payment = _payment(session, players, actor)
    seen = moves_seen(payment)
    url = reverse("admin:tracker_payment_delete", args=[payment.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert seen == [(True, False)]


def test_guard_a_payment_moved_to_another_session_moves_both_on(operator, make_session, actor):
    session, players = make_session()
    other, _ = make_session()
    payment = _payment(session, players, actor)
    # The other session's seats are other players of the circle with the same names;
    # a payment between these players in it is what an operator fixing a mistake makes.
    before, before_other = version(session), version(other)

    change(operator, payment, session=other)

    assert Payment.objects.get(pk=payment.pk).session_id == other.pk
    assert version(session) == before + 1
    assert version(other) == before_other + 1


def test_guard_a_link_moved_to_another_session_moves_both_on(operator, make_session, actor):
    session, _ = make_session()
    other, _ = make_session()
    link = share_link_create(session_id=session.pk, role="viewer", actor=actor)
    before, before_other = version(session), version(other)

    change(operator, link, session=other)

    assert ShareLink.objects.get(pk=link.pk).session_id == other.pk
    assert version(session) == before + 1
    assert version(other) == before_other + 1


def test_guard_a_payment_added_in_the_admin_moves_its_session_on_once(
    operator, make_session, actor
):
    """the add form (save_model with no pk, then save_related)."""
    session, players = make_session()
    before = version(session)
    now = timezone.localtime()
    answer = operator.post(
        reverse("admin:tracker_payment_add"),
        {
            "session": session.pk,
            "payer": players["Dev"].pk,
            "payee": players["Ben"].pk,
            "amount": "2.00",
            "paid_at_0": now.date().isoformat(),
            "paid_at_1": now.strftime("%H:%M:%S"),
        },
    )
    assert answer.status_code == 302, answer.context["adminform"].form.errors
    assert Payment.objects.filter(session=session, amount=Decimal("2.00")).exists()
    assert version(session) == before + 1


def test_guard_payments_deleted_in_bulk_move_each_of_their_sessions_on_once(
    operator, make_session, actor
):
    """delete_queryset, two sessions, a constant number of queries."""
    first, first_players = make_session()
    second, second_players = make_session()
    payments = [
        _payment(first, first_players, actor),
        _payment(first, first_players, actor, "2.00"),
        _payment(second, second_players, actor),
    ]
    before = version(first), version(second)
    url = reverse("admin:tracker_payment_changelist")
    data = {
        "action": "delete_selected",
        helpers.ACTION_CHECKBOX_NAME: [payment.pk for payment in payments],
        "post": "yes",
    }
    with CaptureQueriesContext(connection) as three:
        assert operator.post(url, data).status_code == 302
    assert not Payment.objects.exists()
    assert (version(first), version(second)) == (before[0] + 1, before[1] + 1)

    more = [_payment(first, first_players, actor, f"{n}.00") for n in range(1, 8)]
    data[helpers.ACTION_CHECKBOX_NAME] = [payment.pk for payment in more]
    with CaptureQueriesContext(connection) as seven:
        assert operator.post(url, data).status_code == 302
    assert len(seven) == len(three)


def test_guard_a_player_who_played_is_refused_deletion_not_a_server_error(
    operator, make_session, actor
):
    """PROTECT shows Django's refusal, on the page and in bulk."""
    session, players = make_session()
    play_deals(session, players, 1, actor)
    before = version(session)
    alice = players["Alice"]

    page = operator.post(reverse("admin:tracker_player_delete", args=[alice.pk]), {"post": "yes"})
    assert page.status_code == 200
    assert page.context["protected"]
    bulk = operator.post(
        reverse("admin:tracker_player_changelist"),
        {"action": "delete_selected", helpers.ACTION_CHECKBOX_NAME: [alice.pk], "post": "yes"},
    )
    assert bulk.status_code == 200
    assert bulk.context["protected"]
    assert Player.objects.filter(pk=alice.pk).exists()
    assert version(session) == before


def test_guard_a_session_is_refused_deletion_in_the_admin(operator, make_session, actor):
    """a session always has a deal (one opens when it starts) and deals
    may not be deleted in the admin, so deleting a session is refused (403, Django's
    "permission needed") and nothing moves; this was so before the change too."""
    session, players = make_session()
    play_deals(session, players, 1, actor)
    before = version(session)

    url = reverse("admin:tracker_session_delete", args=[session.pk])
    assert operator.post(url, {"post": "yes"}).status_code == 403

    assert Session.objects.filter(pk=session.pk).exists()
    assert version(session) == before


def test_guard_an_edit_that_changes_nothing_saves_and_moves_on_once(operator, make_session):
    session, players = make_session()
    for obj in (players["Ben"], Session.objects.get(pk=session.pk), Circle.objects.get()):
        before = version(session)
        change(operator, obj)
        assert version(session) == before + 1, obj


def test_guard_every_admin_page_answers(operator, make_session, actor):
    """changelist, add and change of every registered model."""
    session, players = make_session()
    play_deals(session, players, 1, actor)
    _payment(session, players, actor)
    share_link_create(session_id=session.pk, role="viewer", actor=actor)
    for model, model_admin in django_admin.site._registry.items():
        meta = model._meta
        name = f"admin:{meta.app_label}_{meta.model_name}"
        assert operator.get(reverse(f"{name}_changelist")).status_code == 200, name
        if model_admin.has_add_permission(operator.get("/").wsgi_request):
            assert operator.get(reverse(f"{name}_add")).status_code == 200, name
        first = model._default_manager.first()
        if first is not None:
            assert operator.get(reverse(f"{name}_change", args=[first.pk])).status_code == 200, name


# --- What each kind of edit moves on ---------------------------------------------------


def standings_names(client, session):
    url = reverse("member:standings", kwargs={"session_id": session.pk})
    return [line.row.name for line in client.get(url).context["lines"]]


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
