"""Personal API tokens: only a SHA-256 of the token is stored; the token is shown once."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    READ = "read", _("read")
    READ_WRITE = "read_write", _("read and write")


class ApiToken(models.Model):
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(_("name"), max_length=100)
    # The first characters of the token, so that its owner can tell tokens apart.
    prefix = models.CharField(max_length=12)
    token_sha256 = models.CharField(max_length=64, unique=True, editable=False)
    scope = models.CharField(_("scope"), max_length=12, choices=Scope.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = _("API token")

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def can_write(self) -> bool:
        return self.scope == Scope.READ_WRITE
