from django.apps import AppConfig


class TrackerConfig(AppConfig):
    name = "tracker"
    default_auto_field = "django.db.models.BigAutoField"
    verbose_name = "SquareScores"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.backends.signals import connection_created
        from django.db.models.signals import post_save, pre_delete, pre_save

        from tracker import prepared
        from tracker.services import accounts, members

        connection_created.connect(prepared.install, dispatch_uid="replan-stale-statements")

        user_model = get_user_model()
        pre_save.connect(accounts.note_password_change, sender=user_model, dispatch_uid="pw-note")
        # Before the token revocation below, which clears the password's mark.
        post_save.connect(members.account_shut_out, sender=user_model, dispatch_uid="shut-out")
        post_save.connect(
            accounts.revoke_on_password_change, sender=user_model, dispatch_uid="pw-revoke"
        )
        pre_delete.connect(members.account_going, sender=user_model, dispatch_uid="leaving")
