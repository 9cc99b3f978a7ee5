"""PostgreSQL away: every page answers 503 with Retry-After, never 500, and the site serves
again as soon as the database is back (issue 44, item 4).

The test's connection goes to the suite's PostgreSQL through a TCP relay of its own on
loopback. Stopping the relay is the database going away for this process: the open
connection is cut mid-use and new ones are refused, as when the server stops, while the
suite's server itself (and every other test) is not disturbed.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.db import connections
from django.test import Client
from pytest_django.fixtures import Settings

from tests.real_services import free_port

pytestmark = pytest.mark.django_db(transaction=True)

# Pages that read the database: the layout's company profile, the catalog, a buyer link,
# the API; anonymous and signed in (the session and the user are read from it).
PAGES = ["/", "/catalog/", "/quotes/p/not-a-token/", "/api/v1/catalog/gpus"]


class Relay:
    """Forwards 127.0.0.1:<port> to the database's address until stopped."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self.sockets: list[socket.socket] = []
        self.listener: socket.socket | None = None

    def start(self) -> None:
        listener = socket.create_server(("127.0.0.1", self.port))
        listener.settimeout(0.05)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        """Refuse new connections and cut the open ones."""
        if self.listener is not None:
            self.listener.close()
            self.listener = None
        for sock in self.sockets:
            with contextlib.suppress(OSError):  # already closed by its peer
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        self.sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while self.listener is listener:
            try:
                client, _address = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return  # the listener was closed: stopped
            upstream = socket.create_connection(self.target)
            self.sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass  # cut by stop()
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def relay() -> Iterator[Relay]:
    database = connections["default"].settings_dict
    saved = (database["HOST"], database["PORT"])
    relay = Relay((str(saved[0]), int(saved[1])))
    relay.start()
    connections["default"].close()
    database["HOST"], database["PORT"] = "127.0.0.1", relay.port
    try:
        yield relay
    finally:
        relay.stop()
        connections["default"].close()
        database["HOST"], database["PORT"] = saved


def test_while_the_database_is_down_pages_answer_503_and_recover_within_a_second(
    relay: Relay, django_user_model: type[User], settings: Settings
) -> None:
    settings.API_RATE_LIMIT_WINDOW = 0  # the burst below would otherwise meet the API's 429
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(django_user_model.objects.create_user("sam", is_staff=True))
    anonymous = Client(raise_request_exception=False, headers={"accept-language": "nl"})
    for client in (anonymous, signed_in):
        assert all(client.get(page).status_code < 500 for page in PAGES)

    relay.stop()  # the database goes away, its open connection with it
    statuses: list[int] = []
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:  # a bounded burst of requests during the outage
        for client in (anonymous, signed_in):
            for page in PAGES:
                response = client.get(page)
                statuses.append(response.status_code)
                assert response.status_code == 503, (page, response.status_code)
                assert response["Retry-After"] == "5"
    assert len(statuses) >= 8 and 500 not in statuses

    page = anonymous.get("/").content.decode()  # the 503 page, in the reader's language
    assert 'lang="nl"' in page and "Even niet beschikbaar" in page
    assert "unavailable" not in page
    api = anonymous.get("/api/v1/catalog/gpus")
    assert api["Content-Type"] == "application/problem+json" and api.json()["status"] == 503

    relay.start()  # back: the next request is served, no restart
    back = time.monotonic()
    while anonymous.get("/catalog/").status_code != 200:
        assert time.monotonic() - back < 1, "not served again within a second"
    assert all(signed_in.get(page).status_code < 500 for page in PAGES)
