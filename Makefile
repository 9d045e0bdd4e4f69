# Two commands do everything on a fresh machine (Python 3.11 + pip assumed):
#   make report   the main job: decide every claim, print the verdict table, write results
#   make test     the test suites: pytest proofs tests numeric
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: report test prove lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

report: $(STAMP)
	$(VENV)/bin/peproof prove --out reports/build/results.json

prove: report

test: $(STAMP)
	$(PY) -m pytest proofs tests numeric -q

lint: $(STAMP)
	$(VENV)/bin/ruff check peproof proofs tests numeric benchmarks

bench: $(STAMP)
	$(PY) benchmarks/bench_proofs.py

clean:
	rm -rf $(VENV) reports/build *.egg-info
