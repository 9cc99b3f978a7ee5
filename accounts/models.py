"""One-time links that lift an account's sign-in lock (accounts/services.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class AccountUnlock(models.Model):
    """A link emailed to an account's owner when its sign-ins were locked; following it
    once clears the lock. Only the token's digest is kept."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="unlocks"
    )
    token_sha256 = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("account unlock link")

    def __str__(self) -> str:
        return f"unlock {self.user_id} ({'used' if self.used_at else 'open'})"
