# SPDX-License-Identifier: GPL-2.0-or-later
# idlelab build. `make` builds ./idlelab; `make check` runs every test (unit,
# unit under ASan+UBSan, unit under valgrind, fuzz corpus replay, e2e) and ends
# with one "N passed, N failed, N skipped" line; `make deps` installs what the
# build and the tests need from Debian.

CC         ?= cc
PKG_CONFIG ?= pkg-config
# `make install`: PREFIX/bin/idlelab finds its workload definitions in
# PREFIX/share/idlelab and its own workload binaries in PREFIX/lib/idlelab,
# wherever PREFIX is (the binary's own location tells it: cli/clipaths.c), so
# DESTDIR and any PREFIX work; BINDIR stays PREFIX/bin for that reason.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
MANDIR     ?= $(PREFIX)/share/man
DOCDIR     ?= $(PREFIX)/share/doc/idlelab
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
CFLAGS     ?= -O2 -g
BUILD      ?= build/release
SAN        ?=

# `make V=1` shows the whole commands; otherwise one short line per step, as kbuild does
V ?= 0
ifeq ($(V),1)
  Q :=
  say = @true
else
  Q := @
  say = @printf '  %-5s %s\n' '$(1)' '$(2)'
endif

PC_LIBS  := libgit2 libssh jansson libcurl libcrypto gmime-3.0 zlib sqlite3 yaml-0.1
# Every package the build, the tests, the demo and the lab use, named: `make
# deps` installs without Recommends, so what another package only recommends
# (libc6-dev-arm64-cross for gcc-aarch64-linux-gnu, xz-utils-style helpers of
# linux-source) is listed here. tests/fresh-root.sh proves the list on a new
# minimal Debian 12 root (debootstrap --variant=minbase).
DEB_PKGS := build-essential pkg-config bc clang libclang-rt-14-dev valgrind \
            libgit2-dev libssh-dev libjansson-dev libcurl4-openssl-dev libcmocka-dev libssl-dev \
            libgmime-3.0-dev zlib1g-dev libsqlite3-dev libyaml-dev git \
            linux-source-6.1 linux-source-6.12 xz-utils gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu \
            bison flex libelf-dev kmod rsync \
            qemu-system-arm qemu-system-x86 acpica-tools device-tree-compiler cpio gzip dropbear-bin fonts-dejavu-core \
            openssh-server openssh-client pssh pdsh python3 python3-aiosmtpd python3-jsonschema ca-certificates chromium procps psmisc iproute2 util-linux \
            prometheus prometheus-node-exporter debootstrap

NODEP_GOALS := deps clean help check-fresh uninstall
ifeq ($(filter-out $(NODEP_GOALS),$(or $(MAKECMDGOALS),all)),)
else
  ifneq ($(shell $(PKG_CONFIG) --exists $(PC_LIBS) cmocka && echo ok),ok)
    $(error missing libraries ($(PC_LIBS) cmocka); run 'make deps' first (as root, or with sudo))
  endif
endif

# -isystem: warnings in GLib's headers are not ours to fix
PC_CFLAGS := $(patsubst -I%,-isystem %,$(shell $(PKG_CONFIG) --cflags $(PC_LIBS) 2>/dev/null))
PC_LDLIBS := $(shell $(PKG_CONFIG) --libs $(PC_LIBS) 2>/dev/null) -lm
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)

# -Werror is for developers and CI: `make check`, `make check-fast` and CI (CI set in the
# environment) build with DEVELOPER=1; a user's newer compiler warning about something new
# must not stop `make deps && make demo`. Objects are rebuilt when the flags change.
DEVELOPER ?= $(if $(CI),1,)
WERROR = $(if $(filter 1,$(DEVELOPER)),-Werror)

IL_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
             -Wmissing-prototypes -Wno-format-nonliteral -Wno-unknown-warning-option -Wno-format-truncation -Isrc -MMD -MP $(PC_CFLAGS) \
             -include src/util/banned.h
ifeq ($(SAN),1)
  IL_CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  IL_LDFLAGS += -fsanitize=address,undefined
endif
ifeq ($(SAN),fuzz)
  IL_CFLAGS += -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
endif

LIB_SRC  := $(wildcard src/util/*.c src/idle/*.c src/host/*.c src/kernel/*.c src/workload/*.c src/lab/*.c \
                       src/run/*.c src/stats/*.c src/workflow/*.c src/report/*.c)
CLI_SRC  := $(wildcard src/cli/*.c)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
TESTLIB_SRC := tests/unit/testutil.c
BENCH_SRC := $(wildcard tests/bench/bench_*.c)

# scripts embedded at build time (src/host/embed.awk): the runners, the lab's build scripts
RUNNER_SH := $(sort $(wildcard runners/*.sh))
LAB_SH    := $(sort $(wildcard hosts/labvm/*.sh))
GEN_SRC  := $(BUILD)/gen/runners_data.c $(BUILD)/gen/lab_data.c
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_SRC:.c=.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o) $(BUILD)/gen/man_data.o
# each command's hand-written DESCRIPTION (src/cli/man/CMD.txt), embedded: `idlelab help --man CMD`
MAN_TXT  := $(sort $(wildcard src/cli/man/*.txt))
LIB_A    := $(BUILD)/libidlelab.a
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
# one libFuzzer target per parser: tests/fuzz/fuzz_NAME.c, corpus tests/fuzz/corpus/NAME
FUZZ_NAMES  := dump snapjson plan host workload output mbox hunkfit journal ssdt pmqos probe lavalog lavaapi lavaarmour alert nightly trace
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz_%_replay)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/tests/%)

.SECONDARY:
.PHONY: all check check-fast check-style check-fresh unit-bins FORCE bench deps install uninstall man completion deb clean fuzz demo help workloads e2e-kernel e2e-lava
all: idlelab workloads

# idlelab's own workloads (workloads/src), static so they run on any host of
# the architecture; ARCH=aarch64 cross-compiles with aarch64-linux-gnu-gcc.
ARCH ?= $(shell uname -m)
ifeq ($(ARCH),$(shell uname -m))
  WL_CC ?= $(CC)
else
  WL_CC ?= $(ARCH)-linux-gnu-gcc
endif
WL_NAMES := periodic pingpong sleeper
WL_BIN := $(WL_NAMES:%=build/workloads/$(ARCH)/%)
workloads: $(WL_BIN)
build/workloads/$(ARCH)/%: workloads/src/%.c workloads/src/wl.h
	@mkdir -p $(dir $@)
	$(call say,WLCC,$@)
	$(Q)$(WL_CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static -o $@ $<

help:
	@echo "targets: all (default) check check-fast check-style check-fresh bench deps demo fuzz man completion install uninstall deb clean"

# the README's fresh-machine commands in a new minimal Debian 12 root (as root; what CI runs)
check-fresh:
	bash tests/fresh-root.sh

# the flags objects were built with: rewritten only when they change, so a change rebuilds
$(BUILD)/cflags: FORCE
	@mkdir -p $(dir $@)
	@f='$(CC) $(IL_CFLAGS) $(WERROR) $(CPPFLAGS) $(CFLAGS)'; [ "$$(cat $@ 2>/dev/null)" = "$$f" ] || echo "$$f" > $@
FORCE:

$(BUILD)/%.o: %.c $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,CC,$@)
	$(Q)$(CC) $(IL_CFLAGS) $(WERROR) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/gen/runners_data.c: $(RUNNER_SH) src/host/embed.awk
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)awk -v sym=il_runner_srcs -v strip=1 -f src/host/embed.awk $(RUNNER_SH) > $@

$(BUILD)/gen/lab_data.c: $(LAB_SH) src/host/embed.awk
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)awk -v sym=il_lab_srcs -f src/host/embed.awk $(LAB_SH) > $@

$(BUILD)/gen/man_data.c: $(MAN_TXT) src/host/embed.awk
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)awk -v sym=il_man_srcs -f src/host/embed.awk $(MAN_TXT) > $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c $(BUILD)/cflags
	$(call say,CC,$@)
	$(Q)$(CC) $(IL_CFLAGS) $(WERROR) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	$(call say,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/idlelab: $(CLI_OBJ) $(LIB_A)
	$(call say,LINK,$@)
	$(Q)$(CC) $(IL_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB_A) $(PC_LDLIBS)

# by rename, so a run, a lab or a demo still using the old binary is not in the way ("Text file busy")
idlelab: $(BUILD)/idlelab
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

# the unit tests also get cli/clipaths.o and cli/opt.o: the environment's defaults (il_cli_cache_dir)
# and the option parser are tested there
$(BUILD)/tests/test_%: tests/unit/test_%.c $(BUILD)/tests/unit/testutil.o $(BUILD)/src/cli/clipaths.o $(BUILD)/src/cli/opt.o $(LIB_A) $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(IL_CFLAGS) $(WERROR) -Itests/unit $(CFLAGS) $(IL_LDFLAGS) -o $@ $< $(BUILD)/tests/unit/testutil.o \
		$(BUILD)/src/cli/clipaths.o $(BUILD)/src/cli/opt.o $(LIB_A) \
		$(PC_LDLIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/fuzz_%_replay: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(LIB_A) $(BUILD)/cflags
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(IL_CFLAGS) $(WERROR) -Itests/fuzz $(CFLAGS) $(IL_LDFLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(LIB_A) $(PC_LDLIBS)

$(BUILD)/tests/bench_%: tests/bench/bench_%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(IL_CFLAGS) -Itests/unit $(CFLAGS) -o $@ $< $(LIB_A) $(PC_LDLIBS)

unit-bins: $(UNIT_BIN) $(FUZZ_REPLAY)

E2E_FAST   := $(patsubst %,e2e:%,$(filter-out tests/e2e/lib.sh tests/e2e/sshd.sh tests/e2e/fleet.sh tests/e2e/fakeboot.sh,$(wildcard tests/e2e/*.sh)))
# the labs are built in the background from the start of make check (tests/prebuild.sh); each
# group of kernel tests starts once its lab is there (wait:NAME), lab_x86 last
E2E_KERNEL := wait:lab-arm64 $(patsubst %,e2e:%,$(filter-out tests/e2e-kernel/lab_x86.sh,$(wildcard tests/e2e-kernel/*.sh))) \
              wait:lab-x86_64 $(patsubst %,e2e:%,$(wildcard tests/e2e-kernel/lab_x86.sh))
E2E_LAVA   := $(patsubst %,e2e:%,$(filter-out tests/e2e-lava/lava-setup.sh tests/e2e-lava/lava-stop.sh,$(wildcard tests/e2e-lava/*.sh)))

# the tests that measure this machine (its sysfs, over SSH or locally): make check and
# check-fast run them as the machine is and again in a world whose current_driver is "none"
# (tests/world.sh), so a machine with a cpuidle driver tests both worlds, and a machine without
# one runs the same tests, the same number of times
WORLD_UNIT := test_idle_govctl test_host_ssh test_host_probe test_run_lavajob
WORLD_E2E  := local_host run_ssh cli_ssh run_crash host_safety kernel_cli
WORLD_NONE := $(WORLD_UNIT:%=unit@none:$(BUILD)/tests/%) $(WORLD_E2E:%=e2e@none:tests/e2e/%.sh)
# and once where tracing does not see CPU 1's idle entries (tests/world.sh blind1, issue #44), as on
# a machine whose kernel enters idle there without power:cpu_idle: the trace names it and stays valid
WORLD_NONE += e2e@blind1:tests/e2e/local_host.sh

# everything: unit (plain, ASan+UBSan, valgrind), fuzz corpus replay, e2e, and the
# real-kernel e2e (kernel builds, the lab host)
check check-fast e2e-kernel e2e-lava: DEVELOPER = 1
# The labs' builds (their kernels: minutes each on 2 cores; the arm64 one cached after the demo)
# start first, in the background at nice 19, and fill the core that the single-threaded phases
# leave idle; the kernel tests wait for them. Whatever ends the recipe (a test binary that does
# not compile, a signal) stops the builds.
# (No $(MAKE) in the last line: `make -n check` must not run it.)
check: all
	$(MAKE) --no-print-directory DEVELOPER=1 unit-bins
	$(MAKE) --no-print-directory DEVELOPER=1 BUILD=build/asan SAN=1 unit-bins
	@export IDLELAB=$(CURDIR)/idlelab; tests/prebuild.sh start lab-arm64 lab-x86_64; \
	trap 'tests/prebuild.sh stop' EXIT; trap 'exit 130' INT TERM HUP; \
	tests/run-tests.sh \
		$(UNIT_BIN:%=unit:%) $(FUZZ_REPLAY:%=unit:%) \
		$(UNIT_BIN:$(BUILD)/%=asan:build/asan/%) $(FUZZ_REPLAY:$(BUILD)/%=asan:build/asan/%) \
		$(UNIT_BIN:%=valgrind:%) $(E2E_FAST) $(WORLD_NONE) $(E2E_KERNEL)

# the code's habits that docs/internals.md writes down, enforced (tests/check-style.py: header
# comments, pair and function sizes, exported names' prefixes, library code that never prints or
# exits, no dropped allocation result, no include circle; exceptions in tests/style-allow, each
# with its reason). make check and check-fast run it as tests/e2e/check_style.sh.
check-style: all
	python3 tests/check-style.py --objdir $(BUILD)

# the edit loop: unit tests and the e2e scripts, no sanitizer passes, no kernel
# builds, no lab (a few minutes); `make check` stays the complete run
check-fast: all
	$(MAKE) --no-print-directory DEVELOPER=1 unit-bins
	IDLELAB=$(CURDIR)/idlelab tests/run-tests.sh $(UNIT_BIN:%=unit:%) $(FUZZ_REPLAY:%=unit:%) $(E2E_FAST) $(WORLD_NONE)

# the real-kernel e2e alone (also part of check): linux-source-6.12, arm64, cached in build/e2e-kernel-cache
e2e-kernel: all
	IDLELAB=$(CURDIR)/idlelab tests/run-tests.sh $(filter e2e:%,$(E2E_KERNEL))

# a plan on a real LAVA lab (Debian's lava-server and lava-dispatcher in a root of their own under the
# e2e kernel cache; not part of check: the first run downloads ~260 MB and takes ~4 min to set up)
e2e-lava: all
	IDLELAB=$(CURDIR)/idlelab tests/run-tests.sh $(E2E_LAVA)

$(BUILD)/tests/sshsnap: tests/bench/sshsnap.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)
	$(Q)$(CC) $(IL_CFLAGS) -Itests/unit $(CFLAGS) -o $@ $< $(LIB_A) $(PC_LDLIBS)

bench: all $(BENCH_BIN) $(BUILD)/tests/sshsnap
	@for b in $(BENCH_BIN); do $$b || exit 1; done
	@for b in tests/bench/bench_*.sh; do SSHSNAP=$(BUILD)/tests/sshsnap sh $$b || exit 1; done

# libFuzzer on every parser (clang): the library built once with coverage and
# ASan+UBSan in build/fuzz, then each target for FUZZ_SECONDS on a copy of its corpus
FUZZ_SECONDS ?= 60
fuzz:
	$(MAKE) --no-print-directory BUILD=build/fuzz CC=clang SAN=fuzz build/fuzz/libidlelab.a
	@for n in $(FUZZ_NAMES); do \
		echo "fuzz: $$n ($(FUZZ_SECONDS) s)"; \
		clang $(IL_CFLAGS) -Itests/fuzz -g -O1 -fsanitize=fuzzer,address,undefined -o build/fuzz/fuzz_$$n \
			tests/fuzz/fuzz_$$n.c build/fuzz/libidlelab.a $(PC_LDLIBS) || exit 1; \
		mkdir -p build/fuzz/corpus/$$n && cp -r tests/fuzz/corpus/$$n/. build/fuzz/corpus/$$n/ || exit 1; \
		build/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
			-artifact_prefix=build/fuzz/$$n- build/fuzz/corpus/$$n > build/fuzz/$$n.log 2>&1; rc=$$?; \
		grep -E '^(Done|stat::new_units_added|==[0-9]+==ERROR|SUMMARY)' build/fuzz/$$n.log; \
		[ $$rc = 0 ] || { tail -n 40 build/fuzz/$$n.log; exit 1; }; \
	done

# LAB=x86_64: the same demo on the x86_64 lab host (POLL + halt states, acpi_idle)
LAB ?= arm64
demo: all
	LAB=$(LAB) tests/demo.sh

deps:
	@missing=""; for p in $(DEB_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	arm64=; dpkg --print-foreign-architectures | grep -qx arm64 || arm64=1; \
	if [ -z "$$missing" ] && [ -z "$$arm64" ]; then echo "make deps: all Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then SUDO=; elif command -v sudo >/dev/null 2>&1; then SUDO=sudo; else \
		echo "make deps: not root and no sudo; as root run: dpkg --add-architecture arm64; apt-get update; apt-get install$$missing"; exit 1; fi; \
	if [ -n "$$arm64" ]; then echo "make deps: adding the arm64 architecture (the lab host's packages)"; \
		$$SUDO dpkg --add-architecture arm64; fi; \
	echo "make deps: installing$$missing"; \
	$$SUDO apt-get update -qq && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null

# the man pages and the bash completion, made by the built binary from its own option tables
# (idlelab help --man, help --completion: src/cli/describe.c), so they cannot drift from `help`
man: $(BUILD)/man/idlelab.1
$(BUILD)/man/idlelab.1: $(BUILD)/idlelab
	@mkdir -p $(dir $@)
	$(call say,MAN,$(dir $@))
	$(Q)for c in $$($< --help | awk '/^commands:/ { f = 1; next } f { print $$1 }'); do \
		$< help --man $$c > $(dir $@)idlelab-$$c.1.tmp && mv $(dir $@)idlelab-$$c.1.tmp $(dir $@)idlelab-$$c.1 || exit 1; \
	done; $< help --man > $@.tmp && mv $@.tmp $@
completion: $(BUILD)/completion/idlelab
$(BUILD)/completion/idlelab: $(BUILD)/idlelab
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)
	$(Q)$< help --completion > $@.tmp && mv $@.tmp $@

# the systemd units name the installed paths
UNIT_SED := -e 's|/usr/local/bin/|$(BINDIR)/|g' -e 's|/usr/local/share/doc/idlelab|$(DOCDIR)|g'
INSTALL_EXAMPLES := audit compare hosts plans prometheus patches governors.json
install: $(BUILD)/idlelab workloads man completion
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PREFIX)/share/idlelab/workloads \
		$(DESTDIR)$(PREFIX)/lib/idlelab/workloads/$(ARCH) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)/examples \
		$(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BUILD)/idlelab $(DESTDIR)$(BINDIR)/idlelab
	install -m 0644 workloads/*.json $(DESTDIR)$(PREFIX)/share/idlelab/workloads/
	install -m 0755 $(WL_BIN) $(DESTDIR)$(PREFIX)/lib/idlelab/workloads/$(ARCH)/
	install -m 0644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(BUILD)/completion/idlelab $(DESTDIR)$(BASHCOMPDIR)/idlelab
	install -m 0644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	cp -R $(addprefix examples/,$(INSTALL_EXAMPLES)) $(DESTDIR)$(DOCDIR)/examples/
	chmod -R u+rwX,go+rX,go-w $(DESTDIR)$(DOCDIR)/examples
	for u in examples/systemd/*.service examples/systemd/*.timer; do \
		sed $(UNIT_SED) $$u > $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp && \
		chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp && \
		mv $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/}.tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/} || exit 1; \
	done

# what install put there, and nothing else (the directories only when empty)
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/idlelab $(DESTDIR)$(MANDIR)/man1/idlelab.1 $(DESTDIR)$(MANDIR)/man1/idlelab-*.1 \
		$(DESTDIR)$(BASHCOMPDIR)/idlelab $(addprefix $(DESTDIR)$(SYSTEMDUNITDIR)/,$(notdir $(wildcard examples/systemd/*.service examples/systemd/*.timer)))
	rm -rf $(DESTDIR)$(PREFIX)/share/idlelab $(DESTDIR)$(PREFIX)/lib/idlelab $(DESTDIR)$(DOCDIR)
	-rmdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR) 2>/dev/null

# the Debian package (debian/): ./idlelab_VERSION_ARCH.deb, built in build/deb so nothing of a
# developer's build is cleaned; debhelper (and lintian, to check it) installed like `make deps` does
DEB_TOOLS := debhelper dpkg-dev lintian
deb:
	@missing=""; for p in $(DEB_TOOLS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; echo "make deb: installing$$missing"; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	fi
	dpkg-buildpackage -us -uc -b
	@mkdir -p build/debian-out
	@v=$$(dpkg-parsechangelog -S Version); a=$$(dpkg --print-architecture); \
	mv -f ../idlelab_$${v}_$$a.deb . && mv -f ../idlelab_$${v}_$$a.buildinfo ../idlelab_$${v}_$$a.changes build/debian-out/ && \
	for d in ../idlelab-dbgsym_$${v}_$$a.deb; do [ ! -e $$d ] || mv -f $$d build/debian-out/; done; \
	echo "make deb: idlelab_$${v}_$$a.deb"; \
	lintian --fail-on error idlelab_$${v}_$$a.deb

clean:
	rm -rf build idlelab

-include $(shell find build -path build/e2e-kernel-cache -prune -o -name '*.d' -type f -print 2>/dev/null)
