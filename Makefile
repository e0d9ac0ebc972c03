# Rederive: re-derive room-scan summaries from raw RoomPlan data, in bulk.
#
# Targets:
#   make run        install missing system packages, build (debug: the build make test reuses) and
#                   run the demo pipeline (Pipelines/demo.yml) over Fixtures/ into $(DEMO_DB)
#   make build      build the optimized binary, $(BUILD_DIR)/release/rederive (install, bench, nightly...)
#   make test       install missing system packages, build and run the whole test suite
#   make fixtures   regenerate the committed fixtures from the real sample rooms
#   make bench      generate a corpus ($(BENCH_RECORDS) records) and time import and derive
#                   (records/s, MB/s, peak resident memory), and beside the derive line a backfill's
#                   preview (with its plan), an apply's plan check and revert --dry-run against the
#                   revert (.ci/bench-backfill, also on PostgreSQL); no test asserts on time
#   make bench-compare BASE=REF  this checkout against a git ref, same corpus, interleaved pairs
#                   (import, derive, summarize): each step's median time ratio with its min-max
#   make bench-preview  time a dry-run preview where every one of $(BENCH_PREVIEW_RECORDS) records
#                   changes (5 fields, all kinds) and print its peak resident memory
#   make scale-demo start a throwaway local PostgreSQL cluster, import the fixtures into it and
#                   derive them with 2 worker processes claiming ranges (per-worker ranges, records/s)
#   make scale-model  derive with 1, 2, 4, 8 worker processes each capped at a fraction of a core
#                   (cgroups, as root) against a throwaway cluster: speed-up, efficiency, the
#                   server's CPU per 1,000 records and the ceiling of a K-core server
#   make bench-gentle  how well a derive keeps its share of the server: batch times against
#                   --batch-seconds after the first 10 batches, 4 processes under --max-rate R
#                   together over 20 s (a throwaway cluster), and the same derive with the health
#                   throttle off and on against a slow streaming standby (its largest replay lag
#                   against --max-standby-lag, the time each took, what the health reads cost);
#                   prints, asserts nothing
#   make bench-postgres  the PostgreSQL lines of make bench alone (import MB/s beside a bare binary
#                   COPY of the same rows, for the bench corpus and $(BENCH_SMALL_RECORDS) small records;
#                   derive records/s with 1 and 2 worker processes), against a throwaway local cluster
#   make nightly    run Pipelines/nightly.yml (INCOMING=dir DB=path OUT=path to override)
#   make backfill   preview a backfill and write a plan (of backfill.yml's store, or DB=); APPLY=1 applies it
#                   (both build the release binary first, unless REDERIVE=path names one: then nothing is built)
#   make build-v1   a build that derives summary v1 exactly as builds before v2 did, in $(V1_BUILD_DIR):
#                   a store it derives is what the backfill walkthrough starts from
#   make build-fixed  a build with a simulated calculation fix on top of the current summary (version
#                   1000000, reserved: shortest_wall_m ignores wall slivers under 0.25 m) in
#                   $(FIXED_BUILD_DIR), to try the backfill walkthrough again on a current store
#   make fuzz       libFuzzer over the record parser, room decoder and derivation for
#                   $(FUZZ_SECONDS) s (default 60), seeded from Fixtures/fuzz-corpus
#   make deps       only install the system packages (libzstd-dev, libsqlite3-dev, libsimdjson-dev,
#                   libpq-dev: the PostgreSQL client; postgresql: the server the PostgreSQL tests start a
#                   throwaway cluster of, pgbouncer: the pooler one test puts in front of it; sqlite3 and
#                   zstd: the shells the README examples the tests run use)
#   make install    build (release) and install the binary, its man page, bash/zsh/fish
#                   completions and the sample rooms `rederive generate` uses (share/rederive/rooms)
#                   under PREFIX (default /usr/local; DESTDIR for staging)
#   make uninstall  remove what make install installed
#   make dist       a release build with the Swift runtime linked in (--static-swift-stdlib, in
#                   $(DIST_BUILD)), packed as dist/rederive-VERSION-linux-ARCH.tar.gz + SHA256SUMS
#   make deb        the same build as a Debian package, dist/rederive_VERSION_ARCH.deb (dpkg-deb)
#   make format     reformat the Swift sources (swift-format, .swift-format); make test checks it
#   make clean      remove build products and generated files (never Fixtures/)

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  ?= .build
REDERIVE   ?= $(BUILD_DIR)/$(CONFIG)/rederive
DEMO_DB    ?= out/demo.sqlite
, := ,
SYSTEM_PACKAGES := libzstd-dev libsqlite3-dev libsimdjson-dev libpq-dev pkg-config postgresql pgbouncer sqlite3 zstd

.PHONY: given-binary dist deb dist-build build-fixed build-v1 run test fixtures bench bench-compare bench-postgres bench-gentle scale-demo scale-model bench-preview nightly backfill deps build clean install install-files uninstall fuzz fuzz-build format format-check

# Installs what a fresh Debian/Ubuntu machine lacks (we are root there); elsewhere says
# exactly what to run.
deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing system packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 1; \
	  else \
	    echo "Missing system packages:$$missing"; \
	    echo "Run: sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	@command -v $(SWIFT) >/dev/null || { echo "swift not found: install Swift 6.1+ (https://swift.org/install) and put it on PATH"; exit 1; }

build: deps
	$(SWIFT) build -c $(CONFIG) --product rederive

# The backfill walkthrough (README) from a store derived by summary v1: the same sources compiled
# with REDERIVE_SUMMARY_V1 (SummaryDeriver.summaryV1Built: version 1, v1's floor area and
# fingerprint) into their own build folder; the normal build is the fixed one, summary v2.
V1_BUILD_DIR ?= .build-v1
V1_REDERIVE  := $(V1_BUILD_DIR)/$(CONFIG)/rederive
build-v1: deps
	$(SWIFT) build -c $(CONFIG) --product rederive --scratch-path $(V1_BUILD_DIR) -Xswiftc -DREDERIVE_SUMMARY_V1
	@echo "Summary v1 build: $(V1_REDERIVE)"
	@echo "Make a v1 store: $(V1_REDERIVE) run Pipelines/demo.yml --db out/demo.sqlite; then: make backfill"

# The walkthrough once more without editing Swift: the same sources compiled with
# REDERIVE_SIMULATED_FIX (SummaryDeriver.simulatedFixBuilt) into their own build folder, so the
# normal build stays the "old" one. Use it with REDERIVE=..., e.g. make backfill REDERIVE=...
FIXED_BUILD_DIR ?= .build-fixed
FIXED_REDERIVE  := $(FIXED_BUILD_DIR)/$(CONFIG)/rederive
build-fixed: deps
	$(SWIFT) build -c $(CONFIG) --product rederive --scratch-path $(FIXED_BUILD_DIR) -Xswiftc -DREDERIVE_SIMULATED_FIX
	@echo "Fixed build (simulated fix, summary version 1000000): $(FIXED_REDERIVE)"
	@echo "Try the backfill: make backfill DB=out/demo.sqlite REDERIVE=$(FIXED_REDERIVE)"

# The demo: import every fixture (good and corrupt) into a local store, then re-derive
# whatever is stale. Skipped corrupt records (exit 3) are expected here. A debug build: 14
# exports gain nothing from the optimizer, it builds in well under half the release build's
# time on 2 cores, and `make test` reuses it (same .build/debug); `make build` is the release one.
DEMO_CONFIG   ?= debug
DEMO_REDERIVE ?= $(BUILD_DIR)/$(DEMO_CONFIG)/rederive
run: deps
	$(SWIFT) build -c $(DEMO_CONFIG) --product rederive
	@mkdir -p out
	$(DEMO_REDERIVE) run Pipelines/demo.yml --db $(DEMO_DB); s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ]
	@echo "Store: $(DEMO_DB); issues: out/demo-import-issues-<tag>-run<N>.jsonl (the store's tag, the run id); summaries: out/demo-summaries.jsonl.zst"

# Nightly job: new exports from INCOMING (already-imported files skipped by content hash),
# derive stale, export summaries. Run it twice: the second run imports nothing new.
INCOMING ?= Fixtures/exports
DB       ?= out/nightly.sqlite
OUT      ?= out/nightly-summaries.jsonl.zst
# The walkthrough targets build the release binary unless REDERIVE= names one: then they
# build nothing and run that binary (make build-fixed's, .build/debug/rederive after make run).
WALKTHROUGH_BUILD = $(if $(filter command line environment,$(origin REDERIVE)),given-binary,build)
given-binary:
	@[ -x "$(REDERIVE)" ] || { echo "REDERIVE=$(REDERIVE) is not an executable: build it first (make build, make build-fixed)"; exit 1; }
nightly: $(WALKTHROUGH_BUILD)
	@mkdir -p out
	@# 3 (skipped records, reported) is a success, as for `make run`; any other status is named.
	$(REDERIVE) run Pipelines/nightly.yml --input $(INCOMING) --db $(DB) --out $(OUT); s=$$?; \
	  [ $$s -eq 0 ] || [ $$s -eq 3 ] || { echo "nightly: rederive exited $$s (see docs/scheduling.md)" >&2; exit $$s; }

# Backfill after a calculation fix, gated by its preview: `make backfill` previews every record
# of the store Pipelines/backfill.yml names (out/demo.sqlite; DB=path or URL for another) and
# writes a plan (out/backfill-preview-<tag>/, out/backfill-plan-<tag>.json: <tag> is the store's,
# so every store has its own) and stops; after reading the preview, `make backfill APPLY=1`
# (same DB=) applies exactly that plan (Pipelines/backfill-apply.yml; refused, nothing written,
# if the store or the build changed since). Run again after a crash or a kill, it finishes the
# same apply; once done, it says so and succeeds. Undo: rederive revert --run N (the apply logs N).
BACKFILL_STORE = $(if $(filter command line environment,$(origin DB)),--db $(DB))
backfill: $(WALKTHROUGH_BUILD)
	@[ -z "$(BACKFILL_DB)" ] || { echo "backfill: BACKFILL_DB is no longer read; use DB=$(BACKFILL_DB)"; exit 1; }
	@[ -n "$(BACKFILL_STORE)" ] || [ -f out/demo.sqlite ] || { echo "backfill: no store at out/demo.sqlite; run 'make run' or set DB=..."; exit 1; }
	@if [ "$(APPLY)" = 1 ]; then \
	  $(REDERIVE) run Pipelines/backfill-apply.yml $(BACKFILL_STORE); \
	else \
	  $(REDERIVE) run Pipelines/backfill.yml $(BACKFILL_STORE) && \
	  echo "Read the preview logged above (preview.md or preview.html); then apply: make backfill $(if $(BACKFILL_STORE),DB=$(DB) )APPLY=1"; \
	fi

# Install: the binary, the man page (swift-argument-parser's generate-manual plugin, which
# works offline: the plugin ships with the package), shell completions (generated by the
# binary itself: paths complete for --db, pipeline files and exports) and the sample rooms,
# where `rederive generate` looks for them without --rooms (PREFIX/share/rederive/rooms; their
# licence, Fixtures/rooms/LICENSE.txt, beside them; the .deb has it in its copyright file).
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR      = $(DESTDIR)$(PREFIX)/bin
MAN1DIR     = $(DESTDIR)$(PREFIX)/share/man/man1
BASHCOMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
MANPAGE     = $(BUILD_DIR)/plugins/GenerateManual/outputs/rederive/rederive.1
ROOMSDIR    = $(DESTDIR)$(PREFIX)/share/rederive/rooms

install: build
	$(SWIFT) package generate-manual --configuration $(CONFIG)
	$(MAKE) install-files

# The copying half of install, for an already built binary and man page.
install-files:
	install -d $(BINDIR) $(MAN1DIR) $(BASHCOMPDIR) $(ZSHCOMPDIR) $(FISHCOMPDIR) $(ROOMSDIR)
	install -m 755 $(REDERIVE) $(BINDIR)/rederive
	install -m 644 $(MANPAGE) $(MAN1DIR)/rederive.1
	install -m 644 Fixtures/rooms/*.capturedRoom.json Fixtures/rooms/LICENSE.txt $(ROOMSDIR)/
	$(REDERIVE) --generate-completion-script bash > $(BASHCOMPDIR)/rederive
	$(REDERIVE) --generate-completion-script zsh > $(ZSHCOMPDIR)/_rederive
	$(REDERIVE) --generate-completion-script fish > $(FISHCOMPDIR)/rederive.fish
	@echo "Installed $(BINDIR)/rederive (man rederive; completions for bash, zsh, fish; sample rooms in $(ROOMSDIR))"

uninstall:
	rm -f $(BINDIR)/rederive $(MAN1DIR)/rederive.1 $(BASHCOMPDIR)/rederive $(ZSHCOMPDIR)/_rederive \
	    $(FISHCOMPDIR)/rederive.fish
	rm -rf $(ROOMSDIR)
	-rmdir $(DESTDIR)$(PREFIX)/share/rederive 2>/dev/null

# Deployable builds (packaging/package): one release build with the Swift runtime linked in,
# so hosts need no toolchain, only the C libraries it names (Debian packages, derived from the
# binary by packaging/deb-depends). Built in its own scratch path, as its flags differ from
# .build's: no $ORIGIN run path, symbols bound at start (-z now: the GOT is made read-only).
# generate-manual (swift-argument-parser's tool) writes the man page from it.
# .ci/package-check installs the .deb, runs it without a toolchain and removes it again.
DIST_BUILD ?= .build-dist
DIST_DIR   ?= dist
DIST_FLAGS  = -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
	--scratch-path $(DIST_BUILD)

dist-build: deps
	$(SWIFT) build $(DIST_FLAGS) --product rederive
	$(SWIFT) build $(DIST_FLAGS) --product generate-manual

dist: dist-build
	@MAKE="$(MAKE)" packaging/package dist $(DIST_BUILD) $(DIST_DIR)

deb: dist-build
	@MAKE="$(MAKE)" packaging/package deb $(DIST_BUILD) $(DIST_DIR)

# Formatting: swift-format (it ships with the toolchain) with the committed .swift-format;
# `make format` rewrites, `make format-check` (run first by `make test`) fails on any
# difference and on any line longer than the configured 120 columns.
SWIFT_SOURCES = Sources Tests Package.swift
format:
	$(SWIFT) format -i -r $(SWIFT_SOURCES)

format-check:
	@$(SWIFT) format lint --strict -r $(SWIFT_SOURCES)
	@long=$$(git ls-files '*.swift' | xargs awk 'length > 120 {print FILENAME ":" FNR ": " length " columns"}'); \
	  if [ -n "$$long" ]; then echo "$$long"; echo "lines over 120 columns (see .swift-format)"; exit 1; fi

# The suite and the fuzzing (make fuzz for $(FUZZ_TEST_SECONDS) s: its own build in $(FUZZ_BUILD), then
# libFuzzer) run side by side: the suite mostly waits on the rederive processes and the PostgreSQL
# server it starts, so on 2 cores the fuzz build and run take the idle core instead of adding
# about 95 s after the suite. Either failing fails.
# The suite runs as TEST_SHARDS processes at once (.ci/test-shards: its classes dealt by their measured
# time, .ci/test-durations or the last run's .build/test-durations;
# TEST_SHARDS=1 is one plain swift test), make fuzz beside them. CI keeps only the output's end, so the
# suite's log follows the fuzzing's and a summary (counts, then every failing line) comes last.
# Three, on 2 cores: the suite mostly waits, and its classes took no longer in 3 shards than in 2
# (load 5, the suite's processes at 92% of one core), so it ended in 314 s where 2 would take ~440 s.
TEST_SHARDS ?= 3
test: deps format-check
	$(SWIFT) build --build-tests
	@mkdir -p $(FUZZ_BUILD); \
	$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) > $(FUZZ_BUILD)/test-fuzz.log 2>&1 & fuzz=$$!; \
	echo ".ci/test-shards $(TEST_SHARDS): the suite as $(TEST_SHARDS) processes (make fuzz beside it: $(FUZZ_BUILD)/test-fuzz.log)"; \
	.ci/test-shards $(TEST_SHARDS) $(SWIFT) > $(FUZZ_BUILD)/test-suite.log 2>&1; tests=$$?; \
	wait $$fuzz; fuzzed=$$?; \
	echo "make fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS) (run beside the suite):"; cat $(FUZZ_BUILD)/test-fuzz.log; \
	echo "the suite (.ci/test-shards $(TEST_SHARDS)):"; cat $(FUZZ_BUILD)/test-suite.log; \
	echo "make test: summary"; \
	grep -E "^test-shards: shard" $(FUZZ_BUILD)/test-suite.log; tail -n $$(( $(TEST_SHARDS) + 1 )) $(FUZZ_BUILD)/test-suite.log; \
	grep -E ": error: |Fatal error|failed \(|[Ss]egmentation fault" $(FUZZ_BUILD)/test-suite.log | head -n 40; \
	[ $$tests -eq 0 ] || echo "make test: the suite failed (exit $$tests): the lines above, $(FUZZ_BUILD)/test-suite.log"; \
	[ $$fuzzed -eq 0 ] || echo "make test: make fuzz failed (exit $$fuzzed): $(FUZZ_BUILD)/test-fuzz.log"; \
	[ $$tests -eq 0 ] && [ $$fuzzed -eq 0 ]

# Fuzzing (Sources/RederiveFuzz): one export line through parse, decode and derive, with the
# pipeline's promises checked (no null or non-finite summary value, known codes only,
# byte-exact raw room). Seeds: Fixtures/fuzz-corpus (small lines from the sample rooms and
# every corrupt kind); what libFuzzer adds goes to $(FUZZ_DIR)/corpus, crashes to $(FUZZ_DIR)/
# (both under the ignored build folder). A crash found: fix it, then commit its input to
# Fixtures/fuzz-corpus, which the plain build replays: .build/debug/RederiveFuzz Fixtures/fuzz-corpus
FUZZ_SECONDS      ?= 60
FUZZ_TEST_SECONDS ?= 25
FUZZ_BUILD        ?= .build-fuzz
FUZZ_DIR          ?= $(FUZZ_BUILD)/fuzz
FUZZ_FLAGS         = -Xswiftc -sanitize=fuzzer -Xswiftc -DREDERIVE_LIBFUZZER -Xcxx -fsanitize=fuzzer-no-link
fuzz-build: deps
	$(SWIFT) build -c debug --product RederiveFuzz --scratch-path $(FUZZ_BUILD) $(FUZZ_FLAGS)

fuzz: fuzz-build
	@mkdir -p $(FUZZ_DIR)/corpus
	$(FUZZ_BUILD)/debug/RederiveFuzz $(FUZZ_DIR)/corpus Fixtures/fuzz-corpus -max_total_time=$(FUZZ_SECONDS) \
	    -max_len=32768 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_DIR)/ -print_final_stats=1

include Fixtures/fixtures.mk
fixtures: build

# Benchmark: a generated corpus shaped like real records (~120 KB each, mostly the opaque
# coreModel; 20% without floors; 0.5% corrupt), then import and derive --all with 1 and 2
# workers. Each line prints records/s, MB/s and the process's peak resident memory.
BENCH_RECORDS ?= 20000
BENCH_DIR     ?= bench-corpus
BENCH_CORPUS   = $(BENCH_DIR)/corpus-$(BENCH_RECORDS).jsonl.zst
BENCH_DB       = $(BENCH_DIR)/bench.sqlite

# Picks "key":value out of the --json run summary.
BENCH_FIELD = sed -n 's/.*"$(1)":\([^,}]*\).*/\1/p'
BENCH_LINE  = j=$$(cat $(BENCH_DIR)/last.json); \
	printf '%-34s %8s records/s %8s MB/s  peak %4s MB  (%s records, %s s)\n' "$(1)" \
	  "$$(echo "$$j" | $(call BENCH_FIELD,recordsPerSecond))" "$$(echo "$$j" | $(call BENCH_FIELD,megabytesPerSecond))" \
	  "$$(echo "$$j" | $(call BENCH_FIELD,peakResidentMB))" "$$(echo "$$j" | $(call BENCH_FIELD,read))" \
	  "$$(echo "$$j" | $(call BENCH_FIELD,durationSeconds))"

bench: build
	@mkdir -p $(BENCH_DIR)
	@[ -f $(BENCH_CORPUS) ] || $(REDERIVE) generate --out $(BENCH_CORPUS) --records $(BENCH_RECORDS) --seed 42 \
	    --core-model-bytes 100000 --floorless-fraction 0.2 --corrupt-fraction 0.005 --frames-every 1000
	@ls -l $(BENCH_CORPUS)
	@echo "MB/s: decompressed export bytes for import and summarize; raw room bytes read (without coreModel) for derive"
	@for w in 1 2; do rm -f $(BENCH_DB) $(BENCH_DB)-wal $(BENCH_DB)-shm; \
	  $(REDERIVE) import $(BENCH_CORPUS) --db $(BENCH_DB) --workers $$w --quiet --json \
	    --report $(BENCH_DIR)/import-issues.jsonl > $(BENCH_DIR)/last.json; \
	  s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s; $(call BENCH_LINE,import$(,) $$w worker(s)); done
	@# Each derive beside its floor (rederive floor: the derive's own query and batches with a bare
	@# On-Demand pass over each raw room, on as many threads, nothing built): what it could not beat.
	@for w in 1 2; do $(REDERIVE) derive --db $(BENCH_DB) --all --rewrite --workers $$w --quiet --json \
	    > $(BENCH_DIR)/last.json || exit $$?; $(call BENCH_LINE,derive --all --rewrite$(,) $$w worker(s)); \
	  d=$$(cat $(BENCH_DIR)/last.json | $(call BENCH_FIELD,durationSeconds)); \
	  f=$$($(REDERIVE) floor --db $(BENCH_DB) --workers $$w --quiet | $(call BENCH_FIELD,seconds)) || exit $$?; \
	  awk -v d=$$d -v f=$$f -v w=$$w 'BEGIN { printf "%-34s %8.2f s  (read + bare parse, %d thread(s))\n", \
	    "floor, " w " worker(s)", f, w; printf "derive vs floor: %.2f× (%d worker(s))\n", d / f, w }'; done
	@$(REDERIVE) derive --db $(BENCH_DB) --all --workers 2 --quiet --json > $(BENCH_DIR)/last.json || exit $$?; \
	  $(call BENCH_LINE,derive --all (unchanged)$(,) 2 workers)
	@# The cost of undo: every summary replaced (each kept in summary_history, same transaction)
	@# against the rewrite above, which writes the same rows but keeps nothing (same values).
	@for w in 1 2; do python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); \
	    c.execute('UPDATE summary SET summary_version = 0'); c.commit()" $(BENCH_DB) || exit 1; \
	  $(REDERIVE) derive --db $(BENCH_DB) --all --workers $$w --quiet --json > $(BENCH_DIR)/last.json || exit $$?; \
	  $(call BENCH_LINE,derive --all$(,) every summary kept in history$(,) $$w worker(s)); done
	@# What guards a backfill, beside the write it guards, all by the wall clock (process start
	@# included) on the same stale store, 2 workers: derive --all writing every summary, the
	@# preview that writes the plan, and the apply of that plan: its check is what it adds to the
	@# write (targets: a dry run within 1.5x of its write, the check within 0.5x). Then the undo of
	@# that apply: revert --dry-run against the revert it previews.
	@.ci/bench-backfill $(REDERIVE) $(BENCH_DB) $(BENCH_DIR) sqlite
	@python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); \
	  print('summary history: %d rows, %.1f MB of summary JSON' % c.execute( \
	  'SELECT COUNT(*), COALESCE(SUM(length(summary_json)),0)/1e6 FROM summary_history').fetchone())" $(BENCH_DB)
	@for w in 1 2; do $(REDERIVE) summarize $(BENCH_CORPUS) --workers $$w --out $(BENCH_DIR)/summaries.jsonl.zst \
	    --quiet --json > $(BENCH_DIR)/last.json; s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s; \
	  $(call BENCH_LINE,summarize (no store)$(,) $$w worker(s)); done
	@$(MAKE) --no-print-directory bench-postgres
	@$(MAKE) --no-print-directory bench-preview

# Two builds compared on the same generated corpus (.ci/bench-compare): BASE (a git ref, built
# release in a worktree under .build-base/, its binary kept as $(BENCH_DIR)/rederive-SHA) against
# this checkout, in $(BENCH_COMPARE_PAIRS) interleaved pairs (A B A B ...): import, derive --all
# --rewrite, derive --all with nothing to do, summarize; prints each step's median ratio
# new/base with its min-max. Use it on every performance-sensitive change.
BASE                  ?= HEAD
BENCH_COMPARE_RECORDS ?= 100000
BENCH_COMPARE_PAIRS   ?= 5
BENCH_COMPARE_CORPUS   = $(BENCH_DIR)/compare-$(BENCH_COMPARE_RECORDS).jsonl.zst
bench-compare: build
	@sha=$$(git rev-parse --verify -q "$(BASE)^{commit}") || { echo "bench-compare: BASE=$(BASE) is not a commit"; exit 1; }; \
	mkdir -p $(BENCH_DIR) .build-base; base_bin=$(BENCH_DIR)/rederive-$$sha; \
	if [ ! -x $$base_bin ]; then \
	  echo "bench-compare: building $(BASE) ($$sha) in .build-base/src (release)"; \
	  if [ -d .build-base/src ]; then git -C .build-base/src checkout -q --detach $$sha; \
	  else git worktree add -q --detach .build-base/src $$sha; fi || exit 1; \
	  (cd .build-base/src && $(SWIFT) build -c release --product rederive --scratch-path ../scratch) || exit 1; \
	  cp .build-base/scratch/release/rederive $$base_bin || exit 1; \
	fi; \
	[ -f $(BENCH_COMPARE_CORPUS) ] || $(REDERIVE) generate --out $(BENCH_COMPARE_CORPUS) \
	    --records $(BENCH_COMPARE_RECORDS) --seed 3 --core-model-bytes 2000 --floorless-fraction 0.2 --quiet || exit 1; \
	echo "base: $(BASE) ($$sha); new: this checkout ($$(git rev-parse --short HEAD)$$(git diff --quiet || echo ', with uncommitted changes'))"; \
	.ci/bench-compare $$base_bin $(REDERIVE) $(BENCH_COMPARE_CORPUS) $(BENCH_DIR)/compare $(BENCH_COMPARE_PAIRS)

# PostgreSQL lines (.ci/bench-postgres): the same corpus into a throwaway local cluster (fsync
# on), then derive --all --rewrite with 1 and 2 worker processes (records/s over the wall clock);
# each import beside a bare binary COPY of the same rows, for this corpus and for
# $(BENCH_SMALL_RECORDS) small records (--core-model-bytes 2000), where per-record costs weigh more.
BENCH_SMALL_RECORDS ?= 40000
BENCH_SMALL_CORPUS   = $(BENCH_DIR)/small-$(BENCH_SMALL_RECORDS).jsonl.zst
bench-postgres: build
	@mkdir -p $(BENCH_DIR)
	@[ -f $(BENCH_CORPUS) ] || $(REDERIVE) generate --out $(BENCH_CORPUS) --records $(BENCH_RECORDS) --seed 42 \
	    --core-model-bytes 100000 --floorless-fraction 0.2 --corrupt-fraction 0.005 --frames-every 1000
	@[ -f $(BENCH_SMALL_CORPUS) ] || $(REDERIVE) generate --out $(BENCH_SMALL_CORPUS) --records $(BENCH_SMALL_RECORDS) \
	    --seed 3 --core-model-bytes 2000 --floorless-fraction 0.2 --quiet
	@.ci/bench-postgres $(REDERIVE) $(BENCH_CORPUS) $(BENCH_SMALL_CORPUS)

# Sharing the server (.ci/bench-gentle): a corpus of GENTLE_SIZING_RECORDS derived on SQLite and
# on a throwaway PostgreSQL cluster (2 processes) with --batch-seconds GENTLE_SIZING_SECONDS (batch
# working times after the first 10 ÷ it: p10/p50/p90, the share within ±30 %, where the misses'
# time went, and the machine's noise; NICE=N runs them under nice -n N), and beside them the same at the
# longer GENTLE_LONG_SECONDS on a corpus of GENTLE_LONG_RECORDS (its first half on PostgreSQL; 0 seconds: left out); a corpus of GENTLE_RECORDS: 4 worker processes under --max-rate GENTLE_RATE (records/s
# over 20 s); then a streaming standby of that cluster whose replay runs GENTLE_REPLAY_SHARE of every
# GENTLE_REPLAY_PERIOD seconds (held up the rest), and the derive with --batch-seconds GENTLE_SECONDS and --throttle off and on under
# --max-standby-lag GENTLE_MAX_LAG.
GENTLE_SIZING_RECORDS ?= 120000
GENTLE_SIZING_SECONDS ?= 0.1
GENTLE_LONG_SECONDS ?= 0.25
GENTLE_LONG_RECORDS ?= 400000
GENTLE_RECORDS ?= 40000
GENTLE_SECONDS ?= 0.2
GENTLE_RATE    ?= 1000
GENTLE_MAX_LAG ?= 16MB
GENTLE_REPLAY_SHARE ?= 0.1
GENTLE_REPLAY_PERIOD ?= 4
bench-gentle: build
	@.ci/bench-gentle $(REDERIVE) --records $(GENTLE_RECORDS) --batch-seconds $(GENTLE_SECONDS) --rate $(GENTLE_RATE) \
	  --max-lag $(GENTLE_MAX_LAG) --replay-share $(GENTLE_REPLAY_SHARE) --replay-period $(GENTLE_REPLAY_PERIOD) \
	  --sizing-records $(GENTLE_SIZING_RECORDS) --sizing-seconds $(GENTLE_SIZING_SECONDS) \
	  --long-seconds $(GENTLE_LONG_SECONDS) --long-records $(GENTLE_LONG_RECORDS)

# Scale demo: a throwaway local PostgreSQL cluster (.ci/pg-cluster, stopped and removed at the
# end), the fixtures imported into it, then one derive command that starts 2 worker processes;
# each claims ranges of SCALE_RANGE records in the database and logs the ranges it committed
# and its records/s. The same derive command started on other hosts would join the same run.
# SCALE_RECORDS=N adds a generated corpus of N records (with SCALE_RANGE=500, say) for rates
# that mean something.
SCALE_RANGE   ?= 4
SCALE_RECORDS ?= 0
SCALE_DIR   ?= /tmp/rederive-scale-demo
scale-demo: build
	@url=$$(.ci/pg-cluster start $(SCALE_DIR)) || exit 1; trap '.ci/pg-cluster stop $(SCALE_DIR)' EXIT; \
	echo "PostgreSQL: $$url (a throwaway cluster in $(SCALE_DIR))"; \
	$(REDERIVE) import Fixtures/exports --db $$url --quiet --report $(SCALE_DIR)/import-issues.jsonl; \
	s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s; \
	if [ "$(SCALE_RECORDS)" -gt 0 ]; then \
	  $(REDERIVE) generate --out $(SCALE_DIR)/corpus.jsonl.zst --records $(SCALE_RECORDS) --seed 5 --quiet && \
	  $(REDERIVE) import $(SCALE_DIR)/corpus.jsonl.zst --db $$url --quiet || exit $$?; fi; \
	$(REDERIVE) derive --db $$url --all --rewrite --processes 2 --workers 1 --batch-size $(SCALE_RANGE) \
	    || exit $$?; \
	$(REDERIVE) status --db $$url

# Scale model (.ci/scale-model, as root): a throwaway cluster, a generated corpus of
# SCALE_MODEL_RECORDS, then derive with 1, 2, 4 and 8 worker processes started together, each
# capped at SCALE_MODEL_QUOTA of a core by the kernel's CPU controller (cgroup v2 cpu.max, else v1
# cpu.cfs_quota_us) as a host of its own would be: records/s, speed-up, efficiency, the server's
# CPU seconds per 1,000 records, and the ceiling that predicts for a server of K cores.
SCALE_MODEL_RECORDS ?= 40000
SCALE_MODEL_QUOTA   ?= 0.1
SCALE_MODEL_N       ?= 1,2,4,8
scale-model: build
	@.ci/scale-model $(REDERIVE) --records $(SCALE_MODEL_RECORDS) --quota $(SCALE_MODEL_QUOTA) \
	    --processes $(SCALE_MODEL_N)

# Preview benchmark: a store of BENCH_PREVIEW_RECORDS small records (tiny coreModel) whose
# stored summaries are then perturbed (python3's sqlite3) so every record changes a float
# (ceiling, area), a count (doors), a string (method) and a structured field, at version 0;
# then `derive --dry-run --all` writes the four preview files. Prints wall time and the peak
# resident memory (GNU time's maximum RSS). The store is kept between runs.
BENCH_PREVIEW_RECORDS ?= 100000
BENCH_PREVIEW_DB       = $(BENCH_DIR)/preview-$(BENCH_PREVIEW_RECORDS).sqlite
BENCH_PREVIEW_SQL      = UPDATE summary SET summary_version = 0, summary_json = json_set(summary_json, \
	'$$.ceiling_height_m', round(json_extract(summary_json, '$$.ceiling_height_m') + 0.02 * (record_seq % 5 + 1), 2), \
	'$$.estimated_floor_area_sqm', round(json_extract(summary_json, '$$.estimated_floor_area_sqm') * (1 + (record_seq % 97) / 500.0), 2), \
	'$$.door_count', json_extract(summary_json, '$$.door_count') + record_seq % 3 + 1, \
	'$$.floor_area_method', CASE record_seq % 4 WHEN 0 THEN 'none' ELSE 'wall_hull' END, \
	'$$.section_labels', json_array('old'))
bench-preview: build
	@mkdir -p $(BENCH_DIR)
	@if [ ! -f $(BENCH_PREVIEW_DB) ]; then \
	  $(REDERIVE) generate --out $(BENCH_DIR)/preview-corpus.jsonl.zst --records $(BENCH_PREVIEW_RECORDS) --seed 11 \
	    --core-model-bytes 64 --floorless-fraction 0.2 --frames-every 1000 && \
	  $(REDERIVE) import $(BENCH_DIR)/preview-corpus.jsonl.zst --db $(BENCH_PREVIEW_DB).partial --quiet && \
	  python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()" \
	    $(BENCH_PREVIEW_DB).partial "$(BENCH_PREVIEW_SQL)" && \
	  mv $(BENCH_PREVIEW_DB).partial $(BENCH_PREVIEW_DB) && rm -f $(BENCH_DIR)/preview-corpus.jsonl.zst; fi
	@rm -rf $(BENCH_DIR)/preview
	@/usr/bin/time -f '%e %M' -o $(BENCH_DIR)/preview.time $(REDERIVE) derive --db $(BENCH_PREVIEW_DB) --all --dry-run \
	  --preview-out $(BENCH_DIR)/preview --quiet; s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s
	@read secs kb < $(BENCH_DIR)/preview.time; \
	  printf '%-34s %8s records %7s s  peak %4s MB  (changes.jsonl.zst %s)\n' "derive --dry-run (all change)" \
	    "$(BENCH_PREVIEW_RECORDS)" "$$secs" "$$((kb / 1024))" "$$(du -h $(BENCH_DIR)/preview/changes.jsonl.zst | cut -f1)"

clean:
	rm -rf .build .build-* out bench-corpus $(DIST_DIR)
