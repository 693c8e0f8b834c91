# raid5x: out-of-tree md RAID5 personality (module md-raid5x.ko)
#
#   make              build md-raid5x.ko for the installed Debian kernel
#   make KVER=...     build for another kernel: installed, or a Debian
#                     release of 6.12/7.x (KVER=6.12, KVER=7: the current
#                     one), fetched and built in a root (scripts/kroot.sh)
#   make KDIR=... MDSRC=...  build against a kernel tree (debug kernel)
#   make check        run the whole test suite in QEMU guests
#   make bench        run the side-by-side benchmark (raid456 vs raid5x)
#   make demo         the README's main job
#   make deps         install the Debian packages everything needs

KVER  ?= $(shell scripts/kver.sh)
KDIR  ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
MDINC ?= $(BUILD)/mdinc/$(KVER)
MDSRC ?=
# no headers of KVER here (trixie's 6.12, forky's 7.x) or a line (6.1, 6.12,
# 7): scripts/kroot.sh fetches what it needs (as root, cached in
# /var/cache/raid5x/roots) and builds in a root of that release
KROOT := $(if $(filter file,$(origin KDIR)),$(if $(wildcard $(KDIR)/Makefile),,1))
ifeq ($(KROOT)$(findstring -,$(KVER)),1)
override KVER := $(shell scripts/kroot.sh resolve $(KVER) || echo $(KVER))
endif

.PHONY: all module deps check lint demo bench clean

all: module

$(MDINC)/md.h:
	scripts/mdheaders.sh $(KVER) $(MDINC) $(MDSRC)

ifeq ($(KROOT),1)
module:
	scripts/kroot.sh make $(KVER) $(CURDIR) W=1
else
module: $(MDINC)/md.h
	@scripts/kroot.sh check $(KVER)
	scripts/kfeatures.sh $(KDIR) $(MDINC)
	$(MAKE) -C $(KDIR) M=$(CURDIR) MDINC=$(MDINC) W=1 modules
endif

deps:
	scripts/setup.sh

check:
	tests/run.sh

lint:
	scripts/lint.sh

demo:
	scripts/demo.sh

bench:
	scripts/bench.sh $(BENCH_ARGS)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean || true
	rm -rf $(BUILD)

# ---- install, dkms, patched mdadm (issue 6) --------------------------------
#   make install      md-raid5x.ko -> $(DESTDIR)/lib/modules/$(KVER)/updates/,
#                     then depmod (only when DESTDIR is empty)
#   make uninstall    remove it again (depmod likewise)
#   make mdadm        build/mdadm/mdadm: Debian's mdadm + patches/mdadm/*.patch
#                     (--level=raid5x, level=raid5x on ARRAY lines)
#   make mdadm-forky  build/mdadm-forky/mdadm: forky's mdadm 4.6, unpatched
#                     (the guest's --bitmap=lockless, case 71)
INSTALL_MOD_DIR ?= updates
DESTDIR ?=

.PHONY: install uninstall mdadm mdadm-forky

install: module
	install -D -m 644 md-raid5x.ko $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/md-raid5x.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/$(INSTALL_MOD_DIR)/md-raid5x.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

mdadm:
	scripts/build-mdadm.sh $(BUILD)/mdadm

mdadm-forky:
	scripts/build-mdadm.sh --release forky $(BUILD)/mdadm-forky

# ---- mdadm's own raid5 tests (issue 5) -------------------------------------
#   make mdadm-tests  mdadm's test suite (Debian source package) on raid456,
#                     then on raid5x (claim_raid5=1), one QEMU guest per pass;
#                     report in $(BUILD)/mdadm-tests/report.md. MDADM_TESTS_ARGS
#                     passes options (e.g. --tests 00raid5,01r5fail --parallel).
#                     Not in make check: 40-90 min for both passes under TCG.
.PHONY: mdadm-tests
mdadm-tests:
	BUILD=$(BUILD) scripts/mdadm-tests.sh $(MDADM_TESTS_ARGS)

# ---- rebuild time, raid5x vs raid456 (issue 5) ------------------------------
#   make rebuild-bench  one guest: fail/remove/add a spare on a 4-member array,
#                       recovery timed under each personality, interleaved;
#                       Markdown table. REBUILD_ARGS passes options.
.PHONY: rebuild-bench
rebuild-bench:
	scripts/rebuild-bench.sh $(REBUILD_ARGS)

# ---- differential torture run: raid456 as the oracle for raid5x ------------
#   make torture        seeded twin arrays (raid456, raid5x) of one random
#                       geometry through the same random steps in one QEMU
#                       guest (scripts/torture.sh, tests/torture/); any
#                       divergence prints its seed and a shrunk step list.
#                       SEQS=N sequences (default 20), SEED=S first seed;
#                       TORTURE_ARGS passes options (--kernel 6.1|6.12|7|debug,
#                       --skip-step KIND, --replay 'LIST', --batch N).
#                       Ends with "N passed, N failed"; appends a row to
#                       tests/torture/RESULTS.md.
#   make torture-helper $(BUILD)/torture/tortio, the static I/O helper the
#                       guest runs (tests/cases/94-torture.sh needs it)
.PHONY: torture torture-helper
torture:
	scripts/torture.sh $(if $(SEQS),--seqs $(SEQS)) $(if $(SEED),--seed $(SEED)) $(TORTURE_ARGS)

torture-helper: $(BUILD)/torture/tortio

$(BUILD)/torture/tortio: tests/torture/tortio.c
	mkdir -p $(BUILD)/torture
	gcc -O2 -Wall -Wextra -static -o $@ $<

# ---- the monthly scrub of raid5x arrays (issue 26) --------------------------
#   make install-scrub    scripts/raid5x-scrub -> $(DESTDIR)$(SBINDIR)/, its
#                         systemd service and timer (contrib/systemd/) ->
#                         $(DESTDIR)$(UNITDIR)/; with systemd running (and no
#                         DESTDIR) enables the timer: the first Sunday of the
#                         month at 1:00 (Debian's checkarray skips raid5x)
#   make uninstall-scrub  disable the timer, remove the three files
#   make install-tools    install-scrub, and keeping arrays on raid5x with the
#                         release's own mdadm: scripts/raid5x-array ->
#                         $(DESTDIR)$(SBINDIR)/, contrib/udev/65-md-raid5x.rules
#                         -> $(DESTDIR)$(UDEVDIR)/rules.d/, raid5x-arrays.service
#                         (enabled; fails when a recorded array is not on raid5x)
#   make uninstall-tools  the reverse (/etc/raid5x/arrays is kept)
SBINDIR ?= /usr/sbin
UNITDIR ?= /etc/systemd/system
UDEVDIR ?= /etc/udev

.PHONY: install-scrub uninstall-scrub install-tools uninstall-tools

install-scrub:
	install -D -m 755 scripts/raid5x-scrub $(DESTDIR)$(SBINDIR)/raid5x-scrub
	install -D -m 644 contrib/systemd/raid5x-scrub.service $(DESTDIR)$(UNITDIR)/raid5x-scrub.service
	install -D -m 644 contrib/systemd/raid5x-scrub.timer $(DESTDIR)$(UNITDIR)/raid5x-scrub.timer
	@if [ -n "$(DESTDIR)" ]; then \
		echo "staged under $(DESTDIR): enable raid5x-scrub.timer on the target system"; \
	elif [ -d /run/systemd/system ]; then \
		echo "systemctl daemon-reload && systemctl enable --now raid5x-scrub.timer"; \
		systemctl daemon-reload && systemctl enable --now raid5x-scrub.timer; \
	else \
		echo "systemd is not running: raid5x-scrub.timer not enabled; run $(SBINDIR)/raid5x-scrub from cron on the first Sunday of the month instead"; \
	fi

uninstall-scrub:
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		echo "systemctl disable --now raid5x-scrub.timer"; \
		systemctl disable --now raid5x-scrub.timer || true; \
	fi
	rm -f $(DESTDIR)$(SBINDIR)/raid5x-scrub $(DESTDIR)$(UNITDIR)/raid5x-scrub.service $(DESTDIR)$(UNITDIR)/raid5x-scrub.timer
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then systemctl daemon-reload; fi

install-tools: install-scrub
	install -D -m 755 scripts/raid5x-array $(DESTDIR)$(SBINDIR)/raid5x-array
	install -D -m 644 contrib/udev/65-md-raid5x.rules $(DESTDIR)$(UDEVDIR)/rules.d/65-md-raid5x.rules
	install -D -m 644 contrib/systemd/raid5x-arrays.service $(DESTDIR)$(UNITDIR)/raid5x-arrays.service
	@if [ -n "$(DESTDIR)" ]; then \
		echo "staged under $(DESTDIR): enable raid5x-arrays.service on the target system"; \
	elif [ -d /run/systemd/system ]; then \
		echo "udevadm control --reload; systemctl enable raid5x-arrays.service"; \
		udevadm control --reload; systemctl daemon-reload && systemctl enable raid5x-arrays.service; \
	fi

uninstall-tools: uninstall-scrub
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl disable raid5x-arrays.service || true; \
	fi
	rm -f $(DESTDIR)$(SBINDIR)/raid5x-array $(DESTDIR)$(UDEVDIR)/rules.d/65-md-raid5x.rules $(DESTDIR)$(UNITDIR)/raid5x-arrays.service
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then udevadm control --reload; systemctl daemon-reload; fi

# ---- real boots per Debian release (issue 26) ------------------------------
#   make boot-test      scripts/boot-test.sh for each of BOOT_TEST_RELEASES
#                       (default: bookworm trixie forky): a debootstrapped
#                       server of that release booted in QEMU with its own
#                       kernel, systemd, udev and mdadm; README's install,
#                       reboots, scrub timer, fstrim, grow, monitor, kernel
#                       upgrade, module missing. Not in make check (times:
#                       tests/README.md). BOOT_TEST_ARGS passes options.
BOOT_TEST_RELEASES ?= bookworm trixie forky
.PHONY: boot-test
boot-test:
	@rc=0; for r in $(BOOT_TEST_RELEASES); do \
		scripts/boot-test.sh --release $$r $(BOOT_TEST_ARGS) || rc=1; \
	done; exit $$rc
