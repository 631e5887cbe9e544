"""`manage.py purge_idempotency_keys [--hours N]`: delete old Idempotency-Key rows.

Run it daily from cron or a systemd timer (docs/deploy.md); nothing else removes keys.
"""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError

from tracker.gate import KEEP_FOR, idempotency_keys_purge

KEEP_HOURS = int(KEEP_FOR.total_seconds() // 3600)


class Command(BaseCommand):
    help = (
        f"Delete Idempotency-Key records older than --hours (default and least: {KEEP_HOURS}), "
        "and print how many went."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--hours",
            type=int,
            default=KEEP_HOURS,
            help=f"age in hours of the oldest key to keep (at least {KEEP_HOURS}: a client "
            "may retry a request that long after sending it)",
        )

    def handle(self, *args, hours, **options):
        if hours < KEEP_HOURS:
            raise CommandError(
                f"Keys are kept at least {KEEP_HOURS} hours, so that a retry within that "
                f"time is still answered once; --hours {hours} is too short."
            )
        removed = idempotency_keys_purge(older_than=timedelta(hours=hours))
        noun = "key" if removed == 1 else "keys"
        self.stdout.write(f"Removed {removed} idempotency {noun} older than {hours} hours.")
