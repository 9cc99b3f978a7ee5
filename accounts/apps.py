from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every door that checks a password goes through django.contrib.auth's
        # authenticate(), whose signals count the failures (accounts/doors.py).
        from . import doors

        doors.connect()
