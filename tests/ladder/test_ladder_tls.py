"""A ladder with a certificate in ladder.toml: the referee and the web app speak TLS only, the author's client and
the remote bots connect with the certificate as their CA, and games are played and stored."""

from __future__ import annotations

import pytest
from ladder_harness import Ladder, http, pepper, wait_for

from ladder.client import ServerError, enter_remote


def test_the_referee_and_the_web_app_serve_tls(tmp_path):
    lad = Ladder(tmp_path)
    try:
        ca = lad.use_tls()
        served = lad.serve()
        assert served["web"].startswith("https://127.0.0.1:")
        assert http("GET", f"{lad.web}/metrics", ca=ca)[0] == 200
        with pytest.raises(Exception, match="CERTIFICATE_VERIFY_FAILED"):
            http("GET", f"{lad.web}/metrics")                   # the system's CAs do not know it
        with pytest.raises(Exception):  # noqa: B017 - plain HTTP to a TLS port: the connection fails
            http("GET", lad.web.replace("https://", "http://") + "/metrics")
        alice = lad.invite("alice")
        with pytest.raises(ServerError, match="cannot reach"):
            enter_remote(lad.web, alice, "abot")
        token = enter_remote(lad.web, alice, "abot", ca=str(ca))["token"]
        lad.run_bot("abot", token, "random")
        lad.run_bot("bbot", lad.enter(lad.invite("bob"), "bbot"), "heuristic")
        wait_for("games over TLS", lambda: lad.games() >= 3)
        cli = pepper("ladder", "enter", "--server", lad.web, "--key", alice, "abot", "--remote", "--ca", str(ca))
        assert cli.stdout.strip().splitlines()[-1] != token
        assert lad.stop() == 0
    finally:
        lad.close()
