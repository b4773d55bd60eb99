from ..webhooks.conftest import local_network, receiver  # noqa: F401 (fixtures)
