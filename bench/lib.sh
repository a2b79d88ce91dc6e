# SPDX-License-Identifier: MIT
# What the registry benches (pull.sh, seal.sh) share, sourced after they
# set $tmp (their scratch directory) and $bench (their name, for errors).

# A TCP port on 127.0.0.1 that is free now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# registry NAME PORT: (re)starts a docker-registry on 127.0.0.1:PORT with
# empty storage $tmp/NAME (its log, with the access log: $tmp/NAME.log),
# and waits until it listens.
declare -A registry_pids
registry() {
	local name=$1 port=$2 i
	registry_stop "$name"
	rm -rf "${tmp:?}/$name"
	printf 'version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: %s\nhttp:\n  addr: 127.0.0.1:%s\n' \
		"$tmp/$name" "$port" >"$tmp/$name.yml"
	docker-registry serve "$tmp/$name.yml" >>"$tmp/$name.log" 2>&1 &
	registry_pids[$name]=$!
	for i in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$bench: registry $name did not start" >&2
	exit 1
}

registry_stop() { # [NAME...]: those registries, else every one
	local name names=("$@")
	[ $# -gt 0 ] || names=("${!registry_pids[@]}")
	for name in "${names[@]}"; do
		[ -n "${registry_pids[$name]:-}" ] || continue
		{ kill "${registry_pids[$name]}" && wait "${registry_pids[$name]}"; } 2>/dev/null || true
		unset "registry_pids[$name]"
	done
}

# The tools' executables and the libraries they load (a user's tools are
# usually in the page cache): into the array tools, for settle.
tool_files() { # COMMAND...
	local t p
	mapfile -t tools < <(for t in "$@"; do
		p=$(command -v "$t") || continue
		echo "$p"
		ldd "$p" 2>/dev/null | awk '/=> \//{print $3} /^\t\//{print $1}'
	done | sort -u)
}

# Before a timed command: nothing dirty, caches dropped, FILES... and the
# tools read back.
settle() { # FILES...
	sync
	echo 3 >/proc/sys/vm/drop_caches
	find "$@" -type f -exec cat {} + >/dev/null
	cat "${tools[@]}" >/dev/null
}

# Appends "LABEL seconds peak-KiB user-s system-s load" to $tmp/times.
timed() { # LABEL COMMAND...
	local label=$1 load
	shift
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -f "$label %e %M %U %S $load" -a -o "$tmp/times" "$@" \
		>/dev/null 2>"$tmp/err" ||
		{ cat "$tmp/err" >&2; echo "$bench: $label failed" >&2; exit 1; }
}
