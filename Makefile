# Latchkey: `make test` and `make demo` do all the set-up on a fresh Debian/Ubuntu machine.
SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# What the package builds against: `make build` installs these and nothing else.
APT_PACKAGES := libssl-dev libkeyutils-dev libcurl4-openssl-dev pkg-config
# Test-only, run time only (`make test-deps`): Chromium and its driver for the browser-login
# tests; a private session bus and GNOME Keyring for the Secret Service store's tests
# (Scripts/with-secret-service.sh), and gdbus to inspect them; postgresql, the server
# binaries Scripts/with-postgres.sh starts privately (no system service is used); gdb, for
# the threads of a test group that hangs (Scripts/test.sh). The package builds without
# them; libsecret is opened at run time.
TEST_APT_PACKAGES := chromium chromium-driver dbus-daemon dbus-bin gnome-keyring libsecret-1-0 libglib2.0-bin postgresql gdb
CONFIG ?= debug

.PHONY: all deps test-deps bench-deps build build-release print-release-bin test format demo examples docs check-links bench bench-check bench-cli fuzz fuzz-ci \
	soak soak-short soak-sweep soak-fleet clean install uninstall

all: build

# Installs the Debian packages named in $(1) that are missing.
define apt_install
	@missing=""; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
endef

# The C libraries' development files the package links against, if missing.
deps:
	$(call apt_install,$(APT_PACKAGES))

# What only the tests need at run time, if missing.
test-deps:
	$(call apt_install,$(TEST_APT_PACKAGES))

build: deps
	$(SWIFT) build -c $(CONFIG)

# The CLI as a script calls it, once per token, where start-up is most of its time
# (Benchmarks/README.md, "The CLI's start-up"): the Swift runtime and Foundation linked
# statically; built without the package's URLSession trait (no FoundationNetworking, so
# no libcurl and its thirty libraries: its transport is AsyncHTTPClient); linked as a
# position-dependent executable (no 160,000 relative relocations to apply at each start)
# that exports none of its own 50,000 symbols (the static runtime's -export-dynamic).
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-default-traits \
  -Xlinker --no-pie -Xlinker --no-export-dynamic

# The four binaries of the CLI: `latchkey`, the launcher, becomes `latchkey-jwt` for
# `inspect` and `verify`, `latchkey-token` for `session token` (which becomes
# `latchkey-full` when the stored token will not do) and `latchkey-full` for every other
# command (Package.swift, "Command-line tool").
# SwiftPM links every executable with the Swift runtime, which costs the launcher 2 ms of
# the 1 ms it needs; the release launcher is compiled from the same main.c by the
# toolchain's clang alone, statically linked (no dynamic loader, no libc to map: 0.4 ms
# of each command's 10), into .build/cli/ beside links to the three tools (the layout it
# looks for), which `make install` and `make bench-cli` use.
CLI_PRODUCTS := latchkey latchkey-jwt latchkey-token latchkey-full
CLI_DIR := .build/cli
LAUNCHER_CC ?= $(shell command -v clang || command -v cc)
build-release: deps
	for product in $(CLI_PRODUCTS); do $(SWIFT) build $(RELEASE_FLAGS) --product $$product || exit 1; done
	@bin="$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)"; mkdir -p $(CLI_DIR) && \
	$(LAUNCHER_CC) -O2 -static -Wall -Wextra -Werror -o $(CLI_DIR)/latchkey Sources/LatchkeyLauncher/main.c && \
	ln -sf "$$bin/latchkey-jwt" "$$bin/latchkey-token" "$$bin/latchkey-full" $(CLI_DIR)/

# The path of the release CLI `build-release` makes (Benchmarks/Scripts/cli-startup.sh).
print-release-bin:
	@echo "$(CURDIR)/$(CLI_DIR)/latchkey"

# The house format first (Scripts/format.sh --check: .swift-format, 150 columns; `make format`
# applies it), then every test group (Scripts/test.sh), the soak's package (Soak/: building it builds
# Latchkey's dependencies a second time, in Soak/.build), the examples, the fuzz
# regressions, the links between Markdown files and the DocC documentation (`make docs`,
# warnings as errors: a broken symbol link or an undocumented parameter fails the test).
test: deps test-deps
	SWIFT=$(SWIFT) ./Scripts/format.sh --check
	$(SWIFT) build --build-tests
	$(SWIFT) build --package-path Soak --build-tests
	SWIFT=$(SWIFT) ./Scripts/test.sh
	$(SWIFT) build --package-path Examples
	$(SWIFT) run --package-path Examples --skip-build SocialPlusExample
	$(SWIFT) run --package-path Examples --skip-build CustomProviderExample
	$(SWIFT) run --package-path Examples --skip-build ServerExample
	$(MAKE) -C Fuzz fuzz-ci CI_SECONDS=15
	./Scripts/check-links.sh
	$(MAKE) docs

demo: build-release
	@./Scripts/demo.sh "$(CURDIR)/$(CLI_DIR)/latchkey"

# The fault soak (Soak/, a package of its own; Docs/soak.md): 4 providers × 50 users × 7
# simulated days against the emulator. SOAK_ARGS passes options through, e.g.
# make soak SOAK_ARGS="--seed 7 --days 2". CONFIG=release for an optimized build (the wire
# and the stores dominate either way).
SOAK_BIN = "$$($(SWIFT) build --package-path Soak -c $(CONFIG) --show-bin-path)/latchkey-soak"
soak: deps
	$(SWIFT) build --package-path Soak -c $(CONFIG) --product latchkey-soak
	$(SOAK_BIN) $(SOAK_ARGS)

soak-short: deps
	$(SWIFT) build --package-path Soak -c $(CONFIG) --product latchkey-soak
	$(SOAK_BIN) --short $(SOAK_ARGS)

# The soak over many seeds (Docs/soak.md, "Seed sweeps"): SWEEP_SEEDS (FIRST-LAST),
# SWEEP_JOBS seeds at once, SWEEP_SIZE the configuration (--short, or empty for the long
# one); SOAK_ARGS passes further options to every seed. Not part of `make test`.
SWEEP_SEEDS ?= 1-200
SWEEP_JOBS ?= 2
SWEEP_SIZE ?= --short
soak-sweep: deps
	$(SWIFT) build --package-path Soak -c $(CONFIG) --product latchkey-soak
	$(SOAK_BIN) $(SWEEP_SIZE) --sweep $(SWEEP_SEEDS) --jobs $(SWEEP_JOBS) $(SOAK_ARGS)

# The fleet soak (Docs/soak.md, "The fleet soak"): server instances as separate processes
# sharing users' sessions on a private PostgreSQL server, with instance and database
# kills, dropped connections and cut links. FLEET_ARGS, e.g. FLEET_ARGS="--users 1000
# --seconds 600". As root, each instance runs in a network namespace of its own
# (Scripts/fleet-network.sh makes FLEET_NAMESPACES of them; more instances than that run
# on loopback, and so does everything where namespaces cannot be made).
FLEET_ARGS ?= --users 100 --seconds 120
FLEET_NAMESPACES ?= 8
soak-fleet: deps test-deps
	$(SWIFT) build --package-path Soak -c $(CONFIG) --product latchkey-soak
	./Scripts/fleet-network.sh $(FLEET_NAMESPACES) ./Scripts/with-postgres.sh $(SOAK_BIN) --fleet $(FLEET_ARGS) $(SOAK_ARGS)

# The benchmarks also count instructions under valgrind (Benchmarks/README.md).
BENCH_APT_PACKAGES := valgrind

bench-deps: deps
	@dpkg-query -W -f='$${Status}' $(BENCH_APT_PACKAGES) 2>/dev/null | grep -q "install ok installed" || \
	  { $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(BENCH_APT_PACKAGES); }

bench: bench-deps
	$(MAKE) -C Benchmarks bench

examples: deps
	$(SWIFT) build --package-path Examples
	for e in StytchExample Auth0Example SocialPlusExample CustomProviderExample; do $(SWIFT) run --package-path Examples --skip-build $$e || exit 1; done

# DocC documentation of every library, one combined archive in DOCS_DIR (ignored by git),
# through swift-docc-plugin. Any DocC warning (a broken symbol link, an undocumented
# parameter) fails it. Open DOCS_DIR/index.html through a web server, e.g.
# `python3 -m http.server -d .build/docs` and http://localhost:8000/documentation/.
DOCS_DIR ?= .build/docs
DOCS_TARGETS := Latchkey LatchkeyStytch LatchkeyAuth0 LatchkeySocialPlus LatchkeyJWT LatchkeySecrets LatchkeyJSON \
	LatchkeyEmulator LatchkeySwiftConfiguration
docs: deps
	rm -rf $(DOCS_DIR)
	$(SWIFT) package --allow-writing-to-directory $(DOCS_DIR) generate-documentation \
	  --enable-experimental-combined-documentation --output-path $(DOCS_DIR) \
	  $(addprefix --target ,$(DOCS_TARGETS)) --warnings-as-errors
	@echo "documentation in $(DOCS_DIR): serve the folder (python3 -m http.server -d $(DOCS_DIR)) and open /documentation/"

# Formats every Swift file in place (.swift-format); `make test` checks it.
format:
	SWIFT=$(SWIFT) ./Scripts/format.sh

# Every relative link between the repository's Markdown files points at a file that exists.
check-links:
	./Scripts/check-links.sh

# The CLI as a whole process beside Debian's `jose` (Benchmarks/Scripts/cli-startup.sh): its
# table goes into Benchmarks/README.md.
bench-cli: deps
	$(call apt_install,hyperfine jose time)
	./Benchmarks/Scripts/cli-startup.sh

# The gate: the benchmarks' instruction and malloc counts, then the CLI's start-up counts
# (instructions and page faults of each command as a whole process, beside jose's).
bench-check: bench-deps
	$(call apt_install,hyperfine jose time)
	$(MAKE) -C Benchmarks bench-check

# libFuzzer targets (Fuzz/README.md): FUZZ_SECONDS per target (default 60), one at a time.
FUZZ_SECONDS ?= 60
fuzz: deps
	$(MAKE) -C Fuzz fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

# What CI runs: build every fuzz target, replay Fuzz/Regressions/, fuzz each briefly.
fuzz-ci: deps
	$(MAKE) -C Fuzz fuzz-ci

# `make install PREFIX=/usr/local` (and DESTDIR for packaging): the binary, its man page
# (swift-argument-parser's generate-manual plugin) and bash, zsh and fish completions.
# BIN= installs an already-built latchkey instead of building a release one; MAN= an
# already-generated latchkey.1 instead of running the plugin.
PREFIX ?= /usr/local
DESTDIR ?=
BIN ?=
MAN ?=
INSTALL_BIN := $(DESTDIR)$(PREFIX)/bin
# The binaries the launcher becomes (Sources/LatchkeyLauncher/main.c looks in ../libexec/latchkey).
INSTALL_LIBEXEC := $(DESTDIR)$(PREFIX)/libexec/latchkey
INSTALL_MAN := $(DESTDIR)$(PREFIX)/share/man/man1
INSTALL_BASH := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INSTALL_ZSH := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
INSTALL_FISH := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d

install:
	@set -e; bin="$(BIN)"; man="$(MAN)"; \
	if [ -z "$$bin" ]; then $(MAKE) --no-print-directory build-release; bin="$(CURDIR)/$(CLI_DIR)/latchkey"; fi; \
	tools="$$(dirname "$$bin")"; \
	if [ -z "$$man" ]; then \
	  $(SWIFT) package plugin generate-manual --configuration release; \
	  man=.build/plugins/GenerateManual/outputs/latchkey/latchkey.1; \
	fi; \
	[ -x "$$bin" ] || { echo "error: make install: no latchkey binary at $$bin" >&2; exit 1; }; \
	for tool in latchkey-jwt latchkey-token latchkey-full; do \
	  [ -x "$$tools/$$tool" ] || { echo "error: make install: no $$tool binary beside $$bin" >&2; exit 1; }; \
	done; \
	[ -f "$$man" ] || { echo "error: make install: no man page (latchkey.1) from generate-manual" >&2; exit 1; }; \
	install -d "$(INSTALL_BIN)" "$(INSTALL_LIBEXEC)" "$(INSTALL_MAN)" "$(INSTALL_BASH)" "$(INSTALL_ZSH)" "$(INSTALL_FISH)"; \
	install -m 755 "$$tools/latchkey-jwt" "$$tools/latchkey-token" "$$tools/latchkey-full" "$(INSTALL_LIBEXEC)"; \
	install -m 755 "$$bin" "$(INSTALL_BIN)/latchkey"; \
	install -m 644 "$$man" "$(INSTALL_MAN)/latchkey.1"; \
	"$$bin" --generate-completion-script bash > "$(INSTALL_BASH)/latchkey"; \
	"$$bin" --generate-completion-script zsh > "$(INSTALL_ZSH)/_latchkey"; \
	"$$bin" --generate-completion-script fish > "$(INSTALL_FISH)/latchkey.fish"; \
	chmod 644 "$(INSTALL_BASH)/latchkey" "$(INSTALL_ZSH)/_latchkey" "$(INSTALL_FISH)/latchkey.fish"; \
	echo "installed latchkey in $(INSTALL_BIN) (latchkey-jwt, latchkey-token and latchkey-full in $(INSTALL_LIBEXEC)), its man page and bash, zsh and fish completions"

uninstall:
	rm -f "$(INSTALL_BIN)/latchkey" "$(INSTALL_LIBEXEC)/latchkey-jwt" "$(INSTALL_LIBEXEC)/latchkey-token" "$(INSTALL_LIBEXEC)/latchkey-full" "$(INSTALL_MAN)/latchkey.1" "$(INSTALL_BASH)/latchkey" \
	  "$(INSTALL_ZSH)/_latchkey" "$(INSTALL_FISH)/latchkey.fish"
	rmdir "$(INSTALL_LIBEXEC)" 2>/dev/null || true

clean:
	rm -rf .build
