"""Security headers on every page, HEAD on GET pages, TLS mail in production."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent
TEST_ONLY_VARIABLES = {"DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE", "EMAIL_BACKEND"}
PAGES = ["/", "/calculator/", "/catalog/", "/accounts/login/", "/quotes/analysis-pdf/form/"]


@pytest.mark.parametrize("url", PAGES)
def test_pages_send_csp_and_permissions_policy(
    client: Client, seed_catalog: object, url: str
) -> None:
    response = client.get(url)
    assert response.status_code == 200
    csp = response["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in csp.split(";"))
    assert directives["script-src"].startswith("'self'")
    assert "'unsafe-inline'" not in directives["script-src"]
    assert directives["object-src"] == "'none'" and directives["frame-ancestors"] == "'none'"
    assert "camera=()" in response["Permissions-Policy"]
    assert response["X-Content-Type-Options"] == "nosniff"
    html = response.content.decode()
    # No inline scripts without the nonce, no inline event handlers, no javascript: URLs.
    nonce = re.search(r"'nonce-([^']+)'", directives["script-src"])
    for tag in re.findall(r"<script\b[^>]*>", html):
        external = "src=" in tag
        data = 'type="application/json"' in tag
        assert external or data or (nonce and f'nonce="{nonce.group(1)}"' in tag), tag
    assert not re.search(r"\son[a-z]+\s*=", html), re.search(r"\son[a-z]+\s*=.{40}", html)
    assert "javascript:" not in html


def test_cached_calculator_pages_keep_their_headers(client: Client, seed_catalog: object) -> None:
    first = client.get("/calculator/?preset=finetune-8b")
    second = client.get("/calculator/?preset=finetune-8b")
    assert second["X-Page-Cache"] == "hit"
    assert first["Content-Security-Policy"] == second["Content-Security-Policy"]
    assert "Permissions-Policy" in second


@pytest.mark.parametrize("url", [*PAGES, "/healthz", "/ping", "/catalog/prices/fx/EUR-USD/"])
def test_head_is_allowed_wherever_get_is(client: Client, seed_catalog: object, url: str) -> None:
    get = client.get(url)
    head = client.head(url)
    assert head.status_code == get.status_code, url
    assert head.status_code != 405


def _production(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in TEST_ONLY_VARIABLES}
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={
            **clean,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "a-real-secret-" + "x7Q!p" * 12,
            "ALLOWED_HOSTS": "tco.example.com",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_mail_uses_tls_by_default() -> None:
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "o = s.MAILERS['default']['OPTIONS']; print(o['use_tls'], o['use_ssl'])"
    )
    assert _production(code).stdout.split() == ["True", "False"]
    assert _production(code, EMAIL_USE_SSL="true").stdout.split() == ["False", "True"]
    assert _production(code, EMAIL_USE_TLS="false").stdout.split() == ["False", "False"]
