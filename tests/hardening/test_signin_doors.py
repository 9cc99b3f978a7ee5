"""Every sign-in door shares one throttle per account and per network (issue 44, item 2).

Before: /admin/login/ took 25 wrong passwords for the staff account (all 200), then the
right one (302), and its failures did not count towards the account's lock; a locked
account's owner was never told; while Redis was away every limit and the lock were open.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_login_failed
from django.core import mail
from django.test import Client
from pytest_django.fixtures import Settings

from accounts import services
from accounts.models import AccountUnlock
from common import throttle
from quotes import services as quote_services
from quotes.models import EmailKind, OutboxEmail
from tests.real_services import free_port

pytestmark = pytest.mark.django_db
PROXY = "10.0.0.2"  # every request reaches the app through this proxy


@pytest.fixture
def boss(db: None, settings: Settings) -> User:
    settings.TRUSTED_PROXY_COUNT = 1
    settings.SITE_URL = "https://gputco.example"
    return User.objects.create_superuser("boss", "boss@distributor.example", "right-password")


def admin_sign_in(client: Client, password: str, *, ip: str = "198.51.100.1") -> Any:
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "boss", "password": password, "next": "/admin/"},
        HTTP_X_FORWARDED_FOR=ip,
        REMOTE_ADDR=PROXY,
    )


def site_sign_in(client: Client, password: str, *, ip: str = "198.51.100.1") -> Any:
    return client.post(
        "/accounts/login/",
        {"username": "boss", "password": password},
        HTTP_X_FORWARDED_FOR=ip,
        REMOTE_ADDR=PROXY,
    )


@pytest.fixture
def hashed() -> Iterator[list[str]]:
    """The usernames whose password was checked (and found wrong)."""
    checked: list[str] = []

    def count(**kwargs: Any) -> None:
        checked.append(kwargs["credentials"]["username"])

    user_login_failed.connect(count)
    yield checked
    user_login_failed.disconnect(count)


def test_admin_sign_in_is_throttled_and_counts_towards_the_account_lock(
    boss: User, hashed: list[str]
) -> None:
    """Defaults: the 5th wrong password locks the account for 30 s (LOGIN_FAILURES_PER_ACCOUNT,
    LOGIN_LOCK_SECONDS); the 20 tries after it are refused unchecked."""
    client = Client()
    codes = [admin_sign_in(client, f"wrong{i}").status_code for i in range(25)]
    assert codes == [200] * 5 + [429] * 20
    assert len(hashed) == 5  # the refused ones hashed no password
    refused = admin_sign_in(client, "right-password")  # the right one too, while locked
    assert refused.status_code == 429 and 0 < int(refused["Retry-After"]) <= 30
    assert "Too many failed sign-ins for this account" in refused.content.decode()
    # One lock for every door: the site's sign-in refuses the account too, from anywhere.
    elsewhere = site_sign_in(Client(), "right-password", ip="203.0.113.5")
    assert elsewhere.status_code == 429
    assert "for this account" in elsewhere.content.decode()


def test_site_failures_lock_the_admin_door_and_a_success_clears_them(
    boss: User, settings: Settings
) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    client = Client()
    assert [site_sign_in(client, "wrong").status_code for _ in range(2)] == [200, 200]
    assert admin_sign_in(client, "right-password").status_code == 302  # clears the two
    client = Client()
    assert [site_sign_in(client, "wrong").status_code for _ in range(2)] == [200, 200]
    assert admin_sign_in(client, "wrong").status_code == 200  # the third: locked
    assert admin_sign_in(client, "right-password").status_code == 429


def unlock_link(email: OutboxEmail) -> str:
    match = re.search(r"https://gputco\.example(/accounts/unlock/[^/\s]+/)", email.body)
    assert match, email.body
    return match.group(1)


def test_the_owner_of_a_locked_account_gets_one_email_with_a_one_time_unlock_link(
    boss: User, settings: Settings
) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.LOGIN_LOCK_SECONDS = 30
    client = Client()
    for _ in range(3):
        site_sign_in(client, "wrong")
    email = OutboxEmail.objects.get()
    assert (email.kind, email.to_email) == (EmailKind.UNLOCK, "boss@distributor.example")
    assert email.subject == "Sign-ins to your account were paused"
    # Further failures after the lock do not email again; nor does a second offer (a
    # second web process reaching the threshold on its own counters while Redis is
    # away): the link sent is still open.
    assert throttle.login_failed(username="boss", ip="192.0.2.1") is False
    assert services.unlock_offer(username="BOSS") is None
    assert OutboxEmail.objects.count() == 1
    # Delivered by the outbox's worker task, once however often the task runs.
    assert quote_services.outbox_deliver(outbox_id=email.pk) == "sent"
    assert quote_services.outbox_deliver(outbox_id=email.pk) == "sent"
    assert [m.to for m in mail.outbox] == [["boss@distributor.example"]]
    assert unlock_link(email) in mail.outbox[0].body
    assert site_sign_in(client, "right-password").status_code == 429
    link = unlock_link(email)
    # Opening the link (a mail scanner does) changes nothing; the click unlocks.
    page = client.get(link)
    assert page.status_code == 200 and "Unlock my account" in page.content.decode()
    dutch = Client().get(link, HTTP_ACCEPT_LANGUAGE="nl")
    assert "Mijn account ontgrendelen" in dutch.content.decode()
    assert site_sign_in(client, "right-password").status_code == 429
    unlocked = client.post(link)
    assert unlocked.status_code == 302 and unlocked["Location"] == "/accounts/login/"
    assert site_sign_in(Client(), "right-password").status_code == 302
    # Once only.
    assert client.post(link).status_code == 404
    assert client.get(link).status_code == 404
    assert AccountUnlock.objects.get().used_at is not None


def test_no_email_for_an_account_that_does_not_exist(boss: User, settings: Settings) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    client = Client()
    for _ in range(3):
        client.post("/accounts/login/", {"username": "ghost", "password": "x"}, REMOTE_ADDR=PROXY)
    assert not OutboxEmail.objects.exists()


def test_token_creation_and_password_reset_are_doors_too(boss: User, settings: Settings) -> None:
    """A stolen session mints no token while the account is locked; a locked network
    asks for no reset emails."""
    settings.LOGIN_FAILURES_PER_ACCOUNT = 2
    settings.LOGIN_FAILURES_PER_NETWORK = 4
    signed_in = Client()
    signed_in.force_login(boss)
    for _ in range(2):
        site_sign_in(Client(), "wrong", ip="203.0.113.9")
    minted = signed_in.post("/api/tokens/", {"name": "t", "scope": "read"}, REMOTE_ADDR=PROXY)
    assert minted.status_code == 429 and int(minted["Retry-After"]) > 0
    assert "Too many failed sign-ins for this account" in minted.content.decode()
    assert not boss.api_tokens.exists()
    # Four failures from one /24, for any accounts: the whole network waits.
    for i in range(4):
        Client().post(
            "/accounts/login/",
            {"username": f"user{i}", "password": "x"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
            REMOTE_ADDR=PROXY,
        )
    reset = Client().post(
        "/accounts/password_reset/",
        {"email": "boss@distributor.example"},
        HTTP_X_FORWARDED_FOR="198.51.100.200",
        REMOTE_ADDR=PROXY,
    )
    assert reset.status_code == 429
    assert "Too many failed sign-ins from your network" in reset.content.decode()


@pytest.fixture
def redis_unreachable(settings: Settings) -> Iterator[None]:
    """The default cache points at a Redis that is not there (connections refused): the
    same backend and settings as production, with Redis down."""
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        },
    }
    yield
    throttle.LOCAL_COUNTERS.clear()


def test_limits_hold_while_redis_is_down(
    boss: User, settings: Settings, redis_unreachable: None
) -> None:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.CACHE_RETRY_SECONDS = 0  # every call tries Redis again, and fails
    client = Client()
    codes = [admin_sign_in(client, "wrong").status_code for _ in range(3)]
    assert codes == [200, 200, 200]
    assert admin_sign_in(client, "right-password").status_code == 429
    assert site_sign_in(client, "right-password").status_code == 429
    # A plain rate limit too: 2 an hour, the third refused.
    assert [throttle.hit("test:k", 2, 3600) is None for _ in range(3)] == [True, True, False]
    # The owner is told, as with Redis up (the outbox is in PostgreSQL).
    assert OutboxEmail.objects.filter(kind=EmailKind.UNLOCK).count() == 1
