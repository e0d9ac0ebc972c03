# Regenerates the committed synthetic fixtures (Fixtures/exports, Fixtures/corrupt) from the
# Apple sample rooms in Fixtures/rooms, and the golden plan drawings (Fixtures/drawings: one SVG
# per record of DRAWING_EXPORTS, by `summarize --svg-dir`; review them as text diffs). The generator is deterministic: running this on an
# unchanged tree reproduces the committed files byte for byte (check with `git status`).
# Needs the rederive binary: `swift build -c release` first (or set REDERIVE).
# Include from the main Makefile: `include Fixtures/fixtures.mk`, then `make fixtures`.

REDERIVE ?= .build/release/rederive
FIXTURE_ROOMS ?= Fixtures/rooms
FIXTURE_GEN = $(REDERIVE) generate --rooms $(FIXTURE_ROOMS)
DRAWING_EXPORTS ?= Fixtures/exports/rooms-v2.jsonl Fixtures/exports/rooms-floorless.jsonl.zst

.PHONY: fixtures
fixtures:
	@test -x $(REDERIVE) || { echo "fixtures: $(REDERIVE) not found; run swift build -c release"; exit 1; }
	@mkdir -p Fixtures/exports Fixtures/corrupt
	$(FIXTURE_GEN) --out Fixtures/exports/rooms-v1.jsonl.zst --records 8 --seed 101 --formats 1 --core-model-bytes 2000
	$(FIXTURE_GEN) --out Fixtures/exports/rooms-v2.jsonl --records 6 --seed 102 --formats 2 --core-model-bytes 2000
	$(FIXTURE_GEN) --out Fixtures/exports/rooms-v3-multiframe.jsonl.zst --records 9 --seed 103 --formats 3 --frames-every 3
	$(FIXTURE_GEN) --out Fixtures/exports/rooms-floorless.jsonl.zst --records 9 --seed 104 --floorless-fraction 1 --core-model-bytes 2000
	$(FIXTURE_GEN) --out Fixtures/corrupt/corrupt-records.jsonl --records 20 --seed 105 --corrupt-fraction 0.65 --core-model-bytes 2000 --manifest > Fixtures/corrupt/corrupt-records.manifest.tsv
	$(FIXTURE_GEN) --out Fixtures/corrupt/truncated.jsonl.zst --records 9 --seed 106 --frames-every 3 --truncate-last-frame --core-model-bytes 2000
	rm -rf Fixtures/drawings
	$(REDERIVE) summarize $(DRAWING_EXPORTS) --svg-dir Fixtures/drawings --quiet > /dev/null
