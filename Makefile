# The two entry points: `make demo` and `make test`. Both install, configure and build first.
# `make bench` runs the benchmarks of bench/ and writes BENCHMARKS.md; `make bench-instructions`
# counts the training step's instructions, cache misses and branch mispredictions under
# cachegrind (bench/INSTRUCTIONS.md, ~8 minutes).
# `make test-sanitize` runs the tests built with ASan+UBSan (build-sanitize/), `make test-tsan`
# the concurrent parts' tests built with ThreadSanitizer (build-tsan/); `make fuzz` runs
# the fuzz targets of fuzz/ under AFL++ (build-fuzz/); `make soak` runs the 2-rank soak test;
# `make test-fetchcontent` builds a user project that takes fulgur with FetchContent
# (build-fetchcontent/).
BUILD ?= build
JOBS ?= 2
DEMO_DIR ?= $(BUILD)/demo

.PHONY: deps configure build demo test bench bench-instructions test-sanitize test-tsan test-fetchcontent fuzz soak clean

deps:
	scripts/install-deps

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo

build: configure
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	scripts/demo $(BUILD) $(DEMO_DIR)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	scripts/bench $(BUILD)

bench-instructions: build
	/usr/bin/python3 bench/instructions.py --bin $(BUILD)/bin/loop-bench --jobs $(JOBS) \
	  --out bench/INSTRUCTIONS.md

test-sanitize: deps
	scripts/test-sanitize

test-tsan: deps
	scripts/test-tsan

test-fetchcontent: deps
	scripts/check-fetchcontent

fuzz: build
	scripts/fuzz $(BUILD)

soak: build
	scripts/soak $(BUILD)

clean:
	rm -rf $(BUILD) build-sanitize build-tsan build-fuzz build-fetchcontent
