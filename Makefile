# The two entry points: `make demo` and `make test`. Both install, configure and build first.
# `make bench` runs the benchmarks of bench/ and writes BENCHMARKS.md.
BUILD ?= build
JOBS ?= 2
DEMO_DIR ?= $(BUILD)/demo

.PHONY: deps configure build demo test bench clean

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

clean:
	rm -rf $(BUILD)
