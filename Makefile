# SPDX-License-Identifier: GPL-2.0
#
# FUSE-BPF workbench.  Everything is built outside the checkout, in
# $(WORKDIR) (default /var/cache/fuse-bpf, or $XDG_CACHE_HOME/fuse-bpf).
#
#   make check          build what changed, boot the kernel in QEMU, run the
#                       selftests, scan the kernel log; ends "N passed, N failed"
#   make check T="x y"  only the selftest programs x and y
#                       (MOD_TESTS="...": a second boot, FUSE as a module
#                       without KASAN, runs those)
#   make demo           boot the kernel and show what works today
#   make run [CMD=...]  a shell in the guest, or one command there (cwd shared rw)
#   make tree           assemble the patched tree in $(WORKDIR)/linux
#   make refresh        write edits made in that tree back into patches/
#   make kernel         build bzImage (tinyconfig + Kconfig.fragment)
#   make kernel-mod     the same without KASAN (make check MOD_TESTS=...)
#   make selftests      build libbpf, bpftool and the selftests from the tree
#   make samples        build samples/fuse (fusebpf, fusebpf_viewd, filters)
#   make deps           install the Debian packages needed (apt-get)
#   make series         the mailable series: git format-patch output with a
#                       cover letter in out/series (SERIES_DIR=dir elsewhere;
#                       SERIES_AUTHOR="Name <addr>", default git user.*)
#   make series-check   git am the series on pristine 6.12 in a scratch git
#                       repository; build, checkpatch, sparse and W=1 after
#                       each patch; compare the result with make tree's
#   make bench          build a kernel without debug options, boot it, measure
#                       FUSE-BPF against native, overlayfs and FUSE daemons
#                       (NOTREE=1: use $(WORKDIR)/linux as it is, unassembled)
#   make fstests FSTESTS=dir  run fstests (built by hand in dir, as its README
#                       says) on ext4, FUSE-BPF (pure, filtered, daemon) and
#                       overlayfs in one guest of the bench kernel
#                       (FSTESTS_KERNEL=bzImage: boot that, build nothing;
#                       FSTESTS_GROUP=quick: fstests' whole generic quick
#                       group; more in workbench/fstests.sh)

XDG_CACHE_HOME ?= /var/cache
WORKDIR ?= $(XDG_CACHE_HOME)/fuse-bpf
export WORKDIR

WB := workbench
# Jobs of the selftests' build (as workbench/common.sh's for the kernel)
JOBS ?= $(shell expr $$(nproc) + 1)
KBUILD_VARS = CLANG=clang-19 VMLINUX_BTF=$(WORKDIR)/build/vmlinux \
		KHDR_INCLUDES="-isystem $(WORKDIR)/build/usr/include"
# The selftests are built and installed as kselftest users do, with the
# kernel's build directory as O=: objects in build/kselftest/, the installed
# tree (run_kselftest.sh, kselftest-list.txt) in kselftest/.
KSFT_VARS = -C $(WORKDIR)/linux/tools/testing/selftests TARGETS=filesystems/fuse \
	    O=$(WORKDIR)/build CLANG=clang-19 KSFT_INSTALL_PATH=$(WORKDIR)/kselftest
SAMPLES_SRC = $(WORKDIR)/linux/samples/fuse
SAMPLES_OUT = $(WORKDIR)/samples/fuse

.PHONY: all deps host-tests tree refresh kernel kernel-mod selftests samples check run demo \
	bench clean series series-check fstests
all: kernel selftests

deps:
	@$(WB)/deps.sh

tree: deps
	@$(WB)/tree.sh assemble

refresh:
	@$(WB)/tree.sh refresh

kernel: tree
	@$(WB)/kernel.sh

selftests: kernel
	@echo "==> building and installing the selftests (kselftest, O=$(WORKDIR)/build)"
	@$(MAKE) -s -j$(JOBS) $(KSFT_VARS) install > $(WORKDIR)/kselftest.log 2>&1 || \
		{ cat $(WORKDIR)/kselftest.log; exit 1; }
	@grep -i 'warning' $(WORKDIR)/kselftest.log || true

# The user tools and sample filters, as a user builds them (make demo's)
samples: kernel
	@mkdir -p $(SAMPLES_OUT)
	@$(MAKE) -s -C $(SAMPLES_SRC) OUTPUT=$(SAMPLES_OUT) $(KBUILD_VARS) all

# The workbench's own tests run first, so that they fail before a long build.
host-tests: deps
	@$(WB)/host-tests.sh

export MOD_TESTS
check: host-tests selftests $(if $(MOD_TESTS),kernel-mod)
	@$(WB)/check.sh $(T)

# The second kernel of make check: FUSE built as a module
kernel-mod: tree
	@$(WB)/kernel-mod.sh

run: selftests
ifeq ($(CMD),)
	@$(WB)/vm.sh -i -w $(CURDIR)
else
	@$(WB)/vm.sh -w $(CURDIR) -- sh -c "$$CMD"
endif

demo: samples
	@$(WB)/vm.sh -- $(CURDIR)/$(WB)/demo.sh $(SAMPLES_OUT)

# The bench kernel has its own build directory and configuration
# (workbench/bench/Kconfig.bench); see workbench/bench.sh for BENCH_* knobs.
bench: $(if $(NOTREE),deps,tree)
	@$(WB)/bench.sh

export FSTESTS FSTESTS_KERNEL FSTESTS_GROUP FSTESTS_CONFIGS
fstests: $(if $(FSTESTS_KERNEL),deps,tree)
	@$(WB)/fstests.sh

series: deps
	@$(WB)/series.sh

series-check: tree
	@$(WB)/series-check.sh

clean:
	rm -rf $(WORKDIR)/build $(WORKDIR)/build-mod $(WORKDIR)/build-bench $(WORKDIR)/bench-tools \
		$(WORKDIR)/kselftest $(WORKDIR)/samples $(WORKDIR)/runs
