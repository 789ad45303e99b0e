"""The product's settings with ``bench.targets.floor_django`` as the URL conf (see there)."""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.targets.floor_django"
