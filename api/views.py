"""The personal API token page: create (the token is shown once), list, revoke."""

from __future__ import annotations

import uuid

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts import doors

from . import services
from .models import Scope


class TokenForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100)
    scope = forms.ChoiceField(
        label=gettext_lazy("Scope"), choices=Scope.choices, initial=Scope.READ
    )


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def tokens(request: HttpRequest) -> HttpResponse:
    form = TokenForm(request.POST or None)
    created = None
    # A sign-in door (accounts/doors.py): no new credential while the account or the
    # network is locked, whoever holds the session.
    posted = request.method == "POST"
    refused = doors.refusal(request, username=request.user.get_username()) if posted else None
    if refused is not None:
        form.add_error(None, refused.message)
        refusal_page = {"form": form, "tokens": services.token_list(user=request.user)}
        response = render(request, "api/tokens.html", refusal_page, status=429)
        response["Retry-After"] = str(refused.seconds)
        return response
    if request.method == "POST" and form.is_valid():
        token, raw = services.token_create(
            user=request.user, name=form.cleaned_data["name"], scope=form.cleaned_data["scope"]
        )
        created = {"token": token, "raw": raw}
        form = TokenForm()
    context = {
        "form": form,
        "created": created,
        "tokens": services.token_list(user=request.user),
    }
    return render(request, "api/tokens.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest, public_id: uuid.UUID) -> HttpResponse:
    from django.contrib import messages

    if services.token_revoke(user=request.user, public_id=public_id):
        messages.success(request, _("Token revoked."))
    return redirect("api_tokens")
