# hetsim — build, test, run, bench, install.
#
#   make            build ./hetsim
#   make run        install missing packages, build, run the default experiment, print the
#                   comparison table, write results/out/hetsim.db and plots
#   make test       install missing packages, build, run every test
#   make bench      benchmarks (not part of the tests)
#   make install    PREFIX=/usr/local: binary, data files, man page
#   make SANITIZE=address,undefined test    the same tests under ASan + UBSan
#   make valgrind   the default experiment under valgrind's memcheck

PREFIX   ?= /usr/local
CC       ?= cc
SANITIZE ?=
OPT      ?= -O2

PKGS     := gsl libcjson sqlite3
CFLAGS_W := -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror
CFLAGS   ?= $(OPT) -g
DEPFLAGS  = -MMD -MP
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lglpk -lm

ifneq ($(SANITIZE),)
  BUILD := build/san
  CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
  LDFLAGS += -fsanitize=$(SANITIZE)
  BIN := $(BUILD)/hetsim
else
  BUILD := build/rel
  BIN := hetsim
endif

ALL_CFLAGS = $(CFLAGS_W) $(CFLAGS) $(PKG_CFLAGS) -DHETSIM_DATADIR='"$(CURDIR)"'

LIB_SRC := $(wildcard sim/*.c models/*.c sched/*.c sched/*/*.c workloads/*.c results/*.c)
LIB_SRC := $(filter-out sim/main.c,$(LIB_SRC))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/schema_sql.o
MAIN_OBJ := $(BUILD)/sim/main.o
TEST_SRC := $(wildcard tests/test_*.c)
TEST_OBJ := $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/helpers.o
TEST_BIN := $(BUILD)/test_hetsim
BENCH_SRC := $(wildcard tests/bench*.c)
BENCH_BIN := $(BENCH_SRC:tests/%.c=$(BUILD)/%.bin)

.PHONY: all run test bench install uninstall clean deps valgrind
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
    -DHETSIM_BIN='"$(CURDIR)/$(BIN)"' -Wno-missing-prototypes

# one benchmark program per tests/bench*.c
$(BUILD)/%.bin: $(BUILD)/tests/%.o $(BUILD)/libhetsim.a
	$(CC) $(LDFLAGS) $^ $(PKG_LIBS) -o $@

run: deps
	@$(MAKE) --no-print-directory $(BIN)
	./$(BIN) run default --db results/out/hetsim.db
	./$(BIN) plot --db results/out/hetsim.db --out results/out

test: deps
	@$(MAKE) --no-print-directory $(BIN) $(TEST_BIN)
	HETSIM_DATA=$(CURDIR) $(TEST_BIN) --jobs 2 $(TEST_ARGS)

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
	    -c sim/paths.c -o $(BUILD)/install/paths.o
	$(CC) $(LDFLAGS) $(MAIN_OBJ) $(BUILD)/install/paths.o \
	    $(filter-out $(BUILD)/sim/paths.o,$(LIB_OBJ)) $(PKG_LIBS) -o $(BUILD)/install/hetsim
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/install/hetsim $(DESTDIR)$(PREFIX)/bin/hetsim
	install -m 644 doc/hetsim.1 $(DESTDIR)$(PREFIX)/share/man/man1/hetsim.1
	for d in models/data models/data/profiles results/plots workloads/experiments \
	         workloads/clusters workloads/traces; do \
	    install -d $(INSTALL_DATA)/$$d; \
	    find $$d -maxdepth 1 -type f -exec install -m 644 {} $(INSTALL_DATA)/$$d/ \; ; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/hetsim $(DESTDIR)$(PREFIX)/share/man/man1/hetsim.1
	rm -rf $(INSTALL_DATA)

clean:
	rm -rf build hetsim

-include $(shell find build -name '*.d' 2>/dev/null)
