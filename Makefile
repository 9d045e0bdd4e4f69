# Two commands do everything on a fresh machine (Python 3.11 + pip assumed; root for apt):
#   make report   the main job: decide every claim, run the default numerics, build the PDF report
#   make test     the test suites: pytest proofs tests numeric (fast set, on every core;
#                 `make test-slow` for all)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# peers whose declared dependencies would pull TensorFlow or an old torch: their real ones are
# in pyproject's peers extra
PEERS_NODEPS := keras-hub==0.32.0 labml-nn==0.5.1 litgpt==0.5.13 torchscale==0.3.0
TEXPKG := texlive-latex-base texlive-latex-recommended texlive-fonts-recommended \
          texlive-pictures latexmk poppler-utils

COQPKG := coq libcoq-interval

.PHONY: report test test-slow prove tex coq chromium lint bench fuzz clean mutants

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[test,peers,report,formats]'
	$(PY) -m pip install --quiet --no-deps $(PEERS_NODEPS)
	touch $(STAMP)

# TeX from Debian's packages, installed when missing and we are root; otherwise say what to do
tex:
	@if ! command -v latexmk >/dev/null 2>&1 || ! command -v pdftotext >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends $(TEXPKG) >/dev/null; \
	  else \
	    echo "TeX not found: install $(TEXPKG) (the .tex is still written)"; \
	  fi; \
	fi

# Coq 8.16 and CoqInterval from Debian's packages (about a minute, 1.1 GB), installed when
# missing and we are root; without them the Coq column says 'coq not installed'
coq:
	@if ! command -v coqc >/dev/null 2>&1 || \
	    ! [ -d "$$(coqc -where 2>/dev/null)/user-contrib/Interval" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      --no-install-recommends $(COQPKG) >/dev/null; \
	  else \
	    echo "Coq not found: install $(COQPKG) (the Coq column then says 'coq not installed')"; \
	  fi; \
	fi

# headless Chromium (Debian's chromium-headless-shell, ~15 s to install) for the test that
# renders the report's HTML edition (tests/test_report_html.py)
chromium:
	@if ! command -v chromium-headless-shell >/dev/null 2>&1 && ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get install -y -qq --no-install-recommends chromium-headless-shell >/dev/null 2>&1 \
	     || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	         --no-install-recommends chromium-headless-shell >/dev/null)); \
	  else \
	    echo "Chromium not found: install chromium-headless-shell (the HTML test is skipped)"; \
	  fi; \
	fi

# the project's own modules compiled to bytecode once: a run starts hundreds of Python processes
# (workers, the commands under test) and, where PYTHONDONTWRITEBYTECODE is set (as on our CI
# machines), each would compile every module it imports again from source (about 0.3 s each).
# Not a step that can fail the run: a read-only checkout only loses the speed-up (a syntax error
# is still printed here, and reported again where the module is imported)
BYTECODE = $(PY) -m compileall -q -j 0 peproof reports numeric proofs tests benchmarks \
             || echo "bytecode not written: imports compile from source"

report: $(STAMP) tex coq
	$(BYTECODE)
	$(VENV)/bin/peproof report

prove: $(STAMP) coq
	$(BYTECODE)
	$(VENV)/bin/peproof prove

# the suites on every core (pytest-xdist; TEST_WORKERS=0 runs them in one process); a test
# module stays on one worker (--dist loadfile), so its module-scoped fixtures are built once
TEST_WORKERS ?= auto
XDIST := -n $(TEST_WORKERS) --dist loadfile
test: $(STAMP) tex coq chromium
	$(BYTECODE)
	$(PY) -m pytest proofs tests numeric -q -m "not slow" $(XDIST)

test-slow: $(STAMP) tex coq chromium
	$(BYTECODE)
	$(PY) -m pytest proofs tests numeric -q $(XDIST)

lint: $(STAMP)
	$(VENV)/bin/ruff check peproof proofs tests numeric benchmarks reports

bench: $(STAMP)
	$(PY) benchmarks/bench_proofs.py
	$(PY) benchmarks/bench_z3.py
	$(PY) benchmarks/bench_numeric.py
	$(PY) benchmarks/bench_kernel.py
	$(PY) benchmarks/bench_coq.py

# the fuzzers with a longer budget: the trigonometric differential fuzzer (CI: 30 cases per
# test) and the fuzzer over the whole fragment (CI: 120 cases, every engine, every verdict
# judged by the falsification gate); FUZZ_EXAMPLES=n cases each, FUZZ_SEED=s; both write
# reports/build/fuzz.json (the fragment's wrong verdicts, by class, under "fragment")
FUZZ_EXAMPLES ?= 400
FUZZ_SEED ?= 18
fuzz: $(STAMP)
	mkdir -p reports/build
	rm -f reports/build/fuzz.json
	PEPROOF_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) PEPROOF_FUZZ_SEED=$(FUZZ_SEED) \
	  PEPROOF_FUZZ_REPORT=reports/build/fuzz.json \
	  $(PY) -m pytest tests/test_fuzz_trig.py tests/test_fuzz_fragment.py -q -p no:randomly \
	  -o timeout=0; status=$$?; \
	$(PY) -c "import json; r = json.load(open('reports/build/fuzz.json')); \
	f = r.pop('fragment', {}); print(json.dumps(r, indent=1, sort_keys=True)); \
	print(json.dumps({k: f.get(k) for k in ('cases', 'seconds', 'verdicts', 'classes', \
	'crash_count')}, indent=1))"; exit $$status

clean:
	rm -rf $(VENV) reports/build *.egg-info

# one-line mutants of the encoding, the engines, the falsification gate, the Coq kernel and the
# evidence levels (tests/mutants/mutants.toml), each against its tests (the engine tests by
# default), in temporary copies of the tree; prints killed / survived and the score
mutants: $(STAMP)
	$(PY) tests/mutants/run.py --jobs 2
