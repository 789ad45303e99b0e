import pytest


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    """Transcript bodies written by a test land in its own directory, never in var/media."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT
