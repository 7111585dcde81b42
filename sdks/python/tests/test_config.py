import pytest

from marginal import Marginal, MarginalConfigError
from marginal.config import resolve_credentials


def test_arguments_win_over_the_environment(monkeypatch):
    monkeypatch.setenv("MARGINAL_API_KEY", "env-key")
    monkeypatch.setenv("MARGINAL_SIGNING_SECRET", "env-secret")
    monkeypatch.setenv("MARGINAL_BASE_URL", "http://env:9000/")
    assert resolve_credentials(None, None, None).api_url == "http://env:9000/v1"
    assert resolve_credentials(None, None, None).signing_secret == "env-secret"
    creds = resolve_credentials("arg-key", "arg-secret", "http://arg:1")
    assert (creds.api_key, creds.signing_secret, creds.api_url) == ("arg-key", "arg-secret", "http://arg:1/v1")


def test_defaults_and_an_origin_given_with_v1(monkeypatch):
    monkeypatch.delenv("MARGINAL_BASE_URL", raising=False)
    assert resolve_credentials("k", None, None).api_url == "http://127.0.0.1:8080/v1"
    assert resolve_credentials("k", None, "http://h:1/v1/").api_url == "http://h:1/v1"


def test_an_api_key_is_required(monkeypatch):
    monkeypatch.delenv("MARGINAL_API_KEY", raising=False)
    with pytest.raises(ValueError, match="MARGINAL_API_KEY"):
        Marginal()


def test_tracking_without_a_signing_secret_fails_at_once(monkeypatch):
    monkeypatch.delenv("MARGINAL_SIGNING_SECRET", raising=False)
    client = Marginal("key", base_url="http://127.0.0.1:9")
    with pytest.raises(MarginalConfigError, match="signing secret"):
        client.track({"model": "m", "input_tokens": 1, "output_tokens": 1})
    with pytest.raises(MarginalConfigError):
        client.send({"model": "m", "input_tokens": 1, "output_tokens": 1})
    client.shutdown()
