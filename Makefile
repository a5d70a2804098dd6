# The two entry points: `make demo` and `make test`. Both install, configure and build first.
BUILD ?= build
JOBS ?= 2
DEMO_DIR ?= $(BUILD)/demo

.PHONY: deps configure build demo test clean

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

clean:
	rm -rf $(BUILD)
