# ruff: noqa: F811  (the API fixtures are imported from tests/api/conftest.py)
"""What the tap's fewer statements must keep (a reviewer's tests, issue 15):

- the gate does not look a key up before the write (tracker/gate.py `write_once`);
- a deal's taps and events are read in one raw UNION ALL (tracker/records.py
  `_all_records`), and the deal row is saved only when its status changes, so
  `Deal.last_seq` in the database is a lower bound;
- writes by deal id find the deal in the caller's reach in the statement that locks its
  session (tracker/access.py `DealInReach`, tracker/services/locks.py).

"""

from __future__ import annotations

from datetime import UTC

import pytest
from django.urls import reverse
from django.utils import timezone

import scoring
from tests.api.conftest import (  # noqa: F401 - fixtures
    api,
    at_once,
    client_with,
    db_state,
    post,
    start,
    stranger,
    stranger_api,
    token,
)
from tracker import services
from tracker.access import Actor
from tracker.backup.export import export_session
from tracker.errors import Conflict
from tracker.models import Correction, Deal, DealEvent, IdempotencyKey, Session, Tap
from tracker.records import _all_records, live_records
from tracker.services import session_create, share_link_create

pytestmark = pytest.mark.django_db

OPTIONS = scoring.Options(got_to_get_in=True, guaransheed=True)


def version(session_id: int) -> int:
    return Session.objects.values_list("version", flat=True).get(pk=session_id)


def open_deal_of(session: Session) -> Deal:
    return session.deals.get(status=Deal.Status.OPEN)


def give_two_events(session: Session, p: dict, actor: Actor) -> None:
    """Give the open deal records 1 and 2 (two events), which save no deal row: the
    row's `last_seq` stays 0."""
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Hand(player=p["Alice"].pk, cards=5), actor=actor
    )


def all_seqs(deal_id: int) -> list[int]:
    """Every number the deal gave, taps and events, undone or not."""
    return sorted(
        [
            *Tap.objects.filter(deal_id=deal_id).values_list("seq", flat=True),
            *DealEvent.objects.filter(deal_id=deal_id).values_list("seq", flat=True),
        ]
    )


# --- The UNION read: values as the ORM gives them -------------------------------------


def test_the_union_read_gives_aware_datetimes(make_session, actor):
    """`_loader` applies the backend's converters as well as the fields' (as Django's
    compiler does): SQLite's datetimes are made timezone-aware there (USE_TZ = True)."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )
    services.deal_undo(deal_id=deal.pk, actor=actor)  # the event, undone: undone_at set
    services.deal_tap(deal_id=deal.pk, player_id=p["Alice"].pk, actor=actor)

    deal = Deal.objects.get(pk=deal.pk)
    by_union = {(type(row).__name__, row.pk): row for row in live_records(deal)}
    tap = Tap.objects.get()
    event = DealEvent.objects.get()
    everything = {(type(row).__name__, row.pk): row for row in _all_records(deal.pk)[0]}

    assert by_union[("Tap", tap.pk)].recorded_at == tap.recorded_at  # the ORM's: aware
    assert timezone.is_aware(everything[("Tap", tap.pk)].recorded_at)
    assert timezone.is_aware(everything[("DealEvent", event.pk)].recorded_at)
    assert timezone.is_aware(everything[("DealEvent", event.pk)].undone_at)


def test_the_union_read_gives_an_events_blind_as_a_bool(make_session, actor):
    """DealEvent's columns are NULL in the UNION's first (Tap) branch, so sqlite3 knows no
    declared type for them: the backend's converter makes `blind` a bool, not 1."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk, blind=True), actor=actor
    )

    (row,) = live_records(Deal.objects.get(pk=deal.pk))

    assert row.blind is True, repr(row.blind)
    assert row.blind is DealEvent.objects.get().blind


def test_a_correction_stores_blind_as_true(make_session, actor):
    """What an int `blind` would reach: a correction's before/after snapshots (stored JSON,
    shown in the deal's history and exports) must say "blind": true on both databases."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk, blind=True), actor=actor
    )
    for name in ("Dev", "Alice", "Ben"):
        services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    assert Deal.objects.get(pk=deal.pk).status == Deal.Status.FILED

    services.deal_correct(
        deal_id=deal.pk,
        taps=[p["Dev"].pk, p["Ben"].pk, p["Alice"].pk],
        reason="order",
        actor=actor,
    )

    before = Correction.objects.get().before
    (guaransheed,) = [r for r in before["records"] if r["type"] == "Guaransheed"]
    assert guaransheed["blind"] is True, guaransheed


def test_union_read_matches_the_orm_read(make_session, actor):
    """Taps and events interleaved, Got to Get In marks, undone rows skipped, by seq: the
    rows are the ORM's rows, field by field (datetimes compared as instants)."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )
    services.deal_tap(
        deal_id=deal.pk, player_id=p["Alice"].pk, not_played=[p["Cara"].pk], actor=actor
    )
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)
    services.deal_undo(deal_id=deal.pk, actor=actor)  # Ben's tap
    services.deal_tap(deal_id=deal.pk, player_id=p["Ben"].pk, actor=actor)

    rows = live_records(Deal.objects.get(pk=deal.pk))

    orm = sorted(
        [
            *Tap.objects.filter(undone_at__isnull=True),
            *DealEvent.objects.filter(undone_at__isnull=True),
        ],
        key=lambda row: row.seq,
    )
    assert [(type(r).__name__, r.pk, r.seq) for r in rows] == [
        (type(r).__name__, r.pk, r.seq) for r in orm
    ]
    assert [r.seq for r in rows] == [1, 2, 4]
    for union_row, orm_row in zip(rows, orm, strict=True):
        for field in type(orm_row)._meta.concrete_fields:
            got, want = getattr(union_row, field.attname), getattr(orm_row, field.attname)
            if got is not None and field.get_internal_type() == "DateTimeField":
                # the instant only: naive vs aware is test_bug_union_read_gives_naive_...
                got = got if timezone.is_aware(got) else timezone.make_aware(got, UTC)
            assert got == want, field
    taps = [r for r in rows if isinstance(r, Tap)]
    assert [[pl.pk for pl in t.not_played.all()] for t in taps] == [[p["Cara"].pk], []]


# --- last_seq: a lower bound in the database ---------------------------------------------


def test_seq_numbers_never_repeat_across_taps_events_undo_and_corrections(make_session, actor):
    """Taps and events have separate unique (deal, seq) constraints, so a stale last_seq
    would repeat a number silently: every number given is distinct and increasing."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )  # saves no deal row: last_seq 0 in the database
    services.deal_undo(deal_id=deal.pk, actor=actor)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )
    services.deal_tap(deal_id=deal.pk, player_id=p["Dev"].pk, actor=actor)
    services.deal_tap(deal_id=deal.pk, player_id=p["Alice"].pk, actor=actor)
    services.deal_undo(deal_id=deal.pk, actor=actor)
    for name in ("Alice", "Ben"):
        services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    assert Deal.objects.get(pk=deal.pk).status == Deal.Status.FILED
    services.deal_correct(
        deal_id=deal.pk, taps=[p["Dev"].pk, p["Ben"].pk, p["Alice"].pk], actor=actor
    )
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Hand(player=p["Cara"].pk, cards=5), actor=actor
    )  # a hand after filing: a correction

    seqs = all_seqs(deal.pk)
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    live = live_records(Deal.objects.get(pk=deal.pk))
    assert [r.seq for r in live] == sorted(r.seq for r in live)


def test_seq_after_undo_that_reopens_and_end_match(make_session, actor):
    session, p = make_session()
    deal = open_deal_of(session)
    for name in ("Alice", "Ben", "Cara"):
        services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    following = open_deal_of(session)
    services.deal_undo(deal_id=following.pk, actor=actor)  # reaches back, re-opens deal 1
    assert not Deal.objects.filter(pk=following.pk).exists()
    services.deal_tap(deal_id=deal.pk, player_id=p["Dev"].pk, actor=actor)
    second = open_deal_of(session)
    services.deal_tap(deal_id=second.pk, player_id=p["Ben"].pk, actor=actor)
    services.deal_end(deal_id=second.pk, actor=actor)

    assert all_seqs(deal.pk) == [1, 2, 3, 4]
    assert all_seqs(second.pk) == [1]


def test_seating_is_refused_once_an_event_stands_though_last_seq_is_0(make_session, actor):
    """`_seat_table` used to skip the read when last_seq was 0; an event saves no deal row
    now, so it must read (and does)."""
    session, p = make_session(options=OPTIONS)
    deal = open_deal_of(session)
    services.deal_event_record(
        deal_id=deal.pk, event=scoring.Guaransheed(player=p["Dev"].pk), actor=actor
    )
    assert Deal.objects.get(pk=deal.pk).last_seq == 0  # the lower bound

    with pytest.raises(Conflict) as refused:
        services.players_seat(
            session_id=session.pk, players=["Alice", "Ben", "Cara", "Dev", "Eve"], actor=actor
        )
    assert refused.value.code == "deal_started"


def test_a_backup_export_gives_the_highest_number_given(make_session, actor):
    """A session download carries each deal's `last_seq` (docs/backup.md: 6 for a deal whose
    records run to 6): the highest number its records hold, though the deal row (which
    most taps do not save) says less (0 here, with records 1 and 2)."""
    session, p = make_session(options=OPTIONS)
    give_two_events(session, p, actor)

    document = export_session(Session.objects.get(pk=session.pk))
    (exported,) = document["session"]["deals"]
    highest = max(r["seq"] for r in [*exported["taps"], *exported["events"]])
    assert exported["last_seq"] == highest == 2


# --- Reach: another session's deal by id ---------------------------------------------------


@pytest.fixture
def two_tables(start, api, outsider_table, actor):
    """The host's table (through the API), a second session of the host's circle, and
    an outsider's session with a deal of its own."""
    table = start()
    _outsider, other = outsider_table
    return table, other


WRITES = [
    ("taps", lambda table: {"player": table.p["Alice"]}),
    ("undo", lambda table: {}),
    ("events", lambda table: {"type": "guaransheed", "player": table.p["Dev"], "approved": True}),
]


@pytest.mark.parametrize(("what", "body"), WRITES, ids=[w for w, _ in WRITES])
def test_api_writes_on_a_deal_out_of_reach_are_404_and_move_nothing(
    two_tables, api, stranger_api, what, body
):
    table, other = two_tables
    host_deal = table.deal
    other_deal = open_deal_of(other).pk
    scorer = share_link_create(
        session_id=other.pk, role="scorer", actor=Actor(user=other.circle.owner)
    )
    viewer = share_link_create(
        session_id=table.id,
        role="viewer",
        actor=Actor(user=Session.objects.get(pk=table.id).circle.owner),
    )
    before = db_state()
    versions = (version(table.id), version(other.pk))

    answers = [
        api.post(f"/api/deals/{other_deal}/{what}/", body(table), HTTP_IDEMPOTENCY_KEY="x1"),
        stranger_api.post(f"/api/deals/{host_deal}/{what}/", body(table)),
        client_with(f"Share {scorer.token}").post(f"/api/deals/{host_deal}/{what}/", body(table)),
        api.post(f"/api/deals/{2**31 + 5}/{what}/", body(table)),
        api.post(f"/api/deals/{10**20}/{what}/", body(table)),
    ]
    viewed = client_with(f"Share {viewer.token}").post(
        f"/api/deals/{host_deal}/{what}/", body(table)
    )

    assert [a.status_code for a in answers] == [404] * 5, [a.content for a in answers]
    assert answers[0].json() == {"code": "not_found", "detail": f"There is no deal {other_deal}."}
    assert answers[1].json() == {"code": "not_found", "detail": f"There is no deal {host_deal}."}
    assert (viewed.status_code, viewed.json()["code"]) == (403, "viewer_read_only")
    assert (version(table.id), version(other.pk)) == versions
    assert db_state() == before


def test_pages_write_only_to_deals_of_their_own_session(client, user, two_tables, actor):
    """A page opened for one session, sent the id of a deal of another session (of the
    same circle, or of another account's circle): 404, nothing moved."""
    table, other = two_tables
    host = Session.objects.get(pk=table.id)
    same_circle = session_create(
        circle=host.circle, name="Sunday", players=["Alice", "Ben", "Cara"], actor=actor
    )
    foreign = [open_deal_of(other).pk, open_deal_of(same_circle).pk]
    link = share_link_create(session_id=host.pk, role="scorer", actor=actor)
    client.force_login(user)
    bases = [f"/sessions/{host.pk}/", f"/s/{link.token}/"]
    assert client.get(bases[0]).status_code == 200  # the member's page route
    before = db_state()
    versions = [version(s) for s in (host.pk, other.pk, same_circle.pk)]
    player = table.p["Alice"]

    statuses = []
    for base in bases:
        for deal in foreign:
            statuses += [
                client.post(
                    base + "tap/", {"deal": deal, "player": player, "key": "k"}
                ).status_code,
                client.post(base + "undo/", {"deal": deal, "key": "k2"}).status_code,
                client.post(
                    base + "event/",
                    {"type": "guaransheed", "deal": deal, "player": player, "approved": "on"},
                ).status_code,
            ]

    assert statuses == [404] * len(statuses)
    assert [version(s) for s in (host.pk, other.pk, same_circle.pk)] == versions
    assert db_state() == before


# --- Idempotency ----------------------------------------------------------------------------


def test_an_undo_replayed_with_its_key_takes_back_one_record(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Ben")

    first = api.post(f"/api/deals/{deal}/undo/", HTTP_IDEMPOTENCY_KEY="u1")
    again = api.post(f"/api/deals/{deal}/undo/", HTTP_IDEMPOTENCY_KEY="u1")

    assert (first.status_code, again.status_code) == (200, 200)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Tap.objects.filter(undone_at__isnull=True).count() == 1
    assert IdempotencyKey.objects.count() == 1


def test_an_event_replayed_with_its_key_is_recorded_once(start, api):
    table = start()
    deal = table.deal
    chopped = {"type": "two_beaten", "by": table.p["Ben"], "owner": table.p["Alice"]}
    body = {**chopped, "with": "cutup", "black": 1}

    first = api.post(f"/api/deals/{deal}/events/", body, HTTP_IDEMPOTENCY_KEY="e1")
    version_after_first = version(table.id)
    again = api.post(f"/api/deals/{deal}/events/", body, HTTP_IDEMPOTENCY_KEY="e1")
    other = api.post(f"/api/deals/{deal}/events/", {**body, "black": 2}, HTTP_IDEMPOTENCY_KEY="e1")

    assert (first.status_code, again.status_code, other.status_code) == (201, 201, 422)
    assert again.content == first.content
    assert DealEvent.objects.count() == 1
    assert version(table.id) == version_after_first  # the replays' attempts rolled back


def test_a_correction_replayed_with_its_key_is_made_once(start, api):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Ben", "Cara")
    body = {"taps": [table.p["Ben"], table.p["Alice"], table.p["Cara"]], "reason": "order"}

    first = api.post(f"/api/deals/{deal}/correction/", body, HTTP_IDEMPOTENCY_KEY="c1")
    again = api.post(f"/api/deals/{deal}/correction/", body, HTTP_IDEMPOTENCY_KEY="c1")

    assert first.status_code in (200, 201), first.json()
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert Correction.objects.count() == 1
    assert Tap.objects.filter(undone_at__isnull=True).count() == 3


def test_a_page_undo_replayed_with_its_key_takes_back_one_record(
    member_client, user, make_session, actor
):
    session, p = make_session()
    deal = open_deal_of(session)
    for name in ("Alice", "Ben"):
        services.deal_tap(deal_id=deal.pk, player_id=p[name].pk, actor=actor)
    url = reverse("member:undo", kwargs={"session_id": session.pk})

    first = member_client.post(url, {"deal": deal.pk, "key": "page-u1"})
    again = member_client.post(url, {"deal": deal.pk, "key": "page-u1"})

    assert (first.status_code, again.status_code) == (302, 302)
    assert Tap.objects.filter(undone_at__isnull=True).count() == 1


@pytest.fixture
def member_client(client, user):
    client.force_login(user)
    return client


@pytest.mark.parametrize(
    "body", [{"player": "not a player"}, {}, {"player": None}], ids=["text", "empty", "null"]
)
def test_the_same_key_with_another_invalid_body_is_422(start, api, body):
    """docs/api.md: "same key with a different request → 422", even when that request is
    refused in its own way (DRF's ValidationError, raised inside the work): the key is
    looked up whatever the work raised."""
    table = start()
    deal = table.deal
    assert (
        table.api.post(
            f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]}, HTTP_IDEMPOTENCY_KEY="k"
        ).status_code
        == 201
    )

    response = api.post(f"/api/deals/{deal}/taps/", body, HTTP_IDEMPOTENCY_KEY="k")

    assert response.status_code == 422, response.json()
    assert response.json()["code"] == "idempotency_key_reused"


# --- Real threads on PostgreSQL ---------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pg_one_undo_key_sent_by_eight_threads_takes_back_one_record(start, token):
    table = start()
    deal = table.deal
    table.tap(deal, "Alice", "Ben")

    results = at_once(
        [post(token, f"/api/deals/{deal}/undo/", HTTP_IDEMPOTENCY_KEY="u") for _ in range(8)]
    )

    assert {status for status, _ in results} == {200}, results
    assert len({str(body) for _, body in results}) == 1
    assert Tap.objects.filter(undone_at__isnull=True).count() == 1
    assert IdempotencyKey.objects.count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pg_events_and_taps_at_once_give_distinct_numbers(start, token):
    """Taps (which save no deal row now) and events at once, each with its own key: the
    seq numbers stay distinct across both tables."""
    table = start(players=[f"P{i}" for i in range(1, 9)])
    deal = table.deal
    players = list(table.p.values())
    calls = [
        post(
            token, f"/api/deals/{deal}/taps/", {"player": players[i]}, HTTP_IDEMPOTENCY_KEY=f"t{i}"
        )
        for i in range(4)
    ] + [
        post(
            token,
            f"/api/deals/{deal}/events/",
            {
                "type": "two_beaten",
                "by": players[5],
                "owner": players[6],
                "with": "cutup",
                "black": 1,
            },
            HTTP_IDEMPOTENCY_KEY=f"e{i}",
        )
        for i in range(4)
    ]
    results = at_once(calls)

    assert {status for status, _ in results} == {201}, results
    seqs = all_seqs(deal)
    assert seqs == list(range(1, 9)), seqs


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pg_a_stranger_probing_at_once_moves_no_version(start, token, stranger):
    from tracker.services import api_token_create

    table = start()
    deal = table.deal
    before = version(table.id)
    strange = api_token_create(user=stranger).key
    results = at_once(
        [post(strange, f"/api/deals/{deal}/taps/", {"player": table.p["Alice"]}) for _ in range(4)]
        + [post(strange, f"/api/deals/{deal}/undo/") for _ in range(4)]
    )

    assert {status for status, _ in results} == {404}, results
    assert version(table.id) == before
    assert Tap.objects.count() == 0


def test_a_restored_deal_numbers_on_past_its_records(make_session, actor, django_user_model):
    """Restored, a deal numbers its next record past those it holds (live_records reads
    them), whatever `last_seq` the file carries."""
    import json

    from tracker.backup.export import export_circle
    from tracker.backup.restore import import_circle

    session, p = make_session(options=OPTIONS)
    give_two_events(session, p, actor)
    exported = json.loads(json.dumps(export_circle(session.circle)))
    heir = django_user_model.objects.create_user(username="heir", password="x")

    restored = import_circle(exported, owner=heir.username)

    copy = Deal.objects.get(session__circle=restored, status=Deal.Status.OPEN)
    players = {pl.name: pl for pl in restored.players.all()}
    services.deal_tap(deal_id=copy.pk, player_id=players["Dev"].pk, actor=Actor(user=heir))
    assert all_seqs(copy.pk) == [1, 2, 3]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_pg_one_key_with_two_bodies_at_once_applies_one(start, token):
    table = start()
    deal = table.deal
    calls = [
        post(token, f"/api/deals/{deal}/taps/", {"player": table.p[name]}, HTTP_IDEMPOTENCY_KEY="k")
        for name in ("Alice", "Ben", "Alice", "Ben")
    ]

    results = at_once(calls)

    statuses = sorted(status for status, _ in results)
    assert statuses in ([201, 201, 422, 422],), results  # one applied, its twin replayed
    assert Tap.objects.count() == 1
    assert IdempotencyKey.objects.count() == 1
