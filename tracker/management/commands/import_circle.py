"""`manage.py import_circle <file>`: load a circle written by export_circle."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tracker.backup import BackupError, check_format, import_circle, missing_usernames, summary


class Command(BaseCommand):
    help = (
        "Load a circle exported with export_circle into this instance, in one transaction "
        "(see docs/backup.md). Say who gets it: --owner USERNAME (that account owns it and "
        "is its only member), or --map-members (the export's owner and members are the "
        "accounts of the same usernames here). Accounts named in the history are matched "
        "by username; missing ones are created without a usable password."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export, or - for standard input")
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument(
            "--owner",
            metavar="USERNAME",
            help="an account here that owns the imported circle, its only member",
        )
        who.add_argument(
            "--map-members",
            action="store_true",
            help='make the export\'s owner and members (and their "this is me" players) '
            "the accounts with the same usernames here: only when they are the same people",
        )

    def handle(self, *args, file, owner=None, map_members=False, **options):
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except OSError as error:
            raise CommandError(f"Cannot read {file}: {error.strerror}.") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise CommandError(f"{file} is not JSON: {error}.") from None
        try:
            check_format(data)
            new_accounts = missing_usernames(data)
            circle = import_circle(data, owner=owner, map_members=map_members)
        except BackupError as error:
            raise CommandError(f"Nothing imported: {error.message}") from None
        except (KeyError, TypeError) as error:
            raise CommandError(f"Nothing imported: the export is malformed: {error!r}.") from None
        self.stdout.write(f"Imported {summary(data)} as circle {circle.pk}.")
        if new_accounts:
            self.stdout.write(
                "Created accounts without a usable password (set one with "
                f"`manage.py changepassword`): {', '.join(new_accounts)}."
            )
