"""The sign-in doors, throttled per account and per network (accounts/doors.py): Django's
own views, answering 429 with Retry-After when refused; and the owner's unlock link."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import doors, services


class LoginView(auth_views.LoginView):
    """The site's sign-in. Failures and successes are counted by accounts/doors.py."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        refused = doors.refusal(request, username=request.POST.get("username", ""))
        if refused is not None:  # refused before the password is hashed
            # An unbound form: a bound one would check the password when rendered.
            context = self.get_context_data(
                form=self.get_form_class()(request), throttled=refused.message
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(refused.seconds)
            return response
        return super().post(request, *args, **kwargs)


@never_cache
def admin_login(request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
    """Django admin's sign-in behind the same door as the site's (config/urls.py puts it
    in place of admin.site.login)."""
    if request.method == "POST":
        refused = doors.refusal(request, username=request.POST.get("username", ""))
        if refused is not None:
            context = {
                **admin.site.each_context(request),
                "title": _("Log in"),
                "app_path": request.get_full_path(),
                "username": request.user.get_username(),
                "form": AdminAuthenticationForm(request),  # unbound: no password check
                "throttled": refused.message,
                REDIRECT_FIELD_NAME: request.POST.get(REDIRECT_FIELD_NAME)
                or reverse("admin:index"),
            }
            response = TemplateResponse(request, "admin/login.html", context, status=429)
            response["Retry-After"] = str(refused.seconds)
            return response
    return admin.AdminSite.login(admin.site, request, extra_context)


class PasswordResetView(auth_views.PasswordResetView):
    """Refused while the client's network is locked; its emails limited per address and
    per network (common/throttle.py: password_reset_wait)."""

    def form_valid(self, form: Any) -> HttpResponse:
        # A reset names no account to lock (the address may be anybody's): the network's
        # lock, then the reset's own hourly shares.
        refused = doors.refusal(self.request, username="") or doors.reset_refusal(
            self.request, email=form.cleaned_data["email"]
        )
        if refused is not None:
            form.add_error("email", refused.message)  # the admin's template: field errors
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(refused.seconds)
            return response
        return super().form_valid(form)


@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def account_unlock(request: HttpRequest, token: str) -> HttpResponse:
    """The link in the unlock email. Opening it asks for a click (mail scanners open
    links too); the click lifts the lock, once, and leads to the sign-in."""
    if request.method == "POST":
        if services.unlock_redeem(token=token):
            messages.success(request, _("Your account is unlocked: you can sign in again."))
            return redirect("login")
        return render(request, "accounts/unlock.html", {"invalid": True}, status=404)
    if not services.unlock_is_open(token=token):
        return render(request, "accounts/unlock.html", {"invalid": True}, status=404)
    return render(request, "accounts/unlock.html", {"token": token})
