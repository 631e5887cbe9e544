
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


def carry_drf_tokens(apps, schema_editor):
    """Keep the tokens clients already hold working: each of DRF's authtoken rows (the
    table stays behind once the app is gone) becomes an ApiToken with its key's digest."""
    import hashlib

    from django.utils import timezone

    connection = schema_editor.connection
    if "authtoken_token" not in connection.introspection.table_names():
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT key, user_id FROM authtoken_token")
        rows = cursor.fetchall()
    ApiToken = apps.get_model("tracker", "ApiToken")
    now = timezone.now()
    ApiToken.objects.bulk_create(
        ApiToken(
            user_id=user_id,
            digest=hashlib.sha256(key.encode()).hexdigest(),
            prefix=key[:8],
            name="",
            created_at=now,  # when it was carried over: the old dates mean little
            last_used_at=now,
        )
        for key, user_id in rows
    )


class Migration(migrations.Migration):

    dependencies = [
        ('tracker', '0012_session_changes_notify'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ApiToken',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('digest', models.CharField(max_length=64, unique=True)),
                ('prefix', models.CharField(max_length=8)),
                ('name', models.CharField(blank=True, max_length=80)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('last_used_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='api_tokens', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-last_used_at', '-id'],
            },
        ),
        migrations.RunPython(carry_drf_tokens, migrations.RunPython.noop),
    ]
