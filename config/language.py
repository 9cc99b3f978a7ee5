"""Switch the interface language with a plain GET link or form.

Django's own `set_language` wants a POST with a CSRF token; a GET switch keeps every
public page free of per-visitor tokens, so those pages can be served from a shared cache.
Only the language cookie changes, which is safe to do on GET.
"""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe

LANGUAGE_CODES = {code for code, _name in settings.LANGUAGES}


@never_cache
@require_safe
def switch_language(request: HttpRequest) -> HttpResponse:
    target = request.GET.get("next", "/")
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        target = "/"
    response = HttpResponseRedirect(target)
    language = request.GET.get("language", "")
    if language in LANGUAGE_CODES:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            samesite="Lax",
            secure=request.is_secure(),
        )
    return response
