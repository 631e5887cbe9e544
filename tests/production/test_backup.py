"""The backup path: export a circle to JSON, import it where it does not exist, and get
the same game back — the same standings, ledgers and settlement, cent for cent."""

import json
from dataclasses import asdict
from decimal import Decimal

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models import Model
from django.test.utils import CaptureQueriesContext

import scoring
from tracker import backup
from tracker.access import Actor
from tracker.backup import BackupError, export_circle, import_circle
from tracker.models import (
    Circle,
    Correction,
    Deal,
    DealEvent,
    DealPlayer,
    Invite,
    LedgerLine,
    Payment,
    PaymentDetails,
    Player,
    Seat,
    Session,
    ShareLink,
    Tap,
)
from tracker.records import deal_facts
from tracker.selectors import session_settlement, session_standings
from tracker.services import (
    deal_correct,
    deal_end,
    deal_event_record,
    deal_tap,
    deal_undo,
    invite_create,
    invite_revoke,
    payment_details_set,
    payment_record,
    player_claim,
    session_create,
    share_link_create,
    share_link_revoke,
    transfer_mark_paid,
    transfer_mark_unpaid,
)

pytestmark = pytest.mark.django_db


def open_deal(session):
    return session.deals.get(status=Deal.Status.OPEN)


@pytest.fixture
def cara(django_user_model, circle):
    cara = django_user_model.objects.create_user(username="cara", password="cards-on-table")
    circle.members.add(cara)
    return cara


@pytest.fixture
def played_circle(circle, actor, cara):
    """Two sessions with most of what a table records: taps with Got to Get In, an undo,
    2s beaten, a Guaransheed, a hand after filing, a correction, End match, share links
    (one revoked, one that tapped), payments (one cancelled), and an open deal."""
    friday = session_create(
        circle=circle,
        name="Friday",
        players=["Alice", "Ben", "Cara", "Dev"],
        stake="0.50",
        options=scoring.Options(penalties=True, guaransheed=True, got_to_get_in=True),
        actor=actor,
    )
    p = {seat.player.name: seat.player.pk for seat in friday.seats.select_related("player")}
    scorer = share_link_create(session_id=friday.pk, role="scorer", actor=actor)
    viewer = share_link_create(session_id=friday.pk, role="viewer", actor=actor)
    share_link_revoke(link_id=viewer.pk, actor=actor)
    by_link = Actor(link=scorer)

    def tap(player, **kwargs):
        deal_tap(deal_id=open_deal(friday).pk, player_id=p[player], **kwargs)

    deal = open_deal(friday)
    deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Ben"], blind=True), actor=actor
    )
    two = scoring.TwoBeaten(
        by=p["Alice"], owner=p["Cara"], beaten_with=scoring.Beater.BOMB, black=1, red=1
    )
    deal_event_record(deal_id=deal.pk, event=two, actor=by_link)
    tap("Ben", not_played=[p["Dev"]], actor=actor)
    tap("Alice", actor=by_link)
    tap("Cara", actor=actor)
    hand = scoring.Hand(player=p["Dev"], cards=6, red_twos=1, bombs=1)
    deal_event_record(deal_id=deal.pk, event=hand, actor=Actor(user=cara))

    second = open_deal(friday)
    tap("Cara", actor=actor)
    deal_undo(deal_id=second.pk, actor=actor)
    tap("Dev", actor=by_link)
    tap("Alice", actor=actor)
    tap("Ben", actor=actor)
    deal_correct(
        deal_id=second.pk,
        taps=[p["Alice"], p["Dev"], p["Cara"]],
        reason="Alice went out first",
        actor=Actor(user=cara),
    )

    tap("Ben", actor=actor)
    deal_end(deal_id=open_deal(friday).pk, actor=actor)

    transfers = session_settlement(friday).transfers
    for transfer in transfers[:2]:
        transfer_mark_paid(
            session_id=friday.pk,
            payer_id=transfer.payer,
            payee_id=transfer.payee,
            amount=transfer.amount,
            actor=actor,
        )
    transfer_mark_unpaid(
        session_id=friday.pk,
        payer_id=transfers[1].payer,
        payee_id=transfers[1].payee,
        amount=transfers[1].amount,
        actor=actor,
    )
    still_open = session_settlement(friday).open_transfers[0]
    payment_record(
        session_id=friday.pk,
        payer_id=still_open.payer,
        payee_id=still_open.payee,
        amount=Decimal("0.25"),
        actor=by_link,
    )
    payment_details_set(
        player=circle.players.get(name="Alice"),
        bank_bin="970436",
        account_number="0011001932418",
        account_name="ALICE",
        link="https://paypal.me/alice",
        actor=Actor(user=cara),
    )

    sunday = session_create(
        circle=circle,
        name="Sunday",
        players=["Alice", "Ben", "Eve"],
        format=scoring.Format.WINNER_TAKES_ALL,
        stake_rule=scoring.StakeRule.PER_CARD,
        stake="2",
        currency="EUR",
        options=scoring.Options(instant_wins=True, five_consecutive_pairs=True),
        actor=actor,
    )
    p["Eve"] = circle.players.get(name="Eve").pk
    deal = open_deal(sunday)
    for event in (
        scoring.TwoBeaten(by=p["Ben"], owner=p["Eve"], beaten_with=scoring.Beater.CUTUP, red=1),
        scoring.CutupBeaten(by=p["Alice"], owner=p["Ben"], beaten_with=scoring.Beater.BOMB),
    ):
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)
    deal_tap(deal_id=deal.pk, player_id=p["Eve"], actor=actor)
    for player, cards in (("Alice", 5), ("Ben", 9)):
        event = scoring.Hand(player=p[player], cards=cards)
        deal_event_record(deal_id=deal.pk, event=event, actor=actor)
    deal_tap(deal_id=open_deal(sunday).pk, player_id=p["Alice"], actor=actor)  # left open
    # Cara says she is Cara; an invite made, one revoked.
    player_claim(player=circle.players.get(name="Cara"), actor=Actor(user=cara))
    invite_create(circle=circle, actor=actor, max_uses=None)
    invite_revoke(invite_id=invite_create(circle=circle, actor=actor).pk, actor=actor)
    return circle


def game(circle):
    """What the table cares about, by name: standings, every ledger line, settlements."""
    sessions = circle.sessions.order_by("started_at", "pk")
    names = dict(Player.objects.filter(circle=circle).values_list("pk", "name"))
    standings = {
        session.name: [
            {**asdict(row), "player": names[row.player]} for row in session_standings(session)
        ]
        for session in sessions
    }
    ledgers = list(
        LedgerLine.objects.filter(session__circle=circle)
        .order_by("session__started_at", "deal__number", "position")
        .values_list(
            "session__name",
            "deal__number",
            "position",
            "payer__name",
            "payee__name",
            "amount",
            "reason",
        )
    )
    settlements = {
        session.name: [
            (names[t.payer], names[t.payee], t.amount, t.paid)
            for t in session_settlement(session).transfers
        ]
        for session in sessions
    }
    return standings, ledgers, settlements


def remove(circle):
    """Delete a circle and everything in it (the dependency order PROTECT asks for)."""
    Session.objects.filter(circle=circle).delete()
    circle.players.all().delete()
    circle.delete()


def as_json(data):
    return json.loads(json.dumps(data))


def test_export_then_import_gives_the_same_game_back(played_circle):
    before = game(played_circle)
    exported = as_json(export_circle(played_circle, with_tokens=True))
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    assert game(restored) == before
    assert as_json(export_circle(restored, with_tokens=True)) == exported
    assert before[1] != []  # the comparison is not of two empty ledgers


def test_imported_ledgers_equal_a_fresh_recomputation(played_circle):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    deals = Deal.objects.filter(session__circle=restored).select_related("session")
    assert deals.count() == 5
    for deal in deals:
        result = scoring.play(deal_facts(deal))
        stored = list(
            deal.ledger_lines.order_by("position").values_list("payer", "payee", "amount", "reason")
        )
        assert stored == [
            (line.payer, line.payee, line.amount, line.reason.value) for line in result.ledger
        ]


def test_an_older_exports_cutup_beaten_was_beaten_by_a_cutup(played_circle):
    """Exports from before a cutup beaten named what beat it: it was scored as a cutup."""
    exported = as_json(export_circle(played_circle))
    (cutup_beaten,) = [
        event
        for session in exported["sessions"]
        for deal in session["deals"]
        for event in deal["events"]
        if event["type"] == "cutup_beaten"
    ]
    assert cutup_beaten["beaten_with"] == "bomb"
    cutup_beaten["beaten_with"] = ""
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    event = DealEvent.objects.get(deal__session__circle=restored, type="cutup_beaten")
    assert event.beaten_with == "cutup"


def test_an_older_export_without_five_consecutive_pairs_imports_it_off(played_circle):
    exported = as_json(export_circle(played_circle))
    assert [s["five_consecutive_pairs"] for s in exported["sessions"]] == [False, True]
    for session in exported["sessions"]:
        del session["five_consecutive_pairs"]
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    assert [s.five_consecutive_pairs for s in restored.sessions.order_by("started_at")] == [
        False,
        False,
    ]


def test_export_keeps_history_and_names_things(played_circle):
    exported = export_circle(played_circle)
    friday = exported["sessions"][0]
    first, second = friday["deals"][0], friday["deals"][1]

    assert exported["circle"]["members"] == ["cara", "host"]
    assert [tap["player"] for tap in first["taps"] if tap["undone_at"] is None] == [
        "Ben",
        "Alice",
        "Cara",
    ]
    assert first["taps"][0]["not_played"] == ["Dev"]
    assert first["taps"][1]["recorded_via"] == 1  # the scorer link, by its ref
    assert [tap["player"] for tap in second["taps"]] == ["Cara", "Dev", "Alice", "Ben"] + [
        "Alice",
        "Dev",
        "Cara",
    ]
    assert [tap["correction"] for tap in second["taps"]] == [None, 1, 1, 1, None, None, None]
    assert second["corrections"][0]["made_by"] == "cara"
    assert set(second["corrections"][0]["after"]["points"]) == {"Alice", "Ben", "Cara", "Dev"}
    assert [payment["cancelled_at"] is None for payment in friday["payments"]] == [
        True,
        False,
        True,
    ]
    assert friday["payments"][2]["recorded_via"] == 1
    assert exported["payment_details"] == [
        {
            "player": "Alice",
            "bank_bin": "970436",
            "account_number": "0011001932418",
            "account_name": "ALICE",
            "link": "https://paypal.me/alice",
            "updated_by": "cara",
            "updated_at": exported["payment_details"][0]["updated_at"],
        }
    ]


def test_export_leaves_share_link_tokens_out_unless_asked(played_circle):
    tokens = set(ShareLink.objects.values_list("token", flat=True))

    without = json.dumps(export_circle(played_circle))
    with_tokens = json.dumps(export_circle(played_circle, with_tokens=True))

    assert [token in without for token in tokens] == [False, False]
    assert [token in with_tokens for token in tokens] == [True, True]


def test_links_imported_without_tokens_come_back_revoked(played_circle):
    exported = as_json(export_circle(played_circle))
    old_tokens = set(ShareLink.objects.values_list("token", flat=True))
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    links = ShareLink.objects.filter(session__circle=restored)
    assert [(link.role, link.revoked_at is not None) for link in links.order_by("pk")] == [
        ("scorer", True),
        ("viewer", True),
    ]
    assert {len(link.token) for link in links} == {43}  # 256 bits, URL-safe
    assert old_tokens & {link.token for link in links} == set()


def test_import_refuses_a_circle_that_exists(played_circle):
    exported = as_json(export_circle(played_circle))
    counts = [model.objects.count() for model in (Circle, Session, Deal, Tap)]

    with pytest.raises(BackupError, match='host already has a circle named "Friday table"'):
        import_circle(exported, map_members=True)

    assert [model.objects.count() for model in (Circle, Session, Deal, Tap)] == counts


def test_import_creates_missing_accounts_without_a_password(played_circle, django_user_model):
    exported = json.loads(json.dumps(export_circle(played_circle)).replace('"cara"', '"newcomer"'))
    exported["circle"]["name"] = "Friday table, restored"

    restored = import_circle(exported, map_members=True)

    newcomer = django_user_model.objects.get(username="newcomer")
    assert not newcomer.has_usable_password()
    assert sorted(restored.members.values_list("username", flat=True)) == ["host", "newcomer"]
    corrections = Correction.objects.filter(deal__session__circle=restored)
    assert [correction.made_by for correction in corrections] == [newcomer, newcomer]


def test_import_is_all_or_nothing(played_circle):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)
    exported["sessions"][1]["deals"][0]["ledger"][0]["payer"] = "Nobody"
    counts = [model.objects.count() for model in (Circle, Player, Session, Deal, LedgerLine)]

    with pytest.raises(BackupError, match="malformed: KeyError"):
        import_circle(exported, map_members=True)

    assert [
        model.objects.count() for model in (Circle, Player, Session, Deal, LedgerLine)
    ] == counts


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "not a SquareScores circle export"),
        ({"format": "something.else"}, "not a SquareScores circle export"),
        ({"format": backup.FORMAT, "version": 99}, "version 99"),
    ],
)
def test_import_refuses_what_is_not_an_export(data, message):
    with pytest.raises(BackupError, match=message):
        import_circle(data, map_members=True)


def test_export_takes_the_same_queries_however_long_the_circle(played_circle, circle, actor):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            export_circle(circle)
        return len(captured)

    before = queries()
    session = session_create(circle=circle, name="More", players=["Alice", "Ben"], actor=actor)
    alice, ben = (seat.player_id for seat in session.seats.order_by("position"))
    for _ in range(3):  # three more deals, each filed when both are out
        for player in (alice, ben):
            deal_tap(deal_id=open_deal(session).pk, player_id=player, actor=actor)

    assert queries() == before


# Every stored field is in the export, or named here with the reason it is not.
NOT_EXPORTED = {
    "id": "rows are named by name, number or ref, not by id",
    "circle": "implied by nesting",
    "session": "implied by nesting",
    "deal": "implied by nesting",
    "token": "only with --with-tokens",
    "version": "a counter for watching phones, not data: an import starts it again",
    "standings_version": "the same, for the standings' rows",
    "access_version": "the same, for who may reach the session",
}


def test_export_covers_every_field(played_circle):
    exported = export_circle(played_circle, with_tokens=True)
    friday = exported["sessions"][0]
    deal = friday["deals"][0]
    rows: dict[type[Model], dict] = {
        Circle: exported["circle"],
        Player: exported["players"][0],
        Session: friday,
        Seat: friday["seats"][0],
        ShareLink: friday["share_links"][0],
        Deal: deal,
        DealPlayer: deal["players"][0],
        Correction: deal["corrections"][0],
        Tap: deal["taps"][0],
        DealEvent: deal["events"][0],
        LedgerLine: deal["ledger"][0],
        Payment: friday["payments"][0],
        Invite: exported["invites"][1],  # the revoked one: every field set
        PaymentDetails: exported["payment_details"][0],
    }

    missing = {
        model.__name__: sorted(
            field.name
            for field in model._meta.get_fields()
            if (field.concrete or field.many_to_many and not field.auto_created)
            and field.name not in row
            and field.name not in NOT_EXPORTED
        )
        for model, row in rows.items()
    }

    assert missing == {model.__name__: [] for model in rows}, "add them to tracker/backup/"
    # And every kind of row is in it, or named with the reason it is not.
    left_out = {model.__name__ for model in apps.get_app_config("tracker").get_models()}
    assert left_out - {model.__name__ for model in rows} == set(NOT_EXPORTED_MODELS)


NOT_EXPORTED_MODELS = {
    "IdempotencyKey": "a few hours of request deduplication, not data",
    "StandingTally": "running totals, rebuilt from the deals on import",
    "WriteCount": "the current minute's count of a caller's writes, not data",
    "ApiToken": "an account's sign-ins (secrets of the account), not the circle's data",
}


def test_commands_export_and_import_a_file(played_circle, tmp_path, capsys):
    before = game(played_circle)
    path = tmp_path / "friday.json"
    call_command("export_circle", str(played_circle.pk), "--output", str(path))
    remove(played_circle)

    call_command("import_circle", str(path), "--map-members")

    out = capsys.readouterr().out
    assert out.startswith('Imported circle "Friday table": 5 players, 2 sessions, 5 deals as ')
    assert game(Circle.objects.get()) == before
    with pytest.raises(CommandError, match="Nothing imported: host already has a circle"):
        call_command("import_circle", str(path), "--map-members")


def test_export_command_writes_to_standard_output(circle, capsys):
    call_command("export_circle", str(circle.pk))

    assert json.loads(capsys.readouterr().out)["circle"]["name"] == "Friday table"


def test_export_command_names_an_unknown_circle():
    with pytest.raises(CommandError, match="There is no circle 999."):
        call_command("export_circle", "999")


# --- Who gets an imported circle --------------------------------------------------------


def test_an_import_without_an_owner_or_the_members_flag_is_refused(played_circle):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)

    with pytest.raises(BackupError, match="Say who gets the circle"):
        import_circle(exported)


def test_an_import_for_one_owner_gives_nobody_else_the_circle(played_circle, django_user_model):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)
    # Someone registered the usernames of the export's members here.
    squatter = django_user_model.objects.get(username="cara")
    operator = django_user_model.objects.create_user(username="operator", password="x")

    restored = import_circle(exported, owner="operator")

    assert restored.owner == operator
    assert list(restored.members.all()) == [operator]
    assert not restored.players.filter(user__isnull=False).exists()
    assert not Circle.objects.filter(members=squatter).exists()


def test_an_import_for_an_owner_who_is_not_here_is_refused(played_circle):
    exported = as_json(export_circle(played_circle))

    with pytest.raises(BackupError, match="There is no account 'nobody' here"):
        import_circle(exported, owner="nobody")


def test_mapped_members_keep_their_this_is_me(played_circle):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    assert restored.players.get(name="Cara").user.username == "cara"
    assert sorted(restored.members.values_list("username", flat=True)) == ["cara", "host"]


def test_invites_without_their_tokens_come_in_revoked(played_circle):
    exported = as_json(export_circle(played_circle))
    remove(played_circle)

    restored = import_circle(exported, map_members=True)

    assert restored.invites.count() == 2
    assert all(invite.revoked_at is not None for invite in restored.invites.all())


def test_the_import_command_needs_to_be_told_who_gets_the_circle(played_circle, tmp_path):
    path = tmp_path / "friday.json"
    call_command("export_circle", str(played_circle.pk), "--output", str(path))

    with pytest.raises(CommandError, match="one of the arguments --owner --map-members"):
        call_command("import_circle", str(path))
