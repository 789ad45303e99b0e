# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST_PORT ?= 127.0.0.1:8787

.PHONY: run test lint setup messages migrate seed serve bench reliability mutate clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@

setup: $(VENV)/.installed messages

messages: $(VENV)/.installed
	$(PY) manage.py compiletranslations

migrate: setup
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo --username demo --password demo --facts 60

# SPEC O-1 (home)
run: seed
	@echo "LifeOS Memory at http://$(HOST_PORT)/  (user demo / password demo; MCP at http://$(HOST_PORT)/mcp)"
	$(PY) manage.py runserver $(HOST_PORT)

# The production configuration on this machine (docs/deploy.md): DEBUG off, static
# files collected and served by whitenoise, WEB_WORKERS uvicorn worker processes.
# DATABASE_URL, REDIS_URL and the storage variables are used as given.
WEB_WORKERS ?= 4
serve: migrate
	DEBUG=0 $(PY) manage.py collectstatic --noinput --verbosity 0
	@echo "LifeOS Memory (production configuration, $(WEB_WORKERS) workers) at http://$(HOST_PORT)/"
	DEBUG=0 exec $(PY) -m config.serving --bind $(HOST_PORT) --workers $(WEB_WORKERS)

# Lint (docs/testing.md): ruff's rules, mypy with the Django plugin (services and selectors strict),
# and the import contracts. Not ruff format: the code is not formatted by a tool.
lint: setup
	$(PY) -m ruff check apps config tests bench
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# Installs (apt) or names what the suite needs, then runs the lint and the suite on SQLite and on a
# throwaway PostgreSQL.
test: setup lint
	bash .ci/services
	$(PY) -m tests.run $(PYTEST_ARGS)

# The assistant path under load against the MCP SDK's own server (bench/run.py,
# docs/performance.md): throwaway PostgreSQL and Redis, loopback only, a few
# minutes. Needs wrk (apt-get install wrk). Not part of `make test`.
bench: setup
	$(PY) -m bench.run $(BENCH_ARGS)

# Load, faults and a secrets scan against the production configuration (bench/load/run.py,
# docs/reliability.md): throwaway PostgreSQL and Redis, several workers, loopback only. Not part
# of `make test`. RELIABILITY_ARGS="--seconds 30" for a short run.
reliability: setup
	$(PY) -m bench.load.run $(RELIABILITY_ARGS)

# Mutation testing of the rule code (tests/mutation, docs/testing.md): cosmic-ray on a copy of this
# tree and a throwaway PostgreSQL, about 45 minutes for every area. Not part of `make test`.
# MUTATE_ARGS="tokens" for one area; "--list" only counts the mutants.
mutate: setup
	nice -n 10 $(PY) -m tests.mutation $(MUTATE_ARGS)

clean:
	rm -rf $(VENV) var
