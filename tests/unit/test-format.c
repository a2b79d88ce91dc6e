// SPDX-License-Identifier: MIT
/* Pins every size and offset of the on-disk format (linux/composefs.h). */
#include <stddef.h>

#include <linux/composefs.h>

#include "tap.h"

#define PIN(type, field, off)                                                  \
	ok(offsetof(struct type, field) == (off), #type "." #field " at %d",   \
	   (off))
#define SIZE(type, n) ok(sizeof(struct type) == (n), #type " is %d bytes", (n))

int main(void)
{
	SIZE(cfs_disk_superblock, CFS_SUPERBLOCK_SIZE);
	SIZE(cfs_disk_superblock, 128);
	PIN(cfs_disk_superblock, version, 0);
	PIN(cfs_disk_superblock, magic, 4);
	PIN(cfs_disk_superblock, vdata_offset, 8);
	PIN(cfs_disk_superblock, unused, 16);

	SIZE(cfs_disk_vdata, 12);
	PIN(cfs_disk_vdata, off, 0);
	PIN(cfs_disk_vdata, len, 8);

	SIZE(cfs_disk_inode, CFS_INODE_SIZE);
	SIZE(cfs_disk_inode, 96);
	PIN(cfs_disk_inode, st_mode, 0);
	PIN(cfs_disk_inode, st_nlink, 4);
	PIN(cfs_disk_inode, st_uid, 8);
	PIN(cfs_disk_inode, st_gid, 12);
	PIN(cfs_disk_inode, st_rdev, 16);
	PIN(cfs_disk_inode, st_size, 20);
	PIN(cfs_disk_inode, st_mtim_sec, 28);
	PIN(cfs_disk_inode, st_mtim_nsec, 36);
	PIN(cfs_disk_inode, st_ctim_sec, 40);
	PIN(cfs_disk_inode, st_ctim_nsec, 48);
	PIN(cfs_disk_inode, variable_data, 52);
	PIN(cfs_disk_inode, xattrs, 64);
	PIN(cfs_disk_inode, digest, 76);
	PIN(cfs_disk_inode, unused, 88);

	SIZE(cfs_disk_dirent, CFS_DIRENT_SIZE);
	SIZE(cfs_disk_dirent, 12);
	PIN(cfs_disk_dirent, inode_num, 0);
	PIN(cfs_disk_dirent, name_offset, 4);
	PIN(cfs_disk_dirent, name_len, 8);
	PIN(cfs_disk_dirent, d_type, 9);
	PIN(cfs_disk_dirent, _padding, 10);
	PIN(cfs_disk_dir_header, dirents, 4);

	SIZE(cfs_disk_xattr_element, CFS_XATTR_ELEM_SIZE);
	SIZE(cfs_disk_xattr_element, 4);
	PIN(cfs_disk_xattr_element, key_length, 0);
	PIN(cfs_disk_xattr_element, value_length, 2);
	PIN(cfs_disk_xattr_header, attr, 2);

	ok(CFS_MAGIC == 0xc078629aU, "magic");
	ok(CFS_VERSION == 1, "version");
	return tap_done();
}
