# Rederive: re-derive room-scan summaries from raw RoomPlan data, in bulk.
#
# Targets:
#   make run        install missing system packages, build (release) and run the demo
#                   pipeline (Pipelines/demo.yml) over Fixtures/ into $(DEMO_DB)
#   make test       install missing system packages, build and run the whole test suite
#   make fixtures   regenerate the committed fixtures from the real sample rooms
#   make bench      generate a corpus ($(BENCH_RECORDS) records) and time import and derive
#                   (records/s, MB/s, peak resident memory); no test asserts on time
#   make nightly    run Pipelines/nightly.yml (INCOMING=dir DB=path OUT=path to override)
#   make backfill   run Pipelines/backfill.yml (dry run first, then apply; DB=path)
#   make fuzz       libFuzzer over the record parser, room decoder and derivation for
#                   $(FUZZ_SECONDS) s (default 60), seeded from Fixtures/fuzz-corpus
#   make deps       only install the system packages (libzstd-dev, libsqlite3-dev, libsimdjson-dev)
#   make clean      remove build products and generated files (never Fixtures/)

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  ?= .build
REDERIVE   ?= $(BUILD_DIR)/$(CONFIG)/rederive
DEMO_DB    ?= out/demo.sqlite
, := ,
SYSTEM_PACKAGES := libzstd-dev libsqlite3-dev libsimdjson-dev pkg-config

.PHONY: run test fixtures bench nightly backfill deps build clean fuzz fuzz-build

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

# The demo: import every fixture (good and corrupt) into a local store, then re-derive
# whatever is stale. Skipped corrupt records (exit 3) are expected here.
run: build
	@mkdir -p out
	$(REDERIVE) run Pipelines/demo.yml --db $(DEMO_DB); s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ]
	@echo "Store: $(DEMO_DB); issues: out/demo-import-issues.jsonl; summaries: out/demo-summaries.jsonl.zst"

# Nightly job: new exports from INCOMING (already-imported files skipped by content hash),
# derive stale, export summaries. Run it twice: the second run imports nothing new.
INCOMING ?= Fixtures/exports
DB       ?= out/nightly.sqlite
OUT      ?= out/nightly-summaries.jsonl.zst
nightly: build
	@mkdir -p out
	$(REDERIVE) run Pipelines/nightly.yml --input $(INCOMING) --db $(DB) --out $(OUT)

# Backfill after a calculation fix: dry run (preview in out/backfill-preview/), then apply.
BACKFILL_DB ?= $(DEMO_DB)
backfill: build
	@[ -f $(BACKFILL_DB) ] || { echo "backfill: no store at $(BACKFILL_DB); run 'make run' (or set BACKFILL_DB=...) first"; exit 1; }
	$(REDERIVE) run Pipelines/backfill.yml --db $(BACKFILL_DB)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --disable-swift-testing
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_TEST_SECONDS)

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
	@for w in 1 2; do $(REDERIVE) derive --db $(BENCH_DB) --all --rewrite --workers $$w --quiet --json \
	    > $(BENCH_DIR)/last.json || exit $$?; $(call BENCH_LINE,derive --all --rewrite$(,) $$w worker(s)); done
	@$(REDERIVE) derive --db $(BENCH_DB) --all --workers 2 --quiet --json > $(BENCH_DIR)/last.json || exit $$?; \
	  $(call BENCH_LINE,derive --all (unchanged)$(,) 2 workers)
	@for w in 1 2; do $(REDERIVE) summarize $(BENCH_CORPUS) --workers $$w --out $(BENCH_DIR)/summaries.jsonl.zst \
	    --quiet --json > $(BENCH_DIR)/last.json; s=$$?; [ $$s -eq 0 ] || [ $$s -eq 3 ] || exit $$s; \
	  $(call BENCH_LINE,summarize (no store)$(,) $$w worker(s)); done

clean:
	rm -rf .build .build-* out bench-corpus
