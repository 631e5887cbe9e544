"""A circle as one JSON document, and back: the backup path (docs/backup.md).

`export_circle(circle)` gives everything the circle holds: players, members, payment
details, sessions, seats, share links, deals with their players, taps (undone ones too),
events, corrections, ledger lines, and payments; `export_session(session)` one session of
it, as its pages download it. `import_circle(data)` stores such a document in another
instance (or this one, once the circle is gone) in one transaction.

The document names things instead of numbering them, so it reads on its own and survives
a move between databases: players by name (unique in a circle), accounts by username,
deals by number, share links and corrections by their place in their session or deal
(`ref`). Player ids inside stored snapshots (trading reminders, a correction's before and
after) are swapped for names on the way out and back on the way in. Exporting an imported
circle gives the same document.

Share link tokens are secrets and stay out unless asked for (`with_tokens`). A link
imported without its token gets a fresh one and is stored revoked: the history that
points at it stays, and nobody gains a working link they were not given.
"""

from tracker.backup.common import FORMAT, VERSION, BackupError, check_format, summary
from tracker.backup.export import export_circle, export_session
from tracker.backup.restore import import_circle, missing_usernames

__all__ = [
    "FORMAT",
    "VERSION",
    "BackupError",
    "check_format",
    "export_circle",
    "export_session",
    "import_circle",
    "missing_usernames",
    "summary",
]
