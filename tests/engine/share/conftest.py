import pytest

from engine.share import ShareFeed, ShareServer


@pytest.fixture
def serve():
    """Start caption servers on free ports (``serve(**options)`` -> (feed, server)); all stopped after."""
    started = []

    def start(**options):
        feed = ShareFeed()
        server = ShareServer(feed, **options).start()
        started.append(server)
        return feed, server

    yield start
    for server in started:
        server.stop()
