"""``visit``'s guard against DNS rebinding: the name is resolved once per hop and the request goes
to the address that was checked (the name kept as Host and TLS server name); IPv6 forms carrying a
non-public IPv4 address are refused. httpx's MockTransport stands in for the network; the
resolver is the injectable one ``make_client`` takes."""

from __future__ import annotations

import ipaddress

import httpx
import pytest

from vibesearch.tools.web_fetch import FetchError, fetch_page, is_public, make_client

PUBLIC = "93.184.216.34"


def _rebinding_resolver(calls: list[str]):
    """Public the first time a name is asked, loopback after (what a rebinding DNS server does)."""

    async def resolve(host: str, port: int) -> list[str]:
        calls.append(host)
        return [PUBLIC] if calls.count(host) == 1 else ["127.0.0.1"]

    return resolve


async def test_the_request_goes_to_the_checked_address_with_the_name_kept():
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text="<html><title>t</title><body><p>Plenty of text about a public page here.</p></body></html>",
                              headers={"content-type": "text/html"})

    calls: list[str] = []
    async with make_client(5, transport=httpx.MockTransport(handler), resolve=_rebinding_resolver(calls)) as client:
        page = await fetch_page(client, "https://rebind.example/page", max_bytes=100_000, timeout_s=5)
    (request,) = seen
    assert request.url.host == PUBLIC  # connected to what was checked, never asked again
    assert request.headers["host"] == "rebind.example" and request.extensions["sni_hostname"] == "rebind.example"
    assert calls == ["rebind.example"] and page.url == "https://rebind.example/page"


async def test_every_redirect_hop_is_checked_and_pinned():
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["host"])
        if request.headers["host"] == "first.example":
            return httpx.Response(302, headers={"Location": "http://second.example/in"})
        return httpx.Response(200, text="ok", headers={"content-type": "text/plain"})

    async def resolve(host: str, port: int) -> list[str]:
        return [PUBLIC] if host == "first.example" else ["10.0.0.5"]

    async with make_client(5, transport=httpx.MockTransport(handler), resolve=resolve) as client:
        with pytest.raises(FetchError, match="non-public address"):
            await fetch_page(client, "http://first.example/", max_bytes=1000, timeout_s=5)
    assert seen == ["first.example"]  # the inward hop was never sent


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "169.254.169.254", "::1", "fe80::1",
    "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
    "2002:7f00:1::1",  # 6to4 of 127.0.0.1
    "2002:a00:1::1",  # 6to4 of 10.0.0.1
    "::127.0.0.1",  # IPv4-compatible
    "::ffff:192.168.0.1",  # IPv4-mapped
    "fec0::1", "fec0::8.8.8.8",  # site-local (Python calls it global)
    "::ffff:0:a00:1", "::ffff:0:808:808",  # IPv4-translated (SIIT), whatever the IPv4 inside
    "64:ff9b:1::a00:1",  # the local-use NAT64 prefix
])
async def test_non_public_addresses_in_every_form_are_refused(address):
    assert not is_public(ipaddress.ip_address(address))

    async def resolve(host: str, port: int) -> list[str]:
        return [PUBLIC, address]  # one bad address among good ones is enough to refuse

    async with make_client(5, transport=httpx.MockTransport(lambda r: httpx.Response(200)), resolve=resolve) as client:
        with pytest.raises(FetchError, match="non-public address"):
            await fetch_page(client, "http://mixed.example/", max_bytes=1000, timeout_s=5)


def test_public_addresses_stay_public():
    for address in (PUBLIC, "2606:4700:4700::1111", "64:ff9b::5db8:d822", "::ffff:93.184.216.34"):
        assert is_public(ipaddress.ip_address(address)), address
