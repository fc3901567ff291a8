# The README's two commands:
#   make run    set up (Debian packages), build, and start ikigai
#   make test   set up, build, and run the whole test suite
# and `make package`: a Debian package (see below).
BUILD_DIR ?= build
PACKAGE_DIR ?= build-package
CMAKE_FLAGS ?=
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 10

.PHONY: all deps build run test test-sanitize package fuzz bench format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	cmake -S . -B $(BUILD_DIR) $(CMAKE_FLAGS)
	cmake --build $(BUILD_DIR) -j $(JOBS)

run: build
	$(BUILD_DIR)/bin/ikigai $(ARGS)

test: build
	ctest --test-dir $(BUILD_DIR) -j 2 --output-on-failure

# The same suite built with AddressSanitizer and UndefinedBehaviorSanitizer.
test-sanitize:
	$(MAKE) test BUILD_DIR=build-sanitize \
	  CMAKE_FLAGS="-DIKIGAI_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo"

# The Debian package (CPack): a Release build installed under /usr, without
# tests or benchmarks, in its own build tree; prints the .deb's path last.
# scripts/check-package.sh checks what is in it.
package: deps
	cmake -S . -B $(PACKAGE_DIR) -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
	  -DIKIGAI_BUILD_TESTS=OFF -DIKIGAI_BUILD_BENCH=OFF $(CMAKE_FLAGS)
	cmake --build $(PACKAGE_DIR) -j $(JOBS)
	rm -f $(PACKAGE_DIR)/ikigai_*.deb
	cd $(PACKAGE_DIR) && cpack -G DEB
	@realpath $(PACKAGE_DIR)/ikigai_*.deb

# The libFuzzer targets of fuzz/ (clang), each run FUZZ_SECONDS on a copy of
# its seeds; fails on a crash, leak or sanitizer report (scripts/fuzz.sh).
fuzz: deps
	JOBS=$(JOBS) scripts/fuzz.sh $(FUZZ_SECONDS)

bench: build
	bench/run-all.sh $(BUILD_DIR)

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build build-sanitize build-fuzz $(PACKAGE_DIR)
