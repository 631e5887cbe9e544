"""A session's `access_version`, and what the notification says.

`access_version` moves on (with `version`) only when who may reach the session may have
narrowed (a link revoked, a member removed, an admin edit), so a live page reads its link
or membership again only then (`tracker.views.live`). Nothing to fill in: a stream reads
it at its first look.

On PostgreSQL the notification now says the three counters,
`'<session id>:<version>:<standings_version>:<access_version>'`, so a stream knows from
the notification alone whether it has anything to read. A change may move `version` in
one statement and the others in a later one (a tap that files moves its standings after
its lock), so the trigger is deferred to the commit and reads the row as it is then: the
notification says the change as committed, and the same words said twice in one
transaction are delivered once (PostgreSQL folds identical notifications). A session is
never deleted (its deals protect it); were one deleted before the commit, nothing is said.
"""

from django.db import migrations, models

CREATE = """
DROP TRIGGER IF EXISTS tracker_session_changed ON tracker_session;
CREATE OR REPLACE FUNCTION tracker_session_changed() RETURNS trigger AS $$
DECLARE
    now_row record;
BEGIN
    SELECT version, standings_version, access_version INTO now_row
        FROM tracker_session WHERE id = NEW.id;
    IF FOUND THEN
        PERFORM pg_notify(
            'squarescores_session',
            NEW.id::text || ':' || now_row.version::text || ':'
                || now_row.standings_version::text || ':' || now_row.access_version::text
        );
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER tracker_session_changed
    AFTER UPDATE OF version ON tracker_session
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION tracker_session_changed();
"""

# Back to migration 0012's trigger.
DROP = """
DROP TRIGGER IF EXISTS tracker_session_changed ON tracker_session;
CREATE OR REPLACE FUNCTION tracker_session_changed() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('squarescores_session', NEW.id::text || ':' || NEW.version::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tracker_session_changed
    AFTER UPDATE OF version ON tracker_session
    FOR EACH ROW WHEN (NEW.version IS DISTINCT FROM OLD.version)
    EXECUTE FUNCTION tracker_session_changed();
"""


def create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(CREATE)


def drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP)


class Migration(migrations.Migration):
    dependencies = [
        ("tracker", "0017_session_standings_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="access_version",
            field=models.PositiveBigIntegerField(default=0),
        ),
        migrations.RunPython(create, drop),
    ]
