import pytest

from .service import Service


@pytest.fixture(scope="session")
def service(tmp_path_factory):
    running = Service(tmp_path_factory.mktemp("marginal-service"))
    yield running
    running.stop()
