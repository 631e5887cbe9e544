"""Payment details on the pages: set on a player's page by a member; shown on settle up as
a Pay sheet (VietQR code, payment link, "I paid") to members and the scorer link only."""

from decimal import Decimal

import pytest
from django.urls import reverse

from scoring import vietqr
from tests.views.helpers import play_deals
from tracker.models import PaymentDetails
from tracker.services import payment_details_set, share_link_create

pytestmark = pytest.mark.django_db


def details_url(circle, player):
    return reverse(
        "player_payment_details", kwargs={"circle_id": circle.pk, "player_id": player.pk}
    )


def test_a_member_sets_how_a_player_is_paid(member, table, circle):
    _session, players = table

    form = member.get(details_url(circle, players["Alice"]))
    response = member.post(
        details_url(circle, players["Alice"]),
        {
            "bank_bin": "970436",
            "account_number": "0011-0019-32418",
            "account_name": "Alice",
            "link": "https://paypal.me/alice",
        },
    )

    assert form.status_code == 200
    assert "How Alice is paid" in form.text
    assert response.status_code == 302
    details = PaymentDetails.objects.get()
    assert (details.bank_bin, details.account_number, details.link) == (
        "970436",
        "0011001932418",
        "https://paypal.me/alice",
    )
    again = member.get(details_url(circle, players["Alice"]))
    assert 'value="0011001932418"' in again.text


def test_details_added_from_settle_up_go_back_to_it_with_the_pay_sheet(member, dong):
    """Saved, the page went to the circle: the payer had to find settle up again for the
    Pay button it came for (session 26's review)."""
    session, players = dong
    settle = reverse("member:settle", kwargs={"session_id": session.pk})
    link = f"{details_url(session.circle, players['Ben'])}?next={settle}"
    assert f'href="{link}"' in member.get(settle).text

    form = member.get(link)
    saved = member.post(
        link,
        {"bank_bin": "970436", "account_number": "123456789", "next": settle, "key": "k1"},
    )

    assert f'name="next" value="{settle}"' in form.text
    assert (saved.status_code, saved.url) == (302, settle)
    to_ben = next(t for t in member.get(settle).context["transfers"] if t.payee_name == "Ben")
    assert to_ben.pay is not None


def test_details_saved_go_nowhere_but_this_site(member, table, circle):
    _session, players = table

    saved = member.post(
        details_url(circle, players["Alice"]),
        {"account_number": "", "next": "https://evil.example/", "key": "k1"},
    )

    assert (saved.status_code, saved.url) == (
        302,
        reverse("circle", kwargs={"circle_id": circle.pk}),
    )


def test_bad_details_say_why_and_save_nothing(member, table, circle):
    _session, players = table

    response = member.post(
        details_url(circle, players["Alice"]), {"link": "http://paypal.me/alice"}
    )

    assert response.status_code == 400
    assert "Not saved: A payment link starts with https://" in response.text
    assert not PaymentDetails.objects.exists()


def test_only_members_reach_a_players_payment_details(client, stranger, table, circle):
    _session, players = table
    url = details_url(circle, players["Alice"])

    assert stranger.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to sign in


@pytest.fixture
def dong(make_session, actor):
    """Alice, Ben, Cara and Dev in VND; Dev owes each 10,000; Alice has a bank account."""
    session, players = make_session(currency="VND", stake="10000")
    play_deals(session, players, 1, actor)
    payment_details_set(
        player=players["Alice"], bank_bin="970436", account_number="0011001932418", actor=actor
    )
    return session, players


def test_settle_up_offers_a_pay_sheet_with_the_vietqr_code(member, dong):
    session, _players = dong

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    to_alice = next(t for t in response.context["transfers"] if t.payee_name == "Alice")
    assert vietqr.read(to_alice.pay.options.vietqr)["amount"] == "10000"
    assert to_alice.pay.qr_svg.startswith("<svg")
    assert 'I paid <span class="amount ">10,000<' in response.text
    to_ben = next(t for t in response.context["transfers"] if t.payee_name == "Ben")
    assert to_ben.pay is None
    assert "How Ben is paid" in response.text  # a member may add Ben's details from here


def test_the_account_s_name_on_the_pay_sheet_is_isolated_from_what_is_around_it(
    member, dong, actor
):
    """An account's name is what the bank says, written as its owner typed it: with a
    right-to-left mark in it, it reordered the bank and number beside it."""
    session, players = dong
    payment_details_set(
        player=players["Alice"],
        bank_bin="970436",
        account_number="0011001932418",
        account_name="BEN\u202eTRAN",
        actor=actor,
    )

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    assert "· <bdi>BEN\u202eTRAN</bdi></p>" in response.text


def test_the_scorer_link_sees_the_pay_sheet_and_a_viewer_link_never(client, dong, actor):
    session, _players = dong
    scorer = share_link_create(session_id=session.pk, role="scorer", actor=actor)
    viewer = share_link_create(session_id=session.pk, role="viewer", actor=actor)

    by_scorer = client.get(f"/s/{scorer.token}/settle/")
    by_viewer = client.get(f"/s/{viewer.token}/settle/")

    assert "0011001932418" in by_scorer.text
    assert "How Ben is paid" not in by_scorer.text  # details are set by members only
    assert ("0011001932418" in by_viewer.text, "<svg" in by_viewer.text) == (False, False)
    assert all(t.pay is None for t in by_viewer.context["transfers"])


def test_a_session_in_euros_shows_no_vnd_code(member, make_session, actor):
    session, players = make_session(currency="EUR", stake="2.50")
    play_deals(session, players, 1, actor)
    payment_details_set(
        player=players["Alice"],
        bank_bin="970436",
        account_number="0011001932418",
        link="https://paypal.me/alice",
        actor=actor,
    )

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    to_alice = next(t for t in response.context["transfers"] if t.payee_name == "Alice")
    assert (to_alice.pay.options.vietqr, to_alice.pay.qr_svg) == (None, "")
    assert to_alice.pay.options.link == "https://paypal.me/alice/2.50EUR"
    assert 'Pay <span class="amount ">2.50<' in response.text
    assert Decimal(to_alice.amount) == Decimal("2.50")


def test_three_of_one_family_paying_one_payee_send_three_notes_she_tells_apart(
    member, make_session, actor
):
    """Their names begin alike and are long: cut from the front, every note read "Nguyen
    Thi Minh Khai L>" and Hoa could not tell from her bank who had paid."""
    from tracker.services import deal_tap

    family = [
        "Nguyễn Thị Minh Khai Lan Vy",
        "Nguyễn Thị Minh Khai Lan Anh",
        "Nguyễn Thị Minh Khai Phương",
    ]
    session, players = make_session(players=[*family, "Lê Thị Hoa"], currency="VND", stake="10000")
    for loser in family:  # Hoa wins every deal; each of the family loses one
        deal = session.deals.get(status="open")
        for name in ["Lê Thị Hoa", *(other for other in family if other != loser)]:
            deal_tap(deal_id=deal.pk, player_id=players[name].pk, actor=actor)
    payment_details_set(
        player=players["Lê Thị Hoa"], bank_bin="970436", account_number="0011001932418", actor=actor
    )

    response = member.get(reverse("member:settle", kwargs={"session_id": session.pk}))

    notes = sorted(
        vietqr.read(transfer.pay.options.vietqr)["note"]
        for transfer in response.context["transfers"]
        if transfer.pay
    )
    assert notes == ["Friday Anh>Hoa", "Friday Phuong>Hoa", "Friday Vy>Hoa"]
