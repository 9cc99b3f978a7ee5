"""Admin behaviour that more than one app's records share."""

from django.contrib import admin
from django.db import models
from django.http import HttpRequest


class WrittenOnceAdmin[M: models.Model](admin.ModelAdmin[M]):
    """A record the application writes once and never edits (a price change, a buyer's
    acceptance): the admin lists and shows it but can neither add one nor change one, so
    that what it records stays what happened."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: M | None = None) -> bool:
        return False
