# qbarchive — the two commands a newcomer needs are `make demo` and `make test`.

SWIFT        ?= swift
APT_PACKAGES := libsqlite3-dev libcurl4-openssl-dev libarchive-dev zlib1g-dev curl openssl ca-certificates zstd unzip python3 \
                postgresql postgresql-contrib
DEMO_DIR     ?= demo

.PHONY: help deps build release test lint format demo bench bench-quick bench-tools chaos browser-test serve-demo clean

help:
	@echo "make demo    install what is missing, build, start the emulator with seeded data and show it working"
	@echo "make test    install what is missing, lint, build and run every test"
	@echo "make deps    install missing Debian packages ($(APT_PACKAGES))"
	@echo "make bench   release build, then benchmarks beside peers written to docs/performance.md (1-2 hours)"
	@echo "make bench-quick  the same on 100,000 messages in about two and a half minutes (.build/bench-quick.md)"
	@echo "make chaos   faults, kill -9, locks, full/read-only disk, hostile input, kill -9 during erase/retain, backups while crawling, a million fuzzed queries vs the emulator's truth → docs/reliability.md (~22 min)"
	@echo "make browser-test  headless Chromium loads the web UI, searches, opens a transcript (CI runs it)"
	@echo "make serve-demo    the web UI over the demo archive (after make demo)"
	@echo "make format  rewrite sources with swift format"

# Installs the Debian packages the build and tests need, only when one is missing; quiet otherwise.
deps:
	@missing=""; \
	for pkg in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$pkg 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$pkg"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product qbarchive

lint:
	$(SWIFT) format lint --strict -r Sources Tests Package.swift

format:
	$(SWIFT) format -i -r Sources Tests Package.swift

test: deps lint
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" scripts/test.sh

demo: release
	@DEMO_DIR=$(DEMO_DIR) QBARCHIVE=$$($(SWIFT) build -c release --show-bin-path)/qbarchive scripts/demo.sh

BENCH_PACKAGES := wrk bc python3 python3-pip time sqlite3

# sqlite-utils (a benchmark peer) comes from PyPI, installed for the current user when missing.
bench-tools:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_PACKAGES)"
	@command -v sqlite-utils >/dev/null || python3 -m pip install --quiet --user sqlite-utils \
	  || python3 -m pip install --quiet --user --break-system-packages sqlite-utils

bench: release bench-tools
	PATH="$$PATH:$$HOME/.local/bin" QBARCHIVE=$$($(SWIFT) build -c release --show-bin-path)/qbarchive scripts/bench.sh

bench-quick: release bench-tools
	PATH="$$PATH:$$HOME/.local/bin" QUICK=1 QBARCHIVE=$$($(SWIFT) build -c release --show-bin-path)/qbarchive \
	  scripts/bench.sh

# The fault-injection suite: bounded (BUDGET=1000 s), loopback only; writes docs/reliability.md.
chaos: release
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) python3 strace"
	$(SWIFT) build -c release --product query-fuzz
	QBARCHIVE=$$($(SWIFT) build -c release --show-bin-path)/qbarchive scripts/chaos.sh

# Headless Chromium against the real service; installs Debian's chromium when missing.
browser-test: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="chromium fonts-dejavu-core"
	$(SWIFT) build --product qbarchive
	QBARCHIVE=$$($(SWIFT) build --show-bin-path)/qbarchive scripts/browser-test.sh

# The moderator UI over the archive `make demo` made, on http://127.0.0.1:8080/.
serve-demo: release
	$$($(SWIFT) build -c release --show-bin-path)/qbarchive serve --archive $(DEMO_DIR)/archive-app.sqlite \
	  --exports $(DEMO_DIR)/exports

clean:
	rm -rf .build $(DEMO_DIR)
