# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST_PORT ?= 127.0.0.1:8787

.PHONY: run test setup messages migrate seed serve bench clean

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

run: seed
	@echo "LifeOS Memory at http://$(HOST_PORT)/  (user demo / password demo; MCP at http://$(HOST_PORT)/mcp)"
	$(PY) manage.py runserver $(HOST_PORT)

test: setup
	$(PY) -m tests.run $(PYTEST_ARGS)

clean:
	rm -rf $(VENV) var
