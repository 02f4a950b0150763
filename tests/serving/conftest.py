"""A running server for the serving tests (127.0.0.1, a free port, always stopped)."""
import pytest

from oar.serving import ServedModel, Server

from serving_models import save_models


@pytest.fixture(scope="package")
def saved(tmp_path_factory):
    return save_models(tmp_path_factory.mktemp("served"))


@pytest.fixture(scope="package")
def server(saved):
    models = {n: ServedModel(n, p, workers=2, max_batch_size=16, batch_timeout_ms=5) for n, (p, _) in saved.items()}
    with Server(models, max_body_bytes=1 << 16) as s:
        yield s


@pytest.fixture
def client(server):
    import tritonclient.http as httpclient
    c = httpclient.InferenceServerClient(f"127.0.0.1:{server.port}", connection_timeout=30, network_timeout=30)
    yield c
    c.close()
