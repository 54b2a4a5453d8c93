# The two commands of the README work on a fresh machine: each makes the virtualenv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run demo test soak bench lint contract clean image release

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "installing paiju and its test tools into $(VENV) …"
	@$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

run: $(STAMP)  ## the all-in-one server with bot tables of every game playing without end
	$(BIN)/paiju serve --bots 4

demo: $(STAMP)  ## bots at one 炸金花 table in this process, every hand printed
	$(BIN)/paiju demo

test: $(STAMP)  ## the whole suite: unit, property, golden, random playouts
	$(BIN)/python -m pytest

soak: $(STAMP)  ## the suite at full volume (all examples, all hands) and the long randomised runs (10^5 hands)
	$(BIN)/python -m pytest --soak -s -q

bench: $(STAMP)  ## benchmarks print comparable figures, each beside its target (bench/load.py is run by hand: it takes a while)
	$(BIN)/python bench/engines.py
	$(BIN)/python bench/tricks.py
	$(BIN)/python bench/chaodipi.py
	$(BIN)/python bench/check_action.py
	$(BIN)/python bench/grpc_floor.py
	$(BIN)/python bench/hub.py --tables 2000
	$(BIN)/python bench/bot_tables.py --tables 200 --seconds 30

image:  ## the one image of every role, with Docker or Podman (the base from Debian's packages if need be)
	deploy/build-image.sh

release: $(STAMP)  ## take the contract as released (protos/released.binpb), push the image to REGISTRY (e.g. registry.example.com/paiju) and pin the prod overlay to its digest
	@test -n "$(REGISTRY)" || { echo "make release REGISTRY=host/paiju"; exit 2; }
	$(BIN)/python scripts/contract.py release
	$(BIN)/python scripts/release.py $(REGISTRY)

lint: $(STAMP)
	$(BIN)/ruff check services tests bench

contract: $(STAMP)  ## the gRPC contract: buf lint, and nothing breaking against the released one (docs/contract.md)
	@test -x web/node_modules/.bin/buf || (cd web && npm ci --no-audit --no-fund --loglevel=error)
	$(BIN)/python scripts/contract.py check

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
