"""Invariants of the network a limit counts (common/client_ip.py) and of the proof of work
(common/challenge.py), as properties."""

from __future__ import annotations

import ipaddress

from hypothesis import given
from hypothesis import strategies as st

from common.challenge import zero_bits
from common.client_ip import client_network


@given(st.ip_addresses())
def test_an_address_lies_in_its_network_of_24_or_64_bits(address: object) -> None:
    ip = ipaddress.ip_address(str(address))
    network = ipaddress.ip_network(client_network(str(ip)))
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    assert ip in network
    assert network.prefixlen == (24 if ip.version == 4 else 64)


@given(st.ip_addresses(v=4), st.integers(0, 255))
def test_every_address_of_a_24_shares_its_network(address: object, last: int) -> None:
    neighbour = ipaddress.IPv4Address((int(ipaddress.IPv4Address(str(address))) & ~0xFF) | last)
    assert client_network(str(neighbour)) == client_network(str(address))


@given(st.binary(min_size=32, max_size=32), st.integers(0, 256))
def test_zero_bits_is_the_count_below_a_power_of_two(digest: bytes, bits: int) -> None:
    """A digest begins with at least k zero bits exactly when, read as a 256-bit number,
    it is below 2^(256 − k): the test the browser's proof must pass."""
    assert (zero_bits(digest) >= bits) == (int.from_bytes(digest, "big") < 2 ** (256 - bits))
