# The two commands of the README: `make run` and `make test`. Both install their own dependencies.
JOBS ?= $(shell nproc)

.PHONY: deps clients build build-planter build-sanitize build-fuzz run test test-release test-sanitize fuzz bench format clean

deps:
	@scripts/install-deps

# kubectl 1.32 and helm 3.17 for the sim's tests (npm), into build/tools.
clients: deps
	@scripts/install-clients

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-sanitize: deps
	cmake --preset sanitize >/dev/null
	cmake --build --preset sanitize -j $(JOBS)

# libFuzzer targets (clang, ASan+UBSan), each run for FUZZ_SECONDS, or FUZZ_RUNS executions (docs/fuzzing.md).
FUZZ_SECONDS ?= 60
build-fuzz: deps
	cmake --preset fuzz >/dev/null
	cmake --build --preset fuzz -j $(JOBS)

fuzz: build-fuzz
	scripts/fuzz $(FUZZ_SECONDS) $(FUZZ_RUNS)

# Builds only what it runs (the planter executable); `make test` builds the rest.
build-planter:
	@scripts/install-deps build
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS) --target planter

run: build-planter
	build/release/src/planter plant --sim examples/hello-world/seed.yaml --timeline build/hello-world.html

# The release suite, then the sanitized one; each next build runs niced while a suite waits (scripts/test).
test: build clients
	JOBS=$(JOBS) scripts/test

test-release: build clients
	ctest --preset release -j $(JOBS)

# The unit tests, the sim under real clients, the Kubernetes client and the engine, with ASan+UBSan.
test-sanitize: build-sanitize clients
	ctest --preset sanitize -j $(JOBS) -L 'unit|sim|kube|plant'

# Every benchmark prints its numbers; scripts/figures then writes docs/status.md's figures table.
bench: build clients
	build/release/bench/machine_bench
	build/release/bench/plan_bench
	build/release/bench/sim_bench
	build/release/bench/fleet_bench
	build/release/bench/kube_bench
	build/release/bench/plant_bench
	build/release/bench/scheduler_bench
	build/release/bench/stack_fit_bench
	build/release/bench/planter_scheduler_bench
	python3 bench/operator_fairness_bench.py build/release/src/planter build/tools/kubectl
	scripts/figures

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf build
