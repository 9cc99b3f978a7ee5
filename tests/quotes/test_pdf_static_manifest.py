"""Production parity of the PDF: hashed static names (ManifestStaticFilesStorage).

With `collectstatic` and a manifest storage, `{% static 'css/proposal.css' %}` becomes
`css/proposal.<hash>.css`; the fetcher used to refuse that name, and production proposals
rendered without their stylesheet (fewer pages, no cover layout) while the tests, on plain
static files, passed.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings

from quotes import pdf
from quotes.models import Quote

from .conftest import pdf_text, send

pytestmark = pytest.mark.django_db

MANIFEST = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"},
}


def test_proposal_is_styled_with_hashed_static_names(
    draft_quote: Quote, sales_user: User, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    revision = draft_quote.revisions.get()
    send(revision, sales_user)
    revision.refresh_from_db()
    assert revision.snapshot is not None
    plain = pdf.render_revision(revision.snapshot, language="en", with_charts=False)
    plain_text, plain_pages = pdf_text(plain.pdf)

    with override_settings(STORAGES=MANIFEST, STATIC_ROOT=str(tmp_path / "static")):
        call_command("collectstatic", interactive=False, verbosity=0)
        from django.contrib.staticfiles.storage import staticfiles_storage

        hashed = staticfiles_storage.url("css/proposal.css")
        assert re.search(r"css/proposal\.[0-9a-f]{12}\.css$", hashed), hashed
        with caplog.at_level(logging.WARNING, logger="quotes.pdf"):
            document = pdf.render_revision(revision.snapshot, language="en", with_charts=False)
        # The seller's logo is served under its hashed name too.
        logo = pdf.logo_url({"logo": "img/seller-logo.svg"})
        assert re.search(r"img/seller-logo\.[0-9a-f]{12}\.svg$", logo), logo
        name = hashed.removeprefix("/static/")
        served = pdf.static_file_path(name)
        collected = Path(staticfiles_storage.path(name))
    assert "refused" not in caplog.text, caplog.text
    text, pages = pdf_text(document.pdf)
    assert pages == plain_pages >= 5
    # Styled: the letterhead and the legal footer are running elements placed on every
    # page by proposal.css only (unstyled, they would print once, in the flow).
    from quotes.models import CompanyProfile

    seller = CompanyProfile.current()
    assert seller is not None
    assert (
        text.count(f"KvK {seller.kvk_number}")
        == plain_text.count(f"KvK {seller.kvk_number}")
        == pages
    )
    # The collected, hashed file is what was served.
    assert served == collected
