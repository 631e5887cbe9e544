"""Load a demo circle with a couple of finished sessions, so `make run` shows something."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

import scoring
from tracker.access import Actor
from tracker.models import Circle, Deal
from tracker.services import (
    circle_create,
    deal_end,
    deal_event_record,
    deal_tap,
    session_create,
)

DEMO_USERNAME = "demo"
DEMO_PASSWORD = "tienlen-demo"

# Finishing orders of the demo deals (first out first), per session.
FRIDAY = [
    ("Alice", "Cara", "Ben"),
    ("Dev", "Alice", "Cara"),
    ("Alice", "Ben", "Dev"),
    ("Cara", "Alice", "Dev"),
    ("Ben", "Cara", "Alice"),
]
SUNDAY = [
    ("Cara", "Dev", "Alice"),
    ("Alice", "Dev", "Ben"),
    ("Dev", "Ben", "Cara"),
]


URL = "http://127.0.0.1:8000/"  # where `make run` serves by default


class Command(BaseCommand):
    help = "Create the demo account and a demo circle with two finished sessions."

    def add_arguments(self, parser):
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when any circle exists already (used by `make run`).",
        )
        parser.add_argument(
            "--url",
            default=URL,
            help="Where the demo is served, for the sign-in line (`make run` gives its port).",
        )

    @transaction.atomic
    def handle(self, *args, if_empty=False, url=URL, **options):
        if if_empty and Circle.objects.exists():
            self.stdout.write(self.login_line(url))
            return
        user_model = get_user_model()
        user = user_model.objects.filter(username=DEMO_USERNAME).first()
        if user is None:
            user = user_model.objects.create_user(username=DEMO_USERNAME, password=DEMO_PASSWORD)
        actor = Actor(user=user)
        circle = circle_create(owner=user, name="Demo circle")
        players = ["Alice", "Ben", "Cara", "Dev"]

        friday = session_create(circle=circle, name="Friday table", players=players, actor=actor)
        self.play(friday, FRIDAY, actor)
        sunday = session_create(
            circle=circle,
            name="Sunday Pro-Play",
            players=[p.pk for p in circle.players.order_by("name")],
            format=scoring.Format.WINNER_TAKES_ALL,
            stake_rule=scoring.StakeRule.PRO_PLAY,
            stake="0.50",
            actor=actor,
        )
        self.play_pro(sunday, SUNDAY, actor)
        self.stdout.write(self.style.SUCCESS("Demo data loaded."))
        self.stdout.write(self.login_line(url))

    def login_line(self, url):
        return (
            f"Open {url} and sign in as {DEMO_USERNAME} / {DEMO_PASSWORD} "
            "(or sign up for your own account)."
        )

    def play(self, session, orders, actor):
        ids = {seat.player.name: seat.player_id for seat in session.seats.select_related("player")}
        for order in orders:
            deal = session.deals.get(status=Deal.Status.OPEN)
            for name in order:
                deal_tap(deal_id=deal.pk, player_id=ids[name], actor=actor)
        deal_end(deal_id=session.deals.get(status=Deal.Status.OPEN).pk, actor=actor)

    def play_pro(self, session, orders, actor):
        ids = {seat.player.name: seat.player_id for seat in session.seats.select_related("player")}
        for order in orders:
            deal = session.deals.get(status=Deal.Status.OPEN)
            winner = order[0]
            deal_tap(deal_id=deal.pk, player_id=ids[winner], actor=actor)
            for cards, name in enumerate(n for n in ids if n != winner):
                hand = scoring.Hand(player=ids[name], cards=3 + 4 * cards)
                deal_event_record(deal_id=deal.pk, event=hand, actor=actor)
        deal_end(deal_id=session.deals.get(status=Deal.Status.OPEN).pk, actor=actor)
