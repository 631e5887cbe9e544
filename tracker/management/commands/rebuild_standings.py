"""`manage.py rebuild_standings [--session ID ...]`: recompute sessions' running totals.

Standings read running totals (`StandingTally`) kept as deals file, are undone and are
corrected. They are derived from the deals, so they can always be rebuilt: after loading
data by hand, to repair, or when upgrading a database from before migration 0004.
"""

from django.core.management.base import BaseCommand, CommandError

from tracker.models import Session
from tracker.services import session_tallies_rebuild


class Command(BaseCommand):
    help = "Recompute the standings' running totals of every session (or those named)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--session",
            type=int,
            action="append",
            dest="sessions",
            metavar="ID",
            help="only this session (repeat for more)",
        )

    def handle(self, *args, sessions, **options):
        chosen = Session.objects.order_by("pk")
        if sessions:
            chosen = chosen.filter(pk__in=sessions)
            missing = sorted(set(sessions) - set(chosen.values_list("pk", flat=True)))
            if missing:
                raise CommandError(f"There is no session {', '.join(map(str, missing))}.")
        count = 0
        for session in chosen.iterator():
            session_tallies_rebuild(session=session)
            count += 1
        noun = "session" if count == 1 else "sessions"
        self.stdout.write(f"Rebuilt the standings of {count} {noun}.")
