# tslack: see README.md. The kernel tree, its build and the libbpf/bpftool
# built from it live in $(CACHE), outside the repository.

CACHE ?= $(or $(TSLACK_CACHE),$(HOME)/.cache/tslack)
export TSLACK_CACHE := $(CACHE)
KBUILD := $(CACHE)/build
# libbpf and bpftool; make deb builds its own pair in its build tree.
TOOLS := $(CACHE)/tools
export TSLACK_TOOLS := $(TOOLS)
BPFTOOL := $(TOOLS)/bpftool/bpftool
LIBBPF_A := $(TOOLS)/libbpf/libbpf.a
LIBBPF_INC := $(TOOLS)/libbpf/include

# SYSTEM_LIBBPF=1: the system's libbpf (libbpf-dev 1.5 or later, Debian
# 13's) and bpftool, libbpf linked shared: how Debian 13's package is built
# (make deb-trixie). Without it, the pair built by make tools (or
# tarball-tools), libbpf linked statically.
SYSTEM_LIBBPF ?= 0
ifeq ($(SYSTEM_LIBBPF),1)
BPFTOOL := bpftool
LIBBPF_LIBS := -lbpf
LIBBPF_CPPFLAGS :=
else
LIBBPF_LIBS := $(LIBBPF_A) -lelf -lz
LIBBPF_CPPFLAGS := -I$(LIBBPF_INC)
endif

BUILD := build
VMROOT := $(BUILD)/vmroot
TESTDIR := $(VMROOT)/usr/local/libexec/tslack/tests

CLANG ?= clang-19
LLVM_STRIP ?= llvm-strip-19
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -std=gnu11 $(LIBBPF_CPPFLAGS) -I$(BUILD)/skel -Itests/lib -Isrc
# Static binaries (STATIC=1): the VM's initramfs has busybox and no
# libraries. STATIC=0 (make deb): libelf, zlib and libsystemd are the
# system's shared libraries, as Debian's policy wants (and lintian flags an
# embedded zlib), and so is json-c; libbpf is static unless SYSTEM_LIBBPF=1 (Debian 12's is 1.1).
STATIC ?= 1
ifeq ($(STATIC),1)
LDFLAGS += -static
TSLACKD_LDLIBS := $(LIBBPF_A) -Wl,-Bstatic -lelf -lz -Wl,-Bdynamic -lsystemd
else
TSLACKD_LDLIBS := $(LIBBPF_LIBS) -lsystemd
endif
LDLIBS := $(LIBBPF_LIBS)
# tslackctl's --json output: json-c (libjson-c-dev), static with STATIC=1
# like the rest, the system's libjson-c5 with STATIC=0.
JSON_LDLIBS := -ljson-c
# The BTF's line information names the sources relative to the tree, not
# where it was built (reproducible packages).
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Werror \
	-ffile-prefix-map=$(CURDIR)=. $(LIBBPF_CPPFLAGS) -Ibpf

TEST_LIB := tests/lib/harness.c tests/lib/sleep_paths.c tests/lib/timer_slack.c
KERNEL_TESTS := test_slack_hook test_hook_token
KSRC := $(CACHE)/linux-source-6.12
POLICY_TESTS := $(patsubst tests/policy/%.sh,%,$(wildcard tests/policy/*.sh))

.PHONY: deps deps-package kernel kernel-deb kernel-vanilla kernel-next tools vmroot test test-pertask test-next demo bench bench-real stress fuzz checkpatch bisect-check bisect-check-next \
	clean help install install-tools tarball-tools uninstall programs vmlinux-snapshot deb deb-trixie
.DEFAULT_GOAL := help

help:
	@echo 'make demo    build what is missing, boot, and show what tslack does'
	@echo 'make test    build (kernel, tools, tests) and run every test in QEMU'
	@echo 'make test-pertask  per-task mode'"'"'s tests on Debian'"'"'s own kernels'
	@echo '             (Debian 12: 6.1, 6.12; Debian 13: 6.12, 7.3 from backports)'
	@echo 'make bench   hook cost, wakeups saved, package wakeups on 2 and 8 vCPUs,'
	@echo '             per-task mode against the hook (QEMU, icount)'
	@echo 'make bench-real  Debian services (redis, postgresql, memcached, nginx,'
	@echo '             asyncio and Node.js services) idle: wakeups, a power model and latency'
	@echo '             with and without slack on system.slice (QEMU, icount; not in make test)'
	@echo 'make stress  30 s of races on the debug (lockdep, KASAN) kernel'
	@echo 'make fuzz    fuzz the parsers of tslackctl and tslackd on the host (libFuzzer)'
	@echo 'make checkpatch  scripts/checkpatch.pl --strict on the series (kernel-patch/,'
	@echo '             on 7.3) and its 6.12 backport (kernel-patch/6.12/)'
	@echo 'make bisect-check  build and boot each prefix of the 6.12 backport (slow);'
	@echo '             bisect-check-next: of the series on 7.3'
	@echo 'make kernel  build the patched 6.12 kernel incrementally in $(CACHE)'
	@echo 'make kernel-next  the series on 7.3 (trixie-backports'"'"' linux-source-7.3)'
	@echo 'make test-next  boot it and run the kselftests the series adds and touches'
	@echo 'make kernel-vanilla  the same 6.12 without the series (make bench'"'"'s baseline)'
	@echo 'make kernel-deb [KCONFIG=FILE]  linux-image/linux-headers packages with'
	@echo '             the series, configured from FILE (default: /boot/config-$$(uname -r))'
	@echo 'make vmroot  build the programs that go into the VM'
	@echo 'make install install tslackctl, its man page, completion and tslack.service'
	@echo '             (PREFIX=$(PREFIX), DESTDIR=); needs only the patched tree'
	@echo 'make deb     build/deb/tslack_VERSION_amd64.deb with debhelper, checked by lintian'
	@echo 'make deb-trixie  the Debian 13 package, built in a trixie root with its'
	@echo '             own libbpf and bpftool: build/deb/trixie/'
	@echo 'make deps    apt-get install what is missing (the lab: QEMU, mmdebstrap...)'
	@echo 'make deps-package  only what make deb needs'
	@echo 'make uninstall  stop the units, detach, remove what make install added'
	@echo 'make clean   remove build/ (the kernel cache stays)'

deps:
	vmtest/install-deps

# What make deb needs alone (debian/control's Build-Depends): no lab.
deps-package:
	vmtest/install-deps --package

kernel: deps
	vmtest/build-kernel

# KCONFIG: the configuration to start from (default: the running kernel's).
kernel-deb: deps
	vmtest/build-kernel-deb $(KCONFIG)

# The same source and configuration without the series: per-task mode's
# tests and bench on 6.12.
kernel-vanilla: deps
	vmtest/build-kernel --vanilla

tools: kernel
	vmtest/build-tools

# Everything below needs 'make kernel tools' first; 'test' runs them in order.
# Without a built kernel (make install, make deb), bpf/vmlinux.h is copied
# from dist/vmlinux.h, a snapshot of one made from the patched kernel
# (make vmlinux-snapshot refreshes it); order-only, so that a header made
# from a kernel built earlier is never replaced by it.
# vmlinux is the kernel build's (vmtest/build-kernel): never remade here
# by make's built-in rules from a vmlinux.o that a kernel build running at
# the same time has just written (the failed link deletes vmlinux).
$(KBUILD)/vmlinux: ;

ifneq ($(wildcard $(KBUILD)/vmlinux),)
bpf/vmlinux.h: $(KBUILD)/vmlinux vmlinux.h.gen
	./vmlinux.h.gen
else
bpf/vmlinux.h: | dist/vmlinux.h
	cp dist/vmlinux.h $@
endif

# After a change of the series' types: the header make install and make deb
# build with.
vmlinux-snapshot: bpf/vmlinux.h
	grep -q 'struct timer_slack_ops {' $< && cp $< dist/vmlinux.h

define bpf_object
	@mkdir -p $(@D)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp
endef

$(BUILD)/bpf/tslack.bpf.o: bpf/tslack.bpf.c bpf/tslack_pertask.bpf.h bpf/tslack.h bpf/vmlinux.h
	$(bpf_object)

# v3 for the atomic exchange of the package wakeup count.
$(BUILD)/bpf/tslack_top.bpf.o: BPF_CFLAGS += -mcpu=v3
$(BUILD)/bpf/tslack_top.bpf.o: bpf/tslack_top.bpf.c bpf/vmlinux.h
	$(bpf_object)

$(BUILD)/bpf/%.bpf.o: tests/kernel/%.bpf.c bpf/vmlinux.h
	$(bpf_object)

$(BUILD)/bpf/%.bpf.o: bench/%.bpf.c bpf/vmlinux.h
	$(bpf_object)

$(BUILD)/skel/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@mkdir -p $(@D)
	$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@.tmp && mv $@.tmp $@

$(addprefix $(TESTDIR)/,$(KERNEL_TESTS)): $(TESTDIR)/%: tests/kernel/%.c $(TEST_LIB) \
		$(BUILD)/skel/const_slack.skel.h tests/lib/*.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(TEST_LIB) $(LDLIBS)

VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
# src/lib: what tslackctl and tslackd share; src/tslackctl: its commands.
LIB_SRCS := $(wildcard src/lib/*.c)
TSLACKCTL_SRCS := $(wildcard src/tslackctl/*.c) $(LIB_SRCS)
$(BUILD)/tslackctl: $(TSLACKCTL_SRCS) $(wildcard src/lib/*.h src/tslackctl/*.h) bpf/tslack.h \
		$(BUILD)/skel/tslack.skel.h $(BUILD)/skel/tslack_top.skel.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTSLACK_VERSION='"$(VERSION)"' $(LDFLAGS) -o $@ \
		$(TSLACKCTL_SRCS) $(LDLIBS) $(JSON_LDLIBS)

# tslackd: sd-bus has no static library in Debian, so libsystemd is linked
# dynamically (every systemd system has it), and with STATIC=1 the rest
# statically.
TSLACKD_SRCS := $(filter-out src/tslackd/testhook.c,$(wildcard src/tslackd/*.c)) \
	$(filter-out src/lib/json.c src/lib/interrupts.c,$(LIB_SRCS))
$(BUILD)/tslackd: $(TSLACKD_SRCS) $(wildcard src/lib/*.h src/tslackd/*.h) bpf/tslack.h \
		$(BUILD)/skel/tslack.skel.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTSLACK_VERSION='"$(VERSION)"' \
		-DTSLACKD_CONFIG_DIR='"$(SYSCONFDIR)/tslack"' $(filter-out -static,$(LDFLAGS)) \
		-o $@ $(TSLACKD_SRCS) $(TSLACKD_LDLIBS)

# The same with the test hooks (testhook.h), for the systemd guest's
# tests only: never installed or packaged.
$(BUILD)/tslackd-test: $(TSLACKD_SRCS) src/tslackd/testhook.c $(wildcard src/lib/*.h src/tslackd/*.h) \
		bpf/tslack.h $(BUILD)/skel/tslack.skel.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DTSLACK_TEST -DTSLACK_VERSION='"$(VERSION)"' \
		-DTSLACKD_CONFIG_DIR='"$(SYSCONFDIR)/tslack"' $(filter-out -static,$(LDFLAGS)) \
		-o $@ $(TSLACKD_SRCS) src/tslackd/testhook.c $(TSLACKD_LDLIBS)

$(VMROOT)/usr/local/libexec/tslack/tslackd-test: $(BUILD)/tslackd-test
	@mkdir -p $(@D)
	install -m 0755 $< $@

programs: $(BUILD)/tslackctl $(BUILD)/tslackd

$(VMROOT)/usr/local/sbin/tslackd: $(BUILD)/tslackd
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/sbin/tslackctl: $(BUILD)/tslackctl
	@mkdir -p $(@D)
	install -m 0755 $< $@

# A 32-bit program, for per-task mode's watch of the 32-bit prctl().
$(VMROOT)/usr/local/bin/tslack-lower32: tests/pertask/lower32.c
	@mkdir -p $(@D)
	$(CC) -m32 -O2 -Wall -Wextra -Werror -static -o $@ $<

$(VMROOT)/usr/local/bin/tslack-probe: tests/policy/tslack-probe.c tests/policy/probe_run.c $(TEST_LIB) tests/lib/*.h tests/policy/*.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/policy/probe_run.c $(TEST_LIB)

# The tests of the systemd guest: a directory of their own, so that the
# busybox guest's runner does not pick them up.
SYSTEMD_TESTDIR := $(VMROOT)/usr/local/libexec/tslack/systemd-tests
# test_zw_fleet, test_zx_follow_hostile and test_zz_quickstart are per-task
# mode's alone (PERTASK_SYSTEMD_TESTS); the last removes the package.
SYSTEMD_TESTS := $(filter-out test_zw_fleet test_zx_follow_hostile test_zz_quickstart,\
	$(patsubst tests/systemd/%.sh,%,$(wildcard tests/systemd/test_*.sh)))

$(SYSTEMD_TESTDIR)/%: tests/systemd/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Per-task mode's tests: run on kernels without the hook (make test boots
# Debian 12's own for them).
PERTASK_TESTDIR := $(VMROOT)/usr/local/libexec/tslack/pertask-tests
PERTASK_TESTS := $(patsubst tests/pertask/%.sh,%,$(wildcard tests/pertask/test_*.sh))

# Of the policy tests, those that hold in either mode (the others ask the
# hook for the slack a sleep takes).
PERTASK_POLICY_TESTS := test_bad_input test_bpffs_hostile test_set_vs_rmdir

$(PERTASK_TESTDIR)/%: tests/pertask/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(addprefix $(PERTASK_TESTDIR)/,$(PERTASK_POLICY_TESTS)): $(PERTASK_TESTDIR)/%: tests/policy/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

# Of the systemd guest's tests, those that hold in either mode: run on
# Debian 12's own kernel too, with the package installed.
PERTASK_SYSTEMD_TESTDIR := $(VMROOT)/usr/local/libexec/tslack/pertask-systemd-tests
PERTASK_SYSTEMD_TESTS := test_follow_unit test_zx_follow_hostile test_hardening test_package \
	test_tslackd test_zw_fleet test_zy_autopkgtest test_zz_quickstart

$(PERTASK_SYSTEMD_TESTDIR)/%: tests/systemd/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/lib/tslack/systemd-lib.sh: tests/systemd/lib.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

# The README's quick start, which test_zz_quickstart runs as written.
$(VMROOT)/usr/local/lib/tslack/README.md: README.md
	@mkdir -p $(@D)
	install -m 0644 $< $@

# What the DaemonSet's containers run, which test_zw_fleet runs as a node
# would (python3-yaml, make deps).
FLEET := $(VMROOT)/usr/local/lib/tslack/fleet
$(FLEET)/attach: dist/kubernetes/tslack-daemonset.yaml tests/host/fleet_commands.py
	rm -rf $(FLEET)
	/usr/bin/python3 tests/host/fleet_commands.py $< $(FLEET)

# The package's autopkgtest, which test_zy_autopkgtest runs in the guest.
AUTOPKGTEST := $(VMROOT)/usr/local/libexec/tslack/autopkgtest/tslack
$(AUTOPKGTEST): debian/tests/tslack
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(TESTDIR)/%: tests/policy/%.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-bench: bench/tslack-bench.c src/lib/interrupts.c tests/lib/timer_slack.c \
		$(BUILD)/skel/const_slack.skel.h $(BUILD)/skel/tslack_top.skel.h \
		$(BUILD)/skel/syscalls.skel.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Isrc/lib $(LDFLAGS) -o $@ $< src/lib/interrupts.c tests/lib/timer_slack.c $(LDLIBS)

$(VMROOT)/usr/local/bin/tslack-run-bench: bench/run-bench.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-run-align: bench/run-align.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-run-modes: bench/run-modes.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-trace-tick: bench/trace-tick.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/lib/tslack/harness.sh: tests/lib/harness.sh
	@mkdir -p $(@D)
	install -m 0644 $< $@

# What the tests compare tslackctl's output with (harness.sh's expect_file).
EXPECTED_FILES := $(patsubst tests/expected/%,$(VMROOT)/usr/local/lib/tslack/expected/%,\
	$(wildcard tests/expected/*))

$(VMROOT)/usr/local/lib/tslack/expected/%: tests/expected/%
	@mkdir -p $(@D)
	install -m 0644 $< $@

$(VMROOT)/usr/local/bin/tslack-stress: tests/stress/tslack-stress.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-demo: demo/tslack-demo.sh
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/tslack-run-tests: tests/run-in-vm
	@mkdir -p $(@D)
	install -m 0755 $< $@

$(VMROOT)/usr/local/bin/bpftool: $(BPFTOOL)
	@mkdir -p $(@D)
	install -m 0755 $< $@

vmroot: $(addprefix $(TESTDIR)/,$(KERNEL_TESTS) $(POLICY_TESTS)) \
	$(VMROOT)/usr/local/sbin/tslackctl $(VMROOT)/usr/local/sbin/tslackd \
	$(VMROOT)/usr/local/libexec/tslack/tslackd-test \
	$(VMROOT)/usr/local/bin/tslack-probe $(VMROOT)/usr/local/bin/tslack-lower32 \
	$(VMROOT)/usr/local/bin/tslack-run-tests $(VMROOT)/usr/local/bin/bpftool \
	$(VMROOT)/usr/local/bin/tslack-demo $(VMROOT)/usr/local/bin/tslack-bench \
	$(VMROOT)/usr/local/bin/tslack-run-bench $(VMROOT)/usr/local/bin/tslack-run-align $(VMROOT)/usr/local/bin/tslack-run-modes \
	$(VMROOT)/usr/local/bin/tslack-trace-tick \
	$(VMROOT)/usr/local/bin/tslack-stress \
	$(VMROOT)/usr/local/lib/tslack/harness.sh \
	$(EXPECTED_FILES) \
	$(addprefix $(SYSTEMD_TESTDIR)/,$(SYSTEMD_TESTS)) $(VMROOT)/usr/local/lib/tslack/systemd-lib.sh \
	$(VMROOT)/usr/local/lib/tslack/README.md $(FLEET)/attach \
	$(AUTOPKGTEST) \
	$(addprefix $(PERTASK_TESTDIR)/,$(PERTASK_TESTS) $(PERTASK_POLICY_TESTS)) \
	$(addprefix $(PERTASK_SYSTEMD_TESTDIR)/,$(PERTASK_SYSTEMD_TESTS))

PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
DOCDIR ?= $(PREFIX)/share/doc/tslack
INSTALLED := $(SBINDIR)/tslackctl $(MANDIR)/man8/tslackctl.8 \
	$(BASHCOMPDIR)/tslackctl $(UNITDIR)/tslack.service \
	$(SBINDIR)/tslackd $(MANDIR)/man8/tslackd.8 $(UNITDIR)/tslackd.service \
	$(UNITDIR)/tslack-follow.service $(DOCDIR)/examples/slack.d/50-kubelet.conf \
	$(DOCDIR)/examples/slack.d/60-desktop.conf \
	$(MANDIR)/man5/tslackd.conf.5 $(MANDIR)/man5/tslack-slack.d.5

# tslackctl needs libbpf and bpftool from the patched tree, not the kernel.
install-tools: deps
	vmtest/build-kernel --tree
	vmtest/build-tools

# The same pair from the pristine tarball's tools/ alone (make deb), libbpf
# built with LIBBPF_CFLAGS (debian/rules: dpkg-buildflags' CPPFLAGS and CFLAGS).
LIBBPF_CFLAGS ?= -g -O2
tarball-tools:
	TSLACK_LIBBPF_CFLAGS='$(LIBBPF_CFLAGS)' vmtest/build-tools --tarball

# The unit names where tslackctl is installed: made at each install.
install:
	[ $(SYSTEM_LIBBPF) = 1 ] || [ -f $(LIBBPF_A) ] || $(MAKE) install-tools
	$(MAKE) programs
	install -D -m 0755 $(BUILD)/tslackctl $(DESTDIR)$(SBINDIR)/tslackctl
	install -D -m 0755 $(BUILD)/tslackd $(DESTDIR)$(SBINDIR)/tslackd
	install -D -m 0644 src/tslackctl/tslackctl.8 $(DESTDIR)$(MANDIR)/man8/tslackctl.8
	install -D -m 0644 src/tslackd/tslackd.8 $(DESTDIR)$(MANDIR)/man8/tslackd.8
	install -D -m 0644 src/tslackd/tslackd.conf.5 $(DESTDIR)$(MANDIR)/man5/tslackd.conf.5
	install -D -m 0644 src/tslackd/tslack-slack.d.5 $(DESTDIR)$(MANDIR)/man5/tslack-slack.d.5
	install -D -m 0644 dist/tslackctl.bash $(DESTDIR)$(BASHCOMPDIR)/tslackctl
	# Examples of rules, to copy into /etc/tslack/slack.d: never read here.
	install -D -m 0644 dist/slack.d/50-kubelet.conf \
		$(DESTDIR)$(DOCDIR)/examples/slack.d/50-kubelet.conf
	install -D -m 0644 dist/slack.d/60-desktop.conf \
		$(DESTDIR)$(DOCDIR)/examples/slack.d/60-desktop.conf
	install -d $(DESTDIR)$(UNITDIR)
	for u in tslack tslack-follow tslackd; do \
		sed 's|@SBINDIR@|$(SBINDIR)|g' dist/$$u.service.in > $(DESTDIR)$(UNITDIR)/$$u.service && \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.service || exit 1; \
	done
	# The configuration is the admin's: never overwritten.
	[ -e $(DESTDIR)$(SYSCONFDIR)/tslack/tslackd.conf ] || \
		install -D -m 0644 dist/tslackd.conf $(DESTDIR)$(SYSCONFDIR)/tslack/tslackd.conf

# Into the running system (no DESTDIR): the units stopped and the policy
# detached first, so that every thread has its own slack back.
uninstall:
	if [ -z "$(DESTDIR)" ]; then \
		systemctl stop tslackd.service tslack-follow.service tslack.service 2>/dev/null; \
		[ ! -x $(SBINDIR)/tslackctl ] || $(SBINDIR)/tslackctl detach; \
	fi; true
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	[ -n "$(DESTDIR)" ] || systemctl daemon-reload 2>/dev/null || true

# The Debian package (debian/), built from a copy of the tree so that
# dpkg-buildpackage's ../ is build/deb; then lintian, failing on an error.
deb: deps-package
	vmtest/build-deb

# Debian 13's package, built and checked in a trixie root of the cache with
# trixie's own libbpf-dev, bpftool, debhelper and lintian: build/deb/trixie.
deb-trixie:
	vmtest/build-deb --suite trixie

# Host-side checks first; their PASS/FAIL lines count in the summary.
test: tools
	$(MAKE) vmroot
	tests/fuzz/run $(or $(FUZZ_SECONDS),20) > $(BUILD)/host-results.txt || true
	tests/host/test_install.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_commands.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_usage.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_fleet.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_deb.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_deb_trixie.sh >> $(BUILD)/host-results.txt || true
	tests/host/test_kernel_deb.sh >> $(BUILD)/host-results.txt || true
	# The series' own tests (kselftests, selftests/bpf's test_progs) on
	# the 6.12 kernel the guests boot, built from its tree (a minute).
	TSLACK_KERNEL=6.12 vmtest/test-next > $(BUILD)/series-tests-6.12.log 2>&1 || true
	vmtest/build-rootfs || true
	vmtest/build-rootfs --suite trixie || true
	# The guests, two at a time (vmtest/run-guests): the hook's systemd
	# guest boots what make kernel-deb packaged, in Debian 13's root with
	# Debian 13's package installed, as a user's machine would, then the
	# busybox guest; per-task mode runs on Debian 12's and 13's own kernels
	# (6.1, 6.12, 7.3) meanwhile.
	vmtest/run-guests "$$(ls build/kernel-deb/linux-image-*.deb 2>/dev/null | head -n 1)" \
		$(PACKAGES) > $(BUILD)/guest-results.txt || true
	@echo "# host"; cat $(BUILD)/host-results.txt $(BUILD)/series-results-6.12.txt \
		$(BUILD)/guest-results.txt
	vmtest/summarize $(BUILD)/host-results.txt $(BUILD)/series-results-6.12.txt \
		$(BUILD)/guest-results.txt

# Debian 12's package, then Debian 13's (make deb, make deb-trixie).
PACKAGES = "$$(ls build/deb/tslack_*_amd64.deb 2>/dev/null | head -n 1)" \
	"$$(ls build/deb/trixie/tslack_*_amd64.deb 2>/dev/null | head -n 1)"

# Per-task mode's tests alone, on Debian's own kernels, with the packages.
test-pertask: tools
	$(MAKE) vmroot deb deb-trixie
	vmtest/run-pertask-tests $(PACKAGES)

fuzz:
	tests/fuzz/run $(or $(FUZZ_SECONDS),60)

# From inside the kernel tree, as a maintainer would run it.
# Debian's python3 (with python3-ply and python3-git for the SPDX check)
# before any other one in PATH.
# The fixes of kernel-patch/base/ cite upstream commits that the tarball,
# a tree without history, cannot know.
# Both lines: the series in the 7.3 tree, its 6.12 backport in the 6.12 one.
# The 7.3 series' Fixes: tags cite commits the tarball cannot know, and
# its new selftest files are in directories MAINTAINERS already lists.
checkpatch: kernel
	TSLACK_KERNEL=7.3 vmtest/build-kernel --tree
	cd $(CACHE)/linux-source-7.3 && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES \
		$(abspath $(filter-out %/0000-cover-letter.patch,$(wildcard kernel-patch/*.patch)))
	cd $(CACHE)/linux-source-6.12 && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict \
		--ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES \
		$(abspath $(wildcard kernel-patch/6.12/*.patch))
	cd $(CACHE)/linux-source-6.12 && PATH=/usr/bin:$$PATH scripts/checkpatch.pl --strict \
		--ignore UNKNOWN_COMMIT_ID $(abspath $(wildcard kernel-patch/base/*.patch))

# The series on today's mainline: kernel-patch/ on trixie-backports'
# linux-source-7.3 (fetched into the cache), with the test configuration,
# in a tree and build directory of their own. Not part of make test.
kernel-next: deps
	TSLACK_KERNEL=7.3 vmtest/build-kernel

test-next: kernel-next
	$(MAKE) vmroot
	vmtest/test-next

demo: tools
	$(MAKE) vmroot
	vmtest/run -- tslack-demo

# The debug kernel (lockdep, KASAN) has its own build directory in $(CACHE).
stress: tools
	vmtest/build-kernel --debug
	$(MAKE) vmroot
	TSLACK_TEST_TIMEOUT=1800 vmtest/run-tests --debug -- tslack-stress $(or $(STRESS_SECONDS),30)

bench: tools kernel-vanilla
	$(MAKE) vmroot
	bench/run

# Needs a built kernel (make kernel); builds its own guest root and, if
# build/deb has none, the package. Options: bench/run-real IDLE_S ROUNDS ROUNDS_8.
bench-real: deps
	bench/run-real

bisect-check: tools
	$(MAKE) vmroot
	vmtest/bisect-check

bisect-check-next: tools
	$(MAKE) vmroot
	TSLACK_KERNEL=7.3 vmtest/bisect-check

clean:
	rm -rf $(BUILD) bpf/vmlinux.h
