# hetsim — build, test, run, bench, install.
#
#   make            build ./hetsim
#   make run        install missing packages, build, run the default experiment, print the
#                   comparison table, write results/out/hetsim.db and plots
#   make test       install missing packages, build, run every test
#   make bench      benchmarks (not part of the tests)
#   make check-layers   every #include against the layer rule, and no two files that include
#                   or call each other (make test runs it)
#   make readme-figures rewrite the README's figures from fresh runs (FIGURES="NAME ..."
#                   for some; scripts/readme-figures.sh --list names them)
#   make golden     rewrite tests/golden/runs.txt (reference runs), when a change means to
#                   move results
#   make install    PREFIX=/usr/local: binary, data files, man page
#   make SANITIZE=address,undefined test    the same tests under ASan + UBSan
#   make valgrind   the default experiment under valgrind's memcheck
#   make MPI=1      build/mpi/hetsim with OpenMPI: mpirun -np K build/mpi/hetsim sweep ...
#                   (scripts/install-deps.sh --optional installs OpenMPI); `make test` then
#                   also runs the MPI sweep test, which is skipped while that binary is absent

PREFIX   ?= /usr/local
CC       ?= cc
SANITIZE ?=
OPT      ?= -O2

PKGS     := gsl libcjson sqlite3 qhull_r
CFLAGS_W := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CFLAGS   ?= $(OPT) -g
DEPFLAGS  = -MMD -MP
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lglpk -lm
# CPython, embedded for policies written in Python (sched/python/).  Debian's interpreter
# (/usr/bin/python3-config, package python3-dev) is preferred to whatever python3-config comes
# first on PATH (a pyenv shim would link another Python).  Only the include flags of
# `--cflags` are taken (`--includes`): the rest (-O2 -DNDEBUG ...) would override ours.
PY_CONFIG  ?= $(firstword $(wildcard /usr/bin/python3-config) python3-config)
PY_CFLAGS  := $(shell $(PY_CONFIG) --includes 2>/dev/null)
PY_LIBS    := $(shell $(PY_CONFIG) --embed --ldflags 2>/dev/null)
PKG_CFLAGS += $(PY_CFLAGS)
PKG_LIBS   += $(PY_LIBS)

ifeq ($(MPI),1)
  # `make MPI=1`: build/mpi/hetsim, whose sweep shares its runs among MPI ranks
  CC := mpicc
  CFLAGS += -DHETSIM_MPI
  BUILD := build/mpi
  BIN := $(BUILD)/hetsim
else ifneq ($(SANITIZE),)
  BUILD := build/san
  CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=$(SANITIZE)
  BIN := $(BUILD)/hetsim
else
  BUILD := build/rel
  BIN := hetsim
endif

ALL_CFLAGS = $(CFLAGS_W) $(CFLAGS) $(PKG_CFLAGS) -DHETSIM_DATADIR='"$(CURDIR)"'

LIB_SRC := $(wildcard sim/*/*.c models/*.c sched/*.c sched/*/*.c workloads/*.c results/*.c)
LIB_SRC := $(filter-out sim/cli/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/schema_sql.o
MAIN_OBJ := $(BUILD)/sim/cli/main.o
TEST_SRC := $(wildcard tests/test_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/helpers.o
TEST_BIN := $(BUILD)/test_hetsim
BENCH_SRC := $(wildcard tests/bench*.c)
BENCH_BIN := $(BENCH_SRC:tests/%.c=$(BUILD)/%.bin)

.PHONY: all run test golden bench install uninstall clean deps valgrind check-layers \
        readme-figures
# keep objects that pattern chains would delete as intermediates (bench and test objects)
.SECONDARY:
all: $(BIN)

deps:
	@scripts/install-deps.sh

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC  $<"
	@$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# results/schema.sql is compiled in as a C string, so the documented schema is the one used
$(BUILD)/gen/schema_sql.c: results/schema.sql
	@mkdir -p $(dir $@)
	@{ echo '/* generated from results/schema.sql by the Makefile; do not edit */'; \
	   echo 'const char db_schema_sql[] ='; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' $<; \
	   echo ';'; } > $@

$(BUILD)/gen/schema_sql.o: $(BUILD)/gen/schema_sql.c
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libhetsim.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(MAIN_OBJ) $(BUILD)/libhetsim.a
	$(CC) $(LDFLAGS) $(MAIN_OBJ) $(BUILD)/libhetsim.a $(PKG_LIBS) -o $@

$(TEST_BIN): $(TEST_OBJ) $(BUILD)/libhetsim.a
	$(CC) $(LDFLAGS) $(TEST_OBJ) $(BUILD)/libhetsim.a $(PKG_LIBS) \
	    $(shell pkg-config --libs criterion) -o $@

$(BUILD)/tests/%.o: ALL_CFLAGS += $(shell pkg-config --cflags criterion) \
    -DHETSIM_BIN='"$(CURDIR)/$(BIN)"' -DHETSIM_MPI_BIN='"$(CURDIR)/build/mpi/hetsim"' \
    -Wno-missing-prototypes

# one benchmark program per tests/bench*.c, with the child runner they share
$(BUILD)/%.bin: $(BUILD)/tests/%.o $(BUILD)/tests/childrun.o $(BUILD)/libhetsim.a
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@
# the event-core bench's yardstick, in its own object as the event core is
$(BUILD)/bench.bin: $(BUILD)/tests/plain_heap.o

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) run default --db results/out/hetsim.db
	./$(BIN) plot --db results/out/hetsim.db --out results/out

# every #include against the layer rule (doc/architecture.md), and no two files that
# include or call each other (scripts/check-layers.sh): calls are read from the objects
check-layers: $(LIB_OBJ)
	@scripts/check-layers.sh $(BUILD)

# the figures the README quotes, from fresh runs (scripts/readme-figures.sh)
readme-figures: deps
	@$(MAKE) --no-print-directory $(BIN)
	HETSIM=./$(BIN) sh scripts/readme-figures.sh

test: deps
	@$(MAKE) --no-print-directory check-layers
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BIN)
	@# the MPI test runs build/mpi/hetsim when it was built: keep it current
	@if [ -x build/mpi/hetsim ]; then $(MAKE) --no-print-directory MPI=1; fi
	HETSIM_DATA=$(CURDIR) $(TEST_BIN) --jobs 2 $(TEST_ARGS)

# regenerate tests/golden/runs.txt, on purpose: when a change is meant to move results
golden: deps
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BIN)
	GOLDEN_UPDATE=1 HETSIM_DATA=$(CURDIR) $(TEST_BIN) --filter 'golden/*'

bench: deps
	@$(MAKE) --no-print-directory $(BIN) $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; HETSIM_DATA=$(CURDIR) $$b || exit 1; done

valgrind: $(BIN)
	valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	    ./$(BIN) run default --db $(BUILD)/valgrind.db --quiet

INSTALL_DATA := $(DESTDIR)$(PREFIX)/share/hetsim
install: $(LIB_OBJ) $(MAIN_OBJ)
	@mkdir -p $(BUILD)/install
	$(CC) $(CFLAGS_W) $(CFLAGS) $(PKG_CFLAGS) -DHETSIM_DATADIR='"$(PREFIX)/share/hetsim"' \
	    -c sim/base/path.c -o $(BUILD)/install/path.o
	$(CC) $(LDFLAGS) $(MAIN_OBJ) $(BUILD)/install/path.o \
	    $(filter-out $(BUILD)/sim/base/path.o,$(LIB_OBJ)) $(PKG_LIBS) -o $(BUILD)/install/hetsim
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/install/hetsim $(DESTDIR)$(PREFIX)/bin/hetsim
	install -m 644 doc/hetsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/hetsim.1
	for d in $$(find models/data -type d) results/plots workloads/experiments \
	         workloads/sweeps workloads/clusters $$(find workloads/traces -type d); do \
	    install -d $(INSTALL_DATA)/$$d; \
	    find $$d -maxdepth 1 -type f -exec install -m 644 {} $(INSTALL_DATA)/$$d/ \; ; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hetsim $(DESTDIR)$(PREFIX)/share/man/man1/hetsim.1
	rm -rf $(INSTALL_DATA)

clean:
	rm -rf build hetsim

# ---- fuzzing: libFuzzer harnesses tests/fuzz/fuzz_NAME.c (clang; not part of make test) ----
#   make fuzz FUZZ_SECONDS=N    run every harness N seconds (default 60), one after the other
#                               (tests/fuzz/run.sh), then print each one's executions, per
#                               wall and per CPU second; fails if any of them crashes or runs
#                               fewer than FUZZ_MIN_RATE (default 1000) executions per CPU
#                               second (FUZZ_MIN_RATE=0: no floor)
#   make fuzz FUZZ_TARGETS="jsonf tio"      only these harnesses
#   make fuzz-build             build them: build/fuzz/fuzz_NAME (run one with -help=1)
# Seeds come from tests/fuzz/corpus/NAME/ (committed); what libFuzzer adds goes to
# tests/fuzz/corpus-run/NAME/ (ignored); crashes are written to tests/fuzz/crashes/NAME/ and
# the log of a run to build/fuzz/NAME.log.  The library is rebuilt in build/fuzz/ with the
# same sanitizers (ASan + UBSan, every report fatal) and libFuzzer's coverage, no main.
FUZZ_CC       ?= clang
FUZZ_SECONDS  ?= 60
FUZZ_ARGS     ?=
FUZZ_MIN_RATE ?= 1000
FUZZ_BUILD    := build/fuzz
FUZZ_SAN      := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang warns where gcc does not (e.g. -Wstring-concatenation): library warnings are shown but
# not fatal here, so that the fuzz build does not depend on the compiler; harnesses use -Werror
FUZZ_CFLAGS   := $(filter-out -Werror,$(CFLAGS_W)) -O1 -g $(FUZZ_SAN) $(PKG_CFLAGS) \
                 -DHETSIM_DATADIR='"$(CURDIR)"'
FUZZ_ALL      := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS  ?= $(FUZZ_ALL)
FUZZ_LIB_OBJ  := $(LIB_SRC:%.c=$(FUZZ_BUILD)/%.o) $(FUZZ_BUILD)/gen/schema_sql.o
FUZZ_BIN      := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

.PHONY: fuzz fuzz-build

$(FUZZ_BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC (fuzz)  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

$(FUZZ_BUILD)/tests/%.o: FUZZ_CFLAGS += -Werror

$(FUZZ_BUILD)/gen/schema_sql.c: $(BUILD)/gen/schema_sql.c
	@mkdir -p $(dir $@)
	cp $< $@

$(FUZZ_BUILD)/gen/schema_sql.o: $(FUZZ_BUILD)/gen/schema_sql.c
	$(FUZZ_CC) -O1 -c $< -o $@

$(FUZZ_BUILD)/libhetsim.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_BUILD)/tests/fuzz/fuzzutil.o \
                      $(FUZZ_BUILD)/libhetsim.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $^ $(PKG_LIBS) -o $@

fuzz-build: $(FUZZ_BIN)

fuzz: $(FUZZ_BIN)
	@tests/fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_MIN_RATE) "$(FUZZ_ARGS)" \
	    $(FUZZ_TARGETS)

-include $(shell find build -name '*.d' 2>/dev/null)
