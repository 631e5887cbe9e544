"""`manage.py export_circle <circle_id> [--output FILE] [--with-tokens]`: a circle as JSON."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tracker.backup import export_circle, summary
from tracker.models import Circle


class Command(BaseCommand):
    help = (
        "Write a circle with all its sessions, deals and money as one JSON document "
        "(see docs/backup.md). Share link tokens are left out unless --with-tokens."
    )

    def add_arguments(self, parser):
        parser.add_argument("circle_id", type=int)
        parser.add_argument(
            "--output", "-o", type=Path, help="file to write (default: standard output)"
        )
        parser.add_argument(
            "--with-tokens",
            action="store_true",
            help="include share link tokens, so restored links keep working; the file "
            "then holds secrets",
        )

    def handle(self, *args, circle_id, output, with_tokens, **options):
        circle = Circle.objects.filter(pk=circle_id).first()
        if circle is None:
            raise CommandError(f"There is no circle {circle_id}.")
        data = export_circle(circle, with_tokens=with_tokens)
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        # Write beside the target and rename, so a failed export never leaves half a file
        # where the last good backup was.
        partial = output.with_name(output.name + ".partial")
        partial.write_text(text, encoding="utf-8")
        partial.replace(output)
        self.stderr.write(f"Exported {summary(data)} to {output}.")
