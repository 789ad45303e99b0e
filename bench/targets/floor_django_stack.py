"""The product's settings with ``bench.targets.floor_django`` as the URL conf (see there)."""

from config.settings import *  # noqa: F403 - every setting, as the product has it

ROOT_URLCONF = "bench.targets.floor_django"
