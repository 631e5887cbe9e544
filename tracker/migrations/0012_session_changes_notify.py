"""On PostgreSQL, a session whose version moves on tells the listening servers, when the
change commits: NOTIFY squarescores_session, '<session id>:<version>' (`tracker.live`).

A trigger rather than a statement in each service, so that nothing which moves a
version on (a service, a repair, an import) can forget to tell. Nothing on SQLite, where
the servers read the versions instead."""

from django.db import migrations

CREATE = """
CREATE OR REPLACE FUNCTION tracker_session_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('squarescores_session', NEW.id::text || ':' || NEW.version::text);
    RETURN NULL;
END
$$ LANGUAGE plpgsql;

CREATE TRIGGER tracker_session_changed
    AFTER UPDATE OF version ON tracker_session
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION tracker_session_changed();
"""

DROP = """
DROP TRIGGER IF EXISTS tracker_session_changed ON tracker_session;
DROP FUNCTION IF EXISTS tracker_session_changed();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):

    dependencies = [
        ("tracker", "0011_five_consecutive_pairs_instant_win"),
    ]

    operations = [migrations.RunPython(create, drop)]
