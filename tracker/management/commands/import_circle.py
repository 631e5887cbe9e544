"""`manage.py import_circle <file>`: load a circle written by export_circle."""

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tracker.backup import BackupError, check_format, import_circle, missing_usernames, summary


class Command(BaseCommand):
    help = (
        "Load a circle exported with export_circle into this instance, in one transaction "
        "(see docs/backup.md). Accounts are matched by username; missing ones are created "
        "without a usable password."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", help="the export, or - for standard input")

    def handle(self, *args, file, **options):
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
            circle = import_circle(data)
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
