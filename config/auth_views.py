"""Sign-in and password reset, throttled per account and per client address
(common/throttle.py): Django's own views, answering 429 with Retry-After when refused."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from common import throttle
from common.client_ip import client_ip


class LoginView(auth_views.LoginView):
    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        lock = throttle.login_lock(username=request.POST.get("username", ""), ip=client_ip(request))
        if lock is not None:  # refused before the password is hashed
            if lock.account:
                message = _("Too many failed sign-ins for this account; try again in %(wait)s.")
            else:
                message = _("Too many failed sign-ins from your network; try again in %(wait)s.")
            # An unbound form: a bound one would check the password when rendered.
            context = self.get_context_data(
                form=self.get_form_class()(request),
                throttled=message % {"wait": throttle.wait_text(lock.seconds)},
            )
            response = self.render_to_response(context, status=429)
            response["Retry-After"] = str(lock.seconds)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: Any) -> HttpResponse:
        throttle.login_failed(
            username=self.request.POST.get("username", ""), ip=client_ip(self.request)
        )
        return super().form_invalid(form)

    def form_valid(self, form: Any) -> HttpResponse:
        throttle.login_succeeded(username=form.get_user().get_username())
        return super().form_valid(form)


class PasswordResetView(auth_views.PasswordResetView):
    def form_valid(self, form: Any) -> HttpResponse:
        wait = throttle.password_reset_wait(
            email=form.cleaned_data["email"], ip=client_ip(self.request)
        )
        if wait is not None:
            form.add_error(
                "email",  # the admin's reset template shows the field's errors only
                _("Too many password-reset requests; try again in %(wait)s.")
                % {"wait": throttle.wait_text(wait)},
            )
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(wait)
            return response
        return super().form_valid(form)
