# The two commands of the README: `make run` and `make test`. Both install their own dependencies.
JOBS ?= $(shell nproc)

.PHONY: deps build build-sanitize run test test-release test-sanitize bench format clean

deps:
	@scripts/install-deps

build: deps
	cmake --preset release >/dev/null
	cmake --build --preset release -j $(JOBS)

build-sanitize: deps
	cmake --preset sanitize >/dev/null
	cmake --build --preset sanitize -j $(JOBS)

run: build
	build/release/src/planter plan examples/hello-world/seed.yaml

test: test-release test-sanitize

test-release: build
	ctest --preset release -j $(JOBS)

test-sanitize: build-sanitize
	ctest --preset sanitize -j $(JOBS) -L unit

bench: build
	build/release/bench/plan_bench

format:
	clang-format -i $$(git ls-files '*.cpp' '*.h')

clean:
	rm -rf build
