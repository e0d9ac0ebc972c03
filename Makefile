# Rederive: re-derive room-scan summaries from raw RoomPlan data, in bulk.
#
# Targets:
#   make run        install missing system packages, build (release) and run the demo
#                   pipeline (Pipelines/demo.yml) over Fixtures/ into $(DEMO_DB)
#   make test       install missing system packages, build and run the whole test suite
#   make fixtures   regenerate the committed fixtures from the real sample rooms
#   make bench      generate a corpus ($(BENCH_RECORDS) records) and time import and derive
#                   (records/s, MB/s, peak resident memory); no test asserts on time
#   make bench-preview  time a dry-run preview where every one of $(BENCH_PREVIEW_RECORDS) records
#                   changes (5 fields, all kinds) and print its peak resident memory
#   make nightly    run Pipelines/nightly.yml (INCOMING=dir DB=path OUT=path to override)
#   make backfill   run Pipelines/backfill.yml (dry run first, then apply; DB=path)
#   make deps       only install the system packages (libzstd-dev, libsqlite3-dev, libsimdjson-dev)
#   make clean      remove build products and generated files (never Fixtures/)

SWIFT      ?= swift
CONFIG     ?= release
BUILD_DIR  ?= .build
REDERIVE   ?= $(BUILD_DIR)/$(CONFIG)/rederive
DEMO_DB    ?= out/demo.sqlite
, := ,
SYSTEM_PACKAGES := libzstd-dev libsqlite3-dev libsimdjson-dev pkg-config

.PHONY: run test fixtures bench bench-preview nightly backfill deps build clean

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
	rm -rf .build .build-* out bench-corpus
