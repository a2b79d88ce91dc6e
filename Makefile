# cfs: composefs for the podman/containers stack.
#   make                 build every tool into build/bin/
#   make SAN=1           the same with ASan+UBSan, into build/san/bin/
#   make check           build, then run every test tier (see tests/run)
#   make install         PREFIX=/usr/local DESTDIR= (tools, man pages, unit)
#   make install-dkms    the module's sources + dkms.conf in /usr/src (DESTDIR=)
#   make deb             Debian packages cfs and composefs-dkms in build/deb/
#   make bench           benchmarks (prints ratios against peers)

# debian/changelog's first line holds the version, for the packages and here.
VERSION := $(shell awk -F'[()]' 'NR == 1 { sub(/-[^-]*$$/, "", $$2); print $$2 }' debian/changelog)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= /sbin
MANDIR ?= $(PREFIX)/share/man
# Like Debian 12's systemd.pc: /lib/systemd/system for PREFIX=/usr;
# systemd also reads /usr/local/lib/systemd/system.
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),,$(PREFIX))/lib/systemd/system
DKMSDIR ?= /usr/src/composefs-$(VERSION)
# bash-completion loads a command's completion from the file of its name.
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
DEBDIR ?= build/deb

CC ?= cc
# libisal inflates gzip layers (src/lib/layer/gunzip.c); zlib is only for the unit
# tests, which make gzip streams with an encoder independent of ISA-L.
# gpgme, libyaml and libcurl check image signatures (src/lib/oci/sig-*.c).
PKGS := libarchive json-c libcrypto libfsverity mount libcap libisal zlib \
	gpgme yaml-0.1 libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS := $(shell pkg-config --libs $(PKGS))

ifeq ($(SAN),1)
BUILD ?= build/san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
OPT := -O1 -g
else
BUILD ?= build
SANFLAGS :=
OPT := -O2 -g
endif

CFLAGS ?= $(OPT)
WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wno-unused-parameter
CPPFLAGS_ALL := -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 \
	-Ikernel/include/uapi -Isrc/include $(PKG_CFLAGS)
ALL_CFLAGS := $(CPPFLAGS_ALL) $(CPPFLAGS) $(WARN) $(SANFLAGS) -pthread $(CFLAGS)
# each tool records only the libraries it uses (mount.composefs no gpgme)
ALL_LDFLAGS := $(SANFLAGS) -pthread -Wl,--as-needed $(LDFLAGS)
LIBS := $(PKG_LIBS)

LIB_SRCS := $(wildcard src/lib/*.c src/lib/*/*.c)
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/obj/%.o)
LIBCFS := $(BUILD)/libcfs.a

# tool name : source directory
TOOLS := oci2cfs:convert cfs-info:info mkcfs:mkcfs mount.composefs:mount-helper cfs-podman:podman cfs-store:store cfs-seal:seal
TOOL_NAMES := $(foreach t,$(TOOLS),$(word 1,$(subst :, ,$(t))))
TOOL_BINS := $(TOOL_NAMES:%=$(BUILD)/bin/%)

# Each tests/unit/test-*.c is one test binary; the other tests/unit/*.c are
# shared helpers (the tar builder, fixtures) linked into every one of them.
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
UNIT_HELPER_OBJS := $(patsubst tests/%.c,$(BUILD)/obj/tests/%.o, \
	$(filter-out $(UNIT_SRCS),$(wildcard tests/unit/*.c)))

all: $(TOOL_BINS) $(UNIT_BINS)

tools: $(TOOL_BINS)

# Tools see only the public headers (src/include/cfs/); the library and the
# unit tests also see the private ones beside the library's sources.
$(BUILD)/obj/lib/%.o $(BUILD)/obj/tests/%.o: PRIVATE_INC := -Isrc/lib

# --version prints debian/changelog's version; only tool-options.c needs it.
$(BUILD)/obj/lib/tool-options.o: VERSION_DEF := -DCFS_VERSION='"$(VERSION)"'
$(BUILD)/obj/lib/tool-options.o: debian/changelog

$(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRIVATE_INC) $(VERSION_DEF) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/obj/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PRIVATE_INC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(LIBCFS): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

define tool_rule
$(BUILD)/bin/$(1): $(patsubst src/%.c,$(BUILD)/obj/%.o,$(wildcard src/$(2)/*.c)) $(LIBCFS)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(ALL_LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(word 1,$(subst :, ,$(t))),$(word 2,$(subst :, ,$(t))))))

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(UNIT_HELPER_OBJS) $(LIBCFS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# For scripts that build with another compiler (tests/fuzz/run).
print-pkgs:
	@echo $(PKGS)

check: all
	tests/run

bench: all
	bench/run

# mount(8) looks for helpers in /sbin (util-linux 2.38's search path
# /sbin:/sbin/fs.d:/sbin/fs), so mount.composefs goes to SBINDIR.
# The systemd unit gets the installed path of cfs-podman.
install: $(TOOL_BINS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR)
	install -m 0755 $(filter-out %/mount.composefs,$(TOOL_BINS)) \
		$(DESTDIR)$(BINDIR)/
	install -m 0755 $(filter %/mount.composefs,$(TOOL_BINS)) \
		$(DESTDIR)$(SBINDIR)/
	ln -sf mount.composefs $(DESTDIR)$(SBINDIR)/umount.composefs
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	for f in man/*.8; do [ -e "$$f" ] || continue; \
		install -m 0644 "$$f" $(DESTDIR)$(MANDIR)/man8/; done
	ln -sf mount.composefs.8 $(DESTDIR)$(MANDIR)/man8/umount.composefs.8
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 contrib/bash-completion/cfs \
		$(DESTDIR)$(COMPLETIONDIR)/oci2cfs
	for t in cfs-store cfs-info mkcfs cfs-podman cfs-seal; do \
		ln -sf oci2cfs $(DESTDIR)$(COMPLETIONDIR)/$$t; done
	sed 's|@BINDIR@|$(BINDIR)|g' contrib/systemd/cfs-podman-sync.service.in \
		>$(DESTDIR)$(UNITDIR)/cfs-podman-sync.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/cfs-podman-sync.service

# The module's sources as DKMS builds them: the files of kernel/fs/composefs/
# (not what an in-place kernel build leaves there) with the format header at
# include/linux/composefs.h (dkms.conf adds -I include).
DKMS_SRCS := $(filter-out %.o %.ko %.mod %.mod.c %.symvers %.order, \
	$(wildcard kernel/fs/composefs/*))

install-dkms:
	install -d $(DESTDIR)$(DKMSDIR)/include/linux
	install -m 0644 $(DKMS_SRCS) $(DESTDIR)$(DKMSDIR)/
	sed 's|@VERSION@|$(VERSION)|g' contrib/dkms/dkms.conf.in \
		>$(DESTDIR)$(DKMSDIR)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMSDIR)/dkms.conf
	install -m 0644 kernel/include/uapi/linux/composefs.h \
		$(DESTDIR)$(DKMSDIR)/include/linux/

# Builds the packages from a copy of this tree, so nothing is written
# outside DEBDIR (dpkg-buildpackage writes into the parent directory).
deb:
	scripts/build-deb $(DEBDIR)

format:
	clang-format -i $$(git ls-files 'src/*.[ch]' 'tests/*.[ch]')

clean:
	rm -rf build

# Keep object files of the test programs (make would delete them).
.SECONDARY:

.PHONY: all tools check bench install install-dkms deb format clean print-pkgs

# Kernel module, test kernel and the QEMU tier live in kernel/kernel.mk.
-include kernel/kernel.mk
