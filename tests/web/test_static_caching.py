"""Static files under the production storage: hashed names cached for a year, immutable."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.http import HttpResponse
from django.test import RequestFactory, override_settings
from whitenoise.middleware import WhiteNoiseMiddleware

ROOT = Path(__file__).resolve().parent.parent.parent
# config.settings.production's storage (that module needs production secrets to import).
PRODUCTION_STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}


# Closing a response sends request_finished, which checks the database connection.
@pytest.mark.django_db
def test_hashed_static_files_are_immutable_and_precompressed(tmp_path: Path) -> None:
    # Our page's own script and stylesheet only: compressing every app's files (and the
    # 4.8 MB plotly bundle) with brotli takes minutes; the headers come from the same code.
    source = tmp_path / "source"
    for name in ("js/calculator.js", "css/app.css"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "static" / name, source / name)
    root = tmp_path / "static"
    with override_settings(
        STORAGES=PRODUCTION_STORAGES,
        STATIC_ROOT=str(root),
        STATICFILES_DIRS=[source],
        STATICFILES_FINDERS=["django.contrib.staticfiles.finders.FileSystemFinder"],
        DEBUG=False,
        WHITENOISE_AUTOREFRESH=False,
        WHITENOISE_USE_FINDERS=False,
    ):
        call_command("collectstatic", interactive=False, verbosity=0)
        from django.conf import settings
        from django.core.files.storage import storages

        # The storage of these settings, reading the manifest collectstatic just wrote.
        staticfiles_storage = storages.create_storage(settings.STORAGES["staticfiles"])
        middleware = WhiteNoiseMiddleware(lambda request: HttpResponse(status=404))
        factory = RequestFactory()
        for name in ("js/calculator.js", "css/app.css"):
            url = staticfiles_storage.url(name)
            assert re.search(r"\.[0-9a-f]{12}\.", url), url
            response = middleware(factory.get(url, HTTP_ACCEPT_ENCODING="gzip, br"))
            assert response.status_code == 200, url
            cache_control = response["Cache-Control"]
            assert "immutable" in cache_control and "public" in cache_control, cache_control
            max_age_match = re.search(r"max-age=(\d+)", cache_control)
            assert max_age_match is not None, cache_control
            max_age = int(max_age_match.group(1))
            assert max_age >= 365 * 24 * 3600
            assert response.get("Content-Encoding") in {"gzip", "br"}, url
            assert "Accept-Encoding" in response["Vary"]
            response.close()
        # An unhashed name is served briefly cached only, so a deploy is seen at once.
        plain = middleware(factory.get("/static/js/calculator.js"))
        assert "immutable" not in plain.get("Cache-Control", "")
        plain.close()
