# Section "fixtures": every OCI fixture image (oci-fixtures/out/fixtures.list
# and archives.list) converted by oci2cfs into a store on the verity ext4,
# every new object and the manifest checked for fs-verity, mounted with
# `mount -t composefs` through mount.composefs with digest=, and the mounted
# tree compared with the `umoci unpack` of the same image (refdump.py
# --normalise on both sides). The work is in tests/vm/fixtures-compare.py:
# one process, as every process started is slow under TCG and KASAN.
. "$repo/tests/vm/e2e-lib.sh"

fixtures() {
	fixtures_ready fixtures || return
	if ! helper_install; then
		nok "fixtures: install mount.composefs as /sbin/mount.composefs"
		return
	fi
	$py $here/fixtures-compare.py run "$FX" $S $S/fx-store /tmp/fx-mnt
	helper_remove
}
