#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The dependency step's own test: deps.sh must ask apt-get for exactly the
# packages dpkg does not have installed (known or not), stay silent when
# none is missing, and fail naming the packages when apt-get fails.
# apt-get (and sudo) are stubs here; dpkg-query is the real one in the
# last case, with a package no archive has.  Prints TAP.
wb=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/bin" "$tmp/fake"

# apt-get: log each call; "install" fails when STUB_APT_RC says so.
cat > "$tmp/bin/apt-get" <<'STUB'
#!/bin/sh
echo "$*" >> "$STUB_LOG"
case " $* " in *" install "*) exit "${STUB_APT_RC:-0}";; esac
exit 0
STUB
printf '#!/bin/sh\nexec "$@"\n' > "$tmp/bin/sudo"
# dpkg-query as dpkg answers: "installed", "not-installed" for a package
# it knows of (STUB_NOT_INSTALLED), an error for one it never heard of
# (STUB_UNKNOWN).
cat > "$tmp/fake/dpkg-query" <<'STUB'
#!/bin/sh
p=$(eval echo \${$#})
case " $STUB_UNKNOWN " in *" $p "*)
	echo "dpkg-query: no packages found matching $p" >&2; exit 1;;
esac
case " $STUB_NOT_INSTALLED " in *" $p "*) printf not-installed; exit 0;; esac
printf installed
STUB
chmod +x "$tmp/bin/"* "$tmp/fake/"*

n=0 fail=0
# run NAME FAKE_DPKG(0/1) WANT_RC WANT_INSTALL [ENV...]
run() {
	local name=$1 fake=$2 want_rc=$3 want=$4 path
	shift 4
	path=$tmp/bin:$PATH
	[ "$fake" = 1 ] && path=$tmp/fake:$path
	: > "$tmp/log"
	env "$@" STUB_LOG="$tmp/log" PATH="$path" bash "$wb/deps.sh" \
		> "$tmp/out" 2>&1
	rc=$?
	got=$(sed -n 's/.*install -y -qq --no-install-recommends //p' "$tmp/log")
	n=$((n + 1))
	if [ $rc = "$want_rc" ] && [ "$got" = "$want" ] &&
	   { [ -n "$want" ] || [ ! -s "$tmp/log" ]; } &&
	   { [ "$want_rc" = 0 ] || grep -q "could not install: $want" "$tmp/out"; }; then
		echo "ok $n deps_$name"
	else
		echo "not ok $n deps_$name # rc $rc (want $want_rc), apt-get asked for '$got' (want '$want')"
		sed 's/^/# /' "$tmp/out" "$tmp/log"
		fail=1
	fi
}

echo "TAP version 13"
echo "1..5"
run nothing_missing 1 0 ""
run not_installed 1 0 "acl" STUB_NOT_INSTALLED=acl
run unknown_and_not_installed 1 0 "acl flex fuse-bpf-test-absent" \
	STUB_NOT_INSTALLED="flex acl" STUB_UNKNOWN=fuse-bpf-test-absent \
	EXTRA_PKGS=fuse-bpf-test-absent
run apt_fails 1 1 "cpio" STUB_NOT_INSTALLED=cpio STUB_APT_RC=100
run real_dpkg_query_unknown 0 0 "fuse-bpf-test-absent" \
	EXTRA_PKGS=fuse-bpf-test-absent
exit $fail
