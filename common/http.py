"""The types of requests that pass django-htmx's middleware (every request: config/settings),
and of those that only a signed-in user makes (staff_member_required, login_required, quotes'
sales_required). For type checking: views annotate `request` with them, Django passes its
HttpRequest."""

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


class AuthenticatedHttpRequest(HtmxHttpRequest):
    user: User
