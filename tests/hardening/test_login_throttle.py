"""Sign-in and password-reset throttling (issue 32, finding 6).

Before: 100 wrong passwords were all answered (0.38 s of CPU each) and then the right one
worked; ten reset emails went to one user in ten requests.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_login_failed
from django.core import mail
from django.http import HttpResponse
from django.test import Client
from pytest_django.fixtures import Settings

pytestmark = pytest.mark.django_db


@pytest.fixture
def anna(db: None) -> User:
    return User.objects.create_user("anna", "anna@distributor.example", "right-password")


@pytest.fixture
def fast_locks(settings: Settings) -> Any:
    settings.LOGIN_FAILURES_PER_ACCOUNT = 3
    settings.LOGIN_FAILURES_PER_NETWORK = 6
    settings.LOGIN_LOCK_SECONDS = 1
    settings.TRUSTED_PROXY_COUNT = 1
    return settings


def sign_in(
    client: Client, password: str, *, username: str = "anna", ip: str = "198.51.100.1"
) -> HttpResponse:
    response = client.post(
        "/accounts/login/",
        {"username": username, "password": password},
        REMOTE_ADDR="10.0.0.2",  # the proxy
        HTTP_X_FORWARDED_FOR=ip,
    )
    assert isinstance(response, HttpResponse)
    return response


def test_wrong_passwords_lock_the_account_with_a_growing_delay(anna: User, fast_locks: Any) -> None:
    client = Client()
    checked: list[str] = []

    def count(**kwargs: Any) -> None:
        checked.append(kwargs["credentials"]["username"])

    user_login_failed.connect(count)
    try:
        assert [sign_in(client, "wrong").status_code for _ in range(3)] == [200, 200, 200]
        refused = sign_in(client, "right-password")  # even the right one, while locked
        assert refused.status_code == 429
        assert refused["Retry-After"] == "1"
        assert "Too many failed sign-ins for this account" in refused.content.decode()
        # Nor from another network: the lock is the account's.
        assert sign_in(client, "wrong", ip="198.51.100.99").status_code == 429
        assert len(checked) == 3  # refused sign-ins hash no password
        time.sleep(1.1)
        assert sign_in(client, "wrong").status_code == 200  # the fourth failure
        longer = sign_in(client, "right-password")
        assert longer.status_code == 429 and longer["Retry-After"] == "2"
        time.sleep(2.1)
        assert sign_in(client, "right-password").status_code == 302  # signed in
    finally:
        user_login_failed.disconnect(count)
    # Success clears the account's failures: one wrong password is one again.
    other = Client()
    assert sign_in(other, "wrong").status_code == 200
    assert sign_in(other, "right-password").status_code == 302


def test_one_client_guessing_many_accounts_is_locked_by_its_network(
    anna: User, fast_locks: Any
) -> None:
    client = Client()
    codes = [sign_in(client, "x", username=f"user{i}").status_code for i in range(6)]
    assert codes == [200] * 6
    refused = sign_in(client, "right-password")
    assert refused.status_code == 429
    assert "from your network" in refused.content.decode()
    # The rest of its /24 is locked too; a client of another network signs in.
    assert sign_in(Client(), "right-password", ip="198.51.100.2").status_code == 429
    assert sign_in(Client(), "right-password", ip="203.0.113.2").status_code == 302


def test_password_reset_emails_are_limited_per_address_and_per_network(
    anna: User, settings: Settings
) -> None:
    settings.PASSWORD_RESETS_PER_HOUR = 3
    settings.PASSWORD_RESETS_PER_HOUR_PER_NETWORK = 5
    client = Client()

    def reset(email: str, ip: str) -> int:
        return client.post(
            "/accounts/password_reset/", {"email": email}, REMOTE_ADDR=ip
        ).status_code

    codes = [reset("anna@distributor.example", "192.0.2.1") for _ in range(10)]
    assert codes == [302] * 3 + [429] * 7
    assert len(mail.outbox) == 3
    # One network asking for many addresses, from any of its addresses, is held to its
    # own share.
    codes = [reset(f"nobody{i}@example.com", f"198.51.100.{i}") for i in range(7)]
    assert codes == [302] * 5 + [429] * 2
    refused = client.post(
        "/accounts/password_reset/", {"email": "x@example.com"}, REMOTE_ADDR="198.51.100.9"
    )
    assert "Too many password-reset requests" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
