# The two set-up commands: `make run` and `make test`. Each bootstraps what it needs.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.stamp-$(shell cat pyproject.toml 2>/dev/null | cksum | cut -d' ' -f1)

.PHONY: run test lint typecheck bench clean venv

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	@rm -f $(VENV)/.stamp-* && touch $@

venv: $(STAMP)

run: $(STAMP)
	@scripts/system-deps run
	@mkdir -p var/inbox var/library
	@test -f var/secrets.key || { umask 077; $(PY) -c "from cryptography.fernet import Fernet; \
	  print(Fernet.generate_key().decode())" > var/secrets.key; \
	  echo "renamerd: made the secrets key var/secrets.key (it encrypts stored drive sign-ins)"; }
	@test -f config.toml && cfg=config.toml || cfg=config.example.toml; \
	  echo "renamerd: using $$cfg"; exec $(VENV)/bin/renamerd --config $$cfg run

test: $(STAMP)
	@scripts/system-deps test
	$(VENV)/bin/pytest -q -n 2 --dist loadgroup tests

# ruff, and mypy strict (pyproject.toml); `make test` runs the same recipe (tests/test_lint.py)
lint: $(STAMP)
	$(VENV)/bin/ruff check src connectors tests bench
	$(VENV)/bin/mypy src connectors

bench: $(STAMP)
	$(PY) bench/engine.py && $(PY) bench/api.py && $(PY) bench/daemon.py

clean:
	rm -rf $(VENV) var .pytest_cache
